#include "protocols/mcp/server/mcp_server.hpp"

#include <atomic>
#include <future>
#include <map>
#include <mutex>

#include "protocols/mcp/server/input_exchange.hpp"
#include "protocols/mcp/wire/mcp_protocol.hpp"
#include "protocols/mcp/server/mcp_tasks.hpp"
#include "protocols/mcp/server/subscriptions.hpp"
#include "runtime/core/params_check.hpp"

namespace kaisha::mcp {

namespace {

// What a handler needs besides params: the request's stream, its session
// (legacy) or connection (modern stdio; null on HTTP), and for a modern
// request what its _meta declared.
struct Scope {
  std::shared_ptr<McpSession> session;
  McpStream stream;
  std::optional<ModernRequest> modern;
};

// A min_log_rank no level reaches: a modern request without a logLevel gets
// no log messages.
constexpr int kNoLogs = 100;

// Results a modern client may cache (SEP-2549): they carry ttlMs and
// cacheScope. kaisha's lists change when the company does (and say so with
// list_changed), so they are fresh only now and private to the caller.
bool cacheable(const std::string& method) {
  return method == "server/discover" || method == "tools/list" || method == "prompts/list" ||
         method == "resources/list" || method == "resources/templates/list" || method == "resources/read";
}

// What the server offers, the same in initialize (legacy) and
// server/discover (modern).
json server_capabilities() {
  return json{{"tools", {{"listChanged", true}}},
              {"resources", {{"subscribe", true}, {"listChanged", true}}},
              {"prompts", {{"listChanged", true}}},
              {"logging", json::object()},
              {"completions", json::object()}};
}

Scope& scope_of(jsonrpc::Context& ctx) { return *static_cast<Scope*>(ctx.session.get()); }

constexpr size_t kPageSize = 100;

// tools/list and friends: cursor = decimal offset into the full list.
Result<json> page(const std::vector<json>& all, const json& params, const char* key) {
  size_t start = 0;
  if (auto c = params.find("cursor"); c != params.end() && !c->is_null()) {
    const std::string s = c->is_string() ? c->get<std::string>() : "";
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 9 ||
        std::stoul(s) > all.size())
      return jsonrpc::app_error(jsonrpc::code::kInvalidParams, "Invalid cursor: " + c->dump());
    start = std::stoul(s);
  }
  json out = json::object();
  json items = json::array();
  for (size_t i = start; i < all.size() && i < start + kPageSize; ++i) items.push_back(all[i]);
  out[key] = std::move(items);
  if (start + kPageSize < all.size()) out["nextCursor"] = std::to_string(start + kPageSize);
  return out;
}

json schema(std::initializer_list<std::pair<const char*, const char*>> props, std::vector<std::string> required) {
  json p = json::object();
  for (auto& [k, t] : props) p[k] = json{{"type", t}};
  return json{{"type", "object"}, {"properties", p}, {"required", required}};
}

}  // namespace

void McpCallContext::progress(double done, std::optional<double> total, const std::string& message) const {
  if (progress_token.is_null() || !notify) return;
  json p{{"progressToken", progress_token}, {"progress", done}};
  if (total) p["total"] = *total;
  if (!message.empty()) p["message"] = message;
  notify(jsonrpc::make_notification("notifications/progress", std::move(p)));
}

void McpCallContext::log(const std::string& level, const json& data, const std::string& logger) const {
  auto rank = log_level_rank(level);
  if (!notify || !rank || *rank < min_log_rank) return;
  json p{{"level", level}, {"data", data}};
  if (!logger.empty()) p["logger"] = logger;
  notify(jsonrpc::make_notification("notifications/message", std::move(p)));
}

json text_result(const std::string& text, bool is_error) {
  json r{{"content", json::array({json{{"type", "text"}, {"text", text}}})}};
  if (is_error) r["isError"] = true;
  return r;
}

struct McpServer::Impl {
  McpServer& self;
  jsonrpc::Dispatcher legacy;  // methods of the legacy era
  jsonrpc::Dispatcher modern;  // methods of the modern era

