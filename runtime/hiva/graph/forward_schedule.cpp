#include "runtime/hiva/graph/forward_schedule.hpp"

#include <algorithm>
#include <stdexcept>

namespace kaisha::hiva {

Result<ForwardSchedule> ForwardSchedule::plan(const AgentGraph& graph, std::string x0) {
  Result<std::vector<std::string>> order = graph.topological_order();
  if (!order) return order.error();
  ForwardSchedule s;
  for (const std::string& id : *order) {
    s.slots_.emplace_back();
    s.slots_.back().id = id;
  }
  for (const GraphEdge& e : graph.edges()) {
    std::size_t from = s.index(e.from), to = s.index(e.to);
    s.slots_[from].successors.push_back(to);
    s.slots_[to].predecessors.push_back(from);
  }
  s.instruct(AgentGraph::kSource, std::move(x0));
  s.skip_unreached();  // agents no edge leads to
  return s;
}

std::size_t ForwardSchedule::index(std::string_view agent) const {
  for (std::size_t i = 0; i < slots_.size(); ++i)
    if (slots_[i].id == agent) return i;
  throw std::logic_error("the forward pass has no agent \"" + std::string(agent) + "\"");
}

bool ForwardSchedule::settled(std::size_t i) const {
  return slots_[i].state == State::ran || slots_[i].state == State::skipped;
}

bool ForwardSchedule::predecessors_settled(std::size_t i) const {
  const std::vector<std::size_t>& p = slots_[i].predecessors;
  return std::all_of(p.begin(), p.end(), [&](std::size_t j) { return settled(j); });
}

void ForwardSchedule::skip_unreached() {
  // In topological order a skip is seen by the successors checked after it,
  // so one pass carries it all the way down.
  for (std::size_t i = 0; i < slots_.size(); ++i)
    if (slots_[i].state == State::waiting && !slots_[i].reached && predecessors_settled(i))
      slots_[i].state = State::skipped;
}

void ForwardSchedule::instruct(std::string_view agent, std::string text) {
  Slot& slot = slots_[index(agent)];
  if (slot.state != State::waiting)
    throw std::logic_error("agent \"" + slot.id + "\" is instructed after it started or settled");
  slot.instruction = std::move(text);
  slot.reached = true;
}

std::vector<std::string> ForwardSchedule::ready() const {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < slots_.size(); ++i)
    if (slots_[i].state == State::waiting && slots_[i].reached && predecessors_settled(i)) out.push_back(slots_[i].id);
  return out;
}

void ForwardSchedule::started(std::string_view agent) {
  std::size_t i = index(agent);
  if (slots_[i].state != State::waiting || !slots_[i].reached || !predecessors_settled(i))
    throw std::logic_error("agent \"" + slots_[i].id + "\" is started but is not ready");
  slots_[i].state = State::running;
}

void ForwardSchedule::ran(std::string_view agent, const std::vector<std::string>& routed) {
  std::size_t i = index(agent);
  Slot& slot = slots_[i];
  if (slot.state != State::running) throw std::logic_error("agent \"" + slot.id + "\" ran but was not started");
  for (const std::string& to : routed) {
    const std::vector<std::size_t>& succ = slot.successors;
    if (std::find(succ.begin(), succ.end(), index(to)) == succ.end())
      throw std::logic_error("agent \"" + slot.id + "\" routed to \"" + to + "\", which is not its successor");
  }
  for (const std::string& to : routed) {
    std::size_t j = index(to);
    slots_[j].reached = true;
    if (std::find(slots_[j].routed_from.begin(), slots_[j].routed_from.end(), slot.id) == slots_[j].routed_from.end())
      slots_[j].routed_from.push_back(slot.id);
  }
  slot.state = State::ran;
  executed_.push_back(slot.id);
  skip_unreached();
}

bool ForwardSchedule::finished() const {
  for (std::size_t i = 0; i < slots_.size(); ++i)
    if (!settled(i)) return false;
  return true;
}

std::vector<std::string> ForwardSchedule::skipped() const {
  std::vector<std::string> out;
  for (const Slot& s : slots_)
    if (s.state == State::skipped) out.push_back(s.id);
  return out;
}

const std::string& ForwardSchedule::instruction(std::string_view agent) const {
  return slots_[index(agent)].instruction;
}

const std::vector<std::string>& ForwardSchedule::routed_from(std::string_view agent) const {
  return slots_[index(agent)].routed_from;
}

}  // namespace kaisha::hiva
