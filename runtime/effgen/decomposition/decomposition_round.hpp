// DecompositionRound is the pure logic of asking a model for a plan
// (effgen.md §23 item 20): an unusable answer goes back to the model once,
// with the parser's error text; a second unusable answer means the task runs
// as a single agent instead (Algorithm 18's fallback, metadata.fallback=true).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "runtime/effgen/decomposition/decomposition_parser.hpp"

namespace kaisha::planning {

struct RoundStep {
  enum class Kind { accept, retry, fall_back };
  Kind kind = Kind::fall_back;
  std::optional<Decomposition> plan;  // accept: validated, ready for SubtaskDag::build
  std::string feedback;               // retry: the next user message for the model
  std::string reason;                 // retry and fall_back: what was wrong with the last answer
};

class DecompositionRound {
 public:
  explicit DecompositionRound(routing::Strategy strategy, DecompositionLimits limits = {}, int max_retries = 1);

  // Reads one model answer. After accept or fall_back the round is over and
  // further answers yield fall_back with reason "the round is over".
  RoundStep on_answer(std::string_view answer);

  int answers() const { return answers_; }
  routing::Strategy strategy() const { return strategy_; }

 private:
  routing::Strategy strategy_;
  DecompositionLimits limits_;
  int max_retries_;
  int answers_ = 0;
  bool over_ = false;
};

}  // namespace kaisha::planning
