#include "protocols/mcp/client/mcp_client.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <mutex>
#include <utility>

#include "protocols/mcp/wire/mcp_headers.hpp"
#include "protocols/mcp/wire/mcp_protocol.hpp"
#include "runtime/core/utf8.hpp"
#include "runtime/jsonrpc/jsonrpc.hpp"

namespace kaisha::mcp {

// What came back for one request: its result, the server's JSON-RPC error,
// or no answer at all (timeout, closed, garbage).
struct McpClient::Answer {
  json result;
  std::optional<jsonrpc::RpcError> error;
  std::optional<Error> failure;
};

// A modern request, known by its first round's id (the one request()
// returned) until `done` has run, which it does once. While the server asks
// for input (InputRequiredResult) it takes rounds: `current` is the round
// in flight, 0 while the client gathers its input, so that cancelling the
// first round's id reaches it. Once the server answered with a task (the
// tasks extension), it waits for that task; cancelling it cancels the task.
struct McpClient::Call {
  std::string method;
  Done done;
  std::chrono::steady_clock::time_point deadline;  // the whole call's, its task's wait included
  int64_t first = 0;
  int64_t current = 0;
  bool finished = false;
  std::string task_id;             // "" until the server answered with a task
  std::set<std::string> answered;  // the task's inputRequests keys answered already (the server may show them again)
  int task_input_rounds = 0;
};

struct McpClient::State {
  using Clock = std::chrono::steady_clock;
  mutable std::mutex mu;
  struct Pending {
    std::string method;
    OnAnswer done;
    Clock::time_point deadline;
  };
  std::map<int64_t, Pending> pending;
  std::map<int64_t, std::shared_ptr<Call>> calls;  // modern requests by their first round's id
  // Every pending request's deadline, earliest first, and when the one timer
  // that times them out is due: a request whose deadline is not the earliest
  // schedules nothing (a timer each would keep one per request for a minute).
  std::set<std::pair<Clock::time_point, int64_t>> deadlines;
  std::optional<Clock::time_point> sweep_at;

  // Removes the pending request `it` (under mu) and returns it.
  Pending take(std::map<int64_t, Pending>::iterator it) {
    Pending p = std::move(it->second);
    deadlines.erase({p.deadline, it->first});  // absent for a request without a deadline
    pending.erase(it);
    return p;
  }
  int64_t next_id = 0;
  bool started = false;
  bool connected = false;
  bool closed = false;
  std::string version;
  bool modern = false;
  std::map<std::string, std::vector<HeaderParam>> tool_headers;  // modern: x-mcp-header params by tool
  std::vector<std::string> rejected_tools;
  json server_info = json::object();
  json capabilities = json::object();
  std::string last_malformed;
  // What every modern request's _meta says of the client, built once.
  json client_capabilities;
  json client_info;
  NotificationHandler on_notification;
  RequestHandler on_request;
  ClosedHandler on_closed;
};

namespace {

std::string rpc_error_text(const jsonrpc::RpcError& e) {
  std::string s = "error " + std::to_string(e.code) + ": " + e.message;
  if (!e.data.is_null())
    s += " (" + utf8::truncate(e.data.dump(-1, ' ', false, json::error_handler_t::replace), 200) + ")";
  return s;
}

}  // namespace

std::shared_ptr<McpClient> McpClient::create(std::unique_ptr<McpClientTransport> transport, http::HttpClient& timers,
                                             McpClientOptions options) {
  return std::shared_ptr<McpClient>(new McpClient(std::move(transport), timers, std::move(options)));
}

McpClient::McpClient(std::unique_ptr<McpClientTransport> transport, http::HttpClient& timers, McpClientOptions options)
    : transport_(std::move(transport)),
      timers_(timers),
      options_(std::move(options)),
      state_(std::make_unique<State>()) {
  state_->client_capabilities = options_.capabilities.is_object() ? options_.capabilities : json::object();
  state_->client_info = {{"name", options_.client_name}, {"version", options_.client_version}};
}

McpClient::~McpClient() { close(); }

void McpClient::on_notification(NotificationHandler h) { state_->on_notification = std::move(h); }
void McpClient::on_request(RequestHandler h) { state_->on_request = std::move(h); }
void McpClient::on_closed(ClosedHandler h) { state_->on_closed = std::move(h); }

std::string McpClient::name() const { return options_.name.empty() ? transport_->describe() : options_.name; }

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
  if (is_legacy_version(options_.protocol_version)) return initialize(options_.protocol_version, std::move(done));
  discover(kModernVersion, false, std::move(done));
}

