// McpClient: kaisha as the client of one MCP server, over any
// McpClientTransport. It owns the JSON-RPC side: request ids, negotiating
// the revision, per-request timeouts (a timed-out request is cancelled on
// the server), answers to the server's ping, and routing of the server's
// notifications and requests.
//
// Negotiation (versioning.mdx, "Backward Compatibility"): connect() first
// asks server/discover as 2026-07-28. A server that answers it speaks the
// modern, stateless revision: every request then carries the version, the
// client's capabilities and identity in _meta (and on HTTP the mirrored
// headers, Mcp-Param-* included), and a result asking for input
// (resultType "input_required") is answered through the request handler —
// the same one that answers a legacy server's sampling or elicitation
// requests — and the request retried with the answers. An
// UnsupportedProtocolVersionError is retried with a version it lists; any
// other answer (an error, silence until the discover timeout) marks a legacy
// server, which gets the initialize handshake (2025-11-25, accepting the
// older revisions kaisha's server also speaks), as before. Legacy stdio
// servers often ignore a request before initialize, so the stdio transport
// waits only briefly (McpClientTransport::discover_timeout_ms); a server
// that was merely slow to start and then refuses initialize (it speaks only
// the modern revision) is probed again with the request timeout.
//
// Tasks (the io.modelcontextprotocol/tasks extension): when a modern server
// advertises it, every request declares it (options.use_tasks), so the
// server may answer a tools/call with a task (resultType "task"). The call
// then waits for the task: it polls tasks/get at the interval the server
// asks for, answers the task's inputRequests through the request handler
// (tasks/update), and completes with the task's result — all within the
// call's timeout, counted from the first request. A call that times out or
// is cancelled (cancel() with the call's id) cancels its task (tasks/cancel).
//
// Nothing blocks: every call returns at once and its callback runs exactly
// once, on the transport's thread or the HttpClient's loop (timeouts). The
// HttpClient serves as the timer and must outlive the client.
//
// Errors (code): "mcp" — the server answered with a JSON-RPC error or
// something that is not MCP; "timeout"; "mcp_closed" — the connection is
// gone (process exited, session expired, close() called). Messages name the
// server and the method.
#pragma once

#include <chrono>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "protocols/mcp/client/mcp_client_transport.hpp"
#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/http/http_client.hpp"

namespace kaisha::mcp {

// A tool as tools/list describes it.
struct McpToolInfo {
  std::string name;
  std::string title;
  std::string description;
  json input_schema = json::object();
  json output_schema;  // null when absent
  json annotations;    // ToolAnnotations (readOnlyHint, idempotentHint, ...); null when absent
};

struct McpClientOptions {
  std::string name;  // how errors name the server ("" = the transport's description)
  std::string client_name = "kaisha";
  std::string client_version = "0.1.0";
  int64_t request_timeout_ms = 60'000;
  int64_t initialize_timeout_ms = 30'000;
  json capabilities = json::object();  // what we declare (initialize, or each modern request's _meta)
  int max_list_pages = 100;            // tools/list pages before giving up (a server looping on cursors)
  // "" negotiates (2026-07-28 first, see above); a legacy version skips the
  // probe and asks for that version in initialize.
  std::string protocol_version;
  // A server silent on server/discover this long is taken for legacy; 0 =
  // the transport's (stdio 2 s, HTTP 10 s).
  int64_t discover_timeout_ms = 0;
  // Modern servers announce list changes on a subscriptions/listen stream:
  // opened after connect() when the server offers tools.listChanged.
  bool listen_for_changes = true;
  int max_input_rounds = 16;  // InputRequiredResults for one request before giving up
  // Declares the tasks extension to a modern server that offers it: its
  // tools may then run as tasks, which the calls wait for (see above).
  bool use_tasks = true;
};

class McpClient : public std::enable_shared_from_this<McpClient> {
 public:
  using Done = std::function<void(Result<json>)>;
  using NotificationHandler = std::function<void(const std::string& method, const json& params)>;
  // A request the server sent us (other than ping, answered here); `reply`
  // must be called once, from any thread.
  using RequestHandler =
      std::function<void(const std::string& method, const json& params, std::function<void(Result<json>)> reply)>;
  using ClosedHandler = std::function<void(const Error&)>;

  static std::shared_ptr<McpClient> create(std::unique_ptr<McpClientTransport> transport, http::HttpClient& timers,
                                           McpClientOptions options = {});
  ~McpClient();

  // Set before connect().
  void on_notification(NotificationHandler h);
  void on_request(RequestHandler h);
  void on_closed(ClosedHandler h);  // once, when the connection is lost (not after close())

