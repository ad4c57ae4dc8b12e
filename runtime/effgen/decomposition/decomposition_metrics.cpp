#include "runtime/effgen/decomposition/decomposition_metrics.hpp"

#include <algorithm>
#include <cctype>

#include "runtime/core/ascii_case.hpp"

namespace kaisha::planning {
namespace {

bool all_blank(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isspace(c); });
}

}  // namespace

double granularity(const SubtaskDag& dag) {
  if (dag.size() == 0) return 0.0;
  double sum = 0.0;
  for (const Subtask& s : dag.subtasks()) sum += s.estimated_complexity;
  return sum / static_cast<double>(dag.size());
}

double parallelism(const SubtaskDag& dag) {
  if (dag.size() == 0) return 0.0;
  size_t free = 0;
  for (size_t i = 0; i < dag.size(); ++i)
    if (dag.predecessors(i).empty()) ++free;
  return static_cast<double>(free) / static_cast<double>(dag.size());
}

std::optional<double> coverage(const SubtaskDag& dag, const std::vector<std::string>& aspects) {
  std::vector<std::string> texts;
  for (const Subtask& s : dag.subtasks()) texts.push_back(ascii_lower(s.description + "\n" + s.expected_output));
  size_t asked = 0, covered = 0;
  for (const std::string& a : aspects) {
    if (all_blank(a)) continue;
    ++asked;
    std::string needle = ascii_lower(a);
    if (std::any_of(texts.begin(), texts.end(),
                    [&](const std::string& t) { return t.find(needle) != std::string::npos; }))
      ++covered;
  }
  if (asked == 0) return std::nullopt;
  return static_cast<double>(covered) / static_cast<double>(asked);
}

DecompositionMetrics measure(const SubtaskDag& dag, const std::vector<std::string>& aspects) {
  return {coverage(dag, aspects), granularity(dag), parallelism(dag)};
}

}  // namespace kaisha::planning
