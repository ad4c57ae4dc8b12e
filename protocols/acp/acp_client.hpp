// AcpClient: kaisha as the client of a remote ACP agent (REST, OpenAPI
// 0.2.0). It reads the agent's manifest and runs a task on it in sync mode:
// POST /runs {agent_name, input:[user message], mode:"sync"}, then follows
// the run with GET /runs/{id} if the server answered before it ended. The
// answer is the text of the run's output messages.
//
// Asynchronous over the process's HttpClient: callbacks run on its loop
// thread and must not block. Errors (code): "acp" — the agent's error body,
// a failed or cancelled run, a run awaiting input, or a reply that is not
// ACP; "http", "timeout", "connect" — transport. Messages name the URL.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/http/http_client.hpp"

namespace kaisha::acp {

// "http://host:8000#echo" → base "http://host:8000", agent "echo" (empty
// when there is no '#': the server's first agent is used).
struct AcpAgentAddress {
  std::string base_url;
  std::string agent;
};
AcpAgentAddress parse_agent_address(std::string_view text);

// The text of a run's output messages (plain text parts, in order).
std::string output_text(const json& run);

struct AcpClientOptions {
  int64_t timeout_ms = 300'000;
  int64_t connect_timeout_ms = 5'000;
  int64_t poll_interval_ms = 500;
  std::string bearer_token;
};

class AcpClient {
 public:
  explicit AcpClient(http::HttpClient& http, AcpClientOptions options = {});

  // The agent's manifest: GET /agents/{agent}, or the first of GET /agents
  // when `agent` is empty.
  void fetch_manifest(const AcpAgentAddress& address, std::function<void(Result<json>)> done);

  // Runs `text` on the agent (whose name must be known) and calls `done`
  // exactly once with the answer.
  void ask(const AcpAgentAddress& address, const std::string& text, std::function<void(Result<std::string>)> done);

 private:
  http::HttpClient& http_;
  AcpClientOptions options_;
};

}  // namespace kaisha::acp
