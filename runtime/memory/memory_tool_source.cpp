#include "runtime/memory/memory_tool_source.hpp"

#include "runtime/company/tool_spec_file.hpp"
#include "runtime/core/data_paths.hpp"

namespace kaisha::memory {

Result<std::shared_ptr<MemoryToolSource>> MemoryToolSource::create(std::shared_ptr<MemoryService> service) {
  auto specs = company::load_tool_specs(data_file("data/tools/memory_manager_tool.json"));
  if (!specs.ok()) return specs.error();
  auto p = std::make_shared<MemoryToolSource>();
  p->service_ = std::move(service);
  p->specs_ = std::move(specs).value();
  return p;
}

void MemoryToolSource::call(const std::string& name, const json& args, const company::ToolCallContext& ctx,
                            std::function<void(company::ToolResult)> done) {
  if (name != "MemoryManager") return done(company::ToolResult::error("Tool " + name + " not found"));
  service_->run_tool(args, ctx.session_id, std::move(done));
}

}  // namespace kaisha::memory
