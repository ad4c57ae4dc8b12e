// The memory function's user-visible texts, from data/memory/memory_texts.json:
// HASHIRU's MemoryManager messages (hashiru.md §3.3), the preamble of the
// injected memories (§2.8) and the stopwords lexical search ignores.
#pragma once

#include <set>
#include <string>

#include "runtime/core/result.hpp"

namespace kaisha::memory {

struct MemoryTexts {
  std::string add_requires, exists, delete_requires, not_found, unknown_action;
  std::string added, retrieved_all, deleted;
  std::string injection;   // "Here are the relevant memories for the user's query: "
  std::string transcript;  // "Memories: "
  std::set<std::string> stopwords;

  // Reads `path` (default data/memory/memory_texts.json); a missing key is an
  // error naming the file and the key.
  static Result<MemoryTexts> load(const std::string& path = "");
};

// `text` with every "{name}" replaced by `value`.
std::string fill(std::string text, const std::string& name, const std::string& value);

}  // namespace kaisha::memory
