#include "runtime/pyramid/candidate_pool.hpp"

#include <algorithm>
#include <cstdio>

namespace kaisha::pyramid {

namespace {

constexpr const char* kPrefix = "pool/";

std::string num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

}  // namespace

json CandidatePool::Change::to_json() const {
  return json{{"agent", agent}, {"kind", kind}, {"model", model}, {"why", why}};
}

std::vector<std::string> CandidatePool::running(const std::string& agent,
                                                const std::vector<std::string>& candidates) const {
  auto it = agents_.find(agent);
  if (it == agents_.end()) return candidates;
  const Agent& a = it->second;
  if (!a.fallback.empty() && std::find(candidates.begin(), candidates.end(), a.fallback) != candidates.end())
    return {a.fallback};
  std::vector<std::string> out;
  for (const auto& m : candidates)
    if (!a.pruned.count(m)) out.push_back(m);
  return out.empty() ? candidates : out;
}

double CandidatePool::windowed_q(const std::string& agent, const std::string& model) const {
  auto it = agents_.find(agent);
  if (it == agents_.end()) return 0;
  auto v = it->second.verdicts.find(model);
  if (v == it->second.verdicts.end() || v->second.empty()) return 0;
  return static_cast<double>(std::count(v->second.begin(), v->second.end(), true)) /
         static_cast<double>(v->second.size());
}

std::string CandidatePool::default_model(const std::string& agent) const {
  auto it = agents_.find(agent);
  return it == agents_.end() ? "" : it->second.fallback;
}

std::vector<CandidatePool::Change> CandidatePool::on_verdict(const std::string& agent, const std::string& model,
                                                             bool success) {
  std::vector<Change> out;
  Agent& a = agents_[agent];
  auto& window = a.verdicts[model];
  window.push_back(success);
  while (window.size() > static_cast<size_t>(std::max(1, settings_.window))) window.pop_front();
  if (!settings_.prune || window.size() < static_cast<size_t>(std::max(1, settings_.min_verdicts))) return out;
  const double q = windowed_q(agent, model);
  if (q >= settings_.prune_below) return out;
  const std::string why = "its windowed Q " + num(q) + " over its last " + std::to_string(window.size()) +
                          " verdicts is below " + num(settings_.prune_below);
  if (a.fallback == model) {
    a.fallback.clear();
    a.answered.clear();  // dominance is earned again from here
    out.push_back({agent, "default_revoked", model, why});
    return out;
  }
  if (a.pruned.count(model)) return out;
  // Never the last one: the pool keeps a model to run.
  size_t alive = 0;
  for (const auto& [m, v] : a.verdicts)
    if (!a.pruned.count(m)) ++alive;
  if (alive <= 1) return out;
  a.pruned.insert(model);
  out.push_back({agent, "pruned", model, why});
  return out;
}

std::vector<CandidatePool::Change> CandidatePool::on_call(const std::string& agent, const std::vector<std::string>& ran,
                                                          const std::string& answered) {
  std::vector<Change> out;
  // A call that ran one model alone says nothing about who wins.
  if (!settings_.prune || ran.size() < 2) return out;
  Agent& a = agents_[agent];
  a.answered.push_back(answered);
  while (a.answered.size() > static_cast<size_t>(std::max(1, settings_.window))) a.answered.pop_front();
  if (answered.empty() || !a.fallback.empty() ||
      a.answered.size() < static_cast<size_t>(std::max(1, settings_.min_calls)))
    return out;
  const auto wins = std::count(a.answered.begin(), a.answered.end(), answered);
  const double share = static_cast<double>(wins) / static_cast<double>(a.answered.size());
  if (share < settings_.dominance) return out;
  a.fallback = answered;
  out.push_back({agent, "default", answered,
                 "it answered " + std::to_string(wins) + " of the last " + std::to_string(a.answered.size()) +
                     " calls (at least " + num(settings_.dominance) + " of them makes it the default)"});
  return out;
}

Result<CandidatePool::Change> CandidatePool::undo(const std::string& agent, const std::string& model) {
  auto it = agents_.find(agent);
  if (model.empty()) {
    if (it == agents_.end() || it->second.fallback.empty())
      return Error{"pool", "agent '" + agent + "' has no default model to revoke"};
    Change c{agent, "default_revoked", it->second.fallback, "revoked by hand"};
    it->second.fallback.clear();
    it->second.answered.clear();
    return c;
  }
  if (it == agents_.end() || !it->second.pruned.erase(model))
    return Error{"pool", "candidate '" + model + "' of agent '" + agent + "' is not pruned"};
  it->second.verdicts[model].clear();  // it starts its window afresh
  return Change{agent, "restored", model, "restored by hand"};
}

std::string CandidatePool::state_key(const std::string& agent) { return kPrefix + agent; }

bool CandidatePool::is_state_key(const std::string& key) { return key.rfind(kPrefix, 0) == 0; }

json CandidatePool::state_of(const std::string& agent) const {
  json j{{"verdicts", json::object()}, {"answered", json::array()}, {"pruned", json::array()}, {"default", ""}};
  auto it = agents_.find(agent);
  if (it == agents_.end()) return j;
  for (const auto& [m, v] : it->second.verdicts) j["verdicts"][m] = std::vector<bool>(v.begin(), v.end());
  j["answered"] = std::vector<std::string>(it->second.answered.begin(), it->second.answered.end());
  j["pruned"] = std::vector<std::string>(it->second.pruned.begin(), it->second.pruned.end());
  j["default"] = it->second.fallback;
  return j;
}

void CandidatePool::seed(const std::string& key, const json& value) {
  if (!is_state_key(key) || !value.is_object()) return;
  Agent a;
  try {
    const json verdicts = value.value("verdicts", json::object());
    for (const auto& [m, v] : verdicts.items())
      for (const auto& b : v) a.verdicts[m].push_back(b.get<bool>());
    for (const auto& m : value.value("answered", json::array())) a.answered.push_back(m.get<std::string>());
    for (const auto& m : value.value("pruned", json::array())) a.pruned.insert(m.get<std::string>());
    a.fallback = value.value("default", "");
  } catch (const std::exception&) {
    return;  // a value this version cannot read starts the agent's pool afresh
  }
  agents_[key.substr(std::string(kPrefix).size())] = std::move(a);
}

}  // namespace kaisha::pyramid
