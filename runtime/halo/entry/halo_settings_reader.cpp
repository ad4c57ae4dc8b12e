#include "runtime/halo/entry/halo_settings_reader.hpp"

#include <limits>
#include <string>
#include <utility>

namespace kaisha::halo {
namespace {

constexpr double kAnyNumber = -std::numeric_limits<double>::max();

Status read_search(const YAML::Node& n, const config::YamlReader& r, SearchSettings& s) {
  if (!config::YamlReader::present(n)) return Status::Ok();
  const std::string p = std::string(kSection) + ".search";
  if (Status st = r.expect_section(n, p,
                                   {"max_depth", "attempts", "width", "exploration", "success_reward",
                                    "failure_penalty", "visit_order", "max_iterations", "max_evaluations"});
      !st)
    return st;
  if (Status st = r.optional_count(n, p, "max_depth", s.max_depth, 1); !st) return st;
  if (Status st = r.optional_count(n, p, "attempts", s.attempts, 1); !st) return st;
  if (Status st = r.optional_count(n, p, "max_iterations", s.max_iterations, 1); !st) return st;
  if (Status st = r.optional_count(n, p, "max_evaluations", s.max_evaluations, 1); !st) return st;
  if (Status st = r.optional_number(n, p, "exploration", s.exploration, 0, false); !st) return st;
  if (Status st = r.optional_number(n, p, "success_reward", s.success_reward, kAnyNumber, false); !st) return st;
  if (Status st = r.optional_number(n, p, "failure_penalty", s.failure_penalty, kAnyNumber, false); !st) return st;
  std::string width = s.width == ExpansionWidth::full ? "full" : "one_per_expansion";
  if (Status st = r.optional_choice(n, p, "width", width, {"full", "one_per_expansion"}); !st) return st;
  s.width = width == "full" ? ExpansionWidth::full : ExpansionWidth::one_per_expansion;
  std::string order = s.visit_order == VisitOrder::increment_first ? "increment_first" : "increment_after";
  if (Status st = r.optional_choice(n, p, "visit_order", order, {"increment_first", "increment_after"}); !st) return st;
  s.visit_order = order == "increment_first" ? VisitOrder::increment_first : VisitOrder::increment_after;
  return Status::Ok();
}

}  // namespace

Result<HaloSettings> read_halo_settings(const YAML::Node& n, const config::YamlReader& r) {
  HaloSettings h;
  if (!config::YamlReader::present(n)) return h;
  const std::string p = kSection;
  if (Status s = r.expect_section(
          n, p,
          {"model", "temperature", "max_tokens", "seed", "use_prompt_refinement", "use_planner", "max_subtasks",
           "max_roles", "equivalence", "consistency_threshold", "failure_answer", "search", "max_model_calls",
           "max_usd", "answer_format", "max_resource_units", "code_tool", "max_tool_rounds"});
      !s)
    return s.error();
  if (Status s = r.optional_string(n, p, "model", h.model); !s) return s.error();
  if (Status s = r.optional_number(n, p, "temperature", h.temperature, 0, false, 2); !s) return s.error();
  if (Status s = r.optional_count(n, p, "max_tokens", h.max_tokens, 1); !s) return s.error();
  int64_t seed = static_cast<int64_t>(h.seed);
  if (Status s = r.optional_int(n, p, "seed", seed, 0); !s) return s.error();
  h.seed = static_cast<uint64_t>(seed);
  if (Status s = r.optional_bool(n, p, "use_prompt_refinement", h.use_prompt_refinement); !s) return s.error();
  if (Status s = r.optional_bool(n, p, "use_planner", h.use_planner); !s) return s.error();
  if (Status s = r.optional_count(n, p, "max_subtasks", h.max_subtasks, 1); !s) return s.error();
  if (Status s = r.optional_count(n, p, "max_roles", h.max_roles, 1); !s) return s.error();
  std::string equivalence(answers::to_string(h.equivalence));
  if (Status s = r.optional_choice(n, p, "equivalence", equivalence, {"exact", "latex", "bleu"}); !s) return s.error();
  h.equivalence = *answers::parse_equivalence(equivalence);
  if (Status s = r.optional_number(n, p, "consistency_threshold", h.consistency_threshold, 0, true, 1); !s)
    return s.error();
  if (Status s = r.optional_string(n, p, "failure_answer", h.failure_answer); !s) return s.error();
  std::string format = "text";
  if (Status s = r.optional_choice(n, p, "answer_format", format, {"text", "multiple_choice", "math"}); !s)
    return s.error();
  h.answer_format = format == "math"              ? AnswerFormat::math
                    : format == "multiple_choice" ? AnswerFormat::multiple_choice
                                                  : AnswerFormat::text;
  if (Status s = r.optional_bool(n, p, "code_tool", h.code_tool); !s) return s.error();
  if (Status s = r.optional_count(n, p, "max_tool_rounds", h.max_tool_rounds, 1); !s) return s.error();
  if (Status s = read_search(n["search"], r, h.search); !s) return s.error();
  if (Status s = r.optional_count(n, p, "max_model_calls", h.max_model_calls, 0); !s) return s.error();
  if (Status s = r.optional_number(n, p, "max_usd", h.max_usd, 0, false); !s) return s.error();
  if (Status s = r.optional_number(n, p, "max_resource_units", h.max_resource_units, 0, false); !s) return s.error();
  return h;
}

Result<std::any> read_halo_section(const YAML::Node& section, const config::YamlReader& reader) {
  auto h = read_halo_settings(section, reader);
  if (!h) return h.error();
  return std::any(std::move(h).value());
}

}  // namespace kaisha::halo
