// Bytes of one connection to the mock LLM server, arriving in pieces (size
// from the first byte). The parser never throws; requests come out whole, in
// order, the same whatever the piece size; errors carry one of the documented
// statuses; a body never exceeds its limit.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/mockllm/http_request_parser.hpp"
#include "tests/fuzz/fuzz_check.hpp"

using kaisha::fuzz::check;
namespace mock = kaisha::mockllm;

namespace {

constexpr mock::HttpRequestParser::Limits kLimits{4096, 16384};

struct Outcome {
  std::vector<std::string> requests;  // method, target and body of each, joined
  int error_status = 0;
  bool operator==(const Outcome&) const = default;
};

Outcome run(std::string_view bytes, size_t piece) {
  mock::HttpRequestParser parser(kLimits);
  Outcome out;
  for (size_t i = 0; i < bytes.size(); i += piece) {
    parser.feed(bytes.substr(i, piece));
    (void)parser.take_continue();
    for (;;) {
      mock::HttpRequest req;
      auto state = parser.next(req);
      if (state == mock::HttpRequestParser::State::need_more) break;
      if (state == mock::HttpRequestParser::State::error) {
        int s = parser.error_status();
        check(s == 400 || s == 413 || s == 431 || s == 501 || s == 505, "error status as documented");
        check(!parser.error_message().empty(), "an error says what was wrong");
        out.error_status = s;
        return out;
      }
      check(req.body.size() <= kLimits.max_body_bytes, "a body stays within its limit");
      // Origin-form ("/x?q"): the path starts the target. Absolute-form
      // ("http://host/x?q"): it starts after the authority, "/" without one.
      const std::string_view target = req.target;
      if (target.starts_with("http://") || target.starts_with("https://")) {
        const size_t slash = target.find('/', target.find("//") + 2);
        check(slash == std::string_view::npos ? req.path == "/" : target.substr(slash).starts_with(req.path),
              "the path is the absolute-form target's path");
      } else {
        check(target.starts_with(req.path), "the path is a prefix of the target");
      }
      out.requests.push_back(req.method + ' ' + req.target + '\n' + req.body);
      if (!req.keep_alive) return out;
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  size_t piece = data[0] % 64 + 1;
  std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  Outcome whole = run(bytes, bytes.size() + 1);
  Outcome split = run(bytes, piece);
  check(whole == split, "requests do not depend on how the bytes were split");
  return 0;
}