// The modern probe; see the header for what each answer means.
void McpClient::discover(const std::string& version, bool retried, std::function<void(Status)> done,
                         bool after_silence) {
  std::weak_ptr<McpClient> weak = weak_from_this();
  transport_->set_protocol_version(version);
  auto on_answer = [weak, version, retried, done, after_silence](Answer a) {
    auto self = weak.lock();
    if (!self) return done(Error{"mcp_closed", "MCP client closed during server/discover"});
    const std::string who = "MCP server " + self->name();
    if (a.failure) {
      if (a.failure->code == "mcp_closed") return done(*a.failure);
      // Silent or garbled: legacy. After a silence, a refused initialize
      // means the server may speak only the modern revision and was slow to
      // start: it is asked once more, waiting longer.
      if (after_silence) return done(*a.failure);
      return self->initialize(kLatestVersion, done, a.failure->code == "timeout");
    }
    if (a.error) {
      const jsonrpc::RpcError& e = *a.error;
      if (e.code == kUnsupportedProtocolVersion) {
        const json supported = e.data.is_object() ? e.data.value("supported", json::array()) : json::array();
        for (const auto& v : supported)
          if (v.is_string() && is_modern_version(v.get<std::string>()) && !(retried && v == version))
            return self->discover(v.get<std::string>(), true, done);
        for (const auto& v : supported)
          if (v.is_string() && is_legacy_version(v.get<std::string>()))
            return self->initialize(v.get<std::string>(), done);
        return done(Error{"mcp", who + " speaks none of kaisha's MCP versions (it supports " +
                                     utf8::truncate(supported.dump(), 200) + "; kaisha speaks " + kModernVersion +
                                     " and " + kLatestVersion + " and earlier)"});
      }
      if (e.code == kHeaderMismatch || e.code == kMissingRequiredClientCapability)
        return done(Error{"mcp", who + " refused server/discover: " + rpc_error_text(e)});
      return self->initialize(kLatestVersion, done);  // any other error: a legacy server
    }
    const json& r = a.result;
    const json versions = r.is_object() ? r.value("supportedVersions", json::array()) : json::array();
    auto offers = [&](const std::string& v) {
      return versions.is_array() && std::find(versions.begin(), versions.end(), v) != versions.end();
    };
    if (!offers(version)) {
      for (const auto& v : modern_versions())
        if (offers(v) && !retried) return self->discover(v, true, done);
      return self->initialize(kLatestVersion, done);  // not a DiscoverResult: legacy
    }
    {
      std::lock_guard<std::mutex> lock(self->state_->mu);
      self->state_->version = version;
      self->state_->modern = true;
      const json meta = r.value("_meta", json::object());
      if (meta.is_object() && meta.contains(meta_key::kServerInfo) && meta[meta_key::kServerInfo].is_object())
        self->state_->server_info = meta[meta_key::kServerInfo];
      else if (r.contains("serverInfo") && r["serverInfo"].is_object())  // before the revision moved it to _meta
        self->state_->server_info = r["serverInfo"];
      if (r.contains("capabilities") && r["capabilities"].is_object()) self->state_->capabilities = r["capabilities"];
      // Every request from now on declares the tasks extension, when both
      // sides want it. Written before `modern` is seen set, never after.
      const json ext = self->state_->capabilities.value("extensions", json::object());
      if (self->options_.use_tasks && ext.is_object() && ext.contains(kTasksExtension)) {
        json& mine = self->state_->client_capabilities["extensions"];
        if (!mine.is_object()) mine = json::object();
        mine[kTasksExtension] = json::object();
      }
      self->state_->connected = true;
    }
    self->listen_for_changes();
    done(Status::Ok());
  };
  const int64_t wait = after_silence                      ? options_.request_timeout_ms
                       : options_.discover_timeout_ms > 0 ? options_.discover_timeout_ms
                                                          : transport_->discover_timeout_ms();
  send_request("server/discover", json::object(), version, std::move(on_answer), wait);
}

