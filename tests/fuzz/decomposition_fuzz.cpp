// A model's answer to a decomposition prompt. The first byte picks the
// strategy. parse_decomposition never throws, and an accepted plan keeps the
// promises the planner relies on: 2..5 subtasks with distinct non-empty ids
// and descriptions, dependencies only on known ids.
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "runtime/effgen/decomposition/decomposition_parser.hpp"
#include "tests/fuzz/fuzz_check.hpp"

using kaisha::fuzz::check;
namespace pl = kaisha::planning;
using kaisha::routing::Strategy;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const Strategy strategies[] = {Strategy::parallel, Strategy::sequential, Strategy::hybrid, Strategy::hierarchical};
  Strategy strategy = strategies[data[0] % 4];
  std::string_view answer(reinterpret_cast<const char*>(data + 1), size - 1);

  auto r = pl::parse_decomposition(answer, strategy);
  if (!r.ok()) {
    check(r.error().code == "decomposition" || r.error().code == "json", "error code as documented");
    check(!r.error().message.empty(), "a rejected plan says why");
    return 0;
  }
  const auto& subtasks = r->subtasks;
  check(subtasks.size() >= 2 && subtasks.size() <= 5, "2..5 subtasks");
  std::set<std::string> ids;
  for (const auto& s : subtasks) {
    check(!s.id.empty() && !s.description.empty(), "ids and descriptions are non-empty");
    check(ids.insert(s.id).second, "ids are distinct");
  }
  for (const auto& s : subtasks)
    for (const auto& d : s.depends_on) check(ids.count(d) == 1, "dependencies are known ids");
  return 0;
}
