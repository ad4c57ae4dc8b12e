#include "runtime/driver/replay_log.hpp"

#include "runtime/driver/ask_step.hpp"
#include "runtime/driver/outcome_codec.hpp"
#include "runtime/driver/pending_calls.hpp"

namespace kaisha::driver {

Result<ReplayLog> ReplayLog::from_records(const std::vector<std::string>& outcomes,
                                          const std::map<CallId, std::vector<std::string>>& ask_steps) {
  ReplayLog log;
  for (const auto& [id, steps] : ask_steps)
    for (size_t i = 0; i < steps.size(); ++i)
      if (auto s = decode_ask_step(steps[i]); !s.ok())
        return Error{"replay",
                     "step " + std::to_string(i + 1) + " of ask " + std::to_string(id) + ": " + s.error().message};
  log.ask_steps_ = ask_steps;
  for (size_t i = 0; i < outcomes.size(); ++i) {
    auto o = decode(outcomes[i]);
    if (!o.ok()) return Error{"replay", "outcome " + std::to_string(i + 1) + ": " + o.error().message};
    const CallId id = id_of(*o);
    // One effect has one outcome; a repeated id is not fed twice.
    if (!log.ids_.emplace(id, log.outcomes_.size()).second) continue;
    log.outcomes_.push_back(std::move(o).value());
  }
  return log;
}

bool ReplayLog::take(const std::string& agent, bool hire) {
  auto it = agents_.find(agent);
  if (it == agents_.end() || it->second.empty() || it->second.front() != hire) return false;
  it->second.pop_front();
  if (it->second.empty()) agents_.erase(it);
  return true;
}

}  // namespace kaisha::driver
