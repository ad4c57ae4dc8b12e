// HiVA graph import (runtime/hiva/graph/graph_json.hpp): any bytes, parsed as
// JSON the way a graph file is read, then graph_from_json. A refusal is an
// Error with code hiva_graph and a message in valid UTF-8. An accepted graph
// keeps the rules AgentGraph promises (restated here from the outside), goes
// back to JSON and is imported again equal, and then serves as a fixture for
// the operations on graphs: the forward schedule can be planned, every
// topology edit either is refused leaving the graph unchanged or is undone
// exactly, and RepairTopology leaves a graph without cycles in which the
// source reaches the aggregator.
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/bounded_json.hpp"
#include "runtime/hiva/graph/agent_graph.hpp"
#include "runtime/hiva/graph/forward_schedule.hpp"
#include "runtime/hiva/graph/graph_json.hpp"
#include "runtime/hiva/graph/repair_topology.hpp"
#include "runtime/hiva/graph/topology_edit.hpp"
#include "tests/fuzz/fuzz_check.hpp"

using kaisha::json;
using kaisha::fuzz::check;
using kaisha::fuzz::valid_utf8;
namespace hiva = kaisha::hiva;

namespace {

void check_rules(const hiva::AgentGraph& g) {
  check(g.find("source") && g.find("aggregator"), "the source and the aggregator exist");
  check(g.agents()[0].id == "source" && g.agents()[1].id == "aggregator", "the source and the aggregator come first");
  std::set<std::string> ids;
  for (const hiva::GraphAgent& a : g.agents()) {
    check(!a.id.empty() && ids.insert(a.id).second, "ids are non-empty and distinct");
    check(a.alpha > 0 && a.beta > 0, "an agent's Beta parameters are positive");
  }
  std::set<std::pair<std::string, std::string>> edges;
  for (const hiva::GraphEdge& e : g.edges()) {
    check(ids.count(e.from) && ids.count(e.to) && e.from != e.to, "edges join two known agents");
    check(e.from != "aggregator" && e.to != "source", "nothing leaves the aggregator or enters the source");
    check(edges.emplace(e.from, e.to).second, "no duplicate edge");
    check(e.successes <= e.uses && e.synergy >= 0, "an edge's history is consistent");
  }
  for (const hiva::GraphAgent& a : g.agents())
    check(g.successors(a.id).size() <= static_cast<size_t>(hiva::AgentGraph::kMaxSuccessors), "at most 5 successors");
  check(!g.has_cycle(), "an imported graph has no cycle");
}

void round_trip(const hiva::AgentGraph& g) {
  json written = hiva::to_json(g);
  json reread = json::parse(written.dump());
  kaisha::Result<hiva::AgentGraph> again = hiva::graph_from_json(reread);
  check(again.ok(), "a written graph is imported again");
  check(*again == g, "the round trip gives an equal graph");
  check(hiva::to_json(*again) == written, "the round trip gives the same JSON");
}

void operations(const hiva::AgentGraph& g) {
  check(hiva::ForwardSchedule::plan(g, "x0").ok(), "an imported graph can be scheduled");
  const std::vector<hiva::TopologyDecision> decisions = {
      {hiva::TopologyOp::add_parallel, "parallel helper"}, {hiva::TopologyOp::add_serial, "serial helper"},
      {hiva::TopologyOp::remove_successor, "0"},           {hiva::TopologyOp::remove_successor, "least_visited"},
      {hiva::TopologyOp::connect_to_aggregator, ""},       {hiva::TopologyOp::no_change, ""}};
  std::vector<hiva::EditResult> edits;
  hiva::AgentGraph edited = g;
  size_t deciders = 0;
  for (const hiva::GraphAgent& a : g.agents()) {
    if (++deciders > 6) break;  // a bounded cost per input
    for (const hiva::TopologyDecision& d : decisions) {
      hiva::AgentGraph copy = g;
      hiva::EditResult r = hiva::apply_edit(copy, a.id, d);
      if (!r.applied) {
        check(copy == g && !r.reason.empty() && valid_utf8(r.reason), "a refused edit explains and changes nothing");
        continue;
      }
      check(hiva::undo(copy, r).ok() && copy == g, "an applied edit is undone exactly");
      hiva::EditResult kept = hiva::apply_edit(edited, a.id, d);
      if (kept.applied) edits.push_back(std::move(kept));
    }
  }
  hiva::repair_topology(edited, edits);
  check(!edited.has_cycle(), "a repaired graph has no cycle");
  kaisha::Result<hiva::ForwardSchedule> plan = hiva::ForwardSchedule::plan(edited, "x0");
  check(plan.ok(), "a repaired graph can be scheduled");
  bool reaches = false;
  std::vector<std::string> frontier{"source"};
  std::set<std::string> seen{"source"};
  while (!frontier.empty() && !reaches) {
    std::string at = frontier.back();
    frontier.pop_back();
    reaches = at == "aggregator";
    for (const std::string& next : edited.successors(at))
      if (seen.insert(next).second) frontier.push_back(next);
  }
  check(reaches, "after repair the source reaches the aggregator");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  json j = kaisha::parse_json_or_discarded(text);
  if (j.is_discarded()) return 0;
  kaisha::Result<hiva::AgentGraph> g = hiva::graph_from_json(j);
  if (!g.ok()) {
    check(g.error().code == "hiva_graph", "a refusal has code hiva_graph");
    check(!g.error().message.empty() && valid_utf8(g.error().message), "a refusal says why, in valid UTF-8");
    return 0;
  }
  check_rules(*g);
  round_trip(*g);
  operations(*g);
  return 0;
}
