// McpClient: kaisha as the client of one MCP server (2025-11-25, accepting
// the older revisions kaisha's server also speaks), over any
// McpClientTransport. It owns the JSON-RPC side: request ids, the
// initialize handshake, per-request timeouts (a timed-out request is
// cancelled on the server with notifications/cancelled), answers to the
// server's ping, and routing of the server's notifications and requests.
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

#include "protocols/mcp/mcp_client_transport.hpp"
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
  std::string name;                  // how errors name the server ("" = the transport's description)
  std::string client_name = "kaisha";
  std::string client_version = "0.1.0";
  int64_t request_timeout_ms = 60'000;
  int64_t initialize_timeout_ms = 30'000;
  json capabilities = json::object();  // what we declare in initialize
  int max_list_pages = 100;            // tools/list pages before giving up (a server looping on cursors)
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

  // Any request; timeout_ms 0 = options' request_timeout_ms. Returns its id.
  int64_t request(const std::string& method, json params, Done done, int64_t timeout_ms = 0);
  void notify(const std::string& method, json params = nullptr);
  // Gives up request `id`: its callback gets an error now and the server
  // gets notifications/cancelled. False when it was not pending.
  bool cancel(int64_t id, const std::string& reason);

  // tools/list, following nextCursor through every page.
  void list_tools(std::function<void(Result<std::vector<McpToolInfo>>)> done);
  // tools/call; the result is the CallToolResult as the server sent it.
  // `traceparent`, when set, goes in the request's _meta (W3C trace context,
  // as MCP servers that trace read it).
  int64_t call_tool(const std::string& name, const json& arguments, Done done, int64_t timeout_ms = 0,
                    const std::string& traceparent = "");
  void ping(Done done);

  // Fails what is pending ("mcp_closed") and closes the transport. Must not
  // be called from a callback of this client.
  void close();

  bool connected() const;
  std::string protocol_version() const;
  json server_info() const;
  json server_capabilities() const;
  std::string name() const;
  // The last message from the server that was not valid JSON-RPC ("" if none).
  std::string last_malformed() const;
  McpClientTransport& transport() { return *transport_; }

 private:
  McpClient(std::unique_ptr<McpClientTransport> transport, http::HttpClient& timers, McpClientOptions options);
  struct State;
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
