// The pyramid's tree. What its journal holds (runtime/pyramid/pyramid_driver.cpp):
// the route note; per agent call an ask step {call, parent, input} and an
// answer step {call, final_output} whose tokens and dollars are the call's
// and its sub-calls' (so they are taken as they are, not summed again); the
// call's tool_call / tool_result steps {call, tool, ...} — an agent called as a
// tool shows both as a tool call of its caller and as its own ask — and the
// verdict note the caller gets when the judge has audited a call; the note
// of a call run by candidate models (its branches, what was merged), the
// pyramid's own events (merge_plan, evolution, judge_failed) and a revert
// made with `kaisha history TASK --revert`.
#include <map>

#include "runtime/pyramid/entry/pyramid_view.hpp"
#include "runtime/strategy/tree_building.hpp"

namespace kaisha::strategy {

namespace {

using nlohmann::json;
using Id = TreeBuilder::Id;

class PyramidTree {
 public:
  explicit PyramidTree(const TaskRecord& task) : b_(task) {}

  TaskTree build(const std::vector<TaskStep>& steps) {
    for (const auto& s : steps) step(s);
    return b_.finish();
  }

 private:
  struct Tool {
    Id node = 0;
    std::string name;
    bool agent_call = false;  // shown as the callee's own node instead
    bool done = false;
  };
  struct Call {
    Id node = 0;
    std::vector<Tool> tools;
    Id last_answered_child = TreeBuilder::kRoot;
  };

  void step(const TaskStep& s) {
    const json& p = s.payload;
    const int64_t call = int_field(p, "call", -1);
    if (s.kind == "note" && field(p, "route").is_object()) return route(s);
    if (s.kind == "note" && field(p, "metadata").is_object()) return;  // the summary the result line shows
    if (s.kind == "note" && field(p, "branches").is_array()) return forked(s);
    if (s.kind == "note" && field(p, "revert").is_object()) return reverted(s);
    if (s.kind == "note" && text_field(p, "strategy") == "pyramid") return evolution(s);
    if (s.kind == "llm_response" && text_field(p, "call") == "route") return router_call(s);
    if (s.kind == "ask" && call >= 0) return asked(s, call);
    auto c = call >= 0 ? calls_.find(call) : calls_.end();
    if (c == calls_.end()) {
      // Model calls inside an agent's call are in its answer's cost.
      if (s.kind == "llm_request" || s.kind == "llm_response") return;
      return void(b_.add(TreeBuilder::kRoot, marked(s), s.at));
    }
    if (s.kind == "answer") return answered(s, c->second);
    if (s.kind == "tool_call" && !text_field(p, "tool").empty()) return tool_called(s, c->second);
    if (s.kind == "tool_result" && tool_returned(s, c->second)) return;
    if (s.kind == "note" && field(p, "verdict").is_object()) return verdict(s, c->second);
    b_.add(c->second.node, marked(s), s.at);
  }

  static TaskTree marked(const TaskStep& s) {
    TaskTree n = plain_step(s);
    if (s.kind == "refusal") n.status = "refused";
    if (s.kind == "error") n.status = "failed";
    return n;
  }

  void route(const TaskStep& s) {
    const json& r = field(s.payload, "route");
    TaskTree n;
    n.kind = "routing";
    n.agent = s.agent;
    n.label = "route: entered at " + text_field(r, "agent");
    if (const std::string how = text_field(r, "method"); !how.empty()) n.label += " (" + how + ")";
    b_.add(TreeBuilder::kRoot, std::move(n), s.at);
  }

  void router_call(const TaskStep& s) {
    TaskTree n;
    n.kind = "model";
    n.agent = s.agent;
    n.label = s.agent + ": route";
    b_.charge(b_.add(TreeBuilder::kRoot, std::move(n)), s);
  }

  void asked(const TaskStep& s, int64_t call) {
    auto parent = calls_.find(int_field(s.payload, "parent", 0));
    Id under = TreeBuilder::kRoot;
    if (parent != calls_.end()) {
      under = parent->second.node;
      // The caller's tool call that made this call: the callee's node stands for it.
      for (Tool& t : parent->second.tools)
        if (!t.agent_call && !t.done && names(t.name, s.agent)) {
          t.agent_call = true;
          b_.hide(t.node);
          break;
        }
    }
    TaskTree n;
    n.kind = "call";
    n.agent = s.agent;
    // The call tree as a drawing: each call after the call that made it.
    n.key = "call " + std::to_string(call);
    if (parent != calls_.end()) n.after = {"call " + std::to_string(parent->first)};
    n.label = s.agent + ": \"" + short_text(text_field(s.payload, "input"), 60) + "\"";
    n.status = "unanswered";
    if (const std::string branch = text_field(s.payload, "branch"); !branch.empty()) n.label += " [" + branch + "]";
    Call c;
    c.node = b_.add(under, std::move(n), s.at);
    b_.totals_given(c.node);
    calls_[call] = std::move(c);
  }

  // The staff that runs agent `tool`: the agent itself, or one of its
  // candidates ("<agent>__<n>").
  static bool names(const std::string& tool, const std::string& staff) {
    return staff == tool || (staff.size() > tool.size() + 2 && staff.compare(0, tool.size(), tool) == 0 &&
                             staff.compare(tool.size(), 2, "__") == 0);
  }

