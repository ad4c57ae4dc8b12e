// Dispatcher routes parsed JSON-RPC requests to registered method handlers
// and collects what is owed back: one response per request, nothing for a
// notification, an array for a batch (nothing if the batch held only
// notifications).
//
// Handlers come in two forms. A sync handler returns Result<json>. An async
// handler gets a Reply and may answer later, from any thread (e.g. when an
// actor it messaged answers); the body's `done` callback fires once every
// request of the body has been answered. Errors a handler returns are mapped
// to JSON-RPC errors (see to_rpc_error); an exception escaping a handler
// becomes -32603 with a message that names the method but not the exception
// text, which may carry internals (the text goes to the on_exception hook).
//
// Thread-safety: register every method before the first dispatch; after
// that, dispatching is const and may happen from several threads at once.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/jsonrpc/jsonrpc.hpp"

namespace kaisha::jsonrpc {

// What a handler knows about the call besides its params. `session` is the
// adapter's own per-connection state (e.g. an MCP session), opaque here.
struct Context {
  json id;  // null for a notification
  std::string method;
  bool notification = false;
  json meta;  // params["_meta"] when params is an object carrying it
  std::shared_ptr<void> session;
  // Set by a handler before returning an Error to attach "error.data".
  json error_data;
};

// An Error whose code carries a JSON-RPC code, for handlers to return:
// app_error(-32001, "Task not found") reaches the peer as exactly that.
Error app_error(int code, std::string message);

// How a handler's Error becomes a JSON-RPC error: a numeric code ("-32001")
// is used as is; "invalid_params" is -32602; "method_not_found" -32601;
// "internal" -32603; any other word is a generic server error -32000 whose
// data names the word, so a peer can still tell failures apart.
RpcError to_rpc_error(const Error& error, json data = nullptr);

// The one answer to one request. Copyable; the first call wins and later
// calls are ignored. If every copy is destroyed without an answer, the
// request is answered with -32603 ("... was dropped without an answer"), so a
// lost reply shows up as an error instead of a peer waiting forever.
class Reply {
 public:
  using Sink = std::function<void(Result<json>, json error_data)>;
  explicit Reply(Sink sink);

  // `error_data`, if not null, becomes "error.data" when `outcome` is an error.
  void operator()(Result<json> outcome, json error_data = nullptr) const;
  // Answers with an error carrying `data`.
  void fail(int code, std::string message, json data = nullptr) const;
  bool answered() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

using SyncHandler = std::function<Result<json>(const json& params, Context& ctx)>;
using AsyncHandler = std::function<void(const json& params, Context& ctx, Reply reply)>;

class Dispatcher {
 public:
  explicit Dispatcher(Limits limits = {});

  // Registers (or replaces) a method. When `params_schema` is not null,
  // params are checked against it first (check_params) and a mismatch is
  // answered with -32602 without calling the handler. Absent params reach
  // the handler (and the check) as an empty object.
  void handle(std::string method, SyncHandler handler, json params_schema = nullptr);
  void handle_async(std::string method, AsyncHandler handler, json params_schema = nullptr);
  bool has(const std::string& method) const { return methods_.count(method) != 0; }

  // Optional hooks: exception text of a failed handler (for a log), and
  // responses the peer sent to requests we made.
  void on_exception(std::function<void(const std::string& method, const std::string& what)> f) {
    on_exception_ = std::move(f);
  }
  void on_response(std::function<void(const IncomingResponse&)> f) { on_response_ = std::move(f); }

  // Called exactly once with the response owed for a body or request:
  // nullopt when nothing is owed.
  using Done = std::function<void(std::optional<json> response)>;

  // Parses (size, depth and batch limits from the constructor) and
  // dispatches a whole body.
  void dispatch_body(std::string_view body, const Context& base, Done done) const;
  // Dispatches one validated request.
  void dispatch(const Request& request, const Context& base, Done done) const;

  const Limits& limits() const { return limits_; }

 private:
  struct Method {
    AsyncHandler handler;
    json params_schema;
  };

  Limits limits_;
  std::map<std::string, Method, std::less<>> methods_;
  std::function<void(const std::string&, const std::string&)> on_exception_;
  std::function<void(const IncomingResponse&)> on_response_;
};

}  // namespace kaisha::jsonrpc
