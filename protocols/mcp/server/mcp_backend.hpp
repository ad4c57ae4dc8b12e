// McpBackend: what an MCP server offers — tools, resources, prompts and
// completions — independent of sessions and transports. McpServer speaks the
// protocol and calls one of these: CompanyBackend (the company: run a task,
// ask an agent, ...) or ConformanceFixture (the conformance suite's test
// server contents).
//
// Tool calls run on the transport's thread (an HTTP worker, or a stdio
// request thread) and may block for as long as the work takes; they report
// progress and log lines through McpCallContext and should return soon after
// `ctx.cancelled()` becomes true.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "protocols/mcp/server/task_table.hpp"
#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/jsonrpc/descriptor.hpp"
#include "runtime/jsonrpc/jsonrpc.hpp"

namespace kaisha::mcp {

// One tool call's (or prompt's) view of its request: progress, log messages
// and questions to the client travel back the way the request came.
struct McpCallContext {
  json request_id;
  json progress_token;  // null when the client asked for no progress
  // Sends a notification related to this request (may be a no-op, e.g. when
  // the HTTP client asked for a plain JSON response).
  std::function<void(const json& notification)> notify;
  // Asks the client for input: `requests` maps a key to {"method", "params"}
  // (elicitation/create, sampling/createMessage, roots/list); the result maps
  // the same keys to the client's answers. How depends on the era:
  //   legacy: each request is sent to the client and waited for; an Error
  //     when the client does not answer in time or refuses;
  //   modern (multi round-trip, input_exchange.hpp): the answers the client
  //     sent with this request; when one is missing, an Error with code
  //     kInputRequired that the call must return as it is: the client is
  //     asked and retries, and ask_client's `state` is then in `state`.
  // A modern client that did not declare a request's capability gets
  // MissingRequiredClientCapability (-32021) instead.
  std::function<Result<json>(const json& requests, const json& state)> ask_client;
  json state;                                 // modern: what the previous round carried; else null
  json client_capabilities = json::object();  // modern: this request's; legacy: initialize's
  // Ends the response stream early; later messages of this request are kept
  // for the client to fetch by reconnecting (SSE polling). No-op on stdio and
  // for modern requests (their streams do not resume).
  std::function<void()> close_stream;
  std::shared_ptr<std::atomic<bool>> cancel_flag = std::make_shared<std::atomic<bool>>(false);
  int min_log_rank = 0;  // legacy: the session's logging/setLevel; modern: _meta logLevel (none: no logs)
  // The client's conversation, for a company hosting one session per client:
  // legacy: its MCP session; modern (stateless): "" (the default session).
  std::string conversation;
  // A call that may run as a task (the client declared the tasks extension
  // and the tool supports tasks) hands the rest of its work over to one:
  // the client gets a CreateTaskResult now and the outcome through
  // tasks/get. From then on ask_client waits for the client's tasks/update,
  // notifications are dropped (tasks have none) and cancelled() follows
  // tasks/cancel. Returns false and changes nothing when the call cannot
  // be a task: the tool carries on synchronously. Empty for such calls.
  // `work` says what McpBackend::resume_task needs to take the task's work
  // back after the server restarted; with it the task is kept
  // (McpBackend::keep_task) before the client learns its id. Null: the task
  // lives in this process only.
  std::function<bool(const json& work)> go_async;

  bool cancelled() const { return cancel_flag && cancel_flag->load(); }
  // go_async when offered; false otherwise.
  bool go_async_if_offered(const json& work = json()) const { return go_async && go_async(work); }
  // notifications/progress when the client gave a progress token.
  void progress(double done, std::optional<double> total, const std::string& message) const;
  // notifications/message when `level` is at or above min_log_rank.
  void log(const std::string& level, const json& data, const std::string& logger = "") const;
};

// Whether a tool may run as a task of the tasks extension: kOptional runs
// as one for a client that declared the extension and synchronously for
// others; kRequired refuses other clients (-32021).
enum class TaskSupport { kForbidden, kOptional, kRequired };

// A task of the tasks extension as a backend keeps it across restarts of
// the server: the table's state, what the tool passed to go_async, and the
// client capabilities of the request that made it (what the task may ask).
struct KeptTask {
  TaskSnapshot task;
  json work;
  json client_capabilities = json::object();
};

// A result's text content: {"content":[{"type":"text","text":...}], "isError":...}.
json text_result(const std::string& text, bool is_error = false);

class McpBackend {
 public:
  virtual ~McpBackend() = default;

