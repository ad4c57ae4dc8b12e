#include "runtime/dag/subtask.hpp"

namespace kaisha::planning {

const char* to_string(Strategy s) {
  switch (s) {
    case Strategy::parallel:
      return "parallel";
    case Strategy::sequential:
      return "sequential";
    case Strategy::hybrid:
      return "hybrid";
    case Strategy::hierarchical:
      return "hierarchical";
  }
  return "?";
}

std::optional<Strategy> strategy_from_string(const std::string& s) {
  if (s == "parallel") return Strategy::parallel;
  if (s == "sequential") return Strategy::sequential;
  if (s == "hybrid") return Strategy::hybrid;
  if (s == "hierarchical") return Strategy::hierarchical;
  return std::nullopt;
}

const char* to_string(Priority p) {
  switch (p) {
    case Priority::high:
      return "high";
    case Priority::medium:
      return "medium";
    case Priority::low:
      return "low";
  }
  return "?";
}

}  // namespace kaisha::planning
