// A chat request as the mock LLM server receives it. First byte: the dialect
// (mod 4); then the request path up to the first '\n', then the body. The
// server-side parser never throws, and a parsed request, encoded again by the
// client side of the same dialect, parses to the same model and messages.
#include <cstdint>
#include <string>
#include <string_view>

#include "tests/fuzz/dialect_pick.hpp"
#include "tests/fuzz/fuzz_check.hpp"

using kaisha::fuzz::check;
namespace llm = kaisha::llm;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const llm::Dialect& d = kaisha::fuzz::pick_dialect(data[0]);
  std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  size_t nl = rest.find('\n');
  std::string_view path = nl == std::string_view::npos ? std::string_view{} : rest.substr(0, nl);
  std::string_view body = nl == std::string_view::npos ? rest : rest.substr(nl + 1);

  (void)d.parse_embed_request(path, body);
  auto r = d.parse_chat_request(path, body);
  if (!r.ok()) return 0;

  const std::string base = "http://127.0.0.1:1";
  llm::HttpRequestSpec spec = d.chat_request(*r, llm::Endpoint{base, "", {}});
  check(spec.url.rfind(base, 0) == 0, "the request URL starts with the endpoint");
  auto again = d.parse_chat_request(spec.url.substr(base.size()), spec.body);
  check(again.ok(), "a parsed request, encoded again, parses again");
  check(again->model == r->model, "the model survives a round trip");
  check(again->messages.size() == r->messages.size(), "the message count survives a round trip");
  return 0;
}
