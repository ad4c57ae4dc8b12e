#include "protocols/mcp/server/mcp_http_transport.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "protocols/mcp/server/event_stream.hpp"
#include "protocols/mcp/server/post_answer.hpp"
#include "protocols/mcp/server/request_threads.hpp"
#include "protocols/mcp/wire/mcp_headers.hpp"
#include "protocols/mcp/wire/mcp_protocol.hpp"
#include "protocols/mcp/wire/mcp_revision.hpp"
#include "runtime/core/utf8.hpp"
#include "runtime/core/clock.hpp"

namespace kaisha::mcp {

namespace {

using protocols::HttpRequest;
using protocols::HttpResponse;

// An HTTP-level error as a JSON-RPC error body; `id` is the request's when
// it could be read (null otherwise).
void rpc_error(HttpResponse& res, int status, const json& id, int code, const std::string& message) {
  res.set_json(status, jsonrpc::make_error(id, code, message));
}

std::optional<std::string> header_if_sent(const HttpRequest& q, const char* name) {
  std::string v = q.header(name);
  if (v.empty()) return std::nullopt;
  return v;
}

RequestEnvelope envelope_of(const HttpRequest& q) {
  RequestEnvelope env;
  env.http = true;
  env.has_session = !q.header(kSessionHeader).empty();
  env.version_header = header_if_sent(q, kVersionHeader);
  env.method_header = header_if_sent(q, kMethodHeader);
  env.name_header = header_if_sent(q, kNameHeader);
  for (const auto& [name, value] : q.headers)  // names are lower-cased
    if (name.rfind("mcp-param-", 0) == 0) env.param_headers[name.substr(10)] = value;
  return env;
}

bool contains(const std::string& haystack, const char* needle) { return haystack.find(needle) != std::string::npos; }

// Streams a session keeps for resumption; finished ones beyond this go first.
constexpr size_t kMaxStreams = 64;

struct SessionEntry {
  std::shared_ptr<McpSession> session;
  std::string client;                    // HttpRequest::client of its initialize
  std::atomic<int64_t> last_used_ms{0};  // steady clock
  std::mutex mu;
  std::map<std::string, std::shared_ptr<EventStream>> streams;
  std::deque<std::string> order;
  std::vector<std::shared_ptr<EventStream>> standalone;  // GET streams, newest last
  uint64_t next_stream = 1;

  std::shared_ptr<EventStream> new_stream(bool is_standalone) {
    std::lock_guard lock(mu);
    auto es = std::make_shared<EventStream>("s" + std::to_string(next_stream++));
    streams[es->id()] = es;
    order.push_back(es->id());
    while (order.size() > kMaxStreams) {
      streams.erase(order.front());
      order.pop_front();
    }
    // Only kept streams stay candidates, so reconnecting GETs cannot grow the list.
    std::erase_if(standalone, [&](const auto& s) { return streams.count(s->id()) == 0; });
    if (is_standalone) standalone.push_back(es);
    return es;
  }

  std::shared_ptr<EventStream> find_stream(const std::string& id) {
    std::lock_guard lock(mu);
    auto it = streams.find(id);
    return it == streams.end() ? nullptr : it->second;
  }

  // Messages outside any request go to one connected GET stream (the spec
  // says each message goes on exactly one stream).
  bool send_unrelated(const json& message) {
    std::shared_ptr<EventStream> target;
    {
      std::lock_guard lock(mu);
      for (auto it = standalone.rbegin(); it != standalone.rend(); ++it)
        if ((*it)->connected()) {
          target = *it;
          break;
        }
    }
    return target && target->send(message);
  }

  void close() {
    session->close();
    std::lock_guard lock(mu);
    for (auto& [_, es] : streams) es->finish();
  }
};

}  // namespace

struct McpHttpTransport::Impl : std::enable_shared_from_this<McpHttpTransport::Impl> {
  McpServer& server;
  protocols::HttpServer& http;
  McpHttpOptions opt;

  mutable std::mutex mu;
  std::map<std::string, std::shared_ptr<SessionEntry>> sessions;
  std::deque<std::string> order;

  std::mutex run_mu;
  std::condition_variable run_cv;
  int running = 0;

  Impl(McpServer& s, protocols::HttpServer& h, McpHttpOptions o) : server(s), http(h), opt(std::move(o)) {}

