#include "protocols/a2a/a2a_agent.hpp"

namespace kaisha::a2a {

bool is_terminal(TaskState s) {
  return s == TaskState::completed || s == TaskState::failed || s == TaskState::canceled || s == TaskState::rejected;
}

bool is_interrupted(TaskState s) { return s == TaskState::input_required || s == TaskState::auth_required; }

}  // namespace kaisha::a2a
