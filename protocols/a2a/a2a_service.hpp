// A2aService: an A2A agent (a2a_agent.hpp; the company, or a test fixture)
// behind A2A's methods, independent of HTTP. It answers the JSON-RPC methods
// of A2A v1.0 and their v0.3 names (the name a request uses decides the
// shapes of the answer, see a2a_wire.hpp); the HTTP+JSON binding
// (a2a_rest.hpp) calls the same methods under their v1.0 names:
//
//   SendMessage / message/send            give the agent the message; wait
//                                         until its task is terminal or
//                                         interrupted unless the peer asked to
//                                         return immediately; answer the task
//                                         (or the agent's Message)
//   SendStreamingMessage / message/stream the same, then stream task, status
//                                         and artifact updates until the task
//                                         is terminal or interrupted
//   GetTask / tasks/get                   the task's current state
//   CancelTask / tasks/cancel             cancel it
//   SubscribeToTask / tasks/resubscribe   stream an existing task's updates
//                                         until it is terminal
//   ListTasks                             the most recent tasks (v1.0 only)
//
// Errors use A2A's codes: -32001 TaskNotFound, -32002 TaskNotCancelable,
// -32004 UnsupportedOperation, -32005 content type not supported, -32007 no
// extended card, -32602 for malformed params (naming the field).
//
// Thread-safety: every method may be called from several threads at once.
// The agent must outlive the service and every stream it started.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include <memory>

#include "protocols/a2a/a2a_agent.hpp"
#include "protocols/a2a/a2a_wire.hpp"
#include "runtime/company/company_service.hpp"
#include "runtime/core/json.hpp"
#include "runtime/jsonrpc/dispatcher.hpp"
#include "runtime/jsonrpc/jsonrpc.hpp"

namespace kaisha::a2a {

// A2A's own error codes.
namespace code {
inline constexpr int kTaskNotFound = -32001;
inline constexpr int kTaskNotCancelable = -32002;
inline constexpr int kUnsupportedOperation = -32004;
inline constexpr int kContentTypeNotSupported = -32005;
inline constexpr int kExtendedCardNotConfigured = -32007;
inline constexpr int kVersionNotSupported = -32009;
// kaisha's own, in JSON-RPC's implementation-defined range: a limit of
// `kaisha serve` (serve.max_tasks, serve.max_sessions) was reached; the
// same request may succeed later. HTTP+JSON: 429; gRPC: RESOURCE_EXHAUSTED.
inline constexpr int kServerBusy = -32050;
}  // namespace code

struct A2aServiceOptions {
  // How long a blocking SendMessage waits for the task to end before
  // answering with the task as it stands (still working).
  std::chrono::milliseconds blocking_wait{std::chrono::minutes(10)};
  // How long CancelTask waits for the canceled task to reach its end state.
  std::chrono::milliseconds cancel_wait{std::chrono::seconds(5)};
  // Size and nesting of a request body (runtime/core/bounded_json.hpp).
  JsonLimits body_limits;
};

class A2aService {
 public:
  // Serves `agent`.
  explicit A2aService(std::shared_ptr<A2aAgent> agent, A2aServiceOptions options = {});
  // Serves the company (a CompanyAgent over it); `company` must outlive the service.
  explicit A2aService(company::CompanyService& company, A2aServiceOptions options = {});

  // The non-streaming methods. Dispatching blocks the calling thread while
  // a blocking SendMessage waits for its task.
  const jsonrpc::Dispatcher& dispatcher() const { return dispatcher_; }

  // True for SendStreamingMessage, SubscribeToTask and their v0.3 names.
  static bool is_streaming(std::string_view method);

  // Receives one JSON-RPC response object per event (same id as the
  // request); returns false once the peer is gone.
  using EventSink = std::function<bool(const json& response)>;

  // Runs a streaming request: the first event is the Task (or the agent's
  // Message, or an error response, after either of which `done` runs at
  // once), then status and artifact updates as the agent works; after the
  // event that ends the stream `done` runs. The first event is delivered on
  // the calling thread before stream() returns (so a transport can still
  // answer an error without opening a stream); the others, and `done`, may
  // arrive from the agent's threads.
  // `done` runs exactly once, also when the peer went away mid-stream (at the
  // next event that finds the sink closed, or when the returned function is
  // called). The returned function ends the stream early — its peer went
  // away: `done` runs if it has not, the task subscription is released and
  // the sink is not called again. Safe to call from any thread, more than
  // once, and after the service's stream has ended.
  std::function<void()> stream(const jsonrpc::Request& request, EventSink sink, std::function<void()> done);

  A2aAgent& agent() { return *agent_; }

 private:
  Result<json> send_message(const json& params, WireVersion v, bool blocking_default);
  Result<json> get_task(const json& params, WireVersion v);
  Result<json> cancel_task(const json& params, WireVersion v);
  Result<json> list_tasks(const json& params);
  Result<SendOutcome> send(const json& params);

  std::shared_ptr<A2aAgent> agent_;
  A2aServiceOptions options_;
  jsonrpc::Dispatcher dispatcher_;
};

}  // namespace kaisha::a2a
