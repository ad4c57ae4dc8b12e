// A provider's non-streamed chat (and embeddings) response body. First byte:
// the dialect (0 openai, 1 ollama, 2 gemini, 3 anthropic, mod 4). The decoder
// never throws; a decoded response is rendered back by the same dialect and
// decodes again to the same message; error descriptions are valid UTF-8
// text.
#include <cstdint>
#include <string_view>

#include "runtime/core/json.hpp"
#include "tests/fuzz/dialect_pick.hpp"
#include "tests/fuzz/fuzz_check.hpp"

using kaisha::fuzz::check;
namespace llm = kaisha::llm;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const llm::Dialect& d = kaisha::fuzz::pick_dialect(data[0]);
  std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);

  auto r = d.parse_chat_response(body);
  if (r.ok()) {
    std::string rendered = d.render_chat_response(*r);
    auto again = d.parse_chat_response(rendered);
    check(again.ok(), "a decoded response, rendered back, decodes again");
    check(again->message.content == r->message.content, "the text survives a round trip");
    check(again->message.tool_calls.size() == r->message.tool_calls.size(), "the tool calls survive a round trip");
    for (size_t i = 0; i < r->message.tool_calls.size(); ++i)
      check(again->message.tool_calls[i].name == r->message.tool_calls[i].name, "tool call names survive a round trip");
  } else {
    check(r.error().code == "llm", "decode errors have code llm");
  }

  auto e = d.parse_embed_response(body);
  if (e.ok()) (void)d.render_embed_response(*e);

  // Error messages end up in logs and in JSON replies to clients.
  std::string described = d.describe_error(400, body);
  if (kaisha::fuzz::valid_utf8(body))
    check(kaisha::fuzz::valid_utf8(described), "an error description of UTF-8 text is UTF-8");
  return 0;
}
