#include "protocols/mcp/mcp_server.hpp"

#include <atomic>
#include <future>
#include <map>
#include <mutex>

#include "protocols/mcp/mcp_protocol.hpp"
#include "runtime/core/params_check.hpp"

namespace kaisha::mcp {

namespace {

// What a handler needs besides params: the session and the request's stream.
struct Scope {
  std::shared_ptr<McpSession> session;
  McpStream stream;
};

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
  jsonrpc::Dispatcher rpc;

  std::mutex mu;
  std::map<std::string, std::weak_ptr<McpSession>> sessions;
  std::map<std::string, std::shared_ptr<std::promise<Result<json>>>> pending;  // our requests to clients
  std::atomic<uint64_t> next_id{1};

  Impl(McpServer& s, const jsonrpc::Limits& limits) : self(s), rpc(limits) {}

  Result<json> request_client(const Scope& sc, const std::string& method, const json& params,
                              std::chrono::milliseconds timeout) {
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
    else if (future.wait_for(timeout) != std::future_status::ready)
      outcome = Error{"timeout", "the client did not answer " + method + " within " +
                                     std::to_string(timeout.count()) + " ms"};
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

  void install() {
    McpBackend& b = self.backend_;
    rpc.on_response([this](const jsonrpc::IncomingResponse& r) { on_response(r); });

    rpc.handle(
        "initialize",
        [&b](const json& p, jsonrpc::Context& ctx) -> Result<json> {
          auto& sc = scope_of(ctx);
          std::string version = negotiate_version(p.value("protocolVersion", ""));
          sc.session->set_initialized(version, p.value("clientInfo", json::object()),
                                      p.value("capabilities", json::object()));
          json caps{{"tools", {{"listChanged", true}}},
                    {"resources", {{"subscribe", true}, {"listChanged", true}}},
                    {"prompts", {{"listChanged", true}}},
                    {"logging", json::object()},
                    {"completions", json::object()}};
          json r{{"protocolVersion", version}, {"capabilities", caps}, {"serverInfo", b.server_info()}};
          if (auto ins = b.instructions(); !ins.empty()) r["instructions"] = ins;
          return r;
        },
        json{{"type", "object"},
             {"properties", {{"protocolVersion", {{"type", "string"}}},
                             {"capabilities", {{"type", "object"}}},
                             {"clientInfo", {{"type", "object"}}}}},
             {"required", {"protocolVersion"}}});

    rpc.handle("notifications/initialized", [](const json&, jsonrpc::Context& ctx) -> Result<json> {
      scope_of(ctx).session->set_ready();
      return json::object();
    });
    rpc.handle("ping", [](const json&, jsonrpc::Context&) -> Result<json> { return json::object(); });

    rpc.handle("notifications/cancelled", [](const json& p, jsonrpc::Context& ctx) -> Result<json> {
      if (auto id = p.find("requestId"); id != p.end()) scope_of(ctx).session->cancel_request(*id);
      return json::object();
    });
    // Client notifications we accept and have nothing to do for.
    for (const char* n : {"notifications/roots/list_changed", "notifications/progress"})
      rpc.handle(n, [](const json&, jsonrpc::Context&) -> Result<json> { return json::object(); });

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

          McpCallContext call;
          call.request_id = ctx.id;
          if (ctx.meta.is_object() && ctx.meta.contains("progressToken")) call.progress_token = ctx.meta["progressToken"];
          call.min_log_rank = sc.session->min_log_rank();
          call.cancel_flag = sc.session->begin_request(ctx.id);
          McpStream stream = sc.stream;
          call.notify = [stream](const json& n) {
            if (stream.send) stream.send(n);
          };
          call.close_stream = stream.close_early ? stream.close_early : [] {};
          Scope copy = sc;
          auto timeout = self.options_.client_request_timeout;
          call.request_client = [this, copy, timeout](const std::string& m, const json& params,
                                                      std::chrono::milliseconds t) {
            return request_client(copy, m, params, std::min(t, timeout));
          };
          Result<json> r = b.call_tool(name, args, call);
          sc.session->end_request(ctx.id);
          return r;
        },
        schema({{"name", "string"}, {"arguments", "object"}}, {"name"}));

    rpc.handle("resources/list", [&b](const json& p, jsonrpc::Context&) -> Result<json> {
      return page(b.resources(), p, "resources");
    });
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
            return jsonrpc::app_error(kResourceNotFound, r.error().message);
          }
          return r;
        },
        schema({{"uri", "string"}}, {"uri"}));
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

    rpc.handle("prompts/list", [&b](const json& p, jsonrpc::Context&) -> Result<json> {
      return page(b.prompts(), p, "prompts");
    });
    rpc.handle(
        "prompts/get",
        [&b](const json& p, jsonrpc::Context&) -> Result<json> {
          return b.get_prompt(p.at("name").get<std::string>(), p.value("arguments", json::object()));
        },
        schema({{"name", "string"}, {"arguments", "object"}}, {"name"}));

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

    rpc.handle(
        "completion/complete",
        [&b](const json& p, jsonrpc::Context&) -> Result<json> { return b.complete(p); },
        schema({{"ref", "object"}, {"argument", "object"}}, {"ref", "argument"}));
  }
};

McpServer::McpServer(McpBackend& backend, McpServerOptions options)
    : backend_(backend), options_(std::move(options)), impl_(std::make_unique<Impl>(*this, options_.limits)) {
  impl_->install();
  backend_.set_change_listener([this](const std::string& method) { broadcast(jsonrpc::make_notification(method)); });
}

McpServer::~McpServer() { backend_.set_change_listener(nullptr); }

void McpServer::handle(const jsonrpc::Message& message, const std::shared_ptr<McpSession>& session, McpStream stream,
                       jsonrpc::Dispatcher::Done done) {
  if (auto* req = std::get_if<jsonrpc::Request>(&message)) {
    jsonrpc::Context ctx;
    ctx.session = std::make_shared<Scope>(Scope{session, std::move(stream)});
    impl_->rpc.dispatch(*req, ctx, std::move(done));
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
  ctx.session = std::make_shared<Scope>(Scope{session, std::move(stream)});
  impl_->rpc.dispatch_body(body, ctx, std::move(done));
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
    for (auto& [_, w] : impl_->sessions)
      if (auto s = w.lock()) live.push_back(s);
  }
  for (auto& s : live) s->send_unrelated(notification);
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
}

}  // namespace kaisha::mcp
