#include "runtime/memory/memory_entry.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

namespace kaisha::memory {
namespace {

constexpr std::array<std::pair<MemoryType, std::string_view>, 6> kTypes = {{
    {MemoryType::conversation, "CONVERSATION"},
    {MemoryType::fact, "FACT"},
    {MemoryType::observation, "OBSERVATION"},
    {MemoryType::task, "TASK"},
    {MemoryType::tool_result, "TOOL_RESULT"},
    {MemoryType::reflection, "REFLECTION"},
}};

constexpr std::array<std::pair<Importance, std::string_view>, 4> kLevels = {{
    {Importance::low, "LOW"},
    {Importance::medium, "MEDIUM"},
    {Importance::high, "HIGH"},
    {Importance::critical, "CRITICAL"},
}};

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::toupper(static_cast<unsigned char>(x)) == std::toupper(static_cast<unsigned char>(y));
         });
}

}  // namespace

std::string_view type_name(MemoryType t) {
  for (const auto& [v, n] : kTypes)
    if (v == t) return n;
  return "FACT";
}

std::optional<MemoryType> parse_type(std::string_view name) {
  for (const auto& [v, n] : kTypes)
    if (iequals(n, name)) return v;
  return std::nullopt;
}

std::string_view importance_name(Importance i) {
  for (const auto& [v, n] : kLevels)
    if (v == i) return n;
  return "MEDIUM";
}

std::optional<Importance> parse_importance(std::string_view name) {
  for (const auto& [v, n] : kLevels)
    if (iequals(n, name)) return v;
  return std::nullopt;
}

}  // namespace kaisha::memory
