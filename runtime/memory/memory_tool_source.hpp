// MemoryToolSource: offers HASHIRU's MemoryManager tool (spec in
// data/tools/memory_manager_tool.json) to the CEO as a company::ToolSource;
// calls run on the memory service's worker, never on the calling actor.
#pragma once

#include <memory>

#include "runtime/company/tool_source.hpp"
#include "runtime/memory/memory_service.hpp"

namespace kaisha::memory {

class MemoryToolSource : public company::ToolSource {
 public:
  static Result<std::shared_ptr<MemoryToolSource>> create(std::shared_ptr<MemoryService> service);

  std::string origin() const override { return "memory"; }
  // Storing a memory twice stores two.
  bool repeatable(const std::string&) const override { return false; }
  std::vector<llm::ToolSpec> specs() const override { return specs_; }
  void call(const std::string& name, const json& args, const company::ToolCallContext& ctx,
            std::function<void(company::ToolResult)> done) override;

 private:
  std::shared_ptr<MemoryService> service_;
  std::vector<llm::ToolSpec> specs_;
};

}  // namespace kaisha::memory
