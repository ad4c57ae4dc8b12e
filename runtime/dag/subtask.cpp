#include "runtime/dag/subtask.hpp"

namespace kaisha::planning {

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
