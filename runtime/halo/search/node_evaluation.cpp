#include "runtime/halo/search/node_evaluation.hpp"

namespace kaisha::halo {

std::string_view to_string(EvaluationKind kind) {
  switch (kind) {
    case EvaluationKind::expansion:
      return "expansion";
    case EvaluationKind::rollout:
      return "rollout";
  }
  return "unknown";
}

std::string to_string(const EvaluationKey& key) {
  std::string text = "iteration " + std::to_string(key.iteration);
  if (key.kind == EvaluationKind::expansion) return text + " expansion role " + std::to_string(key.index);
  if (key.kind == EvaluationKind::rollout) {
    return text + " rollout " + std::to_string(key.index) + " step " + std::to_string(key.step);
  }
  return text + " kind " + std::to_string(static_cast<int>(key.kind)) + " index " + std::to_string(key.index) +
         " step " + std::to_string(key.step);
}

}  // namespace kaisha::halo
