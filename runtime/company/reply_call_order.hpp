// The order in which the tool calls of one model reply run (hashiru.md §9
// item 7). A model may put dependent calls into one reply, as Gemini does:
// [AgentCreator(X), AskAgent(X)] must hire X before asking it. So:
//   - a hire or fire of an agent (AgentCreator, FireAgent) waits for every
//     earlier call naming that agent (`agent_name`), and an ask (AskAgent)
//     waits for the last hire or fire of its agent before it; asks of one
//     agent do not wait for each other (each has a context of its own);
//   - calls that read the roster or the ledgers (GetAgents, GetBudget,
//     AgentCostManager) wait for every earlier call that names an agent, so
//     they see its hire, fire or charge;
//   - every other call, and calls naming different agents, start at once
//     and run concurrently.
// So [AgentCreator(X), AskAgent(X), AskAgent(X), FireAgent(X)] hires, then
// asks twice at once, then fires.
// Results still go back to the model in call order; that is the caller's
// part. Pure logic, no threads: the caller reports each finished call and
// starts what this returns.
#pragma once

#include <cstddef>
#include <vector>

#include "runtime/llm/chat.hpp"

namespace kaisha::company {

class ReplyCallOrder {
 public:
  explicit ReplyCallOrder(const std::vector<llm::ToolCall>& calls);

  // The calls that may start at once, in reply order. Call once.
  std::vector<size_t> initial() const;
  // Call `i` has finished: the calls that may start now, in reply order.
  std::vector<size_t> finished(size_t i);

  // For tests and messages: the calls `i` waits for.
  const std::vector<size_t>& waits_for(size_t i) const { return waits_for_[i]; }

 private:
  std::vector<std::vector<size_t>> waits_for_;
  std::vector<std::vector<size_t>> unblocks_;
  std::vector<size_t> open_waits_;
};

}  // namespace kaisha::company
