// HiVA's tree. What its journal holds (runtime/hiva/hiva_driver.cpp): its
// strategy events as note steps {"strategy": "hiva", "event": ...,
// "iteration": t} — forward_pass {graph, executed, skipped, routed, answer}
// once per forward pass, iteration {diff, rewards, ...} after an update,
// and the others — and the model calls and asks, whose tokens and dollars
// count in the iteration they were made in. Steps before the first forward
// pass's event belong to it too.
#include <map>
#include <set>
#include <utility>

#include "runtime/hiva/entry/hiva_view.hpp"
#include "runtime/messages/strategy_event.hpp"
#include "runtime/strategy/tree_building.hpp"

namespace kaisha::strategy {
namespace {

using nlohmann::json;
using Id = TreeBuilder::Id;

std::string edge_key(const std::string& from, const std::string& to) { return from + "\n" + to; }

void add_graph(TreeBuilder& b, Id under, const json& data) {
  const json& graph = data.contains("graph") && data["graph"].is_object() ? data["graph"] : json::object();
  std::set<std::string> routed, ran, skipped;
  if (data.contains("routed") && data["routed"].is_array())
    for (const json& e : data["routed"])
      if (e.is_array() && e.size() == 2 && e[0].is_string() && e[1].is_string())
        routed.insert(edge_key(e[0].get<std::string>(), e[1].get<std::string>()));
  for (const char* key : {"executed", "skipped"})
    if (data.contains(key) && data[key].is_array())
      for (const json& a : data[key])
        if (a.is_string()) (std::string(key) == "executed" ? ran : skipped).insert(a.get<std::string>());
  std::map<std::string, std::vector<std::string>> out, in, routed_in;
  if (graph.contains("edges") && graph["edges"].is_array())
    for (const json& e : graph["edges"]) {
      const std::string from = text_field(e, "from"), to = text_field(e, "to");
      if (from.empty() || to.empty()) continue;
      const bool carried = routed.count(edge_key(from, to)) > 0;
      out[from].push_back(to + (carried ? "*" : ""));
      in[to].push_back(from);
      if (carried) routed_in[to].push_back(from);
    }
  if (!graph.contains("agents") || !graph["agents"].is_array()) return;
  for (const json& a : graph["agents"]) {
    const std::string id = text_field(a, "id");
    if (id.empty()) continue;
    std::string label = id;
    if (const std::string role = text_field(a, "role"); !role.empty()) label += " (" + short_text(role, 40) + ")";
    if (!out[id].empty()) {
      label += " -> ";
      for (size_t i = 0; i < out[id].size(); ++i) label += (i ? ", " : "") + out[id][i];
    }
    TaskTree n;
    n.label = label;
    n.agent = id;
    n.kind = "agent";
    n.key = id;  // the iteration's graph: its agents and the edges into each
    n.after = in[id];
    n.routed = routed_in[id];
    if (skipped.count(id) || (!ran.empty() && !ran.count(id))) n.status = "skipped";
    b.add(under, std::move(n));
  }
}

}  // namespace

TaskTree hiva_tree(const TaskRecord& task, const std::vector<TaskStep>& steps) {
  TreeBuilder b(task);
  std::map<int64_t, Id> iterations;
  auto iteration_node = [&](int64_t t) {
    auto it = iterations.find(t);
    if (it != iterations.end()) return it->second;
    TaskTree n;
    n.label = "iteration " + std::to_string(t);
    n.kind = "iteration";
    return iterations[t] = b.add(TreeBuilder::kRoot, std::move(n));
  };
  int64_t current = -1;
  // Until an event names the first iteration, its steps wait here.
  std::vector<const TaskStep*> before;
  auto place = [&](const TaskStep& s, Id at) {
    if (s.kind == "llm_request" || s.kind == "llm_response" || s.kind == "ask" || s.kind == "answer") {
      b.charge(at, s);  // the calls and asks are counted in their iteration
      b.end(at, s.at);
    } else {
      b.add(at, plain_step(s), s.at);  // hires, fires, refusals, a step of no known kind
    }
  };
  for (const TaskStep& s : steps) {
    const json& p = s.payload;
    const auto name = msg::strategy_event_name(p);
    if (s.kind == "note" && name.strategy == "hiva") {
      const int64_t t = int_field(p, "iteration", current);
      if (t < 0) continue;
      current = t;
      const Id node = iteration_node(t);
      for (const TaskStep* w : before) place(*w, node);
      before.clear();
      if (name.event == "forward_pass") {
        b.node(node).label = "iteration " + std::to_string(t) + ": " + short_text(text_field(p, "answer"), 60);
        add_graph(b, node, p);
      }
      continue;
    }
    if (s.kind == "note" && p.is_object() && p.contains("metadata") && p["metadata"].is_object())
      continue;  // the summary the result line shows
    if (current < 0)
      before.push_back(&s);
    else
      place(s, iteration_node(current));
  }
  for (const TaskStep* w : before) place(*w, TreeBuilder::kRoot);
  return b.finish();
}

}  // namespace kaisha::strategy
