#include "runtime/effgen/routing/threshold_profile.hpp"

namespace kaisha::routing {

Thresholds thresholds_for_tier(ModelTier tier) {
  switch (tier) {
    case ModelTier::tiny:
      return {5.5, 7.5};
    case ModelTier::small:
      return {6.0, 8.0};
    case ModelTier::medium:
      return {7.0, 8.5};
    case ModelTier::large:
    case ModelTier::xl:
      return {7.5, 9.0};
  }
  return {};
}

}  // namespace kaisha::routing
