#include "protocols/mcp/mcp_client.hpp"

#include <map>
#include <optional>
#include <set>
#include <mutex>
#include <utility>

#include "protocols/mcp/mcp_protocol.hpp"
#include "runtime/core/utf8.hpp"
#include "runtime/jsonrpc/jsonrpc.hpp"

namespace kaisha::mcp {

struct McpClient::State {
  using Clock = std::chrono::steady_clock;
  mutable std::mutex mu;
  struct Pending {
    std::string method;
    Done done;
    Clock::time_point deadline;
  };
  std::map<int64_t, Pending> pending;
  // Every pending request's deadline, earliest first, and when the one timer
  // that times them out is due: a request whose deadline is not the earliest
  // schedules nothing (a timer each would keep one per request for a minute).
  std::set<std::pair<Clock::time_point, int64_t>> deadlines;
  std::optional<Clock::time_point> sweep_at;

  // Removes the pending request `it` (under mu) and returns it.
  Pending take(std::map<int64_t, Pending>::iterator it) {
    Pending p = std::move(it->second);
    deadlines.erase({p.deadline, it->first});
    pending.erase(it);
    return p;
  }
  int64_t next_id = 0;
  bool started = false;
  bool connected = false;
  bool closed = false;
  std::string version;
  json server_info = json::object();
  json capabilities = json::object();
  std::string last_malformed;
  NotificationHandler on_notification;
  RequestHandler on_request;
  ClosedHandler on_closed;
};

namespace {

std::string rpc_error_text(const jsonrpc::RpcError& e) {
  std::string s = "error " + std::to_string(e.code) + ": " + e.message;
  if (!e.data.is_null()) s += " (" + utf8::truncate(e.data.dump(-1, ' ', false, json::error_handler_t::replace), 200) + ")";
  return s;
}

}  // namespace

std::shared_ptr<McpClient> McpClient::create(std::unique_ptr<McpClientTransport> transport, http::HttpClient& timers,
                                             McpClientOptions options) {
  return std::shared_ptr<McpClient>(new McpClient(std::move(transport), timers, std::move(options)));
}

McpClient::McpClient(std::unique_ptr<McpClientTransport> transport, http::HttpClient& timers, McpClientOptions options)
    : transport_(std::move(transport)), timers_(timers), options_(std::move(options)),
      state_(std::make_unique<State>()) {}

McpClient::~McpClient() { close(); }

void McpClient::on_notification(NotificationHandler h) { state_->on_notification = std::move(h); }
void McpClient::on_request(RequestHandler h) { state_->on_request = std::move(h); }
void McpClient::on_closed(ClosedHandler h) { state_->on_closed = std::move(h); }

std::string McpClient::name() const {
  return options_.name.empty() ? transport_->describe() : options_.name;
}

void McpClient::connect(std::function<void(Status)> done) {
  std::weak_ptr<McpClient> weak = weak_from_this();
  McpClientTransport::Handlers h;
  h.on_message = [weak](const json& m) {
    if (auto self = weak.lock()) self->on_message(m);
  };
  h.on_malformed = [weak](const std::string& what) {
    if (auto self = weak.lock()) {
      std::lock_guard<std::mutex> lock(self->state_->mu);
      self->state_->last_malformed = what;
    }
  };
  h.on_closed = [weak](const Error& e) {
    if (auto self = weak.lock()) self->on_transport_closed(e);
  };
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (state_->started) return done(Error{"mcp", "MCP server " + name() + ": connect() called twice"});
    state_->started = true;
  }
  if (Status s = transport_->start(std::move(h)); !s.ok()) return done(s);

