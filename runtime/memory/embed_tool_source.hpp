// One tool that embeds a text with the company's embedder, for a strategy
// driver that needs an embedding but may not wait for it (the pyramid's
// router, when the embedder is a provider's model): {"text"} ->
// {"vector": [..]}. The embedder answers on its own thread, so call() never
// blocks. Not offered to models: a strategy runs it as its own RunTool.
#pragma once

#include <memory>
#include <string>

#include "runtime/company/tool_source.hpp"
#include "runtime/memory/embedder.hpp"

namespace kaisha::memory {

class EmbedToolSource : public company::ToolSource {
 public:
  EmbedToolSource(std::string tool, std::shared_ptr<Embedder> embedder);

  std::string origin() const override { return "embedder"; }
  std::vector<llm::ToolSpec> specs() const override;
  void call(const std::string& name, const json& args, const company::ToolCallContext& ctx,
            std::function<void(company::ToolResult)> done) override;
  // The same text embeds to the same vector: safe to run again on a resume.
  bool repeatable(const std::string&) const override { return true; }

 private:
  std::string tool_;
  std::shared_ptr<Embedder> embedder_;
};

}  // namespace kaisha::memory
