#include "runtime/hiva/routing/bandit_update.hpp"

#include <algorithm>
#include <cmath>

#include "runtime/hiva/routing/number_text.hpp"

namespace kaisha::hiva {

namespace {

Error bandit_config_error(const char* name, double value, const char* rule) {
  return Error{"config", std::string("KABB bandit settings: ") + name + " is " + number_text(value) + "; " + rule};
}

Status check_step(const Posterior& p, int64_t iteration, double reward) {
  if (!std::isfinite(p.alpha) || p.alpha <= 0 || !std::isfinite(p.beta) || p.beta <= 0) {
    return Error{"invalid_argument", "posterior Beta(" + number_text(p.alpha) + ", " + number_text(p.beta) +
                                         "): alpha and beta must be finite and > 0"};
  }
  const int64_t updated_at = p.updated_at;
  if (iteration < updated_at) {
    return Error{"invalid_argument", "iteration " + std::to_string(iteration) +
                                         " is before the posterior's last update at iteration " +
                                         std::to_string(updated_at)};
  }
  if (!std::isfinite(reward) || reward < 0 || reward > 1) {
    return Error{"invalid_argument", "reward " + number_text(reward) + " is outside [0, 1]"};
  }
  return Status::Ok();
}

Posterior decayed(const Posterior& p, int64_t iteration, const BanditSettings& settings) {
  const double factor = decay_factor(settings, iteration - p.updated_at);
  return Posterior{p.alpha * factor, p.beta * factor, iteration};
}

Posterior floored(Posterior p, double floor) {
  p.alpha = std::max(p.alpha, floor);
  p.beta = std::max(p.beta, floor);
  return p;
}

}  // namespace

Status validate(const BanditSettings& settings) {
  if (!std::isfinite(settings.decay) || settings.decay < 0) {
    return bandit_config_error("decay", settings.decay, "it must be a finite number >= 0");
  }
  if (settings.decay_is_gamma && (settings.decay <= 0 || settings.decay > 1)) {
    return bandit_config_error("decay", settings.decay, "read as γ (decay_is_gamma) it must be in (0, 1]");
  }
  if (!std::isfinite(settings.delta) || settings.delta < 0) {
    return bandit_config_error("delta", settings.delta, "it must be a finite number >= 0");
  }
  if (!std::isfinite(settings.rho_overlap) || settings.rho_overlap < 0) {
    return bandit_config_error("rho_overlap", settings.rho_overlap, "it must be a finite number >= 0");
  }
  if (!std::isfinite(settings.floor) || settings.floor <= 0) {
    return bandit_config_error("floor", settings.floor, "it must be a finite number > 0");
  }
  if (!std::isfinite(settings.synergy_rate) || settings.synergy_rate < 0) {
    return bandit_config_error("synergy_rate", settings.synergy_rate, "it must be a finite number >= 0");
  }
  return Status::Ok();
}

double decay_factor(const BanditSettings& settings, int64_t elapsed) {
  const double dt = static_cast<double>(elapsed);
  return settings.decay_is_gamma ? std::pow(settings.decay, dt) : std::exp(-settings.decay * dt);
}

double knowledge_match(const BanditSettings& settings, double agent_task_synergy) {
  return std::clamp(settings.rho_overlap * agent_task_synergy, 0.0, 1.0);
}

Result<Posterior> update_arm(const Posterior& posterior, const ArmFeedback& feedback, int64_t iteration,
                             const BanditSettings& settings) {
  if (Status s = validate(settings); !s) return s.error();
  if (Status s = check_step(posterior, iteration, feedback.reward); !s) return s.error();
  if (!std::isfinite(feedback.agent_task_synergy)) {
    return Error{"invalid_argument",
                 "agent_task_synergy " + number_text(feedback.agent_task_synergy) + " is not finite"};
  }
  if (!feedback.selected && !settings.decay_unselected) return posterior;
  Posterior next = decayed(posterior, iteration, settings);
  if (feedback.selected) {
    const double km = knowledge_match(settings, feedback.agent_task_synergy);
    next.alpha += feedback.reward + settings.delta * km;
    next.beta += 1.0 - feedback.reward + settings.delta * (1.0 - km);
  }
  return floored(next, settings.floor);
}

Result<EdgeState> update_edge(const EdgeState& edge, const EdgeFeedback& feedback, int64_t iteration,
                              const BanditSettings& settings) {
  if (Status s = validate(settings); !s) return s.error();
  if (Status s = check_step(edge.posterior, iteration, feedback.downstream_reward); !s) return s.error();
  if (!std::isfinite(edge.synergy)) {
    return Error{"invalid_argument", "synergy " + number_text(edge.synergy) + " is not finite"};
  }
  if (!std::isfinite(feedback.contribution) || feedback.contribution < 0) {
    return Error{"invalid_argument", "contribution " + number_text(feedback.contribution) + " must be finite and >= 0"};
  }
  const bool used = feedback.contribution > 0;
  if (!used && !settings.decay_unselected) return edge;
  EdgeState next = edge;
  const Posterior& p = edge.posterior;
  next.synergy += settings.synergy_rate * (p.alpha / (p.alpha + p.beta)) * feedback.contribution;
  next.posterior = decayed(p, iteration, settings);
  if (used) {
    next.posterior.alpha += feedback.downstream_reward;
    next.posterior.beta += 1.0 - feedback.downstream_reward;
  }
  next.posterior = floored(next.posterior, settings.floor);
  return next;
}

}  // namespace kaisha::hiva
