// A provider's streamed chat response (SSE, or NDJSON for ollama). First
// byte: the dialect (mod 4) and the piece size the bytes arrive in. The
// decoder never throws; its result does not depend on where the bytes were
// split; and a decoded response, rendered as a stream by the same dialect,
// decodes to the same text.
#include <cstdint>
#include <string>
#include <string_view>

#include "tests/fuzz/dialect_pick.hpp"
#include "tests/fuzz/fuzz_check.hpp"

using kaisha::fuzz::check;
namespace llm = kaisha::llm;

namespace {

kaisha::Result<llm::ChatResponse> decode(const llm::Dialect& d, std::string_view body, size_t piece,
                                         std::string* streamed_text) {
  auto decoder = d.stream_decoder();
  if (streamed_text) decoder->on_text = [&](std::string_view t) { streamed_text->append(t); };
  for (size_t i = 0; i < body.size(); i += piece) decoder->feed(body.substr(i, piece));
  return decoder->finish();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const llm::Dialect& d = kaisha::fuzz::pick_dialect(data[0]);
  size_t piece = (data[0] >> 2) % 32 + 1;
  std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);

  std::string streamed;
  auto whole = decode(d, body, body.size() + 1, nullptr);
  auto pieces = decode(d, body, piece, &streamed);
  check(whole.ok() == pieces.ok(), "success does not depend on how the bytes were split");
  if (!whole.ok()) {
    check(whole.error().code == "llm", "stream errors have code llm");
    return 0;
  }
  check(whole->message.content == pieces->message.content, "the text does not depend on the split");
  check(whole->message.tool_calls.size() == pieces->message.tool_calls.size(),
        "the tool calls do not depend on the split");
  check(streamed == pieces->message.content, "on_text saw exactly the final text");

  std::string rendered;
  for (const auto& chunk : d.render_chat_stream(*whole)) rendered += chunk;
  auto again = decode(d, rendered, rendered.size() + 1, nullptr);
  check(again.ok(), "a decoded stream, rendered back, decodes again");
  check(again->message.content == whole->message.content, "the text survives a round trip");
  return 0;
}