  virtual json server_info() const = 0;  // {"name", "version", "title"?}
  virtual std::string instructions() const { return ""; }

  virtual std::vector<jsonrpc::CapabilityDescriptor> tools() = 0;
  // The tool named `name`, or nullopt; looked up on every tools/call. The
  // default goes through tools(); a backend whose list is costly to build
  // finds the one tool instead.
  virtual std::optional<jsonrpc::CapabilityDescriptor> find_tool(const std::string& name) {
    for (auto& d : tools())
      if (d.name == name) return std::move(d);
    return std::nullopt;
  }
  // True when call_tool(name) returns promptly and sends the client nothing
  // before its result (no progress, log lines or questions): a transport may
  // then run the call on its own thread and answer with one JSON object,
  // without handing it to a request thread or opening a stream. The default
  // promises nothing.
  virtual bool answers_at_once(const std::string& name) {
    (void)name;
    return false;
  }
  // A CallToolResult. Failures of the tool itself are results with isError
  // (the model sees them); an Error is for a tool that does not exist.
  virtual Result<json> call_tool(const std::string& name, const json& arguments, McpCallContext& ctx) = 0;
  // Whether tool `name` may run as a task (it then calls ctx.go_async when
  // its long part begins); the default: never.
  virtual TaskSupport task_support(const std::string& name) {
    (void)name;
    return TaskSupport::kForbidden;
  }

  // Tasks that outlive the server. keep_task() is called when a task whose
  // tool gave go_async a `work` is created (before its id reaches the
  // client) and when it ends (before tasks/cancel is acknowledged), and
  // returns once that is durable; an error when it cannot be (the call then
  // goes on without a task). kept_tasks() gives a restarted server the
  // unexpired tasks it may take back, newest first; resume_task() runs the
  // work of one that had not ended, as the tool's call would have gone on.
  // The default keeps nothing.
  virtual Status keep_task(const KeptTask& task) {
    (void)task;
    return Error{"unsupported", "this server keeps no tasks"};
  }
  virtual std::vector<KeptTask> kept_tasks() { return {}; }
  virtual Result<json> resume_task(const json& work, McpCallContext& ctx) {
    (void)work;
    (void)ctx;
    return Error{"unsupported", "this server resumes no tasks"};
  }

  virtual std::vector<json> resources() { return {}; }
  virtual std::vector<json> resource_templates() { return {}; }
  // A ReadResourceResult; Error code "not_found" for an unknown uri.
  virtual Result<json> read_resource(const std::string& uri) {
    return Error{"not_found", "Resource not found: " + uri};
  }

  virtual std::vector<json> prompts() { return {}; }
  // A GetPromptResult; Error "invalid_params" for an unknown prompt or
  // missing required arguments. A prompt may ask the client for input
  // through ctx.ask_client, like a tool.
  virtual Result<json> get_prompt(const std::string& name, const json& arguments, McpCallContext& ctx) {
    (void)arguments;
    (void)ctx;
    return Error{"invalid_params", "Unknown prompt: " + name};
  }

  // completion/complete; the default offers nothing.
  virtual json complete(const json& params) {
    (void)params;
    return json{{"completion", {{"values", json::array()}, {"total", 0}, {"hasMore", false}}}};
  }

  // Lets the server tell clients that tools/resources/prompts changed.
  void set_change_listener(std::function<void(const std::string& notification_method)> f) { on_change_ = std::move(f); }

 protected:
  void changed(const std::string& notification_method) {
    if (on_change_) on_change_(notification_method);
  }

 private:
  std::function<void(const std::string&)> on_change_;
};

}  // namespace kaisha::mcp
