// A task set (runtime/suite/suite_parse.hpp, docs/suites.md): any bytes
// read as the JSONL file `kaisha evolve` (and later `kaisha eval`) takes.
// A refusal is an Error whose message names the file and, for a line's
// fault, its line, in valid UTF-8; an accepted suite has at least one task,
// distinct non-empty ids, valid UTF-8 inputs and known formats, and every
// interactive task's turns parse again.
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "runtime/suite/scripted_turns.hpp"
#include "runtime/suite/suite_item.hpp"
#include "runtime/suite/suite_parse.hpp"
#include "tests/fuzz/fuzz_check.hpp"

using kaisha::fuzz::check;
using kaisha::fuzz::valid_utf8;
namespace suite = kaisha::suite;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  suite::SuiteLimits limits;
  limits.max_items = 64;
  auto items = suite::parse_suite(text, "tasks.jsonl", limits);
  if (!items.ok()) {
    check(items.error().message.rfind("tasks.jsonl", 0) == 0, "a refusal names the file first");
    check(valid_utf8(items.error().message), "a refusal is valid UTF-8");
    return 0;
  }
  check(!items->empty(), "an accepted suite has a task");
  std::set<std::string> ids;
  for (const suite::SuiteItem& item : *items) {
    check(!item.id.empty() && ids.insert(item.id).second, "ids are non-empty and distinct");
    check(valid_utf8(item.id) && valid_utf8(item.input), "ids and inputs are valid UTF-8");
    check(item.format.empty() || suite::known_format(item.format), "a format is one of the known ones");
    if (item.format == suite::kInteractive)
      check(suite::parse_scripted_turns(item.turns).ok(), "an interactive task's turns parse again");
  }
  return 0;
}
