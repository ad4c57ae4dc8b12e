#include "runtime/pyramid/quality_scores.hpp"

namespace kaisha::pyramid {

double QualityScores::update(const std::string& agent, bool success) {
  auto it = scores_.try_emplace(agent, initial_).first;
  it->second = alpha_ * it->second + (1 - alpha_) * (success ? 1.0 : 0.0);
  ++audits_[agent];
  return it->second;
}

double QualityScores::of(const std::string& agent) const {
  auto it = scores_.find(agent);
  return it == scores_.end() ? initial_ : it->second;
}

json QualityScores::to_json() const {
  json j = json::object();
  for (const auto& [agent, q] : scores_) j[agent] = json{{"q", q}, {"audits", audits_.at(agent)}};
  return j;
}

}  // namespace kaisha::pyramid