  std::mutex mu;
  std::map<std::string, std::weak_ptr<McpSession>> sessions;
  std::map<std::string, std::shared_ptr<std::promise<Result<json>>>> pending;  // our requests to clients
  std::atomic<uint64_t> next_id{1};
  Subscriptions subscriptions;
  McpTasks tasks;  // after subscriptions: its workers stop first

  Impl(McpServer& s, const McpServerOptions& options)
      : self(s), legacy(options.limits), modern(options.limits), tasks(options.tasks, &s.backend()) {
    tasks.table().set_listener(
        [this](const std::string& id, const json& detailed) { subscriptions.task_status(id, detailed); });
    tasks.restore();  // those an earlier server on the same journal kept
  }

  // Sends `method` to the client and waits for its answer: up to `timeout`,
  // and only while `canceled` (when given) stays false: a closed session or a
  // stopping server cancels its calls, which must not wait out the timeout.
  Result<json> request_client(const Scope& sc, const std::string& method, const json& params,
                              std::chrono::milliseconds timeout, const std::atomic<bool>* canceled = nullptr) {
    const std::string id = "kaisha-" + std::to_string(next_id++);
    auto promise = std::make_shared<std::promise<Result<json>>>();
    auto future = promise->get_future();
    {
      std::lock_guard lock(mu);
      pending[json(id).dump()] = promise;
    }
    bool sent = sc.stream.send && sc.stream.send(jsonrpc::make_request(id, method, params));
    if (!sent) sent = sc.session->send_unrelated(jsonrpc::make_request(id, method, params));
    std::optional<Result<json>> outcome;
    if (!sent)
      outcome = Error{"unavailable", "cannot send " + method + " to the client: its stream is closed"};
    else {
      const auto until = std::chrono::steady_clock::now() + timeout;
      constexpr auto kCancelCheck = std::chrono::milliseconds(100);
      while (future.wait_for(kCancelCheck) != std::future_status::ready) {
        if (canceled && canceled->load()) {
          outcome = Error{"canceled", "the request was canceled while waiting for the client's answer to " + method};
          break;
        }
        if (std::chrono::steady_clock::now() >= until) {
          outcome = Error{"timeout",
                          "the client did not answer " + method + " within " + std::to_string(timeout.count()) + " ms"};
          break;
        }
      }
    }
    {
      std::lock_guard lock(mu);
      pending.erase(json(id).dump());
    }
    if (outcome) return *outcome;
    return future.get();
  }

  void on_response(const jsonrpc::IncomingResponse& r) {
    std::shared_ptr<std::promise<Result<json>>> p;
    {
      std::lock_guard lock(mu);
      auto it = pending.find(r.id.dump());
      if (it == pending.end()) return;  // late or unknown: nobody waits
      p = it->second;
      pending.erase(it);
    }
    if (r.error)
      p->set_value(Error{std::to_string(r.error->code), r.error->message});
    else
      p->set_value(r.result);
  }

  // ---- What a tool call or prompt sees of its request, per era ----------

  // Per-call state a handler keeps until the backend answered.
  struct Call {
    McpCallContext ctx;
    std::optional<InputExchange> exchange;  // modern
    json missing_capabilities;              // modern: set when ask_client refused for want of one
  };

