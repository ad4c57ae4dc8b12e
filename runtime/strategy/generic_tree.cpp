// The tree of a task whose strategy has no builder of its own: the steps
// grouped by agent, which every strategy's journal has, whatever its shape.
#include <map>

#include "runtime/strategy/generic_tree.hpp"
#include "runtime/strategy/tree_building.hpp"

namespace kaisha::strategy {

namespace {

// Model calls and notes are an agent's inner work: counted, not listed.
bool listed(const std::string& kind) { return kind != "llm_request" && kind != "llm_response" && kind != "note"; }

}  // namespace

TaskTree generic_tree(const TaskRecord& task, const std::vector<TaskStep>& steps) {
  TreeBuilder b(task);
  std::map<std::string, TreeBuilder::Id> agents;
  for (const TaskStep& s : steps) {
    auto [it, fresh] = agents.try_emplace(s.agent, 0);
    if (fresh) {
      TaskTree n;
      n.kind = "agent";
      n.agent = s.agent;
      n.label = s.agent.empty() ? "(no agent)" : s.agent;
      it->second = b.add(TreeBuilder::kRoot, std::move(n), s.at);
    }
    const TreeBuilder::Id agent = it->second;
    b.end(agent, s.at);
    if (!listed(s.kind)) {
      b.charge(agent, s);
      continue;
    }
    TaskTree step = plain_step(s);
    step.label = s.kind + ": " + payload_text(s.payload);
    b.add(agent, std::move(step));
  }
  return b.finish();
}

}  // namespace kaisha::strategy
