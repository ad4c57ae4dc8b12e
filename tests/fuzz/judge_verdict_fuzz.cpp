// A judge model's answer: parse_verdict never fails, an error verdict always
// carries a reason, a malformed one is never a success, and the verdict
// serialises when the answer was valid UTF-8 (answers come from decoded JSON).
#include <cstdint>
#include <string_view>

#include "runtime/judge/judge_verdict.hpp"
#include "tests/fuzz/fuzz_check.hpp"

using kaisha::fuzz::check;
namespace pl = kaisha::planning;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view answer(reinterpret_cast<const char*>(data), size);
  pl::JudgeVerdict v = pl::parse_verdict(answer);
  if (v.malformed) check(!v.success(), "a malformed verdict is never a success");
  if (!v.success()) check(!v.error_information.empty(), "an error verdict says why");
  if (kaisha::fuzz::valid_utf8(answer)) {
    std::string text = pl::to_json(v).dump();
    // Reading the serialised verdict back gives the same verdict.
    pl::JudgeVerdict again = pl::parse_verdict(text);
    check(again.status == v.status, "a serialised verdict reads back with its status");
    if (!v.malformed) check(again.output == v.output, "a serialised verdict keeps its output");
  }
  return 0;
}
