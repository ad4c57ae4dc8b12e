#include "runtime/routing/threshold_profile.hpp"

namespace kaisha::routing {

std::string_view to_string(ModelTier tier) {
  switch (tier) {
    case ModelTier::tiny: return "tiny";
    case ModelTier::small: return "small";
    case ModelTier::medium: return "medium";
    case ModelTier::large: return "large";
    case ModelTier::xl: return "xl";
  }
  return "medium";
}

std::optional<ModelTier> parse_model_tier(std::string_view name) {
  for (ModelTier t : {ModelTier::tiny, ModelTier::small, ModelTier::medium, ModelTier::large, ModelTier::xl}) {
    if (to_string(t) == name) return t;
  }
  return std::nullopt;
}

ModelTier tier_for_parameters(double billions) {
  if (billions < 1.0) return ModelTier::tiny;
  if (billions < 3.0) return ModelTier::small;
  if (billions < 7.0) return ModelTier::medium;
  if (billions < 13.0) return ModelTier::large;
  return ModelTier::xl;
}

Thresholds thresholds_for_tier(ModelTier tier) {
  switch (tier) {
    case ModelTier::tiny: return {5.5, 7.5};
    case ModelTier::small: return {6.0, 8.0};
    case ModelTier::medium: return {7.0, 8.5};
    case ModelTier::large:
    case ModelTier::xl: return {7.5, 9.0};
  }
  return {};
}

}  // namespace kaisha::routing
