#include "runtime/hiva/replies/prompt_inputs.hpp"

namespace kaisha::hiva {

std::string format_agent_outputs(const std::vector<AgentOutput>& outputs) {
  if (outputs.empty()) return "(no agent output)";
  std::string out;
  for (const AgentOutput& o : outputs) {
    if (!out.empty()) out += "\n\n";
    out += "### Agent " + o.id + " (role: " + o.role + ")\n" + o.output;
  }
  return out;
}

std::string format_successors(const std::vector<SuccessorInfo>& successors) {
  if (successors.empty()) return "(no successors)";
  std::string out;
  for (size_t i = 0; i < successors.size(); ++i) {
    const SuccessorInfo& s = successors[i];
    if (i) out += "\n";
    out += "[" + std::to_string(i) + "] id: " + s.id + " | role: " + s.role +
           " | routed this iteration: " + std::to_string(s.routed) + " | visits: " + std::to_string(s.visits);
  }
  return out;
}

}  // namespace kaisha::hiva
