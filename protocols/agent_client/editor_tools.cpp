#include "protocols/agent_client/editor_tools.hpp"

#include <filesystem>

namespace kaisha::agent_client {
namespace {

namespace fs = std::filesystem;
using company::ToolResult;

std::string arg(const json& args, const char* key) {
  if (!args.is_object()) return "";
  auto it = args.find(key);
  return it != args.end() && it->is_string() ? it->get<std::string>() : std::string();
}

class EditorTools : public company::ToolSource {
 public:
  EditorTools(std::shared_ptr<company::ToolSource> inner, std::shared_ptr<EditorBridge> bridge)
      : inner_(std::move(inner)), bridge_(std::move(bridge)) {}

  std::string origin() const override { return inner_->origin(); }
  std::vector<llm::ToolSpec> specs() const override { return inner_->specs(); }
  company::ToolCost cost(const std::string& name) const override { return inner_->cost(name); }
  bool repeatable(const std::string& name) const override { return inner_->repeatable(name); }
  company::ToolMetadata metadata(const std::string& name) const override { return inner_->metadata(name); }
  void stop() override { inner_->stop(); }

  void call(const std::string& name, const json& args, const company::ToolCallContext& ctx,
            std::function<void(ToolResult)> done) override {
    if (!needs_permission(inner_->origin(), name)) return run(inner_, bridge_, name, args, ctx, std::move(done));
    // The answer may come after this wrapper is gone: it holds what it needs.
    bridge_->ask_permission(
        ctx, name, args,
        [inner = inner_, bridge = bridge_, name, args, ctx, done = std::move(done)](bool allowed,
                                                                                    std::string why) mutable {
          if (!allowed)
            return done(ToolResult::error(name + " did not run: the editor's user refused permission" +
                                              (why.empty() ? std::string() : " (" + why + ")"),
                                          json{{"permission", "denied"}}));
          run(inner, bridge, name, args, ctx, std::move(done));
        });
  }

 private:
  static void run(const std::shared_ptr<company::ToolSource>& inner, const std::shared_ptr<EditorBridge>& bridge,
                  const std::string& name, const json& args, const company::ToolCallContext& ctx,
                  std::function<void(ToolResult)> done) {
    const bool reads = name == "ReadFile" && bridge->client_reads(ctx.session_id);
    const bool writes = name == "WriteFile" && bridge->client_writes(ctx.session_id);
    if (!reads && !writes) return inner->call(name, args, ctx, std::move(done));
    auto path = path_inside(bridge->cwd(ctx.session_id), arg(args, "file_path"));
    if (!path) return done(ToolResult::error(name + ": " + path.error().message));
    if (reads) {
      bridge->call_client(
          "fs/read_text_file", json{{"sessionId", ctx.session_id}, {"path", *path}},
          [p = *path, done = std::move(done)](Result<json> r) {
            if (!r)
              return done(ToolResult::error("ReadFile: the editor could not read " + p + ": " + r.error().message));
            const json content = r->is_object() ? r->value("content", json()) : json();
            if (!content.is_string()) return done(ToolResult::error("ReadFile: the editor's answer holds no text"));
            done(ToolResult::success("Read " + p + " (through the editor)", json{{"content", content}, {"path", p}}));
          });
      return;
    }
    const std::string content = arg(args, "content");
    bridge->call_client(
        "fs/write_text_file", json{{"sessionId", ctx.session_id}, {"path", *path}, {"content", content}},
        [p = *path, bytes = content.size(), done = std::move(done)](Result<json> r) {
          if (!r)
            return done(ToolResult::error("WriteFile: the editor could not write " + p + ": " + r.error().message));
          done(ToolResult::success("Wrote " + std::to_string(bytes) + " bytes to " + p + " (through the editor)",
                                   json{{"path", p}, {"bytes", bytes}}));
        });
  }

  std::shared_ptr<company::ToolSource> inner_;
  std::shared_ptr<EditorBridge> bridge_;
};

}  // namespace

bool needs_permission(const std::string& origin, const std::string& tool) {
  return tool == "WriteFile" || tool == "PythonSandboxTool" || origin == "user";
}

Result<std::string> path_inside(const std::string& cwd, const std::string& path) {
  if (cwd.empty()) return Error{"path", "the session has no working directory"};
  if (path.empty()) return Error{"path", "no file_path given"};
  const fs::path root = fs::path(cwd).lexically_normal();
  const fs::path full = (fs::path(path).is_absolute() ? fs::path(path) : root / path).lexically_normal();
  const auto rel = full.lexically_relative(root);
  if (rel.empty() || *rel.begin() == "..")
    return Error{"path", "'" + path + "' is outside the session's working directory " + root.string()};
  return full.string();
}

std::shared_ptr<company::ToolSource> wrap_for_editor(std::shared_ptr<company::ToolSource> inner,
                                                     std::shared_ptr<EditorBridge> bridge) {
  return std::make_shared<EditorTools>(std::move(inner), std::move(bridge));
}

}  // namespace kaisha::agent_client
