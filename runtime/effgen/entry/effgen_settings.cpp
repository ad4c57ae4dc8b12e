#include "runtime/effgen/entry/effgen_settings.hpp"

namespace kaisha::effgen {

Result<EffgenConfig> read_effgen_config(const YAML::Node& n, const config::YamlReader& r) {
  EffgenConfig e;
  if (!config::YamlReader::present(n)) return e;
  const std::string p = kSection;
  // judge_model, judge and max_judge_retries are the judge's older keys, read
  // (with a warning) by the loader's judge section.
  if (Status s = r.expect_section(n, p,
                                  {"planner_model", "worker_model", "judge_model", "judge", "max_concurrent",
                                   "max_subtask_retries", "max_judge_retries", "routing"});
      !s)
    return s.error();
  if (Status s = r.optional_string(n, p, "planner_model", e.planner_model); !s) return s.error();
  if (Status s = r.optional_string(n, p, "worker_model", e.worker_model); !s) return s.error();
  if (Status s = r.optional_count(n, p, "max_concurrent", e.max_concurrent, 1); !s) return s.error();
  if (Status s = r.optional_count(n, p, "max_subtask_retries", e.max_subtask_retries, 0); !s) return s.error();
  return e;
}

Result<std::any> read_effgen_settings(const YAML::Node& section, const config::YamlReader& reader) {
  auto c = read_effgen_config(section, reader);
  if (!c) return c.error();
  return std::any(std::move(c).value());
}

}  // namespace kaisha::effgen
