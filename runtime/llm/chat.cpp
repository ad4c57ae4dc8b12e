#include "runtime/llm/chat.hpp"

namespace kaisha::llm {

const char* to_string(Role r) {
  switch (r) {
    case Role::system:
      return "system";
    case Role::user:
      return "user";
    case Role::assistant:
      return "assistant";
    case Role::tool:
      return "tool";
  }
  return "user";
}

}  // namespace kaisha::llm
