// A2aService: the company as an A2A agent, independent of HTTP. It answers
// the JSON-RPC methods of A2A v1.0 and their v0.3 names (the name a request
// uses decides the shapes of the answer, see a2a_wire.hpp):
//
//   SendMessage / message/send            submit the message's text as a task;
//                                         wait for its end unless the peer asked
//                                         to return immediately
//   SendStreamingMessage / message/stream submit, then stream task, status and
//                                         artifact updates until the task ends
//   GetTask / tasks/get                   the task's current state
//   CancelTask / tasks/cancel             cancel it (reaches the running actors)
//   SubscribeToTask / tasks/resubscribe   stream an existing task's updates
//   ListTasks                             the most recent tasks (v1.0 only)
//
// A2A task ids are the company's task ids; the context id is the company's
// session. Errors use A2A's codes: -32001 TaskNotFound, -32002
// TaskNotCancelable, -32004 UnsupportedOperation, -32005 content type not
// supported, -32007 no extended card, -32602 for malformed params.
//
// Thread-safety: every method may be called from several threads at once.
// The company must outlive the service and every stream it started.
#pragma once

#include <chrono>
#include <functional>
#include <string>

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
  explicit A2aService(company::CompanyService& company, A2aServiceOptions options = {});

  // The non-streaming methods. Dispatching blocks the calling thread while
  // a blocking SendMessage waits for its task.
  const jsonrpc::Dispatcher& dispatcher() const { return dispatcher_; }

  // True for SendStreamingMessage, SubscribeToTask and their v0.3 names.
  static bool is_streaming(std::string_view method);

  // Receives one JSON-RPC response object per event (same id as the
  // request); returns false once the peer is gone.
  using EventSink = std::function<bool(const json& response)>;

  // Runs a streaming request: the first event is the Task (or an error
  // response, after which `done` runs at once), then status and artifact
  // updates as the company works; after the terminal state's event `done`
  // runs. The first event is delivered on the calling thread before stream()
  // returns (so a transport can still answer an error without opening a
  // stream); the others, and `done`, arrive from company threads.
  // `done` runs exactly once, also when the peer went away mid-stream (at the
  // next event that finds the sink closed, or when the returned function is
  // called). The returned function ends the stream early — its peer went
  // away: `done` runs if it has not, the task subscription is released and
  // the sink is not called again. Safe to call from any thread, more than
  // once, and after the service's stream has ended.
  std::function<void()> stream(const jsonrpc::Request& request, EventSink sink, std::function<void()> done);

  company::CompanyService& company() { return company_; }

 private:
  Result<json> send_message(const json& params, WireVersion v, bool blocking_default);
  Result<json> get_task(const json& params, WireVersion v);
  Result<json> cancel_task(const json& params, WireVersion v);
  Result<json> list_tasks(const json& params);
  Result<std::string> submit(const json& params);

  company::CompanyService& company_;
  A2aServiceOptions options_;
  jsonrpc::Dispatcher dispatcher_;
};

}  // namespace kaisha::a2a