// The legacy handshake: initialize, then notifications/initialized.
void McpClient::initialize(const std::string& version, std::function<void(Status)> done, bool after_silence) {
  std::weak_ptr<McpClient> weak = weak_from_this();
  transport_->set_protocol_version("");
  json params{{"protocolVersion", version},
              {"capabilities", options_.capabilities.is_object() ? options_.capabilities : json::object()},
              {"clientInfo", {{"name", options_.client_name}, {"version", options_.client_version}}}};
  request(
      "initialize", std::move(params),
      [weak, done, after_silence](Result<json> r) {
        auto self = weak.lock();
        if (!self) return done(Error{"mcp_closed", "MCP client closed during initialize"});
        if (!r.ok() && after_silence && r.error().code == "mcp")
          return self->discover(kModernVersion, false, done, true);
        if (!r.ok()) return done(r.error());
        const json& res = *r;
        const std::string who = "MCP server " + self->name();
        if (!res.is_object() || !res.contains("protocolVersion") || !res["protocolVersion"].is_string())
          return done(Error{"mcp", who + ": the initialize result has no protocolVersion"});
        const std::string v = res["protocolVersion"].get<std::string>();
        if (!is_legacy_version(v))
          return done(Error{"mcp", who + " speaks MCP " + v + ", which kaisha does not (it speaks " + kModernVersion +
                                       ", " + kLatestVersion + ", 2025-06-18, 2025-03-26, 2024-11-05)"});
        {
          std::lock_guard<std::mutex> lock(self->state_->mu);
          self->state_->version = v;
          if (res.contains("serverInfo") && res["serverInfo"].is_object())
            self->state_->server_info = res["serverInfo"];
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

// A modern server's list changes come on a subscriptions/listen stream,
// which stays open (no deadline) until the server or close() ends it. A
// stream that broke or that the server ended is opened again a second
// later; one the server refuses is not.
void McpClient::listen_for_changes() {
  std::string version;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    const json tools = state_->capabilities.value("tools", json::object());
    if (!options_.listen_for_changes || !tools.is_object() || !tools.value("listChanged", false)) return;
    version = state_->version;
  }
  std::weak_ptr<McpClient> weak = weak_from_this();
  auto on_end = [weak](Answer a) {
    auto self = weak.lock();
    if (!self || a.failure || (a.error && a.error->code != kConnectionClosed)) return;
    self->timers_.schedule(std::chrono::seconds(1), [weak] {
      if (auto again = weak.lock(); again && again->connected()) again->listen_for_changes();
    });
  };
  send_request("subscriptions/listen", json{{"notifications", {{"toolsListChanged", true}}}}, version,
               std::move(on_end), -1);
}

int64_t McpClient::request(const std::string& method, json params, Done done, int64_t timeout_ms) {
  bool modern;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    modern = state_->modern;
  }
  if (modern) {
    auto call = std::make_shared<Call>();
    call->method = method;
    call->done = std::move(done);
    call->deadline =
        State::Clock::now() + std::chrono::milliseconds(timeout_ms > 0 ? timeout_ms : options_.request_timeout_ms);
    return modern_request(std::move(params), std::move(call), timeout_ms, 0);
  }
  std::weak_ptr<McpClient> weak = weak_from_this();
  return send_request(
      method, std::move(params), "",
      [weak, method, done](Answer a) {
        auto self = weak.lock();
        if (!self) return done(Error{"mcp_closed", "MCP client closed (" + method + ")"});
        done(self->to_result(method, std::move(a)));
      },
      timeout_ms);
}

// A modern request, and its retries while the server asks for input.
int64_t McpClient::modern_request(json params, std::shared_ptr<Call> call, int64_t timeout_ms, int round) {
  std::weak_ptr<McpClient> weak = weak_from_this();
  std::string version;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    version = state_->version;
  }
  json sent = params;
  const std::string& method = call->method;
  auto on_answer = [weak, params = std::move(params), call, timeout_ms, round](Answer a) mutable {
    const std::string& method = call->method;
    auto self = weak.lock();
    if (!self) return call->done(Error{"mcp_closed", "MCP client closed (" + method + ")"});
    // Ends the call, unless a cancel between rounds already has.
    auto done = [&](Result<json> r) { self->end_call(*call, std::move(r)); };
    if (a.failure || a.error) return done(self->to_result(method, std::move(a)));
    const json& r = a.result;
    const std::string who = "MCP server " + self->name();
    // Results of earlier revisions have no resultType: complete.
    const json type = r.is_object() ? r.value("resultType", json("complete")) : json("complete");
    if (type == "complete") return done(std::move(a.result));
    if (type == "task") {
      if (method != "tools/call")
        return done(Error{"mcp", who + ": " + method +
                                     " answered with a task (resultType \"task\"), which only "
                                     "tools/call may"});
      return self->await_task(call, r);
    }
    if (type != "input_required")
      return done(Error{"mcp", who + ": " + method + " answered with resultType " + utf8::truncate(type.dump(), 100) +
                                   ", which kaisha does not know"});
    if (round + 1 >= self->options_.max_input_rounds)
      return done(Error{"mcp", who + ": " + method + " still asks for input after " + std::to_string(round + 1) +
                                   " rounds; giving up"});
    {
      std::lock_guard<std::mutex> lock(self->state_->mu);
      call->current = 0;  // gathering input: no round in flight
    }
    json retry = std::move(params);  // the original request, with this round's answers only
    retry.erase("inputResponses");
    retry.erase("requestState");
    if (r.contains("requestState")) retry["requestState"] = r["requestState"];
    self->answer_input_requests(r.value("inputRequests", json::object()), [weak, retry = std::move(retry), call,
                                                                           timeout_ms, round,
                                                                           who](Result<json> answers) mutable {
      auto self = weak.lock();
      if (!self) return;  // closed: fail_all ended the call, which had no round in flight
      if (!answers.ok())
        return (void)self->end_call(
            *call,
            Error{"mcp", who + ": " + call->method + " needs input kaisha could not give: " + answers.error().message});
      if (!answers->empty()) retry["inputResponses"] = std::move(*answers);
      self->modern_request(std::move(retry), call, timeout_ms, round + 1);  // not sent if cancelled meanwhile
    });
  };
  return send_request(method, std::move(sent), version, std::move(on_answer), timeout_ms, call);
}

bool McpClient::end_call(Call& call, Result<json> outcome, bool cancel_task) {
  std::string version, task_id;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (call.finished) return false;
    call.finished = true;
    state_->calls.erase(call.first);
    version = state_->version;
    task_id = call.task_id;  // "" when no task yet (await_task then cancels the one that comes)
  }
  if (cancel_task && !task_id.empty())
    send_request(
        "tasks/cancel", json{{"taskId", task_id}}, version, [](Answer) {}, 0);
  call.done(std::move(outcome));
  return true;
}