  json params{{"protocolVersion", kLatestVersion},
              {"capabilities", options_.capabilities.is_object() ? options_.capabilities : json::object()},
              {"clientInfo", {{"name", options_.client_name}, {"version", options_.client_version}}}};
  request(
      "initialize", std::move(params),
      [weak, done](Result<json> r) {
        auto self = weak.lock();
        if (!self) return done(Error{"mcp_closed", "MCP client closed during initialize"});
        if (!r.ok()) return done(r.error());
        const json& res = *r;
        const std::string who = "MCP server " + self->name();
        if (!res.is_object() || !res.contains("protocolVersion") || !res["protocolVersion"].is_string())
          return done(Error{"mcp", who + ": the initialize result has no protocolVersion"});
        const std::string v = res["protocolVersion"].get<std::string>();
        if (!is_legacy_version(v))
          return done(Error{"mcp", who + " speaks MCP " + v + ", which kaisha does not (it speaks " + kLatestVersion +
                                       ", 2025-06-18, 2025-03-26, 2024-11-05)"});
        {
          std::lock_guard<std::mutex> lock(self->state_->mu);
          self->state_->version = v;
          if (res.contains("serverInfo") && res["serverInfo"].is_object()) self->state_->server_info = res["serverInfo"];
          if (res.contains("capabilities") && res["capabilities"].is_object())
            self->state_->capabilities = res["capabilities"];
          self->state_->connected = true;
        }
        self->transport_->set_protocol_version(v);
        self->notify("notifications/initialized");
        self->transport_->initialized();
        done(Status::Ok());
      },
      options_.initialize_timeout_ms);
}

int64_t McpClient::request(const std::string& method, json params, Done done, int64_t timeout_ms) {
  const int64_t t = timeout_ms > 0 ? timeout_ms : options_.request_timeout_ms;
  const auto deadline = State::Clock::now() + std::chrono::milliseconds(t);
  int64_t id = 0;
  bool schedule = false;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (!state_->closed) {
      id = ++state_->next_id;
      state_->pending[id] = State::Pending{method, std::move(done), deadline};
      state_->deadlines.insert({deadline, id});
      if (!state_->sweep_at || deadline < *state_->sweep_at) {
        state_->sweep_at = deadline;
        schedule = true;
      }
    }
  }
  if (id == 0) {
    done(Error{"mcp_closed", "MCP server " + name() + " is not connected (" + method + ")"});
    return 0;
  }
  if (schedule) schedule_sweep(deadline);
  transport_->send(jsonrpc::make_request(id, method, std::move(params)));
  return id;
}

void McpClient::schedule_sweep(std::chrono::steady_clock::time_point at) {
  std::weak_ptr<McpClient> weak = weak_from_this();
  const auto delay = std::chrono::duration_cast<std::chrono::milliseconds>(at - State::Clock::now());
  timers_.schedule(std::max(delay, std::chrono::milliseconds(0)) + std::chrono::milliseconds(1), [weak] {
    if (auto self = weak.lock()) self->sweep();
  });
}

// Times out every request past its deadline and sets the timer for the next.
void McpClient::sweep() {
  std::vector<int64_t> expired;
  std::optional<State::Clock::time_point> next;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    const auto now = State::Clock::now();
    for (const auto& [deadline, id] : state_->deadlines) {
      if (deadline > now) break;
      expired.push_back(id);
    }
    if (state_->sweep_at && *state_->sweep_at <= now) state_->sweep_at.reset();  // this timer's
    auto first_left = state_->deadlines.lower_bound({now, INT64_MAX});
    if (first_left != state_->deadlines.end() && (!state_->sweep_at || first_left->first < *state_->sweep_at)) {
      state_->sweep_at = first_left->first;
      next = first_left->first;
    }
  }
  if (next) schedule_sweep(*next);
  for (int64_t id : expired) on_timeout(id);
}

void McpClient::notify(const std::string& method, json params) {
  transport_->send(jsonrpc::make_notification(method, std::move(params)));
}

