// Consolidation rules (effgen.md §8.4, §23 item 39): which short-term
// messages become long-term memories, and of what type.
//   keep(m)  = tokens > 50 ∧ role ≠ TOOL ∧ 𝓘(m) > 0.3
//   type     = FACT if the text has "is"/"are"/"equals"; else TASK if a USER
//              message has "do"/"create"/"find"; else REFLECTION if it has
//              "learned"/"realized"/"understood"; else OBSERVATION
// (whole words, checked in that order; the word lists are data, see
// data/memory/effgen_memory.json). Consolidation itself — embedding and
// indexing the selected messages — runs on the memory service's worker.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runtime/core/result.hpp"
#include "runtime/memory/memory_entry.hpp"
#include "runtime/memory/short_term_memory.hpp"

namespace kaisha::memory {

struct ConsolidationRules {
  std::vector<std::string> importance_keywords;
  std::vector<std::string> fact_words, task_words, reflection_words;
  std::string summarize_prompt = "Summarize this conversation: ";
  int64_t min_tokens = 50;      // strictly more than this
  double min_importance = 0.3;  // strictly more than this
  size_t interval = 50;         // consolidate every N short-term messages

  // Reads data/memory/effgen_memory.json (or `path`).
  static Result<ConsolidationRules> load(const std::string& path = "");
};

MemoryType infer_type(const StmMessage& m, const ConsolidationRules& rules);
// The long-term entry `m` becomes, or nullopt when it is not kept.
std::optional<MemoryEntry> consolidate_message(const StmMessage& m, const ConsolidationRules& rules,
                                               const std::string& session_id);

}  // namespace kaisha::memory
