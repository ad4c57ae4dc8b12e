#include "runtime/pyramid/quality_scores.hpp"

#include <algorithm>

namespace kaisha::pyramid {

double QualityScores::update(const std::string& agent, bool success, int64_t at_ms) {
  auto it = scores_.try_emplace(agent, initial_).first;
  it->second = alpha_ * it->second + (1 - alpha_) * (success ? 1.0 : 0.0);
  ++audits_[agent];
  auto& h = history_[agent];
  h.push_back(Record{at_ms, success, it->second});
  if (h.size() > kHistory) h.pop_front();
  if (std::find(changed_.begin(), changed_.end(), agent) == changed_.end()) changed_.push_back(agent);
  return it->second;
}

void QualityScores::seed(const std::string& agent, double q, int64_t audits) {
  scores_[agent] = q;
  audits_[agent] = audits;
}

double QualityScores::of(const std::string& agent) const {
  auto it = scores_.find(agent);
  return it == scores_.end() ? initial_ : it->second;
}

const std::deque<QualityScores::Record>& QualityScores::history(const std::string& agent) const {
  static const std::deque<Record> kNone;
  auto it = history_.find(agent);
  return it == history_.end() ? kNone : it->second;
}

std::vector<QualityScores::Score> QualityScores::changed() {
  std::vector<Score> out;
  for (const auto& agent : changed_) out.push_back(Score{agent, scores_.at(agent), audits_.at(agent)});
  changed_.clear();
  return out;
}

json QualityScores::to_json() const {
  json j = json::object();
  for (const auto& [agent, q] : scores_) j[agent] = json{{"q", q}, {"audits", audits_.at(agent)}};
  return j;
}

}  // namespace kaisha::pyramid