  // A new session for `client`, or nullptr and why not (the client holds
  // its limit of sessions, none of them idle).
  std::shared_ptr<SessionEntry> open_session(const HttpRequest& q, std::string& refusal) {
    std::vector<std::shared_ptr<SessionEntry>> evicted;
    std::shared_ptr<SessionEntry> e;
    {
      std::lock_guard lock(mu);
      std::vector<std::string> mine;  // oldest first
      for (const auto& id : order)
        if (auto it = sessions.find(id); it != sessions.end() && it->second->client == q.client) mine.push_back(id);
      const int64_t idle_before = steady_ms() - opt.session_idle_ms;
      for (size_t i = 0; i < mine.size() && mine.size() - evicted.size() >= opt.max_sessions_per_client; ++i) {
        auto it = sessions.find(mine[i]);
        if (it->second->last_used_ms.load() < idle_before) {
          evicted.push_back(it->second);
          erase_locked(mine[i]);
        }
      }
      if (mine.size() - evicted.size() >= opt.max_sessions_per_client) {
        refusal = "Too Many Sessions: " + q.remote_addr + " holds " + std::to_string(mine.size() - evicted.size()) +
                  " MCP sessions, the limit per client; end one with DELETE (Mcp-Session-Id) before initializing "
                  "another";
      } else {
        e = std::make_shared<SessionEntry>();
        e->session = std::make_shared<McpSession>(new_session_id(), /*own_conversation=*/true);
        e->client = q.client;
        e->last_used_ms = steady_ms();
        sessions[e->session->id()] = e;
        order.push_back(e->session->id());
        if (order.size() > opt.max_sessions) {
          if (auto victim = busiest_clients_oldest_locked()) {
            evicted.push_back(victim);
            erase_locked(victim->session->id());
          }
        }
      }
    }
    for (auto& v : evicted) drop(v);
    if (!e) return nullptr;
    std::weak_ptr<SessionEntry> weak = e;
    e->session->set_unrelated_sink([weak](const json& m) {
      auto entry = weak.lock();
      return entry && entry->send_unrelated(m);
    });
    server.add_session(e->session);
    return e;
  }

  void erase_locked(const std::string& id) {
    sessions.erase(id);
    order.erase(std::remove(order.begin(), order.end(), id), order.end());
  }

  // The oldest session of the client that holds the most.
  std::shared_ptr<SessionEntry> busiest_clients_oldest_locked() {
    std::map<std::string, size_t> count;
    std::string busiest;
    size_t most = 0;
    for (const auto& [_, e] : sessions)
      if (size_t c = ++count[e->client]; c > most) {
        most = c;
        busiest = e->client;
      }
    for (const auto& id : order)
      if (auto it = sessions.find(id); it != sessions.end() && it->second->client == busiest) return it->second;
    return nullptr;
  }

  void drop(const std::shared_ptr<SessionEntry>& e) {
    server.remove_session(e->session->id());
    e->close();
  }

  // Finds the request's session or answers the error the spec asks for.
  std::shared_ptr<SessionEntry> session_of(const HttpRequest& q, HttpResponse& res, const json& id = nullptr) {
    const std::string sid = q.header(kSessionHeader);
    if (sid.empty()) {
      rpc_error(res, 400, id, -32000,
                "Bad Request: Mcp-Session-Id header is required (send initialize first, or speak MCP " +
                    std::string(kModernVersion) + ": params._meta['" + meta_key::kProtocolVersion +
                    "'] and the MCP-Protocol-Version header on each request)");
      return nullptr;
    }
    std::lock_guard lock(mu);
    auto it = sessions.find(sid);
    if (it == sessions.end()) {
      rpc_error(res, 404, id, -32001,
                "Session not found: " + utf8::shorten(utf8::repair(sid), 100) +
                    " (it ended or never existed; initialize again)");
      return nullptr;
    }
    it->second->last_used_ms = steady_ms();
    return it->second;
  }

  // Host and Origin (DNS rebinding protection), for every method and era.
  bool origin_check(const HttpRequest& q, HttpResponse& res, const json& id = nullptr) {
    if (auto st = http.check_origin(q); !st) {
      rpc_error(res, 403, id, -32000, "Forbidden: " + st.error().message);
      return false;
    }
    return true;
  }

