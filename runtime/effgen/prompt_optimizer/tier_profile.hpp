// TierProfile: the limits the prompt optimizer applies to each model tier
// (effGen Table 18). The tiers themselves, and how a model's tier is chosen,
// are llm::ModelTier's (runtime/llm/model_tier.hpp).
#pragma once

#include <cstdint>

#include "runtime/llm/model_tier.hpp"

namespace kaisha::prompt {

// The optimizer's API takes the one tier type under its plain name.
using llm::ModelTier;

// One cell of Table 18's "Support τ_i" rows.
enum class StageSupport { yes, optional, as_needed, rare, no };

const char* to_string(StageSupport s);

// Whether a stage runs when the caller does not say: "yes", "as needed" and
// "rare" do (truncation only acts above τ_prompt anyway, so "as needed" and
// "rare" describe how often it fires, not whether it may); "optional" and
// "no" do not. Callers switch any stage on or off explicitly.
bool enabled_by_default(StageSupport s);

// The per-tier parameters (τ_prompt, τ_context, n_shot, d_chain, α) and the
// stage-enable row of Table 18. α is the *target* ratio |φ(p)|/|p|: it is
// reported next to the measured ratio, never enforced (effgen.md §21.1);
// the only hard limit is τ_prompt.
struct TierProfile {
  ModelTier tier = ModelTier::medium;
  int64_t max_prompt_tokens = 0;                    // τ_prompt
  int64_t max_context_tokens = 0;                   // τ_context
  int n_shot = 0;                                   // few-shot examples
  int max_chain_depth = 0;                          // d_chain
  double target_ratio = 1.0;                        // α
  StageSupport compression = StageSupport::yes;     // τ1
  StageSupport simplification = StageSupport::yes;  // τ2
  StageSupport redundancy = StageSupport::yes;      // τ3
  StageSupport bullets = StageSupport::yes;         // τ4
  StageSupport truncation = StageSupport::yes;      // τ5
};

// Table 18, column `tier`.
const TierProfile& tier_profile(ModelTier tier);

}  // namespace kaisha::prompt
