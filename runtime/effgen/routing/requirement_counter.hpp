// n_req of effGen Eq. 14: the count of structural tokens that each suggest one
// more distinct requirement. Which token classes count is a profile (data/
// effgen/complexity_keywords.yaml, `requirement_profiles`), because the paper
// states three different sets (effgen.md §21 item 4).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/effgen/routing/text_scan.hpp"

namespace kaisha::routing {

enum class RequirementClass {
  question,       // each '?'
  and_word,       // each whole word "and"
  or_word,        // each whole word "or"
  then_word,      // each whole word "then"
  comma,          // each ',' except between two digits ("1,000")
  semicolon,      // each ';'
  numbered_item,  // "(1)" anywhere; "1)" after a space or at the start;
                  // "1." starting a line; one or two digits, then a space/end
  bullet,         // '-', '*' or '•' starting a line, then a space
};

// "question", "and", "or", "then", "comma", "semicolon", "numbered_item",
// "bullet" (the names used in the data file).
std::string_view to_string(RequirementClass c);
std::optional<RequirementClass> parse_requirement_class(std::string_view name);

// A named set of classes. With `commas_yield_to_numbered_items`, commas are
// not counted when the query has numbered items: they only separate items
// already counted (this reproduces App. E.2.2's third example, n_req = 3).
struct RequirementProfile {
  std::string name;
  std::vector<RequirementClass> classes;
  bool commas_yield_to_numbered_items = false;

  bool counts(RequirementClass c) const;
};

// Occurrences per class, whether the profile counts them or not (so a journal
// entry can show why n_req came out as it did).
struct RequirementCounts {
  std::size_t question = 0, and_word = 0, or_word = 0, then_word = 0, comma = 0, semicolon = 0, numbered_item = 0,
              bullet = 0;

  std::size_t of(RequirementClass c) const;
  // n_req under `profile`.
  std::size_t total(const RequirementProfile& profile) const;
};

// Counts every class in `text` (already scanned as `scanned`).
RequirementCounts count_requirements(const ScannedText& scanned);

}  // namespace kaisha::routing
