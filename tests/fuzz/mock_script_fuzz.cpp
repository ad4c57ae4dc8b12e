// The mock LLM's script (YAML rules). parse_mock_script never throws; errors
// have code "config" and start with the source name; an accepted rule has
// exactly one of reply / fault.
#include <cstdint>
#include <string_view>

#include "runtime/mockllm/mock_script.hpp"
#include "tests/fuzz/fuzz_check.hpp"

using kaisha::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = kaisha::mockllm::parse_mock_script(text, "fuzz.yaml");
  if (!r.ok()) {
    check(r.error().code == "config", "script errors have code config");
    check(r.error().message.rfind("fuzz.yaml", 0) == 0, "script errors name the source");
    return 0;
  }
  for (const auto& rule : r->rules)
    check(rule.reply.has_value() != rule.fault.has_value(), "a rule has exactly one of reply/fault");
  return 0;
}