  // A legacy request's MCP-Protocol-Version, when sent, names a legacy revision.
  bool legacy_version_check(const HttpRequest& q, HttpResponse& res, const json& id = nullptr) {
    const std::string v = q.header(kVersionHeader);
    if (!v.empty() && !is_legacy_version(v)) {
      std::string list;
      for (const auto& s : legacy_versions()) list += (list.empty() ? "" : ", ") + s;
      rpc_error(res, 400, id, -32000,
                "Bad Request: unsupported MCP-Protocol-Version '" + utf8::shorten(utf8::repair(v), 100) +
                    "' in a session (supported: " + list + ")");
      return false;
    }
    return true;
  }

  // Takes one of the max_running_streams places; run_detached() gives it back.
  bool reserve_run() {
    std::lock_guard lock(run_mu);
    if (static_cast<size_t>(running) >= opt.max_running_streams) return false;
    ++running;
    return true;
  }

  // Runs `work` on a thread of its own, in a place reserve_run() took.
  void run_detached(std::function<void()> work) {
    request_threads().run([self = shared_from_this(), work = std::move(work)] {
      work();
      std::lock_guard lock(self->run_mu);
      if (--self->running == 0) self->run_cv.notify_all();
    });
  }

  // One for the process, never destroyed: a job may hold the last reference
  // to a transport, whose destruction must not wait for the job's own thread.
  static RequestThreads& request_threads() {
    static RequestThreads* threads = new RequestThreads();
    return *threads;
  }

  // A request the server answers at once with nothing before its response
  // (McpServer::answers_at_once) is answered on this thread as one JSON
  // object, even for a client that accepts a stream, unless streams are
  // forced (json_answer_wait 0): no hand-over to a request thread and back.
  bool answered_at_once(const jsonrpc::Request& request) {
    return opt.json_answer_wait.count() > 0 && server.answers_at_once(request);
  }

  // Runs `handle` on a request thread of its own and answers the POST: one
  // JSON object (status from `status_of`) when the response is quick and
  // alone, else the event stream `open_stream` makes.
  using Handle = std::function<void(McpStream, jsonrpc::Dispatcher::Done)>;
  void answer_from_thread(
      HttpResponse& res, const json& id, Handle handle, std::function<int(const json&)> status_of,
      std::function<std::shared_ptr<EventStream>(const std::shared_ptr<protocols::SseWriter>&)> open_stream) {
    if (!reserve_run()) {
      rpc_error(res, 503, id, -32000,
                "Server busy: " + std::to_string(opt.max_running_streams) +
                    " requests answered as event streams are running, the limit; retry when one has finished");
      return;
    }
    auto answer = std::make_shared<PostAnswer>();
    run_detached([handle = std::move(handle), answer] {
      McpStream stream{[answer](const json& m) { return answer->send(m); }, [answer] { answer->detach(); }, nullptr};
      handle(stream, [answer](std::optional<json> r) { answer->respond(std::move(r)); });
    });
    // A quick response alone is one JSON object: the connection stays open
    // for the next request, where a stream would end with it.
    if (auto r = answer->wait_for_json(opt.json_answer_wait)) {
      if (*r)
        res.set_json(status_of(**r), **r);
      else
        res.status = 202;
      return;
    }
    auto writer = res.start_sse();
    answer->stream_to(open_stream(writer));
  }

  void post(const HttpRequest& q, HttpResponse& res) {
    jsonrpc::ParsedBody parsed = jsonrpc::parse_body(q.body, server.options().limits);
    const auto* first = parsed.batch ? nullptr : std::get_if<jsonrpc::Request>(&parsed.messages.front());
    const json id = first ? first->id : json(nullptr);
    if (!origin_check(q, res, id)) return;
    if (!contains(q.header("content-type"), "application/json")) {
      rpc_error(res, 415, id, -32000, "Unsupported Media Type: POST bodies must be application/json");
      return;
    }
    if (!parsed.batch) {
      if (auto* err = std::get_if<json>(&parsed.messages.front())) {
        res.set_json(400, *err);
        return;
      }
    }
    const RequestEnvelope env = envelope_of(q);
    if (first && era_of(*first, env) == Era::kModern) return post_modern(q, res, *first, env);
    post_legacy(q, res, parsed, first);
  }

