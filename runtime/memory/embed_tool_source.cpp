#include "runtime/memory/embed_tool_source.hpp"

namespace kaisha::memory {

EmbedToolSource::EmbedToolSource(std::string tool, std::shared_ptr<Embedder> embedder)
    : tool_(std::move(tool)), embedder_(std::move(embedder)) {}

std::vector<llm::ToolSpec> EmbedToolSource::specs() const {
  return {llm::ToolSpec{
      tool_, "the embedding of a text",
      json{{"type", "object"}, {"properties", {{"text", {{"type", "string"}}}}}, {"required", json::array({"text"})}}}};
}

void EmbedToolSource::call(const std::string& name, const json& args, const company::ToolCallContext&,
                           std::function<void(company::ToolResult)> done) {
  if (name != tool_) return done(company::ToolResult::error("no tool '" + name + "' here"));
  if (!args.is_object() || !args.contains("text") || !args["text"].is_string())
    return done(company::ToolResult::error(tool_ + ": expected {\"text\": string}"));
  embedder_->embed({args["text"].get<std::string>()}, [done = std::move(done)](Result<std::vector<Vector>> r) {
    if (!r.ok()) return done(company::ToolResult::error(r.error().message));
    if (r->size() != 1) return done(company::ToolResult::error("the embedder returned no vector"));
    done(company::ToolResult::success("", json{{"vector", r->front()}}));
  });
}

}  // namespace kaisha::memory
