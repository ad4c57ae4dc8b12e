// The Prometheus text format as the tests (and any reader of /metrics) parse
// it: never a crash, a refusal names its line, and what parses has a name
// and only parsed numbers.
#include <cstdint>
#include <string_view>

#include "runtime/telemetry/prometheus_text.hpp"
#include "tests/fuzz/fuzz_check.hpp"

using kaisha::fuzz::check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = kaisha::telemetry::parse_prometheus_text(text);
  if (!parsed.ok()) {
    check(parsed.error().message.rfind("line ", 0) == 0, "a refusal names its line");
    return 0;
  }
  for (const auto& s : parsed->samples) check(!s.name.empty(), "a sample has a name");
  return 0;
}
