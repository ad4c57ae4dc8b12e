#include "runtime/pyramid/entry/pyramid_settings.hpp"

#include <algorithm>
#include <sstream>
#include <utility>

namespace kaisha::pyramid {

Result<PyramidConfig> read_pyramid_config(const YAML::Node& n, const config::YamlReader& r) {
  PyramidConfig y;
  if (!config::YamlReader::present(n)) return y;
  const std::string p = kSection;
  if (Status s = r.expect_section(n, p,
                                  {"library",
                                   "model",
                                   "entry",
                                   "route_threshold",
                                   "route_tie_tolerance",
                                   "router",
                                   "router_model",
                                   "enforce_judge",
                                   "max_judge_retries",
                                   "max_nudges",
                                   "max_calls_per_turn",
                                   "max_final_output_retries",
                                   "index_budget_tokens",
                                   "env_budget_tokens",
                                   "poor_quality",
                                   "quality_alpha",
                                   "quality_initial",
                                   "max_inline_bytes",
                                   "max_judge_failures",
                                   "evolution",
                                   "training"});
      !s)
    return s.error();
  for (auto [key, out] : {std::pair{"library", &y.library}, std::pair{"model", &y.model}, std::pair{"entry", &y.entry},
                          std::pair{"router_model", &y.router_model}})
    if (Status s = r.optional_string(n, p, key, *out); !s) return s.error();
  if (Status s = r.optional_number(n, p, "route_threshold", y.route_threshold, -1, false); !s) return s.error();
  if (Status s = r.optional_number(n, p, "route_tie_tolerance", y.route_tie_tolerance, 0, false, 1); !s)
    return s.error();
  if (Status s = r.optional_choice(n, p, "router", y.router, {"embedding", "model", "both"}); !s) return s.error();
  if (Status s = r.optional_bool(n, p, "enforce_judge", y.enforce_judge); !s) return s.error();
  if (Status s = r.optional_count(n, p, "max_judge_retries", y.max_judge_retries, 0); !s) return s.error();
  if (Status s = r.optional_count(n, p, "max_nudges", y.max_nudges, 0); !s) return s.error();
  if (Status s = r.optional_count(n, p, "max_calls_per_turn", y.max_calls_per_turn, 1); !s) return s.error();
  if (Status s = r.optional_count(n, p, "max_final_output_retries", y.max_final_output_retries, 0); !s)
    return s.error();
  if (Status s = r.optional_count(n, p, "index_budget_tokens", y.index_budget_tokens, 1); !s) return s.error();
  if (Status s = r.optional_count(n, p, "env_budget_tokens", y.env_budget_tokens, 0); !s) return s.error();
  if (Status s = r.optional_number(n, p, "poor_quality", y.poor_quality, 0, false); !s) return s.error();
  if (y.poor_quality > 1) {
    std::ostringstream got;
    got << y.poor_quality;
    return r.error_at(n["poor_quality"], config::YamlReader::join(p, "poor_quality"),
                      "expected a quality score between 0 and 1, got " + got.str());
  }
  for (auto [key, value] :
       {std::pair{"quality_alpha", &y.quality_alpha}, std::pair{"quality_initial", &y.quality_initial}})
    if (Status s = r.optional_number(n, p, key, *value, 0, false, 1); !s) return s.error();
  if (Status s = r.optional_count(n, p, "max_inline_bytes", y.max_inline_bytes, 256); !s) return s.error();
  if (Status s = r.optional_count(n, p, "max_judge_failures", y.max_judge_failures, 0); !s) return s.error();
  if (const YAML::Node e = n["evolution"]; config::YamlReader::present(e)) {
    const std::string q = config::YamlReader::join(p, "evolution");
    if (Status s = r.expect_section(e, q, {"prune", "window", "prune_below", "min_verdicts", "dominance", "min_calls"});
        !s)
      return s.error();
    auto& v = y.evolution;
    if (Status s = r.optional_bool(e, q, "prune", v.prune); !s) return s.error();
    if (Status s = r.optional_count(e, q, "window", v.window, 1); !s) return s.error();
    // A smaller window lowers the defaults it would otherwise contradict;
    // only values the file gives are checked against it.
    v.min_verdicts = std::min(v.min_verdicts, v.window);
    v.min_calls = std::min(v.min_calls, v.window);
    if (Status s = r.optional_count(e, q, "min_verdicts", v.min_verdicts, 1); !s) return s.error();
    if (Status s = r.optional_count(e, q, "min_calls", v.min_calls, 1); !s) return s.error();
    for (auto [key, value] : {std::pair{"prune_below", &v.prune_below}, std::pair{"dominance", &v.dominance}})
      if (Status s = r.optional_number(e, q, key, *value, 0, false, 1); !s) return s.error();
    if (v.min_verdicts > v.window || v.min_calls > v.window)
      return r.error_at(
          e[v.min_verdicts > v.window ? "min_verdicts" : "min_calls"],
          config::YamlReader::join(q, v.min_verdicts > v.window ? "min_verdicts" : "min_calls"),
          "expected at most evolution.window (" + std::to_string(v.window) + "): a window never holds more");
  }
  if (const YAML::Node t = n["training"]; config::YamlReader::present(t)) {
    const std::string q = config::YamlReader::join(p, "training");
    if (Status s = r.expect_section(t, q, {"command", "timeout_ms"}); !s) return s.error();
    if (Status s = r.optional_strings(t, q, "command", y.training.command); !s) return s.error();
    if (!y.training.command.empty() && y.training.command.front().empty())
      return r.error_at(t["command"], config::YamlReader::join(q, "command"),
                        "expected a program as the first element, got an empty string");
    if (Status s = r.optional_count(t, q, "timeout_ms", y.training.timeout_ms, 1); !s) return s.error();
  }
  return y;
}

Result<std::any> read_pyramid_settings(const YAML::Node& section, const config::YamlReader& reader) {
  auto c = read_pyramid_config(section, reader);
  if (!c) return c.error();
  return std::any(std::move(c).value());
}

}  // namespace kaisha::pyramid