  // Fills `call` for the request in `ctx`; an Error for malformed modern
  // inputResponses/requestState.
  Status prepare_call(Call& call, const json& params, jsonrpc::Context& ctx) {
    auto& sc = scope_of(ctx);
    McpCallContext& c = call.ctx;
    c.request_id = ctx.id;
    if (ctx.meta.is_object() && ctx.meta.contains("progressToken")) c.progress_token = ctx.meta["progressToken"];
    McpStream stream = sc.stream;
    if (!sc.modern) {  // legacy
      c.conversation = sc.session->conversation();
      c.min_log_rank = sc.session->min_log_rank();
      c.client_capabilities = sc.session->client_capabilities();
      c.close_stream = stream.close_early ? stream.close_early : [] {};
      c.notify = [stream](const json& n) {
        if (stream.send) stream.send(n);
      };
      Scope copy = sc;
      auto timeout = self.options_.client_request_timeout;
      // The call's cancel flag is set after this (begin_request): read at the ask.
      c.ask_client = [this, copy, timeout, &call](const json& requests, const json&) -> Result<json> {
        json answers = json::object();
        for (auto it = requests.begin(); it != requests.end(); ++it) {
          auto r = request_client(copy, it.value().value("method", ""), it.value().value("params", json::object()),
                                  timeout, call.ctx.cancel_flag.get());
          if (!r) return r.error();
          answers[it.key()] = std::move(*r);
        }
        return answers;
      };
      return {};
    }
    const ModernRequest& m = *sc.modern;
    auto exchange = InputExchange::from_params(params);
    if (!exchange) return exchange.error();
    call.exchange = std::move(*exchange);
    c.state = call.exchange->state();
    c.client_capabilities = m.client_capabilities;
    c.min_log_rank = m.min_log_rank.value_or(kNoLogs);
    c.close_stream = [] {};
    // A modern stream that is gone is the client's cancellation.
    if (stream.gone) c.cancel_flag = stream.gone;
    auto flag = c.cancel_flag;
    c.notify = [stream, flag](const json& n) {
      if (stream.send && !stream.send(n)) flag->store(true);
    };
    c.ask_client = [&call](const json& requests, const json& state) -> Result<json> {
      json missing = json::object();
      for (auto it = requests.begin(); it != requests.end(); ++it) {
        const std::string cap = capability_for(it.value().value("method", ""));
        if (!cap.empty() && !call.ctx.client_capabilities.contains(cap)) missing[cap] = json::object();
      }
      if (!missing.empty()) {
        call.missing_capabilities = missing;
        return Error{std::to_string(kMissingRequiredClientCapability),
                     "Missing required client capability: this request needs " + missing.dump() + " in params._meta['" +
                         meta_key::kClientCapabilities + "']"};
      }
      return call.exchange->ask(requests, state);
    };
    return {};
  }

  // The backend's outcome as the request's answer.
  Result<json> finish_call(Call& call, Result<json> r, jsonrpc::Context& ctx) {
    if (!r && call.exchange && r.error().code == kInputRequired && call.exchange->input_required())
      return call.exchange->input_required_result();
    if (!r && !call.missing_capabilities.is_null())
      ctx.error_data = json{{"requiredCapabilities", call.missing_capabilities}};
    return r;
  }

  // ---- Methods both eras serve ------------------------------------------

