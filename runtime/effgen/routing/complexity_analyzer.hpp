// ComplexityAnalyzer: effGen's pre-execution complexity score C(q) (§3.2,
// App. E, Algorithm 8). Pure and deterministic: it reads only the query and
// its keyword tables and never calls a model, so the router can decide before
// any tokens are spent (effgen.md §23 item 2).
//
// Factors (each in [0, 10]):
//   f_len   word-count thresholds 20/50/100/200 → 2/4/6/8/10 (Eq. 13);
//   f_req   min(10, 2·n_req), n_req counted by the active requirement profile
//           (Eq. 14–15; see requirement_counter.hpp);
//   f_dom   min(10, 2.5·domains with a keyword present) (Eq. 16, Table 20);
//   f_tool  min(10, 2.5·tool categories with a phrase present) (Eq. 17, Table 21);
//   f_reas  score of the highest-precedence reasoning level with an indicator
//           present, else the default 5.0 (Eq. 18, Table 22).
// Matching is case-insensitive on whole words; multi-word phrases match the
// words in a row (text_scan.hpp). Cost is O(words in the query): each word is
// looked up once in a hash index of all keyword first-words.
//
// Thread-safe after creation (analyze() is const and shares no mutable
// state); cheap to copy (the index is shared, immutable).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/result.hpp"
#include "runtime/effgen/routing/complexity_score.hpp"
#include "runtime/effgen/routing/complexity_weights.hpp"
#include "runtime/effgen/routing/keyword_tables.hpp"

namespace kaisha::routing {

struct AnalyzerOptions {
  ComplexityWeights weights;
  // A name from the tables' requirement_profiles: "eq14" (default, Eq. 14),
  // "paper-example" (App. E.2.2's worked examples), "main-text" (§3.2 prose).
  std::string requirement_profile = "eq14";
  // effGen O.1 custom_domains / custom_tool_categories. A name already in
  // the tables adds its phrases to that category; a new name is a new
  // category (it can be hit like any other; the 2.5 multiplier and the cap at
  // 10 are unchanged).
  std::vector<KeywordCategory> custom_domains;
  std::vector<KeywordCategory> custom_tool_categories;
};

class ComplexityAnalyzer {
 public:
  // Fails (code "config") on invalid weights, an unknown requirement
  // profile, or a custom phrase without a word.
  static Result<ComplexityAnalyzer> create(const KeywordTables& tables, const AnalyzerOptions& options);
  // The same with default_keyword_tables() (data/effgen/complexity_keywords.yaml).
  static Result<ComplexityAnalyzer> create(const AnalyzerOptions& options = {});

  // C(q) with its factors. Any input is valid (an empty query scores
  // f_len 2, f_req 0, f_dom 0, f_tool 0, f_reas default).
  ComplexityScore analyze(std::string_view query) const;

  const ComplexityWeights& weights() const;
  const std::string& requirement_profile() const;

 private:
  struct Index;
  explicit ComplexityAnalyzer(std::shared_ptr<const Index> index) : index_(std::move(index)) {}
  std::shared_ptr<const Index> index_;
};

}  // namespace kaisha::routing
