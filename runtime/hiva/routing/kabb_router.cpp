#include "runtime/hiva/routing/kabb_router.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "runtime/core/fnv1a.hpp"
#include "runtime/hiva/routing/number_text.hpp"
#include "runtime/random/random_stream.hpp"
#include "runtime/random/samplers.hpp"

namespace kaisha::hiva {

namespace {

Error config_error(const std::string& name, const std::string& value, const char* rule) {
  return Error{"config", "KABB settings: " + name + " is " + value + "; " + rule};
}

Status check_candidates(const std::vector<Candidate>& candidates) {
  std::set<std::string> ids;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const Candidate& c = candidates[i];
    const std::string where = "candidates[" + std::to_string(i) + "]";
    if (c.id.empty()) return Error{"invalid_argument", where + ".id: must not be empty"};
    if (!ids.insert(c.id).second) {
      return Error{"invalid_argument", where + ".id: \"" + c.id + "\" is listed twice"};
    }
    if (!std::isfinite(c.alpha) || c.alpha <= 0) {
      return Error{"invalid_argument", where + ".alpha: " + number_text(c.alpha) + " must be finite and > 0"};
    }
    if (!std::isfinite(c.beta) || c.beta <= 0) {
      return Error{"invalid_argument", where + ".beta: " + number_text(c.beta) + " must be finite and > 0"};
    }
    if (!std::isfinite(c.dist) || c.dist < 0) {
      return Error{"invalid_argument", where + ".dist: " + number_text(c.dist) + " must be finite and >= 0"};
    }
  }
  return Status::Ok();
}

}  // namespace

Status validate(const KabbSettings& settings) {
  if (settings.k < 1) return config_error("k", std::to_string(settings.k), "it must be at least 1");
  if (settings.mode != ThetaMode::thompson && settings.mode != ThetaMode::mean) {
    return config_error("mode", std::to_string(static_cast<int>(settings.mode)), "it must be thompson or mean");
  }
  if (!std::isfinite(settings.lambda) || settings.lambda < 0) {
    return config_error("lambda", number_text(settings.lambda), "it must be a finite number >= 0");
  }
  if (!std::isfinite(settings.eta) || settings.eta < 0) {
    return config_error("eta", number_text(settings.eta), "it must be a finite number >= 0");
  }
  if (!std::isfinite(settings.zeta_floor) || settings.zeta_floor <= 0) {
    return config_error("zeta_floor", number_text(settings.zeta_floor), "it must be a finite number > 0");
  }
  if (!std::isfinite(settings.synergy.singleton)) {
    return config_error("synergy.singleton", number_text(settings.synergy.singleton), "it must be a finite number");
  }
  if (!std::isfinite(settings.synergy.missing_edge)) {
    return config_error("synergy.missing_edge", number_text(settings.synergy.missing_edge),
                        "it must be a finite number");
  }
  return Status::Ok();
}

random::StreamKey theta_stream_key(int64_t iteration, const std::string& router, const std::string& candidate) {
  return random::StreamKey("hiva.kabb.theta", iteration, fnv1a_64(router), fnv1a_64(candidate));
}

Result<Selection> select_successors(const std::vector<Candidate>& candidates, const std::vector<std::string>& selected,
                                    const SynergyLookup& synergy, const KabbSettings& settings,
                                    const RoutingDecision& decision) {
  if (Status s = validate(settings); !s) return s.error();
  if (Status s = check_candidates(candidates); !s) return s.error();
  Selection selection;
  if (!settings.enabled) {
    for (const Candidate& c : candidates) selection.chosen.push_back(c.id);
    return selection;
  }
  std::vector<std::string> team = selected;
  for (const Candidate& c : candidates) {
    Scored scored;
    scored.id = c.id;
    scored.dist = c.dist;
    if (settings.mode == ThetaMode::thompson) {
      random::RandomStream stream(decision.seed, theta_stream_key(decision.iteration, decision.router, c.id));
      scored.theta = random::beta(stream, c.alpha, c.beta);
    } else {
      scored.theta = c.alpha / (c.alpha + c.beta);
    }
    team.push_back(c.id);
    scored.zeta = team_synergy(team, synergy, settings.synergy);
    team.pop_back();
    scored.score = scored.theta * std::exp(-settings.lambda * c.dist) *
                   std::pow(std::max(scored.zeta, settings.zeta_floor), settings.eta);
    selection.scores.push_back(std::move(scored));
  }
  std::vector<size_t> order(candidates.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return selection.scores[a].score > selection.scores[b].score; });
  const size_t k = std::min(order.size(), static_cast<size_t>(settings.k));
  for (size_t i = 0; i < k; ++i) selection.chosen.push_back(candidates[order[i]].id);
  return selection;
}

}  // namespace kaisha::hiva
