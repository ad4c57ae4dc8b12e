// The "input" of an ACP run request (POST /runs), as a peer sends it: a list
// of messages whose plain-text parts become the task. input_text never throws
// whatever the JSON; its text is valid UTF-8 and its errors (code
// "invalid_input") name the offending element.
#include <cstdint>
#include <string_view>

#include "protocols/acp/acp_run.hpp"
#include "tests/fuzz/fuzz_check.hpp"

using kaisha::json;
using kaisha::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  json input = json::parse(text, nullptr, false);
  if (input.is_discarded()) return 0;

  auto r = kaisha::acp::input_text(input);
  if (r.ok()) {
    check(kaisha::fuzz::valid_utf8(*r), "the input text is valid UTF-8");
    (void)json(*r).dump();
  } else {
    check(r.error().code == "invalid_input", "input errors have code invalid_input");
    check(r.error().message.rfind("input", 0) == 0, "input errors name the element");
    (void)json(r.error().message).dump();
  }
  return 0;
}
