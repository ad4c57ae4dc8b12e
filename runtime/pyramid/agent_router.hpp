// AgentRouter: where a query enters the pyramid (InfiAgent, infiagent.md
// §3.4 and §10 items 12–15). Each agent of level >= 1 gets a score in
// [0, 1] for the query — by the cosine similarity of the query's embedding
// with its description's, by a model's scores (the strategy asks a model to
// score every candidate and hands the answer to read_model_scores), or by
// the mean of both — and the query goes straight to the best agent at
// whatever level (no descent layer by layer). Scores within the tie
// tolerance of the best (pyramid.route_tie_tolerance) are equal: among them
// the agent with the higher quality score Q wins, then the higher level,
// then the name, so a decision is the same every time for the same inputs.
// Q is routing_quality()'s: an agent never audited has the initial Q, an
// agent with candidate models the best of its candidates'. Below
// `threshold` the query goes to the pyramid's top agent as a new task (an
// evolution trigger the strategy logs).
//
// The router is pure: the strategy embeds the query and the descriptions
// and asks the model; the router only scores and decides.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/memory/embedder.hpp"
#include "runtime/pyramid/agent_library.hpp"
#include "runtime/pyramid/quality_scores.hpp"

namespace kaisha::pyramid {

// How candidates are scored: `pyramid.router` (embedding, model or both).
enum class RouteMethod { embedding, model, both };
const char* name_of(RouteMethod m);
std::optional<RouteMethod> route_method_named(const std::string& name);
const std::vector<std::string>& route_method_names();

struct RouteDecision {
  std::string agent;                                   // where the query goes
  double score = 0;                                    // its score for the query
  bool new_task = false;                               // nothing matched well enough: the top agent takes it
  std::vector<std::pair<std::string, double>> scores;  // every candidate, best first
  // "entry" (fixed by configuration), "embedding", "model" or "both".
  std::string method = "embedding";
  std::string fallback;  // why the model's scores were not used, when they were asked for

  json to_json() const;
};

class AgentRouter {
 public:
  // Scores that close to the best count as a tie (pyramid.route_tie_tolerance).
  static constexpr double kDefaultTieTolerance = 0.01;

  // `descriptions` holds one embedding per agent of level >= 1 (missing
  // ones are an error naming the agent). The top agent is the library's
  // first root (highest level, then name).
  static Result<AgentRouter> create(const AgentLibrary& library, std::map<std::string, memory::Vector> descriptions,
                                    double threshold, double tie_tolerance = kDefaultTieTolerance);

  // The Q the router compares for each agent of level >= 1: its score, or
  // the initial Q when it was never audited; for an agent with candidate
  // models (scored as "<agent>@<model>") the best of its candidates'.
  static std::map<std::string, double> routing_quality(const AgentLibrary& library, const QualityScores& scores);

  // `quality` maps agent names to Q (absent: no preference).
  RouteDecision route(const memory::Vector& query, const std::map<std::string, double>& quality = {}) const;
  // Each candidate's cosine similarity with `query`.
  std::map<std::string, double> similarities(const memory::Vector& query) const;
  // The decision for scores given per candidate (absent ones score 0).
  RouteDecision decide(const std::map<std::string, double>& scores, const std::string& method,
                       const std::map<std::string, double>& quality = {}) const;
  // `by_embedding` (a route() decision) decided again with a model's scores:
  // alone (model) or averaged with the embedding's (both).
  RouteDecision rescore(const RouteDecision& by_embedding, const std::map<std::string, double>& by_model,
                        RouteMethod method, const std::map<std::string, double>& quality = {}) const;

  // The candidates as a model reads them: a line per agent with its level
  // and description text.
  std::string candidates_text() const;
  // A model's answer {"scores": {"<agent>": <0..1>, ...}} (fenced or after a
  // sentence is fine). Unknown agents, numbers outside [0, 1] and an answer
  // scoring nobody are errors naming what was wrong; candidates it leaves
  // out score 0.
  Result<std::map<std::string, double>> read_model_scores(std::string_view answer) const;

  const std::string& top() const { return top_; }
  // The text whose embedding stands for `agent`: its description and responsibility.
  static std::string description_text(const AgentDefinition& agent);

 private:
  struct Candidate {
    std::string name;
    int level = 1;
    std::string text;  // description_text()
    memory::Vector vector;
  };
  std::vector<Candidate> candidates_;
  std::string top_;
  double threshold_ = 0;
  double tie_tolerance_ = kDefaultTieTolerance;
};

}  // namespace kaisha::pyramid