  // Starts the transport, initializes, sends notifications/initialized.
  void connect(std::function<void(Status)> done);

  // Any request; timeout_ms 0 = options' request_timeout_ms. Returns its id
  // (the first round's, when a modern server asks for input).
  int64_t request(const std::string& method, json params, Done done, int64_t timeout_ms = 0);
  void notify(const std::string& method, json params = nullptr);
  // Gives up request `id`: its callback gets an error now and the server
  // gets notifications/cancelled. A modern request is known by the id
  // request() returned (its first round's) whatever it went through: the
  // round in flight is the one cancelled, one waiting for the client's input
  // is not sent, and a tools/call waiting for its task cancels the task
  // (tasks/cancel). False when it was not pending.
  bool cancel(int64_t id, const std::string& reason);

  // tools/list, following nextCursor through every page. From a modern
  // server, a tool whose x-mcp-header annotations break the rules is left
  // out (rejected_tools() says which and why).
  void list_tools(std::function<void(Result<std::vector<McpToolInfo>>)> done);
  // tools/call; the result is the CallToolResult as the server sent it.
  // `traceparent`, when set, goes in the request's _meta (W3C trace context,
  // as MCP servers that trace read it).
  int64_t call_tool(const std::string& name, const json& arguments, Done done, int64_t timeout_ms = 0,
                    const std::string& traceparent = "");
  // ping (legacy); server/discover for a modern server, which has no ping.
  void ping(Done done);

  // Fails what is pending ("mcp_closed") and closes the transport. Must not
  // be called from a callback of this client.
  void close();

  bool connected() const;
  std::string protocol_version() const;
  bool modern() const;  // the server speaks a stateless (2026-07-28 or later) revision
  std::vector<std::string> rejected_tools() const;
  size_t tasks_awaited() const;  // calls waiting for their task now
  json server_info() const;
  json server_capabilities() const;
  std::string name() const;
  // The last message from the server that was not valid JSON-RPC ("" if none).
  std::string last_malformed() const;
  McpClientTransport& transport() { return *transport_; }

 private:
  McpClient(std::unique_ptr<McpClientTransport> transport, http::HttpClient& timers, McpClientOptions options);
  struct State;
  struct Answer;
  struct Call;
  using OnAnswer = std::function<void(Answer)>;
  // One JSON-RPC request; `modern_version` non-empty adds the modern _meta
  // and headers. timeout_ms < 0: no deadline (subscriptions/listen).
  // `call`: the modern request this is a round of (not sent when the call
  // has ended already).
  int64_t send_request(const std::string& method, json params, const std::string& modern_version, OnAnswer on_answer,
                       int64_t timeout_ms, const std::shared_ptr<Call>& call = nullptr);
  Result<json> to_result(const std::string& method, Answer answer) const;
  // A round of `call`: its answer completes the call, asks for input (the
  // next round) or is a task to wait for.
  int64_t modern_request(json params, std::shared_ptr<Call> call, int64_t timeout_ms, int round);
  // Ends `call` with `outcome` unless it has ended already (false then);
  // `cancel_task`: a task it waits for is cancelled on the server.
  bool end_call(Call& call, Result<json> outcome, bool cancel_task = false);
  // Waits for the task `created` (a CreateTaskResult) of `call`: polls
  // tasks/get, answers its input requests (tasks/update).
  void await_task(const std::shared_ptr<Call>& call, const json& created);
  void poll_task(const std::shared_ptr<Call>& call);
  void answer_task_input(const std::shared_ptr<Call>& call, const json& input_requests, int64_t interval_ms);
  void schedule_poll(const std::shared_ptr<Call>& call, int64_t interval_ms);
  void answer_input_requests(const json& input_requests, std::function<void(Result<json>)> done);
  // `after_silence`: the first probe went unanswered and initialize was refused.
  void discover(const std::string& version, bool retried, std::function<void(Status)> done, bool after_silence = false);
  void initialize(const std::string& version, std::function<void(Status)> done, bool after_silence = false);
  void listen_for_changes();
  std::vector<std::pair<std::string, std::string>> param_headers(const json& params) const;
  void on_message(const json& m);
  void on_transport_closed(const Error& e);
  void on_timeout(int64_t id);
  void schedule_sweep(std::chrono::steady_clock::time_point at);
  void sweep();
  void fail_all(const Error& e);
  void list_page(std::shared_ptr<std::vector<McpToolInfo>> acc, json cursor, int page,
                 std::function<void(Result<std::vector<McpToolInfo>>)> done);

  std::unique_ptr<McpClientTransport> transport_;
  http::HttpClient& timers_;
  McpClientOptions options_;
  std::unique_ptr<State> state_;
};

}  // namespace kaisha::mcp
