#include "runtime/company/reply_call_order.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <string>

#include "runtime/core/json.hpp"

namespace kaisha::company {
namespace {

bool names_an_agent(const std::string& tool) {
  return tool == "AgentCreator" || tool == "AskAgent" || tool == "FireAgent";
}

bool reads_roster_or_ledgers(const std::string& tool) {
  return tool == "GetAgents" || tool == "GetBudget" || tool == "AgentCostManager";
}

// The agent a call names; none when its arguments cannot be read (the call
// then fails on its own, so it need not wait for anything).
std::optional<std::string> agent_of(const llm::ToolCall& c) {
  if (!names_an_agent(c.name)) return std::nullopt;
  json args = json::parse(c.arguments, nullptr, false);
  if (!args.is_object()) return std::nullopt;
  auto it = args.find("agent_name");
  if (it == args.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

}  // namespace

ReplyCallOrder::ReplyCallOrder(const std::vector<llm::ToolCall>& calls)
    : waits_for_(calls.size()), unblocks_(calls.size()), open_waits_(calls.size(), 0) {
  struct AgentCalls {
    std::optional<size_t> last_hire_or_fire;
    std::vector<size_t> asks_since;
  };
  std::map<std::string, AgentCalls> by_agent;
  std::vector<size_t> agent_calls;  // every earlier call that names an agent
  for (size_t i = 0; i < calls.size(); ++i) {
    if (auto agent = agent_of(calls[i])) {
      AgentCalls& a = by_agent[*agent];
      if (a.last_hire_or_fire) waits_for_[i].push_back(*a.last_hire_or_fire);
      if (calls[i].name == "AskAgent") {
        a.asks_since.push_back(i);
      } else {
        waits_for_[i].insert(waits_for_[i].end(), a.asks_since.begin(), a.asks_since.end());
        a.asks_since.clear();
        a.last_hire_or_fire = i;
      }
      agent_calls.push_back(i);
    } else if (reads_roster_or_ledgers(calls[i].name)) {
      waits_for_[i] = agent_calls;
    }
    for (size_t w : waits_for_[i]) unblocks_[w].push_back(i);
    open_waits_[i] = waits_for_[i].size();
  }
}

std::vector<size_t> ReplyCallOrder::initial() const {
  std::vector<size_t> out;
  for (size_t i = 0; i < open_waits_.size(); ++i)
    if (waits_for_[i].empty()) out.push_back(i);
  return out;
}

std::vector<size_t> ReplyCallOrder::finished(size_t i) {
  std::vector<size_t> out;
  for (size_t next : unblocks_.at(i))
    if (open_waits_[next] > 0 && --open_waits_[next] == 0) out.push_back(next);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace kaisha::company
