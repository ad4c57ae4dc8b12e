// AgentRouter: where a query enters the pyramid (InfiAgent, infiagent.md
// §3.4 and §10 items 12–15). Each agent of level >= 1 is scored by the
// cosine similarity of the query's embedding with its description's; the
// query goes straight to the best agent at whatever level (no descent
// layer by layer). Equal scores go to the agent with the higher quality
// score Q, then the higher level, then the name, so a decision is the same
// every time for the same vectors. Below `threshold` the query goes to the
// pyramid's top agent as a new task (an evolution trigger the strategy
// logs).
//
// The router is pure: the strategy embeds the query and the descriptions
// (with the memory's embedder) and hands the vectors in.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/memory/embedder.hpp"
#include "runtime/pyramid/agent_library.hpp"

namespace kaisha::pyramid {

struct RouteDecision {
  std::string agent;       // where the query goes
  double score = 0;        // its similarity with the query
  bool new_task = false;   // nothing matched well enough: the top agent takes it
  std::vector<std::pair<std::string, double>> scores;  // every candidate, best first

  json to_json() const;
};

class AgentRouter {
 public:
  // `descriptions` holds one embedding per agent of level >= 1 (missing
  // ones are an error naming the agent). The top agent is the library's
  // first root (highest level, then name).
  static Result<AgentRouter> create(const AgentLibrary& library, std::map<std::string, memory::Vector> descriptions,
                                    double threshold);

  // `quality` maps agent names to Q (absent: no preference).
  RouteDecision route(const memory::Vector& query, const std::map<std::string, double>& quality = {}) const;

  const std::string& top() const { return top_; }
  // The text whose embedding stands for `agent`: its description and responsibility.
  static std::string description_text(const AgentDefinition& agent);

 private:
  struct Candidate {
    std::string name;
    int level = 1;
    memory::Vector vector;
  };
  std::vector<Candidate> candidates_;
  std::string top_;
  double threshold_ = 0;
};

}  // namespace kaisha::pyramid