void McpClient::await_task(const std::shared_ptr<Call>& call, const json& created) {
  const std::string who = "MCP server " + name();
  if (!created.value("taskId", json()).is_string() || created["taskId"].get<std::string>().empty())
    return (void)end_call(*call, Error{"mcp", who + ": tools/call answered with a task without a taskId"});
  bool cancelled;
  std::string version;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    call->task_id = created["taskId"].get<std::string>();
    call->current = 0;  // no round in flight: the task is polled
    cancelled = call->finished;
    version = state_->version;
  }
  // Cancelled while this answer was on its way (end_call saw no task yet):
  // the task is not left running.
  if (cancelled)
    return (void)send_request(
        "tasks/cancel", json{{"taskId", call->task_id}}, version, [](Answer) {}, 0);
  const int64_t interval =
      created.value("pollIntervalMs", json(500)).is_number_integer() ? created["pollIntervalMs"].get<int64_t>() : 500;
  schedule_poll(call, interval);
}

void McpClient::schedule_poll(const std::shared_ptr<Call>& call, int64_t interval_ms) {
  // Bounded both ways: a server asking for 0 ms is not hammered, one asking
  // for an hour is still polled before the call's deadline.
  const int64_t ms = std::clamp<int64_t>(interval_ms, 50, 5000);
  std::weak_ptr<McpClient> weak = weak_from_this();
  timers_.schedule(std::chrono::milliseconds(ms), [weak, call] {
    if (auto self = weak.lock()) self->poll_task(call);
  });
}