  void install_common(jsonrpc::Dispatcher& rpc) {
    McpBackend& b = self.backend_;
    rpc.handle("tools/list", [&b](const json& p, jsonrpc::Context&) -> Result<json> {
      std::vector<json> all;
      for (const auto& d : b.tools()) all.push_back(jsonrpc::to_mcp_tool(d));
      return page(all, p, "tools");
    });

    rpc.handle(
        "tools/call",
        [this, &b](const json& p, jsonrpc::Context& ctx) -> Result<json> {
          auto& sc = scope_of(ctx);
          const std::string name = p.at("name").get<std::string>();
          const json args = p.contains("arguments") && !p["arguments"].is_null() ? p["arguments"] : json::object();
          std::optional<jsonrpc::CapabilityDescriptor> tool = b.find_tool(name);
          if (!tool) return jsonrpc::app_error(jsonrpc::code::kInvalidParams, "Unknown tool: " + name);
          // Argument mistakes are tool execution errors (SEP-1303): the model
          // sees them and can correct itself.
          if (auto st = check_params(tool->input_schema, args, "arguments"); !st)
            return text_result("Invalid arguments for tool " + name + ": " + st.error().message, true);

          // The tasks extension: the server decides which calls become
          // tasks — those of tools that support it, for clients that
          // declared it on this request.
          const TaskSupport support = b.task_support(name);
          const bool task_client = sc.modern && declares_tasks(sc.modern->client_capabilities);
          if (support == TaskSupport::kRequired && !task_client) {
            ctx.error_data = tasks_capability_required();
            return jsonrpc::app_error(kMissingRequiredClientCapability,
                                      "Missing required client capability: tool '" + name +
                                          "' runs only as a task; declare the " + kTasksExtension +
                                          " extension in params._meta['" + meta_key::kClientCapabilities +
                                          "'].extensions (a 2026-07-28 request)");
          }

          auto call = std::make_shared<Call>();
          if (auto st = prepare_call(*call, p, ctx); !st)
            return jsonrpc::app_error(jsonrpc::code::kInvalidParams, st.error().message);
          // Running requests of a session or stdio connection can be
          // cancelled by id (notifications/cancelled).
          if (sc.session) call->ctx.cancel_flag = sc.session->begin_request(ctx.id);
          Result<json> r = json::object();
          if (support != TaskSupport::kForbidden && task_client) {
            Call& c = *call;
            r = tasks.run(call, c.ctx, [&b, name, args, &c] { return b.call_tool(name, args, c.ctx); });
          } else {
            r = b.call_tool(name, args, call->ctx);
          }
          if (sc.session) sc.session->end_request(ctx.id);
          return finish_call(*call, std::move(r), ctx);
        },
        schema({{"name", "string"}, {"arguments", "object"}}, {"name"}));

    rpc.handle("resources/list",
               [&b](const json& p, jsonrpc::Context&) -> Result<json> { return page(b.resources(), p, "resources"); });
    rpc.handle("resources/templates/list", [&b](const json& p, jsonrpc::Context&) -> Result<json> {
      return page(b.resource_templates(), p, "resourceTemplates");
    });
    rpc.handle(
        "resources/read",
        [&b](const json& p, jsonrpc::Context& ctx) -> Result<json> {
          const std::string uri = p.at("uri").get<std::string>();
          auto r = b.read_resource(uri);
          if (!r && r.error().code == "not_found") {
            ctx.error_data = json{{"uri", uri}};
            // 2026-07-28 moved "not found" to Invalid Params (SEP-2164).
            int code = scope_of(ctx).modern ? jsonrpc::code::kInvalidParams : kResourceNotFound;
            return jsonrpc::app_error(code, r.error().message);
          }
          return r;
        },
        schema({{"uri", "string"}}, {"uri"}));

    rpc.handle("prompts/list",
               [&b](const json& p, jsonrpc::Context&) -> Result<json> { return page(b.prompts(), p, "prompts"); });
    rpc.handle(
        "prompts/get",
        [this, &b](const json& p, jsonrpc::Context& ctx) -> Result<json> {
          Call call;
          if (auto st = prepare_call(call, p, ctx); !st)
            return jsonrpc::app_error(jsonrpc::code::kInvalidParams, st.error().message);
          auto r = b.get_prompt(p.at("name").get<std::string>(), p.value("arguments", json::object()), call.ctx);
          return finish_call(call, std::move(r), ctx);
        },
        schema({{"name", "string"}, {"arguments", "object"}}, {"name"}));

    rpc.handle(
        "completion/complete", [&b](const json& p, jsonrpc::Context&) -> Result<json> { return b.complete(p); },
        schema({{"ref", "object"}, {"argument", "object"}}, {"ref", "argument"}));
  }

  // ---- The legacy era (2025-11-25 and earlier) --------------------------

