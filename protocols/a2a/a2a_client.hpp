// A2aClient: kaisha as the client of a remote A2A agent. It reads the
// agent's card, sends a task as a user message over the card's JSON-RPC
// interface (v1.0 preferred, v0.3 otherwise) and brings back the agent's
// answer: the text of the task's artifacts, or of the message the agent
// replied with. When the card says the agent streams, the message goes out
// as SendStreamingMessage and the answer is assembled from the events; a
// task the agent leaves running is followed with GetTask until it ends.
//
// Everything is asynchronous over the process's one HttpClient: no call
// blocks, callbacks run on the HttpClient's loop thread and must not block.
// A slow or dead agent fails with a timeout after options.timeout_ms.
//
// Errors (code): "a2a" — the agent answered with a JSON-RPC error, a failed,
// canceled or rejected task, asked for input we cannot give, or sent
// something that is not A2A; "card" — no usable agent card; "http",
// "timeout", "connect" — transport. Messages name the agent's URL.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "protocols/a2a/a2a_wire.hpp"
#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/http/http_client.hpp"
#include "runtime/jsonrpc/descriptor.hpp"

namespace kaisha::a2a {

// What kaisha needs to know of a remote agent, read from its card.
struct RemoteAgentCard {
  std::string name;
  std::string description;
  std::string card_url;  // where the card came from
  std::string endpoint;  // the JSON-RPC URL used
  WireVersion version = WireVersion::v1_0;
  bool streaming = false;
  std::vector<jsonrpc::CapabilityDescriptor> skills;
};

// "<base>/.well-known/agent-card.json", or `url` itself when it already
// names a .json file.
std::string agent_card_url(std::string_view url);

// Picks the JSON-RPC interface of `card`: a v1.0 one from
// supportedInterfaces, else a v0.3 one, else a v0.3 card's top-level url
// (when its preferredTransport is JSONRPC or absent). Error code "card".
Result<RemoteAgentCard> read_agent_card(const json& card, const std::string& card_url);

struct A2aClientOptions {
  int64_t timeout_ms = 300'000;  // one request, start to end (a streamed answer included)
  int64_t connect_timeout_ms = 5'000;
  int64_t poll_interval_ms = 500;  // GetTask while a task runs
  std::string bearer_token;        // sent as Authorization when set
};

class A2aClient {
 public:
  // `http` must outlive the client and every request in flight.
  explicit A2aClient(http::HttpClient& http, A2aClientOptions options = {});

  using CardDone = std::function<void(Result<RemoteAgentCard>)>;
  using AskDone = std::function<void(Result<std::string>)>;

  // GETs agent_card_url(url) and reads it.
  void fetch_card(const std::string& url, CardDone done);

  // Sends `text` and calls `done` exactly once with the answer. `on_text`
  // (optional) receives answer text as streamed artifact pieces arrive.
  void ask(const RemoteAgentCard& card, const std::string& text, AskDone done,
           std::function<void(std::string_view)> on_text = {});

  const A2aClientOptions& options() const { return options_; }

 private:
  http::HttpClient& http_;
  A2aClientOptions options_;
};

}  // namespace kaisha::a2a
