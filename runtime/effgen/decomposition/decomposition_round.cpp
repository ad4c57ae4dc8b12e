#include "runtime/effgen/decomposition/decomposition_round.hpp"

namespace kaisha::planning {

DecompositionRound::DecompositionRound(routing::Strategy strategy, DecompositionLimits limits, int max_retries)
    : strategy_(strategy), limits_(limits), max_retries_(max_retries < 0 ? 0 : max_retries) {}

RoundStep DecompositionRound::on_answer(std::string_view answer) {
  RoundStep step;
  if (over_) {
    step.reason = "the round is over";
    return step;
  }
  ++answers_;
  Result<Decomposition> plan = parse_decomposition(answer, strategy_, limits_);
  if (plan) {
    over_ = true;
    step.kind = RoundStep::Kind::accept;
    step.plan = std::move(plan).value();
    return step;
  }
  step.reason = plan.error().message;
  if (answers_ > max_retries_) {
    over_ = true;
    step.kind = RoundStep::Kind::fall_back;
    return step;
  }
  step.kind = RoundStep::Kind::retry;
  step.feedback = "Your decomposition could not be used: " + step.reason +
                  "\nAnswer again with ONLY the corrected JSON, in the format asked for above, no additional text.";
  return step;
}

}  // namespace kaisha::planning