  // A 2026-07-28 request: no session; checked, then served on its own.
  void post_modern(const HttpRequest& q, HttpResponse& res, const jsonrpc::Request& req, const RequestEnvelope& env) {
    auto read = read_modern_request(req, env);
    if (auto* no = std::get_if<Rejection>(&read)) {
      res.set_json(no->http_status, jsonrpc::make_error(req.id, no->code, no->message, no->data));
      return;
    }
    const ModernRequest modern = std::get<ModernRequest>(std::move(read));
    // Arguments a tool mirrors into Mcp-Param-* headers must match them.
    if (req.method == "tools/call" && req.params.is_object() && req.params.value("name", json()).is_string()) {
      if (auto tool = server.backend().find_tool(req.params["name"].get<std::string>())) {
        const json args = req.params.value("arguments", json::object());
        if (auto no = check_param_headers(tool->input_schema, args, env)) {
          res.set_json(no->http_status, jsonrpc::make_error(req.id, no->code, no->message, no->data));
          return;
        }
      }
    }
    if (req.notification) {  // the revision defines none over HTTP: accepted, nothing to do
      res.status = 202;
      res.content_type = "application/json";
      res.body.clear();
      return;
    }
    auto status_of = [](const json& response) {
      return response.contains("error") ? modern_http_status(response["error"].value("code", 0)) : 200;
    };
    const bool sse = contains(q.header("accept"), "text/event-stream");
    if (!sse && req.method == "subscriptions/listen") {
      rpc_error(res, 406, req.id, jsonrpc::code::kInvalidRequest,
                "Not Acceptable: subscriptions/listen is answered with an event stream; send 'Accept: "
                "application/json, text/event-stream'");
      return;
    }
    // One JSON answer, on this thread: for a client that takes nothing else
    // (notifications of the request have nowhere to go), or for a request
    // answered at once with nothing before its response.
    if (!sse || answered_at_once(req)) {
      auto promise = std::make_shared<std::promise<std::optional<json>>>();
      auto future = promise->get_future();
      McpStream drop{[](const json&) { return true; }, nullptr, nullptr};
      server.handle_modern(req, modern, nullptr, drop,
                           [promise](std::optional<json> r) { promise->set_value(std::move(r)); });
      auto r = future.get();
      if (r)
        res.set_json(status_of(*r), *r);
      else
        res.status = 202;
      return;
    }
    // The client closing the stream is its cancellation of the request.
    auto gone = std::make_shared<std::atomic<bool>>(false);
    answer_from_thread(
        res, req.id,
        [this, req, modern, gone](McpStream stream, jsonrpc::Dispatcher::Done done) {
          stream.gone = gone;
          server.handle_modern(req, modern, nullptr, std::move(stream), std::move(done));
        },
        status_of,
        [gone](const std::shared_ptr<protocols::SseWriter>& writer) {
          // Modern streams do not resume: no event ids, no priming event.
          auto es = std::make_shared<EventStream>("m", /*resumable=*/false);
          es->on_disconnect([gone] { gone->store(true); });
          es->attach(writer, 0);
          return es;
        });
  }

  // A legacy (2025-11-25 and earlier) body: initialize opens a session,
  // everything else belongs to one.
  void post_legacy(const HttpRequest& q, HttpResponse& res, const jsonrpc::ParsedBody& parsed,
                   const jsonrpc::Request* first) {
    const json id = first ? first->id : json(nullptr);
    if (!legacy_version_check(q, res, id)) return;
    const bool is_init = !parsed.batch && first && first->method == "initialize" && !first->notification;

    std::shared_ptr<SessionEntry> entry;
    if (is_init) {
      std::string refusal;
      entry = open_session(q, refusal);
      if (!entry) {
        res.set_json(429, jsonrpc::make_error(first->id, -32000, refusal));
        return;
      }
      res.headers[kSessionHeader] = entry->session->id();
    } else {
      entry = session_of(q, res, id);
      if (!entry) return;
    }
    auto session = entry->session;

    bool has_requests = false;
    for (const auto& m : parsed.messages)
      if (auto* r = std::get_if<jsonrpc::Request>(&m); r && !r->notification) has_requests = true;
    if (!has_requests) {
      for (const auto& m : parsed.messages) server.handle(m, session, McpStream{}, [](std::optional<json>) {});
      res.status = 202;
      res.content_type = "application/json";
      res.body.clear();
      return;
    }

    // One JSON answer, on this thread: for a batch or a client that takes
    // nothing else (related notifications have nowhere to go), or for a
    // request answered at once with nothing before its response.
    const bool sse = contains(q.header("accept"), "text/event-stream");
    if (parsed.batch || !sse || answered_at_once(*first)) {
      auto promise = std::make_shared<std::promise<std::optional<json>>>();
      auto future = promise->get_future();
      McpStream none{[](const json&) { return false; }, nullptr, nullptr};
      auto answer = [promise](std::optional<json> r) { promise->set_value(std::move(r)); };
      // The body was parsed above; a single message is not parsed again.
      if (parsed.batch)
        server.handle_body(q.body, session, none, std::move(answer));
      else
        server.handle(parsed.messages.front(), session, none, std::move(answer));
      auto r = future.get();
      if (r)
        res.set_json(200, *r);
      else
        res.status = 202;
      return;
    }

    std::string version =
        is_init ? negotiate_version(first->params.value("protocolVersion", "")) : session->protocol_version();
    jsonrpc::Message message = parsed.messages.front();
    answer_from_thread(
        res, id,
        [this, message = std::move(message), session](McpStream stream, jsonrpc::Dispatcher::Done done) {
          server.handle(message, session, std::move(stream), std::move(done));
        },
        [](const json&) { return 200; },
        [this, entry, version](const std::shared_ptr<protocols::SseWriter>& writer) {
          auto es = entry->new_stream(false);
          if (version >= "2025-11-25") es->prime(writer, opt.retry_ms);
          es->attach(writer, 0);
          return es;
        });
  }

