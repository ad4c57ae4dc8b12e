// The list inputs of HiVA's prompts, formatted one way for every call: the
// terminal agents' outputs the aggregator reads, and the successors the
// topology decision chooses among (REMOVE_SUCCESSOR names one by the id or
// the 0-based index shown here).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kaisha::hiva {

struct AgentOutput {
  std::string id;
  std::string role;
  std::string output;
};

// "### Agent agent_3 (role: Summarizer)\n<output>\n\n### Agent ...", or
// "(no agent output)" for none.
std::string format_agent_outputs(const std::vector<AgentOutput>& outputs);

struct SuccessorInfo {
  std::string id;
  std::string role;
  uint64_t routed = 0;  // ℛ_ij: this iteration's routings from the agent to it
  uint64_t visits = 0;  // routings from the agent to it over all iterations
};

// "[0] id: agent_3 | role: Summarizer | routed this iteration: 1 | visits: 4"
// one line each, or "(no successors)".
std::string format_successors(const std::vector<SuccessorInfo>& successors);

}  // namespace kaisha::hiva
