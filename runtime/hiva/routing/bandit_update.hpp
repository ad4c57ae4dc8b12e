// KABB's posterior updates after an iteration (hiva.md §6.3, §6.5, §14
// items 17 and 18).
//
// An agent's Beta(α, β) (§6.3):
//   α ← γ^{Δt}·α + [r + δ·KM]·𝕀(selected)
//   β ← γ^{Δt}·β + [1 − r + δ·KD]·𝕀(selected)
//   γ^{Δt} = e^{−κΔt},  KM = ρ_overlap·ζ({A, I}) (clamped to [0, 1]),  KD = 1 − KM
// Δt is the number of iterations since the posterior was last updated. With
// `decay_unselected` (the formula as printed) every agent decays every
// iteration; without it an unselected agent is left as it is and catches up
// its decay, over the larger Δt, when next selected: both reach the same
// total decay e^{−κ·(t − t_created)}.
//
// An edge (i, j) (§6.5):
//   C_syn ← C_syn + γ′ · α_ij/(α_ij + β_ij) · ℛ_ij       (the posterior before this update)
// then its own Beta posterior, for which the paper gives no rule, mirrors
// §6.3 without the knowledge term, rewarded by the downstream agent j:
//   α_ij ← γ^{Δt}·α_ij + r_j·𝕀(ℛ_ij > 0),  β_ij ← γ^{Δt}·β_ij + (1 − r_j)·𝕀(ℛ_ij > 0)
//
// α and β never fall below `floor`, so the Beta stays valid after many
// decays (e^{−0.6·Δt} reaches denormals within a few thousand iterations).
#pragma once

#include <cstdint>

#include "runtime/core/result.hpp"

namespace kaisha::hiva {

struct BanditSettings {
  // The paper's "time decay factor" 0.6 (App. D.2), read as κ in
  // γ^{Δt} = e^{−κΔt} (factor e^{−0.6} ≈ 0.549 per iteration), or, with
  // decay_is_gamma, as γ itself (factor 0.6^{Δt}): the paper is ambiguous.
  double decay = 0.6;
  bool decay_is_gamma = false;
  // δ, the knowledge-matching correction strength, and ρ_overlap, the
  // task-relevance factor of KM: the paper gives no values; ours.
  double delta = 0.5;
  double rho_overlap = 1.0;
  // Whether unselected agents (and unused edges) decay; the formula says so.
  bool decay_unselected = true;
  // The least α or β may become (our choice).
  double floor = 1e-3;
  // γ′, the edge synergy learning rate (§6.5): no value given; ours.
  double synergy_rate = 0.1;
};

// Error{"config", ...} naming the first bad setting and its value: decay
// not finite or negative (or, as γ, outside (0, 1]); δ, ρ_overlap or γ′
// negative or not finite; floor not finite and > 0.
Status validate(const BanditSettings& settings);

// A Beta posterior and the iteration it was last updated in (for a new
// agent or edge: the iteration it was created in). Priors Beta(1, 1): the
// paper gives none.
struct Posterior {
  double alpha = 1.0;
  double beta = 1.0;
  int64_t updated_at = 0;
};

// γ^{Δt}: e^{−κΔt}, or decay^{Δt} when decay_is_gamma. Δt >= 0.
double decay_factor(const BanditSettings& settings, int64_t elapsed);

// KM = ρ_overlap·ζ({A, I}), clamped to [0, 1] so that KD = 1 − KM stays a
// share and β's increment never goes negative.
double knowledge_match(const BanditSettings& settings, double agent_task_synergy);

// What one iteration says about an agent.
struct ArmFeedback {
  bool selected = false;  // A ∈ S_t: it was routed to and ran
  double reward = 0.0;    // r ∈ [0, 1] (the paper's is 0 or 1)
  // ζ({A, I}): how well the agent's knowledge matches the task. The paper
  // does not say how a synergy between an agent and a task is measured;
  // the driver may pass the semantic match 1 − Ψ1 of knowledge_cost.
  double agent_task_synergy = 0.0;
};

// The posterior after `iteration` (>= posterior.updated_at). Errors
// (Error{"invalid_argument"}) name the value: an iteration before the last
// update, a reward outside [0, 1], a non-finite synergy; invalid settings
// give Error{"config"}.
Result<Posterior> update_arm(const Posterior& posterior, const ArmFeedback& feedback, int64_t iteration,
                             const BanditSettings& settings = {});

// An edge's meso-level memory (§3, §6.5). C_syn's starting value is the
// graph's (the paper gives none).
struct EdgeState {
  double synergy = 0.0;  // C_syn(i, j)
  Posterior posterior;   // α_ij, β_ij
};

struct EdgeFeedback {
  double contribution = 0.0;       // ℛ_ij this iteration, >= 0 (the routing count)
  double downstream_reward = 0.0;  // r_j ∈ [0, 1], used when ℛ_ij > 0
};

// The edge after `iteration`; errors as update_arm's.
Result<EdgeState> update_edge(const EdgeState& edge, const EdgeFeedback& feedback, int64_t iteration,
                              const BanditSettings& settings = {});

}  // namespace kaisha::hiva