  void install_legacy() {
    McpBackend& b = self.backend_;
    jsonrpc::Dispatcher& rpc = legacy;
    rpc.on_response([this](const jsonrpc::IncomingResponse& r) { on_response(r); });
    install_common(rpc);

    rpc.handle(
        "initialize",
        [&b](const json& p, jsonrpc::Context& ctx) -> Result<json> {
          auto& sc = scope_of(ctx);
          std::string version = negotiate_version(p.value("protocolVersion", ""));
          sc.session->set_initialized(version, p.value("clientInfo", json::object()),
                                      p.value("capabilities", json::object()));
          json r{
              {"protocolVersion", version}, {"capabilities", server_capabilities()}, {"serverInfo", b.server_info()}};
          if (auto ins = b.instructions(); !ins.empty()) r["instructions"] = ins;
          return r;
        },
        json{{"type", "object"},
             {"properties",
              {{"protocolVersion", {{"type", "string"}}},
               {"capabilities", {{"type", "object"}}},
               {"clientInfo", {{"type", "object"}}}}},
             {"required", {"protocolVersion"}}});

    rpc.handle("notifications/initialized", [](const json&, jsonrpc::Context& ctx) -> Result<json> {
      scope_of(ctx).session->set_ready();
      return json::object();
    });
    rpc.handle("ping", [](const json&, jsonrpc::Context&) -> Result<json> { return json::object(); });

    // Also how a modern stdio client cancels a request or a subscription:
    // notifications carry no _meta, so they all arrive here.
    rpc.handle("notifications/cancelled", [this](const json& p, jsonrpc::Context& ctx) -> Result<json> {
      if (auto id = p.find("requestId"); id != p.end()) {
        scope_of(ctx).session->cancel_request(*id);
        subscriptions.cancel(*id);
      }
      return json::object();
    });
    // Client notifications we accept and have nothing to do for.
    for (const char* n : {"notifications/roots/list_changed", "notifications/progress"})
      rpc.handle(n, [](const json&, jsonrpc::Context&) -> Result<json> { return json::object(); });

    rpc.handle(
        "resources/subscribe",
        [](const json& p, jsonrpc::Context& ctx) -> Result<json> {
          scope_of(ctx).session->subscribe(p.at("uri").get<std::string>());
          return json::object();
        },
        schema({{"uri", "string"}}, {"uri"}));
    rpc.handle(
        "resources/unsubscribe",
        [](const json& p, jsonrpc::Context& ctx) -> Result<json> {
          scope_of(ctx).session->unsubscribe(p.at("uri").get<std::string>());
          return json::object();
        },
        schema({{"uri", "string"}}, {"uri"}));

    rpc.handle(
        "logging/setLevel",
        [](const json& p, jsonrpc::Context& ctx) -> Result<json> {
          auto rank = log_level_rank(p.at("level").get<std::string>());
          if (!rank)
            return jsonrpc::app_error(jsonrpc::code::kInvalidParams,
                                      "Invalid log level '" + p["level"].get<std::string>() +
                                          "' (expected debug, info, notice, warning, error, critical, alert or "
                                          "emergency)");
          scope_of(ctx).session->set_min_log_rank(*rank);
          return json::object();
        },
        schema({{"level", "string"}}, {"level"}));
  }

  // ---- The modern era (2026-07-28) --------------------------------------

  void install_modern() {
    McpBackend& b = self.backend_;
    jsonrpc::Dispatcher& rpc = modern;
    install_common(rpc);

    rpc.handle("server/discover", [&b](const json&, jsonrpc::Context&) -> Result<json> {
      json caps = server_capabilities();
      caps["extensions"] = json{{kTasksExtension, json::object()}};
      json r{{"supportedVersions", all_versions()}, {"capabilities", caps}};
      if (auto ins = b.instructions(); !ins.empty()) r["instructions"] = ins;
      return r;
    });

    rpc.handle_async("subscriptions/listen", [this](const json& p, jsonrpc::Context& ctx, jsonrpc::Reply reply) {
      auto filter = SubscriptionFilter::parse(p);
      if (!filter) return reply.fail(jsonrpc::code::kInvalidParams, filter.error().message);
      if (!filter->task_ids.empty()) {
        if (!declares_tasks(scope_of(ctx).modern->client_capabilities))
          return reply.fail(kMissingRequiredClientCapability,
                            "Missing required client capability: params.notifications.taskIds needs the " +
                                std::string(kTasksExtension) + " extension in params._meta['" +
                                meta_key::kClientCapabilities + "'].extensions",
                            tasks_capability_required());
        // Only tasks that exist are agreed to (the acknowledgement says which).
        for (auto it = filter->task_ids.begin(); it != filter->task_ids.end();)
          it = tasks.table().get(*it) ? std::next(it) : filter->task_ids.erase(it);
      }
      McpStream stream = scope_of(ctx).stream;
      subscriptions.open(ctx.id, std::move(*filter), stream.send, stream.gone,
                         [reply](json result) { reply(std::move(result)); });
    });

    install_tasks(rpc);

    // What 2026-07-28 removed says so, rather than a bare "not found".
    for (const char* removed :
         {"initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"}) {
      const std::string why = std::string(removed) == "initialize"
                                  ? "a 2026-07-28 request needs no handshake; call server/discover to learn the server"
                              : std::string(removed) == "logging/setLevel"
                                  ? "set params._meta['" + std::string(meta_key::kLogLevel) + "'] on each request"
                              : std::string(removed) == "ping" ? "send any request, e.g. server/discover"
                                                               : "use subscriptions/listen with resourceSubscriptions";
      rpc.handle(removed, [removed, why](const json&, jsonrpc::Context&) -> Result<json> {
        return jsonrpc::app_error(
            jsonrpc::code::kMethodNotFound,
            "Method not found: " + std::string(removed) + " is not part of MCP " + kModernVersion + " (" + why + ")");
      });
    }
  }