bool McpClient::cancel(int64_t id, const std::string& reason) {
  State::Pending p;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    auto it = state_->pending.find(id);
    if (it == state_->pending.end()) return false;
    p = state_->take(it);
  }
  // initialize is never cancelled (the spec forbids it); the connection is dropped instead.
  if (p.method != "initialize") notify("notifications/cancelled", {{"requestId", id}, {"reason", reason}});
  transport_->abandon(json(id));
  p.done(Error{"mcp", "MCP server " + name() + ": " + p.method + " cancelled: " + reason});
  return true;
}

void McpClient::on_timeout(int64_t id) {
  State::Pending p;
  std::string malformed;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    auto it = state_->pending.find(id);
    if (it == state_->pending.end()) return;
    p = state_->take(it);
    malformed = state_->last_malformed;
  }
  if (p.method != "initialize")
    notify("notifications/cancelled", {{"requestId", id}, {"reason", "timed out in the client"}});
  transport_->abandon(json(id));
  std::string msg = "MCP server " + name() + " did not answer " + p.method + " in time";
  if (!malformed.empty()) msg += "; it sent something that is not a JSON-RPC message: " + malformed;
  p.done(Error{"timeout", msg});
}

void McpClient::on_message(const json& m) {
  jsonrpc::Message msg = jsonrpc::parse_message(m);
  if (auto* resp = std::get_if<jsonrpc::IncomingResponse>(&msg)) {
    if (!resp->id.is_number_integer()) return;  // not one of ours (e.g. an answer to a notification)
    State::Pending p;
    {
      std::lock_guard<std::mutex> lock(state_->mu);
      auto it = state_->pending.find(resp->id.get<int64_t>());
      if (it == state_->pending.end()) return;  // late (timed out) or unknown
      p = state_->take(it);
    }
    if (resp->error)
      return p.done(Error{"mcp", "MCP server " + name() + ": " + p.method + " failed: " + rpc_error_text(*resp->error)});
    return p.done(std::move(resp->result));
  }
  if (auto* req = std::get_if<jsonrpc::Request>(&msg)) {
    if (req->notification) {
      NotificationHandler h;
      {
        std::lock_guard<std::mutex> lock(state_->mu);
        h = state_->on_notification;
      }
      if (h) h(req->method, req->params);
      return;
    }
    if (req->method == "ping") return transport_->send(jsonrpc::make_result(req->id, json::object()));
    RequestHandler h;
    {
      std::lock_guard<std::mutex> lock(state_->mu);
      h = state_->on_request;
    }
    if (!h) {
      return transport_->send(jsonrpc::make_error(req->id, jsonrpc::code::kMethodNotFound,
                                                  "kaisha's MCP client does not support " + req->method));
    }
    std::weak_ptr<McpClient> weak = weak_from_this();
    const json id = req->id;
    h(req->method, req->params, [weak, id](Result<json> r) {
      auto self = weak.lock();
      if (!self) return;
      if (r.ok()) self->transport_->send(jsonrpc::make_result(id, std::move(r).value()));
      else self->transport_->send(jsonrpc::make_error(id, jsonrpc::code::kInternalError, r.error().message));
    });
    return;
  }
  // Not a valid message. When it carries the id of a pending request, that
  // request fails with the reason; otherwise it is remembered for the
  // timeout message.
  const json& err = std::get<json>(msg);
  const std::string why = err.contains("error") ? err["error"].value("message", std::string("invalid message")) : "invalid message";
  const std::string text = utf8::truncate(m.dump(-1, ' ', false, json::error_handler_t::replace), 200);
  State::Pending p;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->last_malformed = why + ": " + text;
    if (!m.is_object() || !m.contains("id") || !m["id"].is_number_integer() || m.contains("method")) return;
    auto it = state_->pending.find(m["id"].get<int64_t>());
    if (it == state_->pending.end()) return;
    p = state_->take(it);
  }
  p.done(Error{"mcp", "MCP server " + name() + " answered " + p.method + " with an invalid JSON-RPC message (" + why +
                          "): " + text});
}

