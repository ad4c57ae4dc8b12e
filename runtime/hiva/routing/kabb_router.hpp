// KABB successor routing (hiva.md §6.1, §14 items 6 and 20): an agent that
// has run picks which of its successors receive an instruction. Each
// candidate j scores
//
//   s_j = θ_j · exp(−λ·Dist_j) · ζ(S ∪ {j})^η
//
// with θ_j ~ Beta(α_j, β_j) (Thompson sampling) or its mean α/(α+β), Dist_j
// the knowledge cost (knowledge_cost.hpp), and ζ the team synergy of the
// already selected set S with j added (synergy.hpp). The top k by score are
// chosen, ties to the earlier candidate.
//
// Randomness: θ_j is drawn from its own stream, keyed by (iteration, routing
// agent, candidate) under the task's seed, so a draw never depends on the
// order candidates are listed, other routers ran or outcomes arrived, and a
// replay draws the same numbers.
//
// No candidate is ever filtered out (there is no threshold on Dist), so the
// aggregator, whatever its cost, is always a valid successor.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/result.hpp"
#include "runtime/hiva/routing/synergy.hpp"
#include "runtime/random/stream_key.hpp"
#include "runtime/random/task_seed.hpp"

namespace kaisha::hiva {

// Where θ comes from: a Beta draw (the paper's Thompson sampling) or the
// posterior mean (the formula as printed); hiva.md §6.1 leaves it open.
enum class ThetaMode { thompson, mean };

struct KabbSettings {
  // false is the w/o-KABB ablation (§14 item 20): every successor is chosen
  // and nothing is drawn.
  bool enabled = true;
  ThetaMode mode = ThetaMode::thompson;
  // λ, the knowledge-distance penalty, and η, the synergy influence: the
  // paper learns them and gives no values; 1 is our choice.
  double lambda = 1.0;
  double eta = 1.0;
  // Successors chosen per routing decision: the reference code's default
  // (the paper gives none; its MATH script uses 2).
  int k = 3;
  // ζ is raised to η only from this floor up, so a team whose synergy sums
  // to 0 (or below) still ranks its candidates by θ and Dist rather than
  // all scoring 0 (our choice).
  double zeta_floor = 1e-6;
  SynergySettings synergy;
};

// Error{"config", ...} naming the first bad setting and its value: k < 1;
// λ, η or zeta_floor negative or not finite (zeta_floor must be > 0); a
// mode that is no enumerator; non-finite synergy defaults.
Status validate(const KabbSettings& settings);

struct Candidate {
  std::string id;
  double alpha = 1.0;  // the agent's Beta posterior
  double beta = 1.0;
  double dist = 0.0;  // Dist(A_j, I_task), >= 0
};

struct Scored {
  std::string id;
  double theta = 0.0;
  double dist = 0.0;
  double zeta = 0.0;  // ζ(S ∪ {j}), before the floor
  double score = 0.0;
};

struct Selection {
  std::vector<std::string> chosen;  // by descending score (candidate order when broadcasting)
  std::vector<Scored> scores;       // one per candidate, in candidate order; empty when broadcasting
};

// Who is deciding: the task's seed, the STEV iteration and the routing
// agent's id; with a candidate's id they key its θ draw.
struct RoutingDecision {
  random::TaskSeed seed;
  int64_t iteration = 0;
  std::string router;
};

// ("hiva.kabb.theta", iteration, fnv1a_64(router), fnv1a_64(candidate)):
// θ_j is random::beta(RandomStream(seed, this key), α_j, β_j).
random::StreamKey theta_stream_key(int64_t iteration, const std::string& router, const std::string& candidate);

// `selected` is S, the agents already selected (e.g. those activated so far
// in this forward pass); it may hold candidates, which are then not counted
// twice. k >= candidates.size() chooses them all.
// Errors: invalid settings (Error{"config"}); a candidate with an empty or
// repeated id, α or β not finite and > 0, or Dist not finite and >= 0
// (Error{"invalid_argument"}, e.g. "candidates[1].alpha: 0 must be > 0").
Result<Selection> select_successors(const std::vector<Candidate>& candidates, const std::vector<std::string>& selected,
                                    const SynergyLookup& synergy, const KabbSettings& settings,
                                    const RoutingDecision& decision);

}  // namespace kaisha::hiva