  void answered(const TaskStep& s, Call& c) {
    TaskTree& n = b_.node(c.node);
    n.tokens_in = s.tokens_in;
    n.tokens_out = s.tokens_out;
    n.usd = s.usd;
    n.status = text_field(field(s.payload, "final_output"), "status") == "error" ? "failed" : "";
    b_.end(c.node, s.at);
    if (auto p = calls_.find(parent_call(c.node)); p != calls_.end()) p->second.last_answered_child = c.node;
  }

  // The call whose node is the parent of `node`'s, or -1.
  int64_t parent_call(Id node) const {
    const Id parent = b_.parent(node);
    for (const auto& [id, c] : calls_)
      if (c.node == parent) return id;
    return -1;
  }

  void tool_called(const TaskStep& s, Call& c) {
    const std::string tool = text_field(s.payload, "tool");
    const json& args = field(s.payload, "arguments");
    const json parsed = arguments_of(args);
    TaskTree n;
    n.kind = "tool";
    n.agent = s.agent;
    n.label = "tool " + tool + " " + payload_text(parsed.is_null() ? args : parsed);
    c.tools.push_back({b_.add(c.node, std::move(n), s.at), tool, false, false});
  }

  // Closes the call's oldest open tool call of that name; false when none is open.
  bool tool_returned(const TaskStep& s, Call& c) {
    const std::string tool = text_field(s.payload, "tool");
    for (Tool& t : c.tools) {
      if (t.done || t.name != tool) continue;
      t.done = true;
      b_.end(t.node, s.at);
      const json result = arguments_of(field(s.payload, "result"));
      if (!t.agent_call && text_field(result, "status") == "error") b_.node(t.node).status = "failed";
      return true;
    }
    return false;
  }

  // The judge's ruling on a call: shown on the judge's call that made it.
  void verdict(const TaskStep& s, Call& c) {
    const json& v = field(s.payload, "verdict");
    const std::string status = text_field(v, "status");
    std::string text = "verdict: " + (status.empty() ? std::string("?") : status);
    if (const std::string why = text_field(v, "error_information"); !why.empty()) text += " — " + short_text(why, 80);
    if (const json& q = field(s.payload, "quality"); q.is_number())
      text += " (quality " + short_text(q.dump(), 6) + ")";
    Id judge = c.last_answered_child;
    if (judge == TreeBuilder::kRoot) {
      TaskTree n;
      n.kind = "verdict";
      n.agent = s.agent;
      n.label = text;
      judge = b_.add(c.node, std::move(n), s.at);
    } else {
      b_.node(judge).label += " → " + text;
    }
    // The judge did its work; the call it audited is what was rejected.
    b_.node(judge).status = status == "error" ? "rejected" : "";
    c.last_answered_child = TreeBuilder::kRoot;
  }

  // A call run by candidate models ended: its branches, what was merged
  // (with its commit) and what was not, under the call that made it.
  void forked(const TaskStep& s) {
    const json& p = s.payload;
    auto parent = calls_.find(int_field(p, "parent", 0));
    const Id under = parent != calls_.end() ? parent->second.node : TreeBuilder::kRoot;
    TaskTree n;
    n.kind = "branches";
    n.agent = s.agent;
    std::string merged, other;
    for (const auto& b : field(p, "branches")) {
      std::string one = text_field(b, "model");
      if (const json& c = field(b, "commit"); c.is_number()) one += " (commit " + c.dump() + ")";
      if (field(b, "merged") == true)
        merged += (merged.empty() ? "" : ", ") + one;
      else
        other += (other.empty() ? "" : ", ") + one;
    }
    n.label = text_field(p, "agent") + ": " + std::to_string(field(p, "branches").size()) + " candidate branches, " +
              (merged.empty() ? std::string("none merged") : "merged " + merged) +
              (other.empty() ? "" : "; not merged: " + other);
    n.status = merged.empty() ? "failed" : "";
    b_.add(under, std::move(n), s.at);
  }

  // `kaisha history TASK --revert N`, journaled before it took effect.
  void reverted(const TaskStep& s) {
    TaskTree n;
    n.kind = "revert";
    n.agent = s.agent;
    n.label = "revert to commit " + field(s.payload, "revert").value("to", json(0)).dump() + " (by " + s.agent + ")";
    b_.add(TreeBuilder::kRoot, std::move(n), s.at);
  }

  // The pyramid's own events: a merge plan, a change to a candidate pool,
  // a judge that could not rule.
  void evolution(const TaskStep& s) {
    const json& p = s.payload;
    const std::string event = text_field(p, "event");
    TaskTree n;
    n.kind = event;
    n.agent = s.agent;
    if (event == "evolution")
      n.label = "evolution: " + text_field(p, "agent") + " " + text_field(p, "kind") + " " + text_field(p, "model") +
                " — " + short_text(text_field(p, "why"), 100);
    else if (event == "judge_failed")
      n.label = "the judge could not rule: " + short_text(text_field(p, "why"), 100);
    else if (event == "merge_plan")
      return;  // the branches' node that follows says what was merged
    else
      n.label = event;
    auto c = calls_.find(int_field(p, "call", -1));
    b_.add(c != calls_.end() ? c->second.node : TreeBuilder::kRoot, std::move(n), s.at);
  }

  TreeBuilder b_;
  std::map<int64_t, Call> calls_;
};

}  // namespace

TaskTree pyramid_tree(const TaskRecord& task, const std::vector<TaskStep>& steps) {
  return PyramidTree(task).build(steps);
}

}  // namespace kaisha::strategy
