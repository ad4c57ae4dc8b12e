// Loading kaisha's configuration (config.hpp) from YAML.
//
// Every value is optional; what a file leaves out keeps its default. Scalars
// may use ${VAR} or ${VAR:-default} from the environment. Mistakes come back
// as an Error (code "config") naming file, line and key path, e.g.
//   cluster.yaml:12: budget.expense_total: expected a number, got "ten"
//   config.yaml:7: unknown key 'budgte' in top level (did you mean 'budget'?)
//
// Providers: four are built in — ollama (base_url $OLLAMA_HOST or
// http://127.0.0.1:11434), openai (https://api.openai.com/v1,
// $OPENAI_API_KEY), gemini (https://generativelanguage.googleapis.com/v1beta,
// $GEMINI_API_KEY) and anthropic (https://api.anthropic.com,
// $ANTHROPIC_API_KEY). A file entry with a built-in name overrides fields of
// the built-in one and inherits its dialect; any other name must give
// `dialect` and `base_url`.
//
// ceo.model left empty is taken from $KAISHA_MODEL when set. Relative
// store / cost_table / prompts_dir paths resolve against the directory of the
// file (of source_name for parse_config).
//
// Renamed keys keep working: effgen.judge_model, effgen.judge and
// effgen.max_judge_retries are read as judge.model, judge.subtasks and
// judge.max_retries, each adding a line to Config::warnings
//   config.yaml:9: 'effgen.judge_model' is deprecated; it is read as 'judge.model', ...
// An older name given with its new one and a different value is an error
// naming both; with the same value it only warns.
#pragma once

#include <string>

#include <map>
#include <string>

#include "runtime/config/config.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::config {

// The configuration without a file (built-in providers, environment applied).
Config default_config();

// Parses YAML text; `source_name` is used in messages and as the base for
// relative paths.
Result<Config> parse_config(const std::string& yaml_text, const std::string& source_name);

// Keys set over what a file gives: "section.key" (as a strategy switch's
// config_key, e.g. "switches.memory", "halo.use_planner") → a YAML scalar
// ("false", "3"). A missing section is created.
using ConfigOverrides = std::map<std::string, std::string>;

// parse_config with `overrides` applied to the document before it is read,
// so every rule of the loader holds for them too. An override whose key is
// not "section.key" is an error naming it.
Result<Config> parse_config(const std::string& yaml_text, const std::string& source_name,
                            const ConfigOverrides& overrides);

// Reads and parses `path`; a missing or unreadable file is an error naming it.
Result<Config> load_config_file(const std::string& path, const ConfigOverrides& overrides = {});

}  // namespace kaisha::config