void McpClient::poll_task(const std::shared_ptr<Call>& call) {
  std::string version;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (call->finished) return;  // ended meanwhile (cancelled, closed)
    version = state_->version;
  }
  const std::string& task_id = call->task_id;  // set before the first poll, never changed
  const std::string who = "MCP server " + name();
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(call->deadline - State::Clock::now()).count();
  if (left <= 0) {
    end_call(*call,
             Error{"timeout", who + ": the task " + task_id + " of tools/call did not finish in time; cancelled"},
             true);
    return;
  }
  std::weak_ptr<McpClient> weak = weak_from_this();
  auto on_answer = [weak, call, who](Answer a) {
    auto self = weak.lock();
    if (!self) return;
    const std::string& task_id = call->task_id;
    if (a.failure || a.error) {
      Result<json> e = self->to_result("tasks/get", std::move(a));
      self->end_call(*call, e.error());
      return;
    }
    const json& t = a.result;
    const std::string status = t.is_object() ? t.value("status", std::string()) : std::string();
    const int64_t interval = t.is_object() && t.value("pollIntervalMs", json()).is_number_integer()
                                 ? t["pollIntervalMs"].get<int64_t>()
                                 : 500;
    const std::string message = t.is_object() ? t.value("statusMessage", std::string()) : std::string();
    if (status == "completed") {
      json result = t.value("result", json::object());
      self->end_call(*call, std::move(result));
    } else if (status == "failed") {
      const json e = t.value("error", json::object());
      jsonrpc::RpcError rpc{e.value("code", 0), e.value("message", message), e.value("data", json())};
      self->end_call(*call, Error{"mcp", who + ": tools/call failed (task " + task_id + "): " + rpc_error_text(rpc)});
    } else if (status == "cancelled") {
      self->end_call(*call, Error{"mcp", who + ": the task " + task_id + " of tools/call was cancelled" +
                                             (message.empty() ? std::string() : ": " + message)});
    } else if (status == "input_required") {
      self->answer_task_input(call, t.value("inputRequests", json::object()), interval);
    } else if (status == "working") {
      self->schedule_poll(call, interval);
    } else {
      self->end_call(*call,
                     Error{"mcp", who + ": tasks/get answered with status " + utf8::truncate(json(status).dump(), 80) +
                                      ", which kaisha does not know"},
                     true);
    }
  };
  send_request("tasks/get", json{{"taskId", task_id}}, version, std::move(on_answer),
               std::min<int64_t>(left, options_.request_timeout_ms));
}