  // GET and DELETE belong to legacy sessions; a modern client has neither
  // (its change notifications come from subscriptions/listen).
  bool modern_get_or_delete(const HttpRequest& q, HttpResponse& res) {
    const RequestEnvelope env = envelope_of(q);
    if (env.has_session || !env.version_header || is_legacy_version(*env.version_header)) return false;
    res.headers["Allow"] = "POST";
    rpc_error(res, 405, nullptr, -32000,
              "Method Not Allowed: MCP " + std::string(kModernVersion) +
                  " has no GET stream and no sessions to DELETE; POST subscriptions/listen for change "
                  "notifications");
    return true;
  }

  void get(const HttpRequest& q, HttpResponse& res) {
    if (!origin_check(q, res) || modern_get_or_delete(q, res) || !legacy_version_check(q, res)) return;
    if (!contains(q.header("accept"), "text/event-stream")) {
      rpc_error(res, 406, nullptr, -32000, "Not Acceptable: GET needs 'Accept: text/event-stream'");
      return;
    }
    auto entry = session_of(q, res);
    if (!entry) return;
    auto writer = res.start_sse();
    if (auto last = q.header("last-event-id"); !last.empty()) {
      if (auto parsed = EventStream::parse_event_id(last)) {
        if (auto es = entry->find_stream(parsed->first)) {
          es->attach(writer, parsed->second);
          return;
        }
      }
    }
    auto es = entry->new_stream(true);
    if (entry->session->protocol_version() >= "2025-11-25") es->prime(writer, opt.retry_ms);
    es->attach(writer, 0);
  }

  void del(const HttpRequest& q, HttpResponse& res) {
    if (!origin_check(q, res) || modern_get_or_delete(q, res) || !legacy_version_check(q, res)) return;
    auto entry = session_of(q, res);
    if (!entry) return;
    {
      std::lock_guard lock(mu);
      erase_locked(entry->session->id());
    }
    drop(entry);
    res.set_json(200, json::object());
  }
};

McpHttpTransport::McpHttpTransport(McpServer& server, protocols::HttpServer& http, McpHttpOptions options)
    : impl_(std::make_shared<Impl>(server, http, std::move(options))) {
  auto impl = impl_;
  const std::string path = impl->opt.path;
  http.route("POST", path, [impl](const HttpRequest& q, HttpResponse& r) { impl->post(q, r); });
  http.route("GET", path, [impl](const HttpRequest& q, HttpResponse& r) { impl->get(q, r); });
  http.route("DELETE", path, [impl](const HttpRequest& q, HttpResponse& r) { impl->del(q, r); });
}

McpHttpTransport::~McpHttpTransport() {
  impl_->server.end_subscriptions();
  std::vector<std::shared_ptr<SessionEntry>> all;
  {
    std::lock_guard lock(impl_->mu);
    for (auto& [_, e] : impl_->sessions) all.push_back(e);
    impl_->sessions.clear();
    impl_->order.clear();
  }
  for (auto& e : all) impl_->drop(e);  // cancels running calls
  std::unique_lock lock(impl_->run_mu);
  impl_->run_cv.wait(lock, [&] { return impl_->running == 0; });
}

size_t McpHttpTransport::session_count() const {
  std::lock_guard lock(impl_->mu);
  return impl_->sessions.size();
}

}  // namespace kaisha::mcp
