// Server-sent-event streams from an LLM provider. Bytes arrive split at any
// boundary, so the events must not depend on where the splits fall: the input
// fed whole and fed in pieces (sizes taken from the first byte) give the same
// events. Lines never contain a line feed. (A carriage return is a line end
// only before a line feed, as sse_parser.hpp says; "a\r\r\n" is the line
// "a\r", and a lone CR, which the SSE spec also allows, does not end a line.)
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/llm/sse_parser.hpp"
#include "tests/fuzz/fuzz_check.hpp"

using kaisha::fuzz::check;
namespace llm = kaisha::llm;

namespace {

std::vector<std::pair<std::string, std::string>> events(std::string_view body, size_t piece) {
  llm::SseParser parser;
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t i = 0; i < body.size(); i += piece)
    parser.feed(body.substr(i, piece), [&](const llm::SseEvent& e) { out.emplace_back(e.event, e.data); });
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  size_t piece = data[0] % 16 + 1;
  std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);

  auto whole = events(body, body.size() + 1);
  check(whole == events(body, piece), "events do not depend on how the bytes were split");

  llm::LineSplitter lines;
  for (size_t i = 0; i < body.size(); i += piece)
    lines.feed(body.substr(i, piece), [](std::string_view line) {
      check(line.find('\n') == std::string_view::npos, "a line holds no line feed");
    });
  return 0;
}
