// ModelTier: the model-size categories of effGen (paper Def. 3.1 and
// Table 18) and the limits the prompt optimizer applies to each. A tier is
// chosen from an explicit setting, a parameter count, or a model name that
// carries its size ("qwen2.5:7b", "Qwen/Qwen2.5-1.5B-Instruct"), in that
// order of precedence.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/core/result.hpp"

namespace kaisha::prompt {

enum class ModelTier { tiny, small, medium, large, xl };

// "tiny", "small", "medium", "large", "xl".
const char* to_string(ModelTier tier);

// Case-insensitive inverse of to_string(); "extra_large" is accepted for xl.
// Anything else is an Error with code "config" quoting `text`.
Result<ModelTier> parse_model_tier(std::string_view text);

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
  int64_t max_prompt_tokens = 0;   // τ_prompt
  int64_t max_context_tokens = 0;  // τ_context
  int n_shot = 0;                  // few-shot examples
  int max_chain_depth = 0;         // d_chain
  double target_ratio = 1.0;       // α
  StageSupport compression = StageSupport::yes;     // τ1
  StageSupport simplification = StageSupport::yes;  // τ2
  StageSupport redundancy = StageSupport::yes;      // τ3
  StageSupport bullets = StageSupport::yes;         // τ4
  StageSupport truncation = StageSupport::yes;      // τ5
};

// Table 18, column `tier`.
const TierProfile& tier_profile(ModelTier tier);

// Lower bounds, in billions of parameters, of SMALL, MEDIUM, LARGE and XL.
// The default is Def. 3.1 (<1B TINY, 1–3B SMALL, 3–7B MEDIUM, ≥7B LARGE)
// with Table 18's XL (≥13B) taking precedence over LARGE (effgen.md §21.2).
// Paper D.8 and the public repository treat 1.5B as TINY; a caller who wants
// that sets small_from to 2.0.
struct TierBoundaries {
  double small_from = 1.0;
  double medium_from = 3.0;
  double large_from = 7.0;
  double xl_from = 13.0;
};

// Tier of a model with `billions` parameters (0.5 → tiny, 14 → xl).
ModelTier tier_from_parameters(double billions, const TierBoundaries& b = {});

// The parameter count, in billions, written in a model name: the first
// number directly followed by "b" or "m" (any case) that stands on its own
// between non-alphanumeric characters, e.g. "llama3.2:3b" → 3,
// "Qwen/Qwen2.5-1.5B-Instruct" → 1.5, "SmolLM2-360M" → 0.36. A mixture of
// experts written "8x7b" counts all experts (56). nullopt when the name
// carries no size ("gpt-4o", "qwen2.5:latest").
std::optional<double> parameters_from_model_name(std::string_view name);

// What is known about a model, for choosing its tier.
struct TierQuery {
  std::optional<ModelTier> explicit_tier;  // `model_size` in config; wins
  std::optional<double> parameters_b;      // from model metadata
  std::string model_name;                  // parsed when no count is known
};

// The tier for `q`: explicit_tier, else parameters_b, else the size in
// model_name, else `unknown`. The default for unknown models is LARGE, the
// public repository's fallback: a model without a size in its name is most
// often a hosted frontier model, which a tight TINY budget would cripple.
ModelTier resolve_tier(const TierQuery& q, const TierBoundaries& b = {},
                       ModelTier unknown = ModelTier::large);

}  // namespace kaisha::prompt
