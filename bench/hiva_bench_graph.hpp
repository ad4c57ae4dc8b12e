// The HiVA benchmarks' graph: 20 agents, the source, the aggregator and 18
// agents in four layers (4, 5, 5, 4), every agent on a path from the source
// to the aggregator, at most 5 successors each:
//
//   source -> all of layer 1
//   layer 1 agent i -> layer 2 agents i, i+1, (i+3) mod 5   (agent 0 also -> aggregator)
//   layer 2 agent j -> layer 3 agents j, j+1, j+2 (mod 5)
//   layer 3 agent m -> layer 4 agents m, m+1 (mod 4)         (agent 4 also -> aggregator)
//   layer 4 -> aggregator
//
// The agents' roles differ (so their knowledge costs differ), and so do
// their Beta posteriors and their edges' synergy, so that routing with k = 2
// prefers some paths. No agent has a tool: a tool runs in the sandbox, which
// is not what these benchmarks measure.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "runtime/hiva/graph/agent_graph.hpp"

namespace kaisha::bench {

inline hiva::AgentGraph hiva_bench_graph() {
  using hiva::AgentGraph;
  using hiva::GraphAgent;
  using hiva::GraphEdge;
  static const char* kRoles[18] = {
      "requirements analyst who restates what the task asks and lists its constraints",
      "planner who splits the task into ordered steps and names who does each",
      "researcher who retrieves the facts and figures the task depends on",
      "mathematician who sets up the equations and checks every calculation",
      "Python programmer who writes the function the task asks for",
      "algorithm designer who picks the approach and states its complexity",
      "statistician who analyses the data and reports the numbers that matter",
      "fact checker who verifies each claim against its source",
      "writer who drafts a clear answer from the team's findings",
      "test writer who writes unit tests with assert statements for the code",
      "debugger who finds the error behind a failing test and fixes it",
      "arithmetic checker who recomputes every sum, percent and total",
      "summarizer who condenses long findings into the essential points",
      "reviewer who reads the code for bugs and unclear names",
      "editor who corrects the answer's grammar, order and tone",
      "multi-hop reasoner who joins facts from several steps into a conclusion",
      "data analyst who tabulates the options and compares them",
      "integrator who makes the parts consistent before they are combined",
  };
  auto agent = [](const std::string& id, const std::string& role, double alpha, double beta) {
    GraphAgent a;
    a.id = id;
    a.role = role.substr(0, role.find(' ', role.find(' ') + 1));
    a.prompt = "You are the " + role +
               ". Work only on your part of the task, say what you relied on, and state your result so that "
               "the next agent can build on it without asking again.";
    a.tool_version = 0;
    a.alpha = alpha;
    a.beta = beta;
    return a;
  };
  GraphAgent source = agent("source", "first agent of the team, who works out what the task asks", 1, 1);
  source.role = "source";
  GraphAgent aggregator = agent("aggregator", "aggregator who writes the final answer from the agents' outputs", 1, 1);
  aggregator.role = "aggregator";
  AgentGraph g = AgentGraph::singleton(std::move(source), std::move(aggregator));
  auto check = [](Status s, const char* what) {
    if (!s.ok()) {
      std::fprintf(stderr, "the benchmark graph: %s: %s\n", what, s.error().message.c_str());
      std::exit(1);
    }
  };
  check(g.remove_edge(AgentGraph::kSource, AgentGraph::kAggregator), "remove source -> aggregator");

  const int sizes[4] = {4, 5, 5, 4};
  std::vector<std::vector<std::string>> layers(4);
  int n = 0;
  for (int l = 0; l < 4; ++l)
    for (int i = 0; i < sizes[l]; ++i, ++n) {
      const std::string id = "l" + std::to_string(l + 1) + "_" + std::to_string(i);
      // Posteriors from Beta(1, 9) to Beta(9, 1) and between: some agents
      // have done well, some badly, some are new.
      check(g.add_agent(agent(id, kRoles[n], 1 + (n * 7) % 9, 1 + (n * 5) % 9)), "add an agent");
      layers[l].push_back(id);
    }
  int e = 0;
  auto edge = [&](const std::string& from, const std::string& to) {
    GraphEdge x;
    x.from = from;
    x.to = to;
    x.synergy = 0.1 + 0.1 * ((e++ * 3) % 9);  // 0.1 .. 0.9
    check(g.add_edge(std::move(x)), "add an edge");
  };
  for (const std::string& a : layers[0]) edge(std::string(AgentGraph::kSource), a);
  for (int i = 0; i < 4; ++i)
    for (int j : {i, i + 1, (i + 3) % 5}) edge(layers[0][i], layers[1][j]);
  edge(layers[0][0], std::string(AgentGraph::kAggregator));
  for (int j = 0; j < 5; ++j)
    for (int m : {j, (j + 1) % 5, (j + 2) % 5}) edge(layers[1][j], layers[2][m]);
  for (int m = 0; m < 5; ++m)
    for (int q : {m % 4, (m + 1) % 4}) edge(layers[2][m], layers[3][q]);
  edge(layers[2][4], std::string(AgentGraph::kAggregator));
  for (const std::string& a : layers[3]) edge(a, std::string(AgentGraph::kAggregator));
  return g;
}

}  // namespace kaisha::bench
