#include "runtime/memory/memory_tool_provider.hpp"

#include "runtime/core/data_paths.hpp"

namespace kaisha::memory {

Result<std::vector<llm::ToolSpec>> load_tool_spec_file(const std::string& path) {
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

Result<std::shared_ptr<MemoryToolProvider>> MemoryToolProvider::create(std::shared_ptr<MemoryService> service) {
  auto specs = load_tool_spec_file(data_file("data/tools/memory_manager_tool.json"));
  if (!specs.ok()) return specs.error();
  auto p = std::make_shared<MemoryToolProvider>();
  p->service_ = std::move(service);
  p->specs_ = std::move(specs).value();
  return p;
}

void MemoryToolProvider::call(const std::string& name, const json& args, const company::ToolCallContext& ctx,
                              std::function<void(company::ToolResult)> done) {
  if (name != "MemoryManager") return done(company::ToolResult::error("Tool " + name + " not found"));
  service_->run_tool(args, ctx.session_id, std::move(done));
}

}  // namespace kaisha::memory
