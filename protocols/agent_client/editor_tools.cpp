#include "protocols/agent_client/editor_tools.hpp"

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

#include "runtime/core/utf8.hpp"

namespace kaisha::agent_client {
namespace {

namespace fs = std::filesystem;
using company::ToolResult;

constexpr const char* kCodeTool = "PythonSandboxTool";

std::string arg(const json& args, const char* key) {
  if (!args.is_object()) return "";
  auto it = args.find(key);
  return it != args.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// One code run in the editor's terminal: create, show it in the tool call,
// wait for its exit (killed after the timeout), read its output, release it.
// Each step is a request to the editor answered on the reader's thread;
// `done` is called once. The timeout is kept by a thread of its own, which
// ends as soon as the run exits (or the connection closes).
class TerminalRun : public std::enable_shared_from_this<TerminalRun> {
 public:
  TerminalRun(std::shared_ptr<EditorBridge> bridge, company::ToolCallContext ctx, EditorToolOptions options,
              std::function<void(ToolResult)> done)
      : bridge_(std::move(bridge)), ctx_(std::move(ctx)), options_(options), done_(std::move(done)) {}

  void start(const std::string& code) {
    json params{{"sessionId", ctx_.session_id},
                {"command", "python3"},
                {"args", json::array({"-c", code})},
                {"env", json::array()},
                {"outputByteLimit", options_.output_byte_limit}};
    const std::string cwd = bridge_->cwd(ctx_.session_id);
    if (!cwd.empty()) params["cwd"] = cwd;
    bridge_->call_client("terminal/create", std::move(params),
                         [self = shared_from_this()](Result<json> r) { self->created(std::move(r)); });
  }

 private:
  json ids() const { return json{{"sessionId", ctx_.session_id}, {"terminalId", terminal_}}; }

  void created(Result<json> r) {
    if (!r)
      return done_(
          ToolResult::error(std::string(kCodeTool) + ": the editor could not start a terminal: " + r.error().message));
    const json id = r->is_object() ? r->value("terminalId", json()) : json();
    if (!id.is_string() || id.get<std::string>().empty())
      return done_(
          ToolResult::error(std::string(kCodeTool) + ": the editor's terminal/create answer has no terminalId"));
    terminal_ = id.get<std::string>();
    bridge_->show_terminal(ctx_, kCodeTool, terminal_);
    std::thread([self = shared_from_this()] { self->watch(); }).detach();
    bridge_->call_client("terminal/wait_for_exit", ids(),
                         [self = shared_from_this()](Result<json> r) { self->exited(std::move(r)); });
  }

  void watch() {
    std::unique_lock<std::mutex> lock(mu_);
    if (cv_.wait_for(lock, std::chrono::milliseconds(options_.code_timeout_ms), [this] { return exited_; })) return;
    timed_out_ = true;
    lock.unlock();
    bridge_->call_client("terminal/kill", ids(), [](Result<json>) {});
  }

  void exited(Result<json> r) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      exited_ = true;
    }
    cv_.notify_all();
    if (r && r->is_object()) status_ = *r;
    if (!r) wait_error_ = r.error().message;
    bridge_->call_client("terminal/output", ids(),
                         [self = shared_from_this()](Result<json> r) { self->read(std::move(r)); });
  }

  void read(Result<json> r) {
    std::string output;
    bool truncated = false;
    if (r && r->is_object()) {
      const json out = r->value("output", json());
      if (out.is_string()) output = utf8::repair(out.get<std::string>());
      truncated = r->value("truncated", false) == true;
      if (status_.is_null() && r->value("exitStatus", json()).is_object()) status_ = (*r)["exitStatus"];
    }
    bridge_->call_client("terminal/release", ids(), [](Result<json>) {});
    json data{{"stdout", output}, {"stderr", ""}, {"terminal", true}};
    if (truncated) data["output_truncated"] = true;
    bool timed_out;
    {
      std::lock_guard<std::mutex> lock(mu_);
      timed_out = timed_out_;
    }
    if (timed_out) {
      data["timeout_ms"] = options_.code_timeout_ms;
      return done_(ToolResult::error("Python code execution timed out in the editor's terminal.", data));
    }
    if (!wait_error_.empty())
      return done_(ToolResult::error(std::string(kCodeTool) + ": the editor's terminal failed: " + wait_error_, data));
    const json code = status_.is_object() ? status_.value("exitCode", json()) : json();
    const json signal = status_.is_object() ? status_.value("signal", json()) : json();
    if (!code.is_number_integer()) {
      const std::string why = signal.is_string() ? "signal " + signal.get<std::string>() : "an unknown cause";
      return done_(
          ToolResult::error("Python code execution was stopped by " + why + " in the editor's terminal.", data));
    }
    data["return_code"] = code;
    done_(ToolResult::success("Python code executed in the editor's terminal.", data));
  }