void McpClient::fail_all(const Error& e) {
  std::map<int64_t, State::Pending> pending;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    pending.swap(state_->pending);
    state_->deadlines.clear();
  }
  for (auto& [id, p] : pending) p.done(Error{e.code, e.message + " (" + p.method + " not answered)"});
}

void McpClient::on_transport_closed(const Error& e) {
  ClosedHandler h;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->connected = false;
    state_->closed = true;
    h = state_->on_closed;
  }
  fail_all(e);
  if (h) h(e);
}

void McpClient::close() {
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->connected = false;
    state_->closed = true;
    state_->on_closed = nullptr;
  }
  transport_->close();
  fail_all(Error{"mcp_closed", "MCP server " + name() + ": the connection was closed"});
}

void McpClient::list_tools(std::function<void(Result<std::vector<McpToolInfo>>)> done) {
  list_page(std::make_shared<std::vector<McpToolInfo>>(), nullptr, 1, std::move(done));
}

void McpClient::list_page(std::shared_ptr<std::vector<McpToolInfo>> acc, json cursor, int page,
                          std::function<void(Result<std::vector<McpToolInfo>>)> done) {
  json params = json::object();
  if (!cursor.is_null()) params["cursor"] = cursor;
  std::weak_ptr<McpClient> weak = weak_from_this();
  request("tools/list", std::move(params), [weak, acc, page, done](Result<json> r) {
    auto self = weak.lock();
    if (!self) return done(Error{"mcp_closed", "MCP client closed during tools/list"});
    if (!r.ok()) return done(r.error());
    const std::string who = "MCP server " + self->name();
    if (!r->is_object() || !r->contains("tools") || !(*r)["tools"].is_array())
      return done(Error{"mcp", who + ": the tools/list result has no \"tools\" array"});
    for (const auto& t : (*r)["tools"]) {
      if (!t.is_object() || !t.contains("name") || !t["name"].is_string() || t["name"].get<std::string>().empty())
        return done(Error{"mcp", who + ": tools/list has a tool without a name: " +
                                     utf8::truncate(t.dump(-1, ' ', false, json::error_handler_t::replace), 200)});
      McpToolInfo info;
      info.name = t["name"].get<std::string>();
      info.title = t.value("title", std::string());
      if (t.contains("description") && t["description"].is_string()) info.description = t["description"];
      if (t.contains("inputSchema") && t["inputSchema"].is_object()) info.input_schema = t["inputSchema"];
      else return done(Error{"mcp", who + ": tool '" + info.name + "' has no inputSchema object"});
      if (t.contains("outputSchema")) info.output_schema = t["outputSchema"];
      if (auto a = t.find("annotations"); a != t.end() && a->is_object()) info.annotations = *a;
      acc->push_back(std::move(info));
    }
    auto next = r->find("nextCursor");
    if (next == r->end() || next->is_null() || (next->is_string() && next->get<std::string>().empty()))
      return done(std::move(*acc));
    if (page >= self->options_.max_list_pages)
      return done(Error{"mcp", who + ": tools/list still has more pages after " + std::to_string(page)});
    self->list_page(acc, *next, page + 1, done);
  });
}

int64_t McpClient::call_tool(const std::string& name, const json& arguments, Done done, int64_t timeout_ms,
                             const std::string& traceparent) {
  json params{{"name", name}, {"arguments", arguments.is_object() ? arguments : json::object()}};
  if (!traceparent.empty()) params["_meta"] = {{"traceparent", traceparent}};
  return request("tools/call", std::move(params), std::move(done), timeout_ms);
}

void McpClient::ping(Done done) { request("ping", json::object(), std::move(done)); }

bool McpClient::connected() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->connected;
}

std::string McpClient::protocol_version() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->version;
}

json McpClient::server_info() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->server_info;
}

json McpClient::server_capabilities() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->capabilities;
}

std::string McpClient::last_malformed() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->last_malformed;
}

}  // namespace kaisha::mcp