// The task's input requests not answered yet go to the request handler;
// their answers to tasks/update; then polling goes on.
void McpClient::answer_task_input(const std::shared_ptr<Call>& call, const json& input_requests, int64_t interval_ms) {
  json fresh = json::object();
  const std::string& task_id = call->task_id;
  const std::string who = "MCP server " + name();
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (call->finished) return;
    if (input_requests.is_object())
      for (const auto& item : input_requests.items())
        if (!call->answered.count(item.key())) fresh[item.key()] = item.value();
    if (!fresh.empty() && ++call->task_input_rounds > options_.max_input_rounds) fresh = nullptr;
  }
  if (fresh.is_null()) {
    end_call(*call,
             Error{"mcp", who + ": the task " + task_id + " still asks for input after " +
                              std::to_string(options_.max_input_rounds) + " rounds; giving up"},
             true);
    return;
  }
  if (fresh.empty()) return schedule_poll(call, interval_ms);  // answered already; the server catches up
  std::weak_ptr<McpClient> weak = weak_from_this();
  answer_input_requests(fresh, [weak, call, interval_ms, who](Result<json> answers) {
    auto self = weak.lock();
    if (!self) return;
    const std::string& task_id = call->task_id;
    if (!answers.ok()) {
      self->end_call(*call,
                     Error{"mcp", who + ": the task " + task_id +
                                      " of tools/call needs input kaisha could not give: " + answers.error().message},
                     true);
      return;
    }
    std::string version;
    {
      std::lock_guard<std::mutex> lock(self->state_->mu);
      if (call->finished) return;
      for (const auto& item : answers->items()) call->answered.insert(item.key());
      version = self->state_->version;
    }
    self->send_request(
        "tasks/update", json{{"taskId", task_id}, {"inputResponses", std::move(*answers)}}, version,
        [weak, call, interval_ms](Answer a) {
          auto self = weak.lock();
          if (!self) return;
          if (a.failure || a.error) {
            Result<json> e = self->to_result("tasks/update", std::move(a));
            self->end_call(*call, e.error(), true);
            return;
          }
          self->schedule_poll(call, interval_ms);
        },
        0);
  });
}

// Each input request goes to the request handler; `done` gets the answers
// by key once all are in, or the first failure.
void McpClient::answer_input_requests(const json& input_requests, std::function<void(Result<json>)> done) {
  if (!input_requests.is_object()) return done(Error{"mcp", "inputRequests is not an object"});
  if (input_requests.empty()) return done(json::object());
  RequestHandler h;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    h = state_->on_request;
  }
  struct Gather {
    std::mutex mu;
    json answers = json::object();
    size_t left;
    bool finished = false;
  };
  auto g = std::make_shared<Gather>();
  g->left = input_requests.size();
  for (const auto& item : input_requests.items()) {
    // Named copies: a lambda may not capture a structured binding (clang 14).
    const std::string key = item.key();
    const json& req = item.value();
    const std::string method = req.is_object() ? req.value("method", std::string()) : std::string();
    auto reply = [g, key, method, done](Result<json> r) {
      std::unique_lock<std::mutex> lock(g->mu);
      if (g->finished) return;
      if (!r.ok()) {
        g->finished = true;
        lock.unlock();
        return done(Error{r.error().code, method + " ('" + key + "'): " + r.error().message});
      }
      g->answers[key] = std::move(r).value();
      if (--g->left > 0) return;
      g->finished = true;
      json answers = std::move(g->answers);
      lock.unlock();
      done(std::move(answers));
    };
    if (method.empty()) {
      reply(Error{"mcp", "the input request has no method"});
    } else if (!h) {
      reply(Error{"mcp", "kaisha's MCP client does not answer " + method});
    } else {
      h(method, req.value("params", json::object()), reply);
    }
  }
}

