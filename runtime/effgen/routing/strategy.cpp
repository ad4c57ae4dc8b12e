#include "runtime/effgen/routing/strategy.hpp"

namespace kaisha::routing {

std::string_view to_string(Strategy s) {
  switch (s) {
    case Strategy::single:
      return "single";
    case Strategy::parallel:
      return "parallel";
    case Strategy::sequential:
      return "sequential";
    case Strategy::hybrid:
      return "hybrid";
    case Strategy::hierarchical:
      return "hierarchical";
  }
  return "single";
}

}  // namespace kaisha::routing