  // The tasks extension's methods: only for a request that declared it.
  void install_tasks(jsonrpc::Dispatcher& rpc) {
    auto gate = [](jsonrpc::Context& ctx, const char* method) -> std::optional<Error> {
      if (declares_tasks(scope_of(ctx).modern->client_capabilities)) return std::nullopt;
      ctx.error_data = tasks_capability_required();
      return jsonrpc::app_error(kMissingRequiredClientCapability, std::string("Missing required client capability: ") +
                                                                      method + " needs the " + kTasksExtension +
                                                                      " extension in params._meta['" +
                                                                      meta_key::kClientCapabilities + "'].extensions");
    };
    // A task that does not exist (or no longer does) is -32602.
    auto answer = [](Result<json> r) -> Result<json> {
      if (!r && r.error().code == kTaskNotFound)
        return jsonrpc::app_error(jsonrpc::code::kInvalidParams, r.error().message);
      return r;
    };
    rpc.handle(
        "tasks/get",
        [this, gate, answer](const json& p, jsonrpc::Context& ctx) -> Result<json> {
          if (auto refused = gate(ctx, "tasks/get")) return *refused;
          return answer(tasks.table().get(p.at("taskId").get<std::string>()));
        },
        schema({{"taskId", "string"}}, {"taskId"}));
    rpc.handle(
        "tasks/update",
        [this, gate, answer](const json& p, jsonrpc::Context& ctx) -> Result<json> {
          if (auto refused = gate(ctx, "tasks/update")) return *refused;
          auto st = tasks.table().update(p.at("taskId").get<std::string>(), p.at("inputResponses"));
          if (!st) return answer(st.error());
          return json::object();
        },
        schema({{"taskId", "string"}, {"inputResponses", "object"}}, {"taskId", "inputResponses"}));
    rpc.handle(
        "tasks/cancel",
        [this, gate, answer](const json& p, jsonrpc::Context& ctx) -> Result<json> {
          if (auto refused = gate(ctx, "tasks/cancel")) return *refused;
          auto st = tasks.cancel(p.at("taskId").get<std::string>());
          if (!st) return answer(st.error());
          return json::object();
        },
        schema({{"taskId", "string"}}, {"taskId"}));
  }

  // Every modern result says what it is and who answered, and cacheable
  // ones carry caching hints.
  json complete_modern_response(const std::string& method, json response) const {
    auto it = response.find("result");
    if (it == response.end() || !it->is_object()) return response;
    json& r = *it;
    if (!r.contains("resultType")) r["resultType"] = "complete";
    if (cacheable(method) && r["resultType"] == "complete") {
      if (!r.contains("ttlMs")) r["ttlMs"] = 0;
      if (!r.contains("cacheScope")) r["cacheScope"] = "private";
    }
    if (!r.contains("_meta") || !r["_meta"].is_object()) r["_meta"] = json::object();
    r["_meta"][meta_key::kServerInfo] = self.backend_.server_info();
    return response;
  }
};

