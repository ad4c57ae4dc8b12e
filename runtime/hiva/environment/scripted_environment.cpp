#include "runtime/hiva/environment/scripted_environment.hpp"

#include <string>

#include "runtime/core/ascii_case.hpp"

namespace kaisha::hiva {

namespace {

bool matches(const suite::ScriptedTurn& turn, const std::string& lower_answer) {
  if (turn.expect.empty()) return true;
  for (const std::string& e : turn.expect)
    if (lower_answer.find(ascii_lower(e)) != std::string::npos) return true;
  return false;
}

}  // namespace

Result<ScriptedEnvironment> ScriptedEnvironment::from_item(const suite::SuiteItem& item) {
  if (item.format != suite::kInteractive)
    return Error{"suite", "task " + item.id + " is of format " + (item.format.empty() ? "(none)" : item.format) +
                              ", not interactive"};
  auto turns = suite::parse_scripted_turns(item.turns);
  if (!turns) return Error{"suite", "task " + item.id + ": " + turns.error().message};
  return ScriptedEnvironment(std::move(turns.value()));
}

ScriptedEnvironment::ScriptedEnvironment(std::vector<suite::ScriptedTurn> turns) : turns_(std::move(turns)) {
  if (turns_.empty()) {
    ended_ = true;  // nothing to play: a lost episode rather than an out-of-range turn
    outcome_ = {std::string(kEpisodeFailed), false, 0.0};
  }
}

EnvironmentFeedback ScriptedEnvironment::end(std::string text, bool success) {
  ended_ = true;
  outcome_ = {std::move(text), success, success ? 1.0 : 0.0};
  return outcome_;
}

EnvironmentFeedback ScriptedEnvironment::step(std::string_view answer) {
  if (ended_) return {"The episode is over. " + outcome_.text, outcome_.success, outcome_.score};
  ++steps_;
  const suite::ScriptedTurn& turn = turns_[turn_];
  if (matches(turn, ascii_lower(answer))) {
    ++turn_;
    misses_ = 0;
    if (turn_ == turns_.size()) return end(turn.reply, turn.success);
    return {turn.reply, std::nullopt, std::nullopt};
  }
  if (++misses_ >= turn.attempts) return end(turn.otherwise.value_or(std::string(kEpisodeFailed)), false);
  return {turn.otherwise.value_or(std::string(kTryAgain)), std::nullopt, std::nullopt};
}

EnvironmentFeedback ScriptedEnvironment::play(const std::vector<std::string>& answers) {
  EnvironmentFeedback last{std::string(kEpisodeFailed), false, 0.0};
  for (const std::string& a : answers) last = step(a);
  return last;
}

std::string episode_so_far(std::string_view task, const std::vector<std::string>& answers,
                           const std::vector<std::string>& observations) {
  std::string out(task);
  out += "\n\nThe episode so far:";
  for (size_t i = 0; i < answers.size(); ++i) {
    out += "\n\n[Turn " + std::to_string(i + 1) + "] You answered:\n" + answers[i];
    if (i < observations.size()) out += "\n\nThe environment replied:\n" + observations[i];
  }
  out += "\n\nAnswer the environment's last reply.";
  return out;
}

}  // namespace kaisha::hiva
