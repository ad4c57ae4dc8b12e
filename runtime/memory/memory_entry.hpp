// MemoryEntry: one long-term memory, the row shape of effGen's SQLite backend
// (effgen.md §8.2) extended with the HASHIRU key (hashiru.md §3.3): a memory
// written through the MemoryManager tool has its key as id; memories made by
// consolidation get a generated id ("m-...").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/json.hpp"

namespace kaisha::memory {

// effgen.md §8.2 entry types.
enum class MemoryType { conversation, fact, observation, task, tool_result, reflection };
// effgen.md §8.2 manual importance levels (stored as 1..4).
enum class Importance { low = 1, medium = 2, high = 3, critical = 4 };

// "CONVERSATION", "FACT", ... as effGen writes them.
std::string_view type_name(MemoryType t);
std::optional<MemoryType> parse_type(std::string_view name);  // case-insensitive
std::string_view importance_name(Importance i);
std::optional<Importance> parse_importance(std::string_view name);  // case-insensitive

struct MemoryEntry {
  std::string id;       // the HASHIRU key, or a generated id
  std::string content;  // the memory text
  MemoryType type = MemoryType::fact;
  Importance importance = Importance::medium;
  double timestamp = 0;  // seconds since the epoch (effGen stores REAL seconds)
  std::string session_id;
  json metadata = json::object();
  int64_t access_count = 0;
  double last_accessed = 0;  // seconds; 0 = never
  std::vector<std::string> tags;
  int64_t label = 0;  // stable integer id (vector index label, FTS rowid); set by the store
};

}  // namespace kaisha::memory