McpServer::McpServer(McpBackend& backend, McpServerOptions options)
    : backend_(backend), options_(std::move(options)), impl_(std::make_unique<Impl>(*this, options_)) {
  impl_->install_legacy();
  impl_->install_modern();
  backend_.set_change_listener([this](const std::string& method) { broadcast(jsonrpc::make_notification(method)); });
}

McpServer::~McpServer() {
  backend_.set_change_listener(nullptr);
  impl_->subscriptions.end_all();
}

void McpServer::handle(const jsonrpc::Message& message, const std::shared_ptr<McpSession>& session, McpStream stream,
                       jsonrpc::Dispatcher::Done done) {
  if (auto* req = std::get_if<jsonrpc::Request>(&message)) {
    jsonrpc::Context ctx;
    ctx.session = std::make_shared<Scope>(Scope{session, std::move(stream), std::nullopt});
    impl_->legacy.dispatch(*req, ctx, std::move(done));
  } else if (auto* resp = std::get_if<jsonrpc::IncomingResponse>(&message)) {
    impl_->on_response(*resp);
    done(std::nullopt);
  } else {
    done(std::get<json>(message));
  }
}

void McpServer::handle_body(std::string_view body, const std::shared_ptr<McpSession>& session, McpStream stream,
                            jsonrpc::Dispatcher::Done done) {
  jsonrpc::Context ctx;
  ctx.session = std::make_shared<Scope>(Scope{session, std::move(stream), std::nullopt});
  impl_->legacy.dispatch_body(body, ctx, std::move(done));
}

void McpServer::handle_modern(const jsonrpc::Request& request, const ModernRequest& modern,
                              const std::shared_ptr<McpSession>& connection, McpStream stream,
                              jsonrpc::Dispatcher::Done done) {
  jsonrpc::Context ctx;
  ctx.session = std::make_shared<Scope>(Scope{connection, std::move(stream), modern});
  impl_->modern.dispatch(request, ctx,
                         [impl = impl_.get(), method = request.method, done = std::move(done)](std::optional<json> r) {
                           if (r) r = impl->complete_modern_response(method, std::move(*r));
                           done(std::move(r));
                         });
}

bool McpServer::answers_at_once(const jsonrpc::Request& request) {
  if (request.method == "ping" || request.method == "server/discover") return true;
  if (request.method != "tools/call" || !request.params.is_object()) return false;
  auto name = request.params.find("name");
  return name != request.params.end() && name->is_string() &&
         backend_.answers_at_once(name->get_ref<const std::string&>());
}

void McpServer::add_session(const std::shared_ptr<McpSession>& session) {
  std::lock_guard lock(impl_->mu);
  impl_->sessions[session->id()] = session;
}

void McpServer::remove_session(const std::string& id) {
  std::lock_guard lock(impl_->mu);
  impl_->sessions.erase(id);
}

void McpServer::broadcast(const json& notification) {
  std::vector<std::shared_ptr<McpSession>> live;
  {
    std::lock_guard lock(impl_->mu);
    // Only sessions a legacy client initialized: a stdio connection that
    // speaks 2026-07-28 hears changes on its subscriptions alone.
    for (auto& [_, w] : impl_->sessions)
      if (auto s = w.lock(); s && s->initialized()) live.push_back(s);
  }
  for (auto& s : live) s->send_unrelated(notification);
  impl_->subscriptions.list_changed(notification.value("method", ""));
}

void McpServer::resource_updated(const std::string& uri) {
  std::vector<std::shared_ptr<McpSession>> live;
  {
    std::lock_guard lock(impl_->mu);
    for (auto& [_, w] : impl_->sessions)
      if (auto s = w.lock(); s && s->subscribed(uri)) live.push_back(s);
  }
  for (auto& s : live)
    s->send_unrelated(jsonrpc::make_notification("notifications/resources/updated", json{{"uri", uri}}));
  impl_->subscriptions.resource_updated(uri);
}

void McpServer::end_subscriptions() { impl_->subscriptions.end_all(); }

TaskTable& McpServer::tasks() { return impl_->tasks.table(); }

}  // namespace kaisha::mcp
