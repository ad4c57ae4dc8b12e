// Helpers for the MCP client tests: blocking wrappers over the asynchronous
// client (tests only) and the path of the scripted test server.
#pragma once

#include <chrono>
#include <future>
#include <thread>

#include <gtest/gtest.h>

#include "protocols/mcp/client/mcp_client.hpp"
#include "protocols/mcp/client/mcp_stdio_client_transport.hpp"

namespace kaisha::mcp::testing {

inline const char* test_server_path() { return MCP_TEST_SERVER; }

// Waits for a future; a generous bound turns a hang into a failure, it is
// not a timing assertion.
template <class T>
T get(std::future<T>& f) {
  if (f.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
    ADD_FAILURE() << "no answer within 30 s";
    std::abort();
  }
  return f.get();
}

inline Status connect(McpClient& c) {
  std::promise<Status> p;
  auto f = p.get_future();
  c.connect([&p](Status s) { p.set_value(std::move(s)); });
  return get(f);
}

inline Result<std::vector<McpToolInfo>> list(McpClient& c) {
  std::promise<Result<std::vector<McpToolInfo>>> p;
  auto f = p.get_future();
  c.list_tools([&p](Result<std::vector<McpToolInfo>> r) { p.set_value(std::move(r)); });
  return get(f);
}

inline Result<json> call(McpClient& c, const std::string& tool, const json& args = json::object(),
                         int64_t timeout_ms = 0, const std::string& traceparent = "") {
  auto p = std::make_shared<std::promise<Result<json>>>();
  auto f = p->get_future();
  c.call_tool(
      tool, args, [p](Result<json> r) { p->set_value(std::move(r)); }, timeout_ms, traceparent);
  return get(f);
}

// Polls `pred` until it holds (bounded by 30 s).
template <class Pred>
bool eventually(Pred pred) {
  for (int i = 0; i < 3000; ++i) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return pred();
}

inline std::unique_ptr<McpStdioClientTransport> test_server(std::vector<std::string> args = {},
                                                            std::string stderr_log = "") {
  McpStdioClientOptions o;
  o.stderr_log = std::move(stderr_log);
  return std::make_unique<McpStdioClientTransport>(ChildSpec{test_server_path(), std::move(args), {}}, o);
}

}  // namespace kaisha::mcp::testing