// Mcp-Param-* for a modern tools/call whose tool marks arguments with
// x-mcp-header (as tools/list described it).
std::vector<std::pair<std::string, std::string>> McpClient::param_headers(const json& params) const {
  std::vector<std::pair<std::string, std::string>> out;
  if (!params.is_object() || !params.value("name", json()).is_string()) return out;
  std::lock_guard<std::mutex> lock(state_->mu);
  auto it = state_->tool_headers.find(params["name"].get<std::string>());
  if (it == state_->tool_headers.end()) return out;
  const json args = params.value("arguments", json::object());
  for (const auto& p : it->second) {
    const json* v = value_at(args, p.path);
    if (!v || v->is_null()) continue;
    if (auto text = header_text(*v)) out.push_back({"Mcp-Param-" + p.header, encode_header_value(*text)});
  }
  return out;
}

int64_t McpClient::send_request(const std::string& method, json params, const std::string& modern_version,
                                OnAnswer on_answer, int64_t timeout_ms, const std::shared_ptr<Call>& call) {
  const bool has_deadline = timeout_ms >= 0;
  const int64_t t = timeout_ms > 0 ? timeout_ms : options_.request_timeout_ms;
  const auto deadline =
      has_deadline ? State::Clock::now() + std::chrono::milliseconds(t) : State::Clock::time_point::max();
  int64_t id = 0;
  bool schedule = false;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (call && call->finished) return 0;  // cancelled between rounds: the next round is not sent
    if (!state_->closed) {
      id = ++state_->next_id;
      state_->pending[id] = State::Pending{method, std::move(on_answer), deadline};
      if (call) {
        if (call->first == 0) {
          call->first = id;
          state_->calls[id] = call;
        }
        call->current = id;
      }
      if (has_deadline) {
        state_->deadlines.insert({deadline, id});
        if (!state_->sweep_at || deadline < *state_->sweep_at) {
          state_->sweep_at = deadline;
          schedule = true;
        }
      }
    }
  }
  if (id == 0) {
    on_answer(Answer{nullptr, std::nullopt,
                     Error{"mcp_closed", "MCP server " + name() + " is not connected (" + method + ")"}});
    return 0;
  }
  if (schedule) schedule_sweep(deadline);
  std::vector<std::pair<std::string, std::string>> headers;
  if (!modern_version.empty()) {
    // Every modern request says who asks and what it can answer.
    if (!params.is_object()) params = json::object();
    json& meta = params["_meta"];
    if (!meta.is_object()) meta = json::object();
    meta[meta_key::kProtocolVersion] = modern_version;
    // Built once; the tasks extension added when connect() found the server offers it.
    meta[meta_key::kClientCapabilities] = state_->client_capabilities;
    meta[meta_key::kClientInfo] = state_->client_info;
    if (method == "tools/call") headers = param_headers(params);
  }
  transport_->send(jsonrpc::make_request(id, method, std::move(params)), headers);
  return id;
}

