// A progress event read from a stream (`kaisha watch`) and written again as
// the line /events and `kaisha run --json` send: reading never crashes; an
// event it accepts is written as valid JSON that reads back to the same
// event, and as the text nlohmann would write for its tree.
#include <cstdint>
#include <string_view>

#include "runtime/core/json_text.hpp"
#include "runtime/messages/progress_event_json.hpp"
#include "tests/fuzz/fuzz_check.hpp"

using kaisha::json;
using kaisha::fuzz::check;
namespace msg = kaisha::msg;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded()) return 0;
  auto e = msg::progress_event_from_json(j);
  if (!e.ok()) {
    check(!e.error().message.empty(), "a refusal says why");
    return 0;
  }
  const std::string line = msg::progress_event_line(*e);
  check(kaisha::fuzz::valid_utf8(line), "the line is UTF-8");
  json back = json::parse(line, nullptr, false);
  check(!back.is_discarded(), "the line is JSON");
  auto again = msg::progress_event_from_json(back);
  check(again.ok(), "the line reads back");
  check(again->kind == e->kind && again->tokens_in == e->tokens_in && again->at_ms == e->at_ms,
        "the line keeps the event's kind and numbers");
  check(json(again->text) == json::parse(kaisha::dump_text(json(e->text))), "the line keeps the text");
  return 0;
}
