// MemoryManager: HASHIRU's memory tool (hashiru.md §3.3, §9 items 46–47) on a
// MemoryBank. Arguments are the tool call's: {"action": "add_memory" |
// "get_all_memories" | "delete_memory", "memory": ..., "key": ...}; the
// result is the uniform {status, message, output} envelope, with HASHIRU's
// exact texts (data/memory/memory_texts.json).
//   add_memory        needs memory and key; a taken key is refused.
//   get_all_memories  output: [{"key", "memory"}, ...], oldest first.
//   delete_memory     needs key; deletes the memory whose key OR exact text
//                     it is, so the paper's Fig. 5 call — key 'The user is
//                     vegetarian.' for a memory keyed 'vegetarian' — works.
// A memory keyed ErrorAnalysis_* is typed REFLECTION (Case Study 4), others
// FACT; both HIGH importance (the CEO only stores what matters).
#pragma once

#include <string>

#include "runtime/company/tool_result.hpp"
#include "runtime/core/json.hpp"
#include "runtime/memory/memory_bank.hpp"
#include "runtime/memory/memory_texts.hpp"

namespace kaisha::memory {

class MemoryManager {
 public:
  MemoryManager(MemoryBank& bank, MemoryTexts texts) : bank_(bank), texts_(std::move(texts)) {}

  // Synchronous (runs on the memory service's worker).
  company::ToolResult run(const json& args, const std::string& session_id);

 private:
  company::ToolResult add(const json& args, const std::string& session_id);
  company::ToolResult get_all();
  company::ToolResult remove(const json& args);

  MemoryBank& bank_;
  MemoryTexts texts_;
};

// {"key": id, "memory": content}: how HASHIRU shows a memory.
json memory_json(const MemoryEntry& e);

}  // namespace kaisha::memory