  std::shared_ptr<EditorBridge> bridge_;
  company::ToolCallContext ctx_;
  EditorToolOptions options_;
  std::function<void(ToolResult)> done_;
  std::string terminal_;
  json status_;
  std::string wait_error_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool exited_ = false;
  bool timed_out_ = false;
};

class EditorTools : public company::ToolSource {
 public:
  EditorTools(std::shared_ptr<company::ToolSource> inner, std::shared_ptr<EditorBridge> bridge,
              EditorToolOptions options)
      : inner_(std::move(inner)), bridge_(std::move(bridge)), options_(options) {}

  std::string origin() const override { return inner_->origin(); }
  std::vector<llm::ToolSpec> specs() const override { return inner_->specs(); }
  company::ToolCost cost(const std::string& name) const override { return inner_->cost(name); }
  bool repeatable(const std::string& name) const override { return inner_->repeatable(name); }
  company::ToolMetadata metadata(const std::string& name) const override { return inner_->metadata(name); }
  void stop() override { inner_->stop(); }

  void call(const std::string& name, const json& args, const company::ToolCallContext& ctx,
            std::function<void(ToolResult)> done) override {
    if (!needs_permission(inner_->origin(), name))
      return run(inner_, bridge_, options_, name, args, ctx, std::move(done));
    // The answer may come after this wrapper is gone: it holds what it needs.
    bridge_->ask_permission(
        ctx, name, args,
        [inner = inner_, bridge = bridge_, options = options_, name, args, ctx, done = std::move(done)](
            bool allowed, std::string why) mutable {
          if (!allowed)
            return done(ToolResult::error(name + " did not run: the editor's user refused permission" +
                                              (why.empty() ? std::string() : " (" + why + ")"),
                                          json{{"permission", "denied"}}));
          run(inner, bridge, options, name, args, ctx, std::move(done));
        });
  }

 private:
  static void run(const std::shared_ptr<company::ToolSource>& inner, const std::shared_ptr<EditorBridge>& bridge,
                  const EditorToolOptions& options, const std::string& name, const json& args,
                  const company::ToolCallContext& ctx, std::function<void(ToolResult)> done) {
    if (name == kCodeTool && inner->origin() == "builtin" && bridge->client_terminals(ctx.session_id)) {
      auto code = args.is_object() ? args.find("code") : args.end();
      if (!args.is_object() || code == args.end() || !code->is_string())
        return done(ToolResult::error(std::string(kCodeTool) + ": 'code' must be a string"));
      return std::make_shared<TerminalRun>(bridge, ctx, options, std::move(done))->start(code->get<std::string>());
    }
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
  EditorToolOptions options_;
};

}  // namespace

bool needs_permission(const std::string& origin, const std::string& tool) {
  if (origin == "user") return true;  // created tools run code
  if (tool == "WriteFile" || tool == kCodeTool) return true;
  if (origin == "pyramid")
    return tool == "file_write" || tool == "file_move" || tool == "dir_create" || tool == "execute_code" ||
           tool == "execute_shell" || tool == "pip_install";
  if (origin == "hiva") return tool == "hiva.agent_tool" || tool == "hiva.validate_tool";
  return false;
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
                                                     std::shared_ptr<EditorBridge> bridge, EditorToolOptions options) {
  return std::make_shared<EditorTools>(std::move(inner), std::move(bridge), options);
}

}  // namespace kaisha::agent_client
