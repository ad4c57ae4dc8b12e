// OptimizerPatterns: the word lists the prompt optimizer works from — the 30
// compression pairs of the paper's Tables 14–15, the politeness phrases of
// App. D.4 and the lists that recognise instructions for bullet formatting.
// They live in data/effgen/optimizer_patterns.yaml so that they can be read
// and tuned without a rebuild.
#pragma once

#include <string>
#include <vector>

#include "runtime/core/result.hpp"

namespace kaisha::prompt {

// A verbose phrase and its concise equivalent; an empty replacement removes
// the phrase.
struct PatternPair {
  std::string pattern;
  std::string replacement;
};

struct PolitenessPhrase {
  std::string phrase;
  bool keep_in_user_text = false;  // "Please" in the user's own request stays
};

// A sentence opening that marks an instruction ("Your task is to ...").
// A non-empty header titles the bullet list it starts.
struct InstructionLead {
  std::string lead;
  std::string header;
};

struct OptimizerPatterns {
  std::vector<PatternPair> compression;  // τ1, in application order
  std::vector<PatternPair> custom;       // τ1, applied after `compression`
  std::vector<PolitenessPhrase> politeness;
  std::vector<InstructionLead> instruction_leads;
  std::vector<std::string> sequence_words;     // lowercase
  std::vector<std::string> sequence_clauses;   // lowercase
  std::vector<std::string> instruction_verbs;  // lowercase

  // Appends a domain pattern (paper D.9 `custom_patterns`). An empty pattern
  // is an Error with code "config".
  Status add_custom_pattern(std::string pattern, std::string replacement);
};

// Parses the YAML text of a patterns file. Every mistake is an Error with
// code "config" reading "<source>:<line>: <key.path>: <what>", e.g.
// "optimizer_patterns.yaml:12: compression[3].replacement: expected a string".
// Unknown keys are refused, so that a misspelt list is not silently empty.
Result<OptimizerPatterns> parse_optimizer_patterns(const std::string& yaml_text, const std::string& source);

// Reads and parses the file at `path`.
Result<OptimizerPatterns> load_optimizer_patterns(const std::string& path);

// data_file("data/effgen/optimizer_patterns.yaml").
std::string default_optimizer_patterns_path();

}  // namespace kaisha::prompt
