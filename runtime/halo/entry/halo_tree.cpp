// HALO's tree. What its journal holds (runtime/halo/halo_driver.cpp): its
// strategy events as note steps {"strategy": "halo", "event": ...} — refined,
// subtask {subtask, text}, roles {subtask, roles}, expansion {subtask,
// parent, children: [{node, role_name, label, value, answer}]}, rollout,
// backpropagated {subtask, updates: [{node, value, visits}]}, search_ended
// {subtask, reason, answer, trajectory: [{node, ...}]}, early_stop,
// cap_reached, problem — and its model calls and its agents' asks and
// answers, whose tokens and dollars count in the subtask they were made for.
// Any other step (a hire, a fire, one it does not know) is a plain step. Search node ids
// are per subtask; node 0 is the search's dummy root, shown as the subtask.
#include <cstdio>
#include <map>
#include <set>
#include <utility>

#include "runtime/halo/entry/halo_view.hpp"
#include "runtime/messages/strategy_event.hpp"
#include "runtime/strategy/tree_building.hpp"

namespace kaisha::strategy {
namespace {

using nlohmann::json;
using Id = TreeBuilder::Id;

class HaloTree {
 public:
  explicit HaloTree(const TaskRecord& task) : b_(task) {}

  TaskTree build(const std::vector<TaskStep>& steps) {
    for (const auto& s : steps) step(s);
    for (auto& [key, n] : nodes_) b_.node(n.id).label = label(n, winners_.count(key) > 0);
    return b_.finish();
  }

 private:
  struct SearchNode {
    Id id = 0;
    std::string role, judged, answer;
    double value = 0;
    int64_t visits = 0;
  };
  using Key = std::pair<int64_t, int64_t>;  // (subtask, search node)

  static std::string label(const SearchNode& n, bool won) {
    char numbers[64];
    std::snprintf(numbers, sizeof numbers, "v=%.4g n=%lld", n.value, static_cast<long long>(n.visits));
    return std::string(won ? "★ " : "") + n.role + " [" + n.judged + ", " + numbers + "]" +
           (n.answer.empty() ? "" : ": " + short_text(n.answer, 60));
  }

  static std::string search_key(int64_t subtask, int64_t node) {
    return "s" + std::to_string(subtask) + "." + std::to_string(node);
  }

  Id subtask_node(int64_t k) {
    auto it = subtasks_.find(k);
    return it == subtasks_.end() ? TreeBuilder::kRoot : it->second;
  }

  Id add(Id parent, std::string text, std::string kind, const TaskStep& s, std::string agent = "") {
    TaskTree t;
    t.label = short_text(text, 100);
    t.kind = std::move(kind);
    t.agent = std::move(agent);
    return b_.add(parent, std::move(t), s.at);
  }

  void step(const TaskStep& s) {
    const json& p = s.payload;
    const msg::StrategyEventName name = msg::strategy_event_name(p);
    if (s.kind == "note" && name.strategy == "halo") return event(s, name.event);
    if (s.kind == "note" && field(p, "metadata").is_object()) return;  // the summary the result line shows
    // Model calls, and the asks and answers of the search's agents: numbers
    // of the running subtask, whose search nodes already show them.
    if (s.kind == "llm_request" || s.kind == "llm_response" || s.kind == "ask" || s.kind == "answer") {
      const Id at = subtask_node(current_);
      b_.charge(at, s);
      b_.end(at, s.at);
      return;
    }
    b_.add(subtask_node(current_), plain_step(s), s.at);  // hires, fires, refusals, ...
  }

  void event(const TaskStep& s, const std::string& e) {
    const json& p = s.payload;
    const int64_t k = int_field(p, "subtask", current_);
    if (e == "refined") {
      add(TreeBuilder::kRoot, "refined: " + text_field(p, "query"), "step", s);
    } else if (e == "subtask") {
      current_ = k;
      subtasks_[k] =
          add(TreeBuilder::kRoot, "subtask " + std::to_string(k) + ": " + text_field(p, "text"), "subtask", s);
      b_.node(subtasks_[k]).key = search_key(k, 0);  // the search's root, drawn as the subtask
    } else if (e == "roles") {
      std::string names;
      for (const json& r : field(p, "roles"))
        if (r.is_string()) names += (names.empty() ? "" : ", ") + r.get<std::string>();
      add(subtask_node(k), "roles: " + names, "step", s);
    } else if (e == "expansion") {
      const Key parent{k, int_field(p, "parent", 0)};
      const auto pit = nodes_.find(parent);
      const Id under = parent.second == 0 || pit == nodes_.end() ? subtask_node(k) : pit->second.id;
      for (const json& c : field(p, "children")) {
        SearchNode n;
        n.role = text_field(c, "role_name");
        n.judged = text_field(c, "label");
        n.answer = text_field(c, "answer");
        if (const json& v = field(c, "value"); v.is_number()) n.value = v.get<double>();
        n.id = add(under, n.role, "agent", s, n.role);
        const int64_t node = int_field(c, "node", -1);
        // The search tree as a drawing: each node under its parent (the subtask for the root's children).
        b_.node(n.id).key = search_key(k, node);
        b_.node(n.id).after = {search_key(k, under == subtask_node(k) ? 0 : parent.second)};
        nodes_[{k, node}] = n;
      }
    } else if (e == "backpropagated") {
      for (const json& u : field(p, "updates")) {
        auto it = nodes_.find({k, int_field(u, "node", -1)});
        if (it == nodes_.end()) continue;
        if (const json& v = field(u, "value"); v.is_number()) it->second.value = v.get<double>();
        it->second.visits = int_field(u, "visits", it->second.visits);
      }
    } else if (e == "search_ended") {
      for (const json& t : field(p, "trajectory")) winners_.insert({k, int_field(t, "node", -1)});
      add(subtask_node(k), "search ended (" + text_field(p, "reason") + "): " + text_field(p, "answer"), "verdict", s);
    } else if (e == "early_stop" || e == "cap_reached" || e == "problem") {
      add(subtask_node(k), e + ": " + payload_text(p, 100), "step", s);
    }
    // selection and rollout events are not needed for the tree: the
    // backpropagated values already hold what the rollouts found.
  }

  TreeBuilder b_;
  int64_t current_ = 0;
  std::map<int64_t, Id> subtasks_;
  std::map<Key, SearchNode> nodes_;
  std::set<Key> winners_;
};

}  // namespace

TaskTree halo_tree(const TaskRecord& task, const std::vector<TaskStep>& steps) { return HaloTree(task).build(steps); }

}  // namespace kaisha::strategy
