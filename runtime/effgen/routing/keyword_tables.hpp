// KeywordTables: the data behind the complexity analyzer's domain, tool and
// reasoning factors and its requirement-token profiles, loaded from
// data/effgen/complexity_keywords.yaml (effGen App. E, Tables 20-22). They are
// data, not code, so that a deployment can tune them without a rebuild.
//
// File format (see the shipped file for the full tables):
//   version: 1
//   domains:          {<name>: [keyword or phrase, ...], ...}
//   tool_categories:  {<name>: [keyword or phrase, ...], ...}
//   reasoning_levels: [{name, score, indicators: [...]}, ...]  # precedence order
//   reasoning_default: 5.0
//   requirement_profiles:
//     <name>: {count: [question|and|or|then|comma|semicolon|numbered_item|bullet, ...],
//              commas_yield_to_numbered_items: false}
// Every key is required except commas_yield_to_numbered_items; unknown keys
// are errors.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/core/result.hpp"
#include "runtime/effgen/routing/requirement_counter.hpp"

namespace kaisha::routing {

// A domain or tool category: it is "hit" when any of its phrases occurs.
struct KeywordCategory {
  std::string name;
  std::vector<std::string> phrases;
};

// One row of Table 22.
struct ReasoningLevel {
  std::string name;
  double score = 5.0;
  std::vector<std::string> indicators;
};

struct KeywordTables {
  std::vector<KeywordCategory> domains;
  std::vector<KeywordCategory> tool_categories;
  std::vector<ReasoningLevel> reasoning_levels;  // highest precedence first
  double reasoning_default = 5.0;
  std::vector<RequirementProfile> requirement_profiles;
  std::string source;  // where they were read from, for messages

  // The profile called `name`, or nullptr.
  const RequirementProfile* find_profile(const std::string& name) const;
};

// Errors have code "config" and read "<source>:<line>: <key.path>: <what>",
// e.g. "complexity_keywords.yaml:14: domains.legal[3]: expected a string".
// Checked: required keys, types, version == 1, non-empty categories and
// levels, every phrase has at least one word, unique category / level /
// profile names, scores in [0, 10], known requirement classes.
Result<KeywordTables> parse_keyword_tables(const std::string& yaml_text, const std::string& source);
Result<KeywordTables> load_keyword_tables(const std::string& path);

// data_file("data/effgen/complexity_keywords.yaml"), parsed on the first call and
// shared afterwards (thread-safe; a failure is remembered too, so a bad file
// is reported the same way every time instead of being re-read per query).
Result<std::shared_ptr<const KeywordTables>> default_keyword_tables();
// The path default_keyword_tables() reads.
std::string default_keyword_tables_path();

}  // namespace kaisha::routing
