#include "runtime/jsonrpc/dispatcher.hpp"

#include <atomic>
#include <charconv>
#include <exception>
#include <mutex>
#include <utility>
#include <vector>

#include "runtime/core/params_check.hpp"

namespace kaisha::jsonrpc {

Error app_error(int c, std::string message) { return Error{std::to_string(c), std::move(message)}; }

RpcError to_rpc_error(const Error& error, json data) {
  int c = 0;
  const auto& s = error.code;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), c);
  if (ec == std::errc() && end == s.data() + s.size() && !s.empty()) {
    return RpcError{c, error.message, std::move(data)};
  }
  if (s == "invalid_params") return RpcError{code::kInvalidParams, error.message, std::move(data)};
  if (s == "method_not_found") return RpcError{code::kMethodNotFound, error.message, std::move(data)};
  if (s == "internal") return RpcError{code::kInternalError, error.message, std::move(data)};
  if (data.is_null()) data = json::object();
  if (data.is_object() && !data.contains("code")) data["code"] = s;
  return RpcError{code::kServerErrorLast, error.message, std::move(data)};
}

// The shared answer slot behind every copy of a Reply.
struct Reply::State {
  Sink sink;
  std::atomic<bool> done{false};

  void answer(Result<json> outcome, json data) {
    if (done.exchange(true)) return;
    sink(std::move(outcome), std::move(data));
  }
  ~State() {
    if (done.load()) return;
    try {
      answer(Error{"internal", "the request was dropped without an answer"}, nullptr);
    } catch (...) {
      // A destructor must not throw; the peer's transport will time out.
    }
  }
};

Reply::Reply(Sink sink) : state_(std::make_shared<State>()) { state_->sink = std::move(sink); }

void Reply::operator()(Result<json> outcome, json error_data) const {
  state_->answer(std::move(outcome), std::move(error_data));
}

void Reply::fail(int c, std::string message, json data) const {
  state_->answer(app_error(c, std::move(message)), std::move(data));
}

bool Reply::answered() const { return state_->done.load(); }

Dispatcher::Dispatcher(Limits limits) : limits_(limits) {}

void Dispatcher::handle(std::string method, SyncHandler handler, json params_schema) {
  // A sync handler is an async one that answers before returning.
  AsyncHandler wrapped = [h = std::move(handler)](const json& params, Context& ctx, Reply reply) {
    Result<json> r = h(params, ctx);
    reply(std::move(r), ctx.error_data);
  };
  methods_[std::move(method)] = Method{std::move(wrapped), std::move(params_schema)};
}

void Dispatcher::handle_async(std::string method, AsyncHandler handler, json params_schema) {
  methods_[std::move(method)] = Method{std::move(handler), std::move(params_schema)};
}

void Dispatcher::dispatch(const Request& request, const Context& base, Done done) const {
  const bool notification = request.notification;
  const json id = request.id;
  auto answer = [done, notification](std::optional<json> response) {
    done(notification ? std::nullopt : std::move(response));
  };

  auto it = methods_.find(request.method);
  if (it == methods_.end()) {
    answer(make_error(id, code::kMethodNotFound, "Method not found: '" + request.method + "'",
                      json{{"method", request.method}}));
    return;
  }
  static const json kNoParams = json::object();
  // Not copied: the request outlives this call, and a handler that answers
  // later copies what it keeps.
  const json& params = request.params.is_null() ? kNoParams : request.params;
  if (!it->second.params_schema.is_null()) {
    if (auto s = check_params(it->second.params_schema, params); !s.ok()) {
      answer(make_error(id, code::kInvalidParams, "Invalid params: " + s.error().message));
      return;
    }
  }

  Context ctx = base;
  ctx.id = id;
  ctx.method = request.method;
  ctx.notification = notification;
  ctx.error_data = nullptr;
  if (params.is_object()) {
    if (auto m = params.find("_meta"); m != params.end()) ctx.meta = *m;
  }

  Reply reply([answer, id](Result<json> outcome, json data) {
    if (outcome.ok()) {
      answer(make_result(id, std::move(outcome.value())));
    } else {
      answer(make_error(id, to_rpc_error(outcome.error(), std::move(data))));
    }
  });
  const std::string& method = it->first;
  auto internal = [&](const char* what) {
    if (on_exception_) on_exception_(method, what);
    reply.fail(code::kInternalError, "Internal error while handling '" + method + "'");
  };
  try {
    it->second.handler(params, ctx, reply);
  } catch (const std::exception& e) {
    internal(e.what());
  } catch (...) {
    internal("unknown exception");
  }
}

namespace {

// Gathers the answers of one batch; the last answer sends the array.
struct BatchState {
  std::mutex mu;
  std::vector<std::optional<json>> slots;
  size_t remaining = 0;
  Dispatcher::Done done;

  void put(size_t index, std::optional<json> response) {
    std::vector<json> out;
    {
      std::lock_guard<std::mutex> lock(mu);
      slots[index] = std::move(response);
      if (--remaining != 0) return;
      for (auto& s : slots) {
        if (s) out.push_back(std::move(*s));
      }
    }
    done(join_responses(true, std::move(out)));
  }
};

}  // namespace

void Dispatcher::dispatch_body(std::string_view body, const Context& base, Done done) const {
  ParsedBody parsed = parse_body(body, limits_);
  if (!parsed.batch) {
    Message& m = parsed.messages.front();
    if (auto* req = std::get_if<Request>(&m)) {
      dispatch(*req, base, std::move(done));
    } else if (auto* resp = std::get_if<IncomingResponse>(&m)) {
      if (on_response_) on_response_(*resp);
      done(std::nullopt);
    } else {
      done(std::move(std::get<json>(m)));
    }
    return;
  }
  auto state = std::make_shared<BatchState>();
  state->slots.resize(parsed.messages.size());
  state->remaining = parsed.messages.size();
  state->done = std::move(done);
  for (size_t i = 0; i < parsed.messages.size(); ++i) {
    Message& m = parsed.messages[i];
    if (auto* req = std::get_if<Request>(&m)) {
      dispatch(*req, base, [state, i](std::optional<json> r) { state->put(i, std::move(r)); });
    } else if (auto* resp = std::get_if<IncomingResponse>(&m)) {
      if (on_response_) on_response_(*resp);
      state->put(i, std::nullopt);
    } else {
      state->put(i, std::move(std::get<json>(m)));
    }
  }
}

}  // namespace kaisha::jsonrpc
