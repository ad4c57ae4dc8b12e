#include "runtime/hiva/entry/hiva_settings_reader.hpp"

#include <array>
#include <cmath>
#include <sstream>
#include <string>
#include <utility>

namespace kaisha::hiva {
namespace {

// hiva.knowledge_weights: ω1..ω4, four numbers >= 0 that sum to 1.
Status read_weights(const YAML::Node& n, const config::YamlReader& r, std::array<double, 4>& out) {
  const YAML::Node w = n["knowledge_weights"];
  if (!config::YamlReader::present(w)) return Status::Ok();
  const std::string p = std::string(kSection) + ".knowledge_weights";
  if (!w.IsSequence() || w.size() != 4)
    return r.error_at(w, p, "expected a list of four numbers (ω1..ω4 of Ψ1..Ψ4), e.g. [0.25, 0.25, 0.25, 0.25]");
  std::array<double, 4> weights{};
  double sum = 0;
  for (size_t k = 0; k < 4; ++k) {
    auto v = r.read_number(w[k], p + "[" + std::to_string(k) + "]");
    if (!v) return v.error();
    if (!std::isfinite(*v) || *v < 0)
      return r.error_at(w[k], p + "[" + std::to_string(k) + "]", "expected a number >= 0, got " + w[k].Scalar());
    weights[k] = *v;
    sum += *v;
  }
  if (std::fabs(sum - 1.0) > 1e-9) {
    std::ostringstream text;
    text << sum;
    return r.error_at(w, p, "the four weights sum to " + text.str() + "; they must sum to 1");
  }
  out = weights;
  return Status::Ok();
}

}  // namespace

Result<HivaSettings> read_hiva_settings(const YAML::Node& n, const config::YamlReader& r) {
  HivaSettings h;
  if (!config::YamlReader::present(n)) return h;
  const std::string p = kSection;
  if (Status s = r.expect_section(n, p,
                                  {"model",
                                   "agent_model",
                                   "iterations",
                                   "graph",
                                   "save_as",
                                   "task_set",
                                   "seed",
                                   "use_kabb",
                                   "use_semantic",
                                   "use_topology",
                                   "use_environment",
                                   "top_k",
                                   "routing",
                                   "lambda",
                                   "eta",
                                   "knowledge_graph",
                                   "decay",
                                   "decay_is_gamma",
                                   "delta",
                                   "rho_overlap",
                                   "synergy_rate",
                                   "prune_below",
                                   "parallelizability_threshold",
                                   "prompt_weight",
                                   "max_model_calls",
                                   "max_usd",
                                   "tool_timeout_s",
                                   "tool_retries",
                                   "history_k",
                                   "knowledge_weights",
                                   "fit_weights_min_outcomes"});
      !s)
    return s.error();
  if (Status s = r.optional_string(n, p, "model", h.model); !s) return s.error();
  if (Status s = r.optional_string(n, p, "agent_model", h.agent_model); !s) return s.error();
  if (Status s = r.optional_count(n, p, "iterations", h.iterations, 0); !s) return s.error();
  if (Status s = r.optional_string(n, p, "graph", h.graph); !s) return s.error();
  if (Status s = r.optional_string(n, p, "save_as", h.save_as); !s) return s.error();
  if (Status s = r.optional_string(n, p, "task_set", h.task_set); !s) return s.error();
  int64_t seed = static_cast<int64_t>(h.seed);
  if (Status s = r.optional_int(n, p, "seed", seed, 0); !s) return s.error();
  h.seed = static_cast<uint64_t>(seed);
  if (Status s = r.optional_bool(n, p, "use_kabb", h.use_kabb); !s) return s.error();
  if (Status s = r.optional_bool(n, p, "use_semantic", h.use_semantic); !s) return s.error();
  if (Status s = r.optional_bool(n, p, "use_topology", h.use_topology); !s) return s.error();
  if (Status s = r.optional_bool(n, p, "use_environment", h.use_environment); !s) return s.error();
  if (Status s = r.optional_count(n, p, "top_k", h.routing.k, 1); !s) return s.error();
  std::string mode = h.routing.mode == ThetaMode::mean ? "mean" : "thompson";
  if (Status s = r.optional_choice(n, p, "routing", mode, {"thompson", "mean"}); !s) return s.error();
  h.routing.mode = mode == "mean" ? ThetaMode::mean : ThetaMode::thompson;
  if (Status s = r.optional_number(n, p, "lambda", h.routing.lambda, 0, false); !s) return s.error();
  if (Status s = r.optional_number(n, p, "eta", h.routing.eta, 0, false); !s) return s.error();
  if (Status s = r.optional_string(n, p, "knowledge_graph", h.knowledge_graph); !s) return s.error();
  if (Status s = r.optional_number(n, p, "decay", h.bandit.decay, 0, false); !s) return s.error();
  if (Status s = r.optional_bool(n, p, "decay_is_gamma", h.bandit.decay_is_gamma); !s) return s.error();
  if (h.bandit.decay_is_gamma && h.bandit.decay > 1)
    return Error{"config", "hiva.decay: with decay_is_gamma the decay is a factor between 0 and 1, got " +
                               std::to_string(h.bandit.decay)};
  if (Status s = r.optional_number(n, p, "delta", h.bandit.delta, 0, false); !s) return s.error();
  if (Status s = r.optional_number(n, p, "rho_overlap", h.bandit.rho_overlap, 0, false, 1); !s) return s.error();
  if (Status s = r.optional_number(n, p, "synergy_rate", h.bandit.synergy_rate, 0, false); !s) return s.error();
  if (Status s = r.optional_number(n, p, "prune_below", h.prune_below, 0, false, 1); !s) return s.error();
  if (Status s = r.optional_number(n, p, "parallelizability_threshold", h.parallelizability_threshold, 0, false, 1); !s)
    return s.error();
  if (Status s = r.optional_number(n, p, "prompt_weight", h.prompt_weight, 0, false, 1); !s) return s.error();
  if (Status s = r.optional_count(n, p, "max_model_calls", h.max_model_calls, 0); !s) return s.error();
  if (Status s = r.optional_number(n, p, "max_usd", h.max_usd, 0, false); !s) return s.error();
  if (Status s = r.optional_count(n, p, "tool_timeout_s", h.tool_timeout_s, 1); !s) return s.error();
  if (Status s = r.optional_count(n, p, "tool_retries", h.tool_retries, 0); !s) return s.error();
  if (Status s = r.optional_count(n, p, "history_k", h.knowledge.history_k, 1); !s) return s.error();
  if (Status s = read_weights(n, r, h.knowledge.weights); !s) return s.error();
  if (Status s = r.optional_count(n, p, "fit_weights_min_outcomes", h.fit_weights_min_outcomes, 0); !s)
    return s.error();
  return h;
}

Result<std::any> read_hiva_section(const YAML::Node& section, const config::YamlReader& reader) {
  auto h = read_hiva_settings(section, reader);
  if (!h) return h.error();
  return std::any(std::move(h).value());
}

}  // namespace kaisha::hiva
