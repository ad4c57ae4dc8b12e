// Which agents of one forward pass (hiva.md §5, Algorithm 2; §14 item 4) may
// run now: Kahn's scheduling over the graph as it was when the pass began,
// with the paper's skip rule.
//
// Promises:
//  - the source has received x0 when the schedule is made;
//  - an agent is ready when it has not started, every predecessor has
//    settled (ran or was skipped), and it received something: an
//    instruction (instruct) or a predecessor's routing (ran's list; the
//    aggregator is reached only this way). Agents independent of each other
//    are ready together (both branches of a diamond before either ran);
//  - an agent whose predecessors all settled without reaching it is skipped:
//    it settles without running, and its own successors may be skipped in
//    turn. Nothing is ever asked of a skipped agent;
//  - ready() and skipped() follow the topological order of the graph
//    (insertion order among ties), executed() the order of ran() calls;
//  - the last instruction written to an agent is the one it gets (§5 [CODE]:
//    the last writer wins).
// Misuse (an unknown agent, starting one that is not ready, routing to an
// agent that is not a successor) throws std::logic_error: it is a driver bug.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/result.hpp"
#include "runtime/hiva/graph/agent_graph.hpp"

namespace kaisha::hiva {

class ForwardSchedule {
 public:
  // An Error when the graph has a cycle (no topological order).
  static Result<ForwardSchedule> plan(const AgentGraph& graph, std::string x0);

  // Records `text` as `agent`'s instruction, replacing an earlier one.
  // Only before the agent started.
  void instruct(std::string_view agent, std::string text);

  std::vector<std::string> ready() const;

  void started(std::string_view agent);
  // `agent` finished and routed to `routed` (its chosen successors, which
  // are reached even without an instruction: the aggregator is reached so).
  // Give the successors their instructions before calling it.
  void ran(std::string_view agent, const std::vector<std::string>& routed);

  bool finished() const;

  // The agents that ran, in the order ran() was called.
  const std::vector<std::string>& executed() const { return executed_; }
  std::vector<std::string> skipped() const;

  // The agent's current instruction ("" when none was written).
  const std::string& instruction(std::string_view agent) const;
  // The predecessors that routed to `agent` so far, in the order they ran:
  // for the aggregator, the outputs it synthesises.
  const std::vector<std::string>& routed_from(std::string_view agent) const;

 private:
  enum class State { waiting, running, ran, skipped };
  struct Slot {
    std::string id;
    std::vector<std::size_t> predecessors, successors;
    State state = State::waiting;
    bool reached = false;
    std::string instruction;
    std::vector<std::string> routed_from;
  };

  ForwardSchedule() = default;
  std::size_t index(std::string_view agent) const;
  bool settled(std::size_t i) const;
  bool predecessors_settled(std::size_t i) const;
  void skip_unreached();

  std::vector<Slot> slots_;  // in topological order
  std::vector<std::string> executed_;
};

}  // namespace kaisha::hiva
