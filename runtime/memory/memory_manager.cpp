#include "runtime/memory/memory_manager.hpp"

namespace kaisha::memory {
namespace {

using company::ToolResult;

// A string argument, "" when absent or not a string.
std::string arg(const json& args, const char* name) {
  if (!args.is_object() || !args.contains(name) || !args[name].is_string()) return "";
  return args[name].get<std::string>();
}

}  // namespace

json memory_json(const MemoryEntry& e) { return json{{"key", e.id}, {"memory", e.content}}; }

ToolResult MemoryManager::run(const json& args, const std::string& session_id) {
  const std::string action = arg(args, "action");
  if (action == "add_memory") return add(args, session_id);
  if (action == "get_all_memories") return get_all();
  if (action == "delete_memory") return remove(args);
  return ToolResult::error(fill(texts_.unknown_action, "action", action));
}

ToolResult MemoryManager::add(const json& args, const std::string& session_id) {
  const std::string memory = arg(args, "memory"), key = arg(args, "key");
  if (memory.empty() || key.empty()) return ToolResult::error(texts_.add_requires);
  MemoryEntry e;
  e.id = key;
  e.content = memory;
  e.type = key.rfind("ErrorAnalysis", 0) == 0 ? MemoryType::reflection : MemoryType::fact;
  e.importance = Importance::high;
  e.session_id = session_id;
  e.metadata = json{{"source", "MemoryManager"}};
  auto added = bank_.add(std::move(e));
  if (!added.ok()) {
    if (added.error().code == "exists") return ToolResult::error(fill(texts_.exists, "key", key));
    return ToolResult::error(added.error().message);
  }
  return ToolResult::success(texts_.added, memory_json(*added));
}

ToolResult MemoryManager::get_all() {
  auto all = bank_.store().list();
  if (!all.ok()) return ToolResult::error(all.error().message);
  json out = json::array();
  for (const auto& e : *all) out.push_back(memory_json(e));
  return ToolResult::success(texts_.retrieved_all, out);
}

ToolResult MemoryManager::remove(const json& args) {
  const std::string key = arg(args, "key");
  if (key.empty()) return ToolResult::error(texts_.delete_requires);
  auto removed = bank_.remove(key);
  if (!removed.ok()) return ToolResult::error(removed.error().message);
  if (!removed->has_value()) return ToolResult::error(fill(texts_.not_found, "key", key));
  return ToolResult::success(texts_.deleted, memory_json(**removed));
}

}  // namespace kaisha::memory
