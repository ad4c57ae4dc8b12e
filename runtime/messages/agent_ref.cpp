#include "runtime/messages/agent_ref.hpp"

namespace kaisha::msg {

std::string to_string(const AgentRef& ref) { return ref.node.empty() ? ref.name : ref.name + "@" + ref.node; }

}  // namespace kaisha::msg
