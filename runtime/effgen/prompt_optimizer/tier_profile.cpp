#include "runtime/effgen/prompt_optimizer/tier_profile.hpp"

#include <array>

namespace kaisha::prompt {

namespace {

using S = StageSupport;

// Table 18 of the paper, column by column.
const std::array<TierProfile, 5> kProfiles = {{
    {ModelTier::tiny, 512, 1024, 1, 2, 0.60, S::yes, S::yes, S::yes, S::yes, S::yes},
    {ModelTier::small, 1024, 2048, 2, 3, 0.70, S::yes, S::yes, S::yes, S::yes, S::yes},
    {ModelTier::medium, 2048, 4096, 3, 5, 0.80, S::yes, S::yes, S::yes, S::yes, S::as_needed},
    {ModelTier::large, 4096, 8192, 5, 7, 0.85, S::yes, S::optional, S::yes, S::optional, S::as_needed},
    {ModelTier::xl, 8192, 16384, 8, 10, 0.90, S::optional, S::no, S::yes, S::no, S::rare},
}};

}  // namespace

const char* to_string(StageSupport s) {
  switch (s) {
    case S::yes:
      return "yes";
    case S::optional:
      return "optional";
    case S::as_needed:
      return "as_needed";
    case S::rare:
      return "rare";
    case S::no:
      return "no";
  }
  return "no";
}

bool enabled_by_default(StageSupport s) { return s == S::yes || s == S::as_needed || s == S::rare; }

const TierProfile& tier_profile(ModelTier tier) { return kProfiles[static_cast<size_t>(tier)]; }

}  // namespace kaisha::prompt
