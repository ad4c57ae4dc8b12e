#include "runtime/company/tool_spec_file.hpp"

#include <filesystem>
#include <set>

#include "runtime/core/data_paths.hpp"

namespace kaisha::company {

Result<std::vector<llm::ToolSpec>> load_tool_specs(const std::string& path) {
  auto text = read_text_file(path);
  if (!text.ok()) return text.error();
  json j = json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_array()) return Error{"data", path + ": expected a JSON array of tool specs"};
  std::vector<llm::ToolSpec> out;
  for (size_t i = 0; i < j.size(); ++i) {
    const json& t = j[i];
    if (!t.is_object() || !t.contains("name") || !t["name"].is_string())
      return Error{"data", path + ": tool #" + std::to_string(i + 1) + " has no name"};
    out.push_back({t["name"], t.value("description", ""), t.value("parameters", json::object())});
  }
  return out;
}

bool repeatable_tool(const std::string& tool) {
  static const std::set<std::string> repeatable = [] {
    std::set<std::string> names;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(data_file("data/tools"), ec)) {
      if (entry.path().extension() != ".json") continue;
      auto text = read_text_file(entry.path().string());
      if (!text.ok()) continue;
      const json j = json::parse(*text, nullptr, false);
      if (!j.is_array()) continue;
      for (const auto& t : j)
        if (t.is_object() && t.value("idempotent", false) && t.contains("name") && t["name"].is_string())
          names.insert(t["name"].get<std::string>());
    }
    return names;
  }();
  return repeatable.count(tool) > 0;
}

}  // namespace kaisha::company
