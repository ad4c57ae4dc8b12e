// Which candidate models of a pyramid agent still run (InfiAgent's
// topology-level evolution, infiagent.md §10 item 54): "branches that
// consistently deliver high-quality results dominate, while weaker ones are
// pruned".
//   - windowed Q: the share of approvals among a candidate's last `window`
//     verdicts;
//   - pruned: a candidate with at least `min_verdicts` verdicts in its window
//     whose windowed Q is below `prune_below` leaves the pool (never the last
//     one), so a call stops costing a model call for it;
//   - dominant: a candidate merged first (the call's answer) in at least
//     `dominance` of the agent's last `window` calls, over at least
//     `min_calls` of them, becomes the agent's default model: the agent's
//     calls run it alone;
//   - reversible: a default whose windowed Q falls below `prune_below` is
//     revoked and the pool runs again (the undo of a wrong promotion), and
//     undo() revokes a default or restores a pruned candidate by hand.
// Every change is returned to the caller, which journals it and saves the
// agent's pool (state_of) as strategy state; seed() starts from that state.
// Not thread-safe: one strategy actor owns it.
#pragma once

#include <cstddef>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::pyramid {

struct EvolutionSettings {
  bool prune = true;  // pyramid.evolution.prune: off keeps every candidate running
  int window = 10;
  double prune_below = 0.3;
  int min_verdicts = 5;
  double dominance = 0.8;
  int min_calls = 5;
};

class CandidatePool {
 public:
  struct Change {
    std::string agent;
    std::string kind;  // "pruned" | "restored" | "default" | "default_revoked"
    std::string model;
    std::string why;
    json to_json() const;
  };

  explicit CandidatePool(EvolutionSettings settings = {}) : settings_(settings) {}

  // The models of `candidates` that run for `agent`, in their order: its
  // default alone, else those not pruned.
  std::vector<std::string> running(const std::string& agent, const std::vector<std::string>& candidates) const;
  // A judge's verdict on candidate `model` of `agent`.
  std::vector<Change> on_verdict(const std::string& agent, const std::string& model, bool success);
  // A call of `agent` ended; `answered` is the model whose result it gave ("" none).
  std::vector<Change> on_call(const std::string& agent, const std::vector<std::string>& ran,
                              const std::string& answered);
  // Undoes by hand: `model` "" revokes the default, else restores that pruned candidate.
  Result<Change> undo(const std::string& agent, const std::string& model);

  double windowed_q(const std::string& agent, const std::string& model) const;
  std::string default_model(const std::string& agent) const;

  // The state key of `agent`'s pool ("pool/<agent>"), and back.
  static std::string state_key(const std::string& agent);
  static bool is_state_key(const std::string& key);
  json state_of(const std::string& agent) const;
  void seed(const std::string& key, const json& value);

 private:
  struct Agent {
    std::map<std::string, std::deque<bool>> verdicts;  // per model, the last `window`
    std::deque<std::string> answered;                  // the last `window` calls' answering model ("" none)
    std::set<std::string> pruned;
    std::string fallback;  // the default model ("" none)
  };
  EvolutionSettings settings_;
  std::map<std::string, Agent> agents_;
};

}  // namespace kaisha::pyramid
