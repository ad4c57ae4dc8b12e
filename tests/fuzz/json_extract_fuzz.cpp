// Finding the JSON in a model's answer: extract_json never throws, returns the
// kind of value asked for, and what it returns serialises and parses back to
// itself.
#include <cstdint>
#include <string_view>

#include "runtime/prompt/json_extract.hpp"
#include "tests/fuzz/fuzz_check.hpp"

using kaisha::json;
using kaisha::fuzz::check;
namespace pl = kaisha::planning;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view answer(reinterpret_cast<const char*>(data), size);
  for (pl::JsonTop top : {pl::JsonTop::object, pl::JsonTop::object_or_array}) {
    auto r = pl::extract_json(answer, top);
    if (!r.ok()) {
      check(!r.error().message.empty(), "an extraction error says what was wrong");
      continue;
    }
    check(r->is_object() || (top == pl::JsonTop::object_or_array && r->is_array()),
          "the extracted value has the requested kind");
    std::string text = r->dump();
    check(json::parse(text) == *r, "the extracted value round-trips through dump/parse");
  }
  return 0;
}