Result<json> McpClient::to_result(const std::string& method, Answer a) const {
  if (a.failure) return *a.failure;
  if (a.error) return Error{"mcp", "MCP server " + name() + ": " + method + " failed: " + rpc_error_text(*a.error)};
  return std::move(a.result);
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
  std::shared_ptr<Call> call;  // a modern request, known by its first round's id
  State::Pending p;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (auto c = state_->calls.find(id); c != state_->calls.end()) {
      call = c->second;
      id = call->current;  // the round in flight; 0 between rounds or while its task is awaited
    }
    if (auto it = state_->pending.find(id); it != state_->pending.end())
      p = state_->take(it);
    else if (!call)
      return false;
  }
  // No round in flight (the client gathers input, the call waits for its
  // task, or a round's answer is being handled): the call ends here and its
  // task, if any, is cancelled.
  if (!p.done)
    return end_call(*call, Error{"mcp", "MCP server " + name() + ": " + call->method + " cancelled: " + reason}, true);
  // initialize is never cancelled (the spec forbids it); the connection is dropped instead.
  if (p.method != "initialize" && !transport_->abandon_cancels())
    notify("notifications/cancelled", {{"requestId", id}, {"reason", reason}});
  transport_->abandon(json(id));
  p.done(
      Answer{nullptr, std::nullopt, Error{"mcp", "MCP server " + name() + ": " + p.method + " cancelled: " + reason}});
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
  if (p.method != "initialize" && !transport_->abandon_cancels())
    notify("notifications/cancelled", {{"requestId", id}, {"reason", "timed out in the client"}});
  transport_->abandon(json(id));
  std::string msg = "MCP server " + name() + " did not answer " + p.method + " in time";
  if (!malformed.empty()) msg += "; it sent something that is not a JSON-RPC message: " + malformed;
  p.done(Answer{nullptr, std::nullopt, Error{"timeout", msg}});
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
    if (resp->error) return p.done(Answer{nullptr, *resp->error, std::nullopt});
    return p.done(Answer{std::move(resp->result), std::nullopt, std::nullopt});
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
      if (r.ok())
        self->transport_->send(jsonrpc::make_result(id, std::move(r).value()));
      else
        self->transport_->send(jsonrpc::make_error(id, jsonrpc::code::kInternalError, r.error().message));
    });
    return;
  }
  // Not a valid message. When it carries the id of a pending request, that
  // request fails with the reason; otherwise it is remembered for the
  // timeout message.
  const json& err = std::get<json>(msg);
  const std::string why =
      err.contains("error") ? err["error"].value("message", std::string("invalid message")) : "invalid message";
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
  p.done(Answer{nullptr, std::nullopt,
                Error{"mcp", "MCP server " + name() + " answered " + p.method + " with an invalid JSON-RPC message (" +
                                 why + "): " + text}});
}

void McpClient::fail_all(const Error& e) {
  std::map<int64_t, State::Pending> pending;
  std::vector<std::shared_ptr<Call>> idle;  // modern requests with no round pending: gathering input, awaiting a task
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    pending.swap(state_->pending);
    state_->deadlines.clear();
    for (auto it = state_->calls.begin(); it != state_->calls.end();) {
      if (it->second->current != 0) {  // ends with its round, below
        ++it;
        continue;
      }
      it->second->finished = true;
      idle.push_back(it->second);
      it = state_->calls.erase(it);
    }
  }
  for (auto& [id, p] : pending)
    p.done(Answer{nullptr, std::nullopt, Error{e.code, e.message + " (" + p.method + " not answered)"}});
  for (auto& c : idle)
    c->done(
        Error{e.code, e.message + (c->task_id.empty() ? " (" + c->method + ": waiting for input to send its next round)"
                                                      : " (" + c->method + ": task " + c->task_id + " not finished)")});
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
      if (t.contains("inputSchema") && t["inputSchema"].is_object())
        info.input_schema = t["inputSchema"];
      else
        return done(Error{"mcp", who + ": tool '" + info.name + "' has no inputSchema object"});
      if (t.contains("outputSchema")) info.output_schema = t["outputSchema"];
      if (auto a = t.find("annotations"); a != t.end() && a->is_object()) info.annotations = *a;
      if (self->modern()) {
        // SEP-2243: a tool whose x-mcp-header annotations break the rules is
        // left out; the others stay usable.
        auto params = header_params(info.input_schema);
        std::lock_guard<std::mutex> lock(self->state_->mu);
        if (!params.ok()) {
          self->state_->rejected_tools.push_back(info.name + ": " + params.error().message);
          self->state_->tool_headers.erase(info.name);
          continue;
        }
        self->state_->tool_headers[info.name] = std::move(*params);
      }
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

void McpClient::ping(Done done) { request(modern() ? "server/discover" : "ping", json::object(), std::move(done)); }

bool McpClient::modern() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->modern;
}

size_t McpClient::tasks_awaited() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return std::count_if(state_->calls.begin(), state_->calls.end(),
                       [](const auto& c) { return !c.second->task_id.empty(); });
}

std::vector<std::string> McpClient::rejected_tools() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->rejected_tools;
}

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
