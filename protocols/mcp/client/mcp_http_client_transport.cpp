#include "protocols/mcp/client/mcp_http_client_transport.hpp"

#include <mutex>
#include <set>
#include <utility>

#include "protocols/mcp/wire/mcp_headers.hpp"
#include "protocols/mcp/oauth/oauth_challenge.hpp"
#include "protocols/mcp/wire/mcp_protocol.hpp"
#include "runtime/llm/sse_event_reader.hpp"
#include "runtime/core/utf8.hpp"
#include "runtime/core/bounded_json.hpp"
#include "runtime/jsonrpc/jsonrpc.hpp"

namespace kaisha::mcp {
namespace {

using llm::SseEventReader;
using llm::SseMessage;

std::string key_of(const json& id) { return id.dump(); }

// Authorization rounds one message may go through: a first authorization
// (401) and one step-up (403 insufficient_scope).
constexpr int kMaxAuthRounds = 2;

bool is_request(const json& m) { return m.is_object() && m.contains("method") && m.contains("id"); }

bool is_response_to(const json& m, const std::string& key) {
  return m.is_object() && m.contains("id") && !m.contains("method") && key_of(m["id"]) == key;
}

std::string snippet(const std::string& body) {
  json j = parse_json_or_discarded(utf8::repair(body));
  if (j.is_object()) {
    if (auto e = j.find("error"); e != j.end()) {
      if (e->is_object() && e->contains("message") && (*e)["message"].is_string())
        return (*e)["message"].get<std::string>();
      if (e->is_string()) return e->get<std::string>();
    }
  }
  return utf8::truncate(utf8::repair(body), 300);
}

}  // namespace

struct McpHttpClientTransport::Impl : std::enable_shared_from_this<Impl> {
  http::HttpClient* http = nullptr;
  std::string url;
  McpHttpClientOptions opt;
  Handlers handlers;

  std::mutex mu;  // everything below
  bool closed = false;
  std::string session;
  std::string version;
  std::map<std::string, uint64_t> posts;  // request id key -> HTTP transfer
  std::set<uint64_t> streams;             // open GET transfers
  int64_t retry_ms = 0;                   // last retry: the server sent (0 = none yet)

  // Handlers run under this lock so that close() can wait for a running one.
  std::recursive_mutex deliver_mu;

  bool is_closed() {
    std::lock_guard<std::mutex> lock(mu);
    return closed;
  }

  void deliver(const json& m) {
    std::lock_guard<std::recursive_mutex> lock(deliver_mu);
    if (is_closed() || !handlers.on_message) return;
    handlers.on_message(m);
  }
  void malformed(const std::string& what) {
    std::lock_guard<std::recursive_mutex> lock(deliver_mu);
    if (is_closed() || !handlers.on_malformed) return;
    handlers.on_malformed(what);
  }
  void gone(const Error& e) {
    std::lock_guard<std::recursive_mutex> lock(deliver_mu);
    Handlers h;
    {
      std::lock_guard<std::mutex> l(mu);
      if (closed) return;
      closed = true;  // on_closed once; nothing after it
      h = handlers;
    }
    if (h.on_closed) h.on_closed(e);
  }
  // The error response that stands in for an answer that cannot come.
  void fail_request(const json& id, const std::string& why) {
    deliver(jsonrpc::make_error(id, kConnectionClosed, why));
  }

  bool modern() {
    std::lock_guard<std::mutex> lock(mu);
    return is_modern_version(version);
  }

  // A modern request mirrors its method and target (a tool's or prompt's
  // name, a resource's uri, a task's id) in headers.
  std::vector<std::pair<std::string, std::string>> mirror_headers(const json& message) {
    std::vector<std::pair<std::string, std::string>> h;
    {
      std::lock_guard<std::mutex> lock(mu);
      if (!is_modern_version(version)) return h;
    }
    if (!message.is_object()) return h;
    auto m = message.find("method");
    if (m == message.end() || !m->is_string()) return h;
    const std::string& method = m->get_ref<const std::string&>();
    h.push_back({kMethodHeader, method});
    const char* field = method == "resources/read"                                                        ? "uri"
                        : (method == "tools/call" || method == "prompts/get")                             ? "name"
                        : (method == "tasks/get" || method == "tasks/update" || method == "tasks/cancel") ? "taskId"
                                                                                                          : nullptr;
    auto params = message.find("params");
    if (!field || params == message.end() || !params->is_object()) return h;
    if (auto f = params->find(field); f != params->end() && f->is_string())
      h.push_back({kNameHeader, encode_header_value(f->get_ref<const std::string&>())});
    return h;
  }

  // The headers of every POST or GET, with `mirror` (a POST's
  // mirror_headers) before the configured ones. `token`: the access token
  // sent, when OAuth is on.
  std::vector<std::pair<std::string, std::string>> headers(
      bool post, const std::vector<std::pair<std::string, std::string>>* mirror = nullptr,
      std::string* token = nullptr) {
    std::vector<std::pair<std::string, std::string>> h;
    h.reserve(8 + opt.headers.size());
    if (opt.oauth)
      for (auto& kv : opt.oauth->request_headers(post ? "POST" : "GET", url, token)) h.push_back(std::move(kv));
    if (post) h.push_back({"Content-Type", "application/json"});
    h.push_back({"Accept", post ? "application/json, text/event-stream" : "text/event-stream"});
    {
      std::lock_guard<std::mutex> lock(mu);
      if (!session.empty()) h.push_back({kSessionHeader, session});
      if (!version.empty()) h.push_back({kVersionHeader, version});
    }
    if (mirror) h.insert(h.end(), mirror->begin(), mirror->end());
    for (const auto& [k, v] : opt.headers) h.push_back({k, v});
    return h;
  }

  void take_headers(int status, const std::map<std::string, std::string>& hs) {
    if (status < 200 || status >= 300) return;
    if (modern()) return;  // the modern revision has no sessions: an id a server sends anyway is not echoed
    if (auto it = hs.find("mcp-session-id"); it != hs.end() && !it->second.empty()) {
      std::lock_guard<std::mutex> lock(mu);
      session = it->second;
    }
  }

  void take_retry(const SseEventReader& r) {
    if (!r.retry_ms()) return;
    std::lock_guard<std::mutex> lock(mu);
    retry_ms = *r.retry_ms();
  }

  int64_t reconnect_delay() {
    std::lock_guard<std::mutex> lock(mu);
    return retry_ms > 0 ? retry_ms : opt.default_retry_ms;
  }

  // One POST: the message as sent (kept for a resend after authorization),
  // and what its answer has shown so far.
  struct Post {
    json id;          // the request's id; null for a notification
    std::string key;  // id key when the message is a request
    bool request = false;
    std::string out;                                          // the message, serialized
    std::vector<std::pair<std::string, std::string>> mirror;  // a modern request's method and target headers
    std::vector<std::pair<std::string, std::string>> extra;   // the caller's headers
    int auth_round = 0;
    std::string token;  // the access token sent ("" = none)
    bool sse = false;
    bool answered = false;
    std::string body;
    SseEventReader reader;
  };

  void post(const json& message, const std::vector<std::pair<std::string, std::string>>& extra = {}) {
    auto p = std::make_shared<Post>();
    p->request = is_request(message);
    if (p->request) {
      p->id = message["id"];
      p->key = key_of(p->id);
    }
    p->out = message.dump(-1, ' ', false, json::error_handler_t::replace);
    p->mirror = mirror_headers(message);
    p->extra = extra;
    send_post(std::move(p));
  }

  void send_post(std::shared_ptr<Post> p) {
    if (opt.oauth && opt.oauth->refresh_due()) {
      // The token is about to expire: renewed first, then the message goes.
      auto self = shared_from_this();
      return opt.oauth->refresh_ahead([self, p] { self->send_post(p); });
    }
    http::HttpRequestSpec req;
    req.method = "POST";
    req.url = url;
    req.headers = headers(true, &p->mirror, &p->token);
    req.headers.insert(req.headers.end(), p->extra.begin(), p->extra.end());
    req.body = p->out;
    http::HttpOptions ho;
    ho.timeout_ms = 0;  // McpClient times requests out and abandons them
    ho.connect_timeout_ms = opt.connect_timeout_ms;
    auto self = shared_from_this();
    http::HttpCallbacks cb;
    cb.on_headers = [self, p](int status, const std::map<std::string, std::string>& hs) {
      self->take_headers(status, hs);
      auto ct = hs.find("content-type");
      p->sse = ct != hs.end() && ct->second.find("text/event-stream") != std::string::npos;
    };
    cb.on_data = [self, p](std::string_view chunk) {
      if (!p->sse) {
        p->body.append(chunk);
        return;
      }
      p->reader.feed(chunk, [&](const SseMessage& ev) { self->on_event(ev, p.get()); });
    };
    cb.on_done = [self, p](http::HttpResult r) { self->post_done(*p, std::move(r)); };
    {
      std::lock_guard<std::mutex> lock(mu);
      if (closed) return;
    }
    const uint64_t id = http->submit(std::move(req), ho, std::move(cb));
    if (p->request) {
      std::lock_guard<std::mutex> lock(mu);
      posts[p->key] = id;
    }
  }

  void on_event(const SseMessage& ev, Post* p) {
    if (ev.data.empty()) return;  // priming event: only an id for resumption
    json m = parse_json_or_discarded(utf8::repair(ev.data));
    if (m.is_discarded())
      return malformed("an SSE event that is not JSON: " + utf8::truncate(utf8::repair(ev.data), 200));
    auto one = [&](const json& x) {
      if (p && p->request && is_response_to(x, p->key)) p->answered = true;
      deliver(x);
    };
    if (m.is_array()) {
      for (const auto& x : m) one(x);
    } else {
      one(m);
    }
  }

  void post_done(Post& p, http::HttpResult r) {
    if (p.request) {
      std::lock_guard<std::mutex> lock(mu);
      posts.erase(p.key);
    }
    if (is_closed()) return;
    const json& id = p.id;
    if (r.error != http::TransportError::none) {
      if (r.error == http::TransportError::cancelled) return;  // abandoned
      const std::string why = "MCP server " + url + ": " + r.error_message;
      if (p.request && !p.answered) fail_request(id, why);
      if (r.error == http::TransportError::connect) gone(Error{"mcp_closed", why});
      return;
    }
    if ((r.status == 401 || r.status == 403) && opt.oauth && p.auth_round < kMaxAuthRounds) {
      const std::string challenge = r.header("www-authenticate");
      if (r.status == 401 || parse_www_authenticate(challenge).error == "insufficient_scope")
        return authorize_and_resend(p, r.status, challenge, r.header("dpop-nonce"));
    }
    if (r.status < 200 || r.status >= 300) {
      const std::string body = p.body.empty() ? r.body : p.body;
      json j = parse_json_or_discarded(utf8::repair(body));
      // A JSON-RPC error with this request's id says it best.
      if (p.request && j.is_object() && j.contains("error") && is_response_to(j, p.key))
        deliver(j);
      else if (p.request)
        fail_request(id, "MCP server " + url + " answered HTTP " + std::to_string(r.status) +
                             (body.empty() ? "" : ": " + snippet(body)));
      bool had_session;
      {
        std::lock_guard<std::mutex> lock(mu);
        had_session = !session.empty();
      }
      if (r.status == 404 && had_session)
        gone(Error{"mcp_closed", "MCP server " + url + " no longer knows our session (HTTP 404)"});
      return;
    }
    take_retry(p.reader);
    if (p.sse) {
      if (!p.request || p.answered) return;
      // The stream ended before the answer: resume it where it stopped, if
      // the server gave event ids (SEP-1699); otherwise the answer is lost.
      if (!p.reader.last_event_id().empty()) {
        open_stream({{p.key, id}}, p.reader.last_event_id(), reconnect_delay(), 0);
      } else {
        fail_request(id, "MCP server " + url + " closed the event stream before answering");
      }
      return;
    }
    if (p.body.find_first_not_of(" \r\n\t") == std::string::npos) {
      if (p.request)
        fail_request(id, "MCP server " + url + " answered HTTP " + std::to_string(r.status) + " without a body");
      return;
    }
    json m = parse_json_or_discarded(utf8::repair(p.body));
    if (m.is_discarded()) {
      malformed("a response body that is not JSON: " + utf8::truncate(utf8::repair(p.body), 200));
      if (p.request)
        fail_request(id, "MCP server " + url +
                             " answered with something that is not JSON: " + utf8::truncate(utf8::repair(p.body), 120));
      return;
    }
    if (m.is_array()) {
      for (const auto& x : m) {
        if (p.request && is_response_to(x, p.key)) p.answered = true;
        deliver(x);
      }
    } else {
      if (p.request && is_response_to(m, p.key)) p.answered = true;
      deliver(m);
    }
    if (p.request && !p.answered) fail_request(id, "MCP server " + url + " answered without a response to the request");
  }

  // The server refused `p` for want of authorization: once OAuth has a new
  // token the message goes again; if it cannot get one the request fails
  // with its reason.
  void authorize_and_resend(const Post& p, int status, const std::string& challenge, const std::string& dpop_nonce) {
    auto self = shared_from_this();
    auto again = std::make_shared<Post>();
    again->id = p.id;
    again->key = p.key;
    again->request = p.request;
    again->out = p.out;
    again->mirror = p.mirror;
    again->extra = p.extra;
    again->auth_round = p.auth_round + 1;
    opt.oauth->challenged(status, challenge, p.token, dpop_nonce, [self, again](Status st) {
      if (self->is_closed()) return;
      if (!st.ok()) {
        if (again->request) self->fail_request(again->id, st.error().message);
        return;
      }
      self->send_post(again);
    });
  }

  // A GET stream: the server->client stream (awaited empty) or the resumption
  // of POST streams whose answers are still owed (awaited: id key -> id).
  struct Stream {
    std::map<std::string, json> awaited;
    std::string last_id;
    int quiet_reconnects = 0;  // reconnects in a row that brought no event
    bool got_event = false;
    std::string token;  // the access token sent ("" = none)
    bool auth_retried = false;
    bool sse = false;
    SseEventReader reader;
  };

  void open_stream(std::map<std::string, json> awaited, std::string last_id, int64_t delay_ms, int quiet) {
    auto self = shared_from_this();
    http->schedule(std::chrono::milliseconds(delay_ms), [self, awaited = std::move(awaited), last_id, quiet]() mutable {
      self->get(std::move(awaited), std::move(last_id), quiet);
    });
  }

  void get(std::map<std::string, json> awaited, std::string last_id, int quiet, bool auth_retried = false) {
    if (is_closed()) return;
    if (opt.oauth && opt.oauth->refresh_due()) {
      auto self = shared_from_this();
      return opt.oauth->refresh_ahead(
          [self, awaited = std::move(awaited), last_id = std::move(last_id), quiet, auth_retried]() mutable {
            self->get(std::move(awaited), std::move(last_id), quiet, auth_retried);
          });
    }
    auto s = std::make_shared<Stream>();
    s->awaited = std::move(awaited);
    s->last_id = std::move(last_id);
    s->quiet_reconnects = quiet;
    s->auth_retried = auth_retried;
    http::HttpRequestSpec req;
    req.method = "GET";
    req.url = url;
    req.headers = headers(false, nullptr, &s->token);
    if (!s->last_id.empty()) req.headers.push_back({"Last-Event-ID", s->last_id});
    http::HttpOptions ho;
    ho.timeout_ms = 0;
    ho.connect_timeout_ms = opt.connect_timeout_ms;
    auto self = shared_from_this();
    http::HttpCallbacks cb;
    cb.on_headers = [self, s](int status, const std::map<std::string, std::string>& hs) {
      self->take_headers(status, hs);
      auto ct = hs.find("content-type");
      s->sse = ct != hs.end() && ct->second.find("text/event-stream") != std::string::npos;
    };
    cb.on_data = [self, s](std::string_view chunk) {
      if (!s->sse) return;
      s->reader.feed(chunk, [&](const SseMessage& ev) {
        s->got_event = true;
        if (ev.data.empty()) return;
        json m = parse_json_or_discarded(utf8::repair(ev.data));
        if (m.is_discarded())
          return self->malformed("an SSE event that is not JSON: " + utf8::truncate(utf8::repair(ev.data), 200));
        auto one = [&](const json& x) {
          if (x.is_object() && x.contains("id") && !x.contains("method")) s->awaited.erase(key_of(x["id"]));
          self->deliver(x);
        };
        if (m.is_array()) {
          for (const auto& x : m) one(x);
        } else {
          one(m);
        }
      });
    };
    cb.on_done = [self, s](http::HttpResult r) { self->get_done(*s, std::move(r)); };
    const uint64_t id = http->submit(std::move(req), ho, std::move(cb));
    std::lock_guard<std::mutex> lock(mu);
    if (closed) {
      http->cancel(id);
      return;
    }
    streams.insert(id);
  }

  void get_done(Stream& s, http::HttpResult r) {
    if (is_closed() || r.error == http::TransportError::cancelled) return;
    auto fail_awaited = [&](const std::string& why) {
      for (const auto& [k, id] : s.awaited) fail_request(id, why);
    };
    if (r.error != http::TransportError::none) {
      fail_awaited("MCP server " + url + ": the event stream broke and could not be resumed: " + r.error_message);
      return;
    }
    if (r.status == 401 && opt.oauth && !s.auth_retried) {
      // The stream wants a token too (a server may let initialize through
      // without one): open it again once there is one.
      auto self = shared_from_this();
      opt.oauth->challenged(401, r.header("www-authenticate"), s.token, r.header("dpop-nonce"),
                            [self, awaited = s.awaited, last = s.last_id, quiet = s.quiet_reconnects](Status st) {
                              if (self->is_closed()) return;
                              if (st.ok()) return self->get(awaited, last, quiet, true);
                              for (const auto& [k, id] : awaited) self->fail_request(id, st.error().message);
                            });
      return;
    }
    if (r.status < 200 || r.status >= 300 || !s.sse) {
      // 405: the server offers no GET stream; fine unless an answer was owed.
      fail_awaited("MCP server " + url + " closed the event stream before answering and refused to resume it (HTTP " +
                   std::to_string(r.status) + ")");
      return;
    }
    take_retry(s.reader);
    const int quiet = s.got_event ? 0 : s.quiet_reconnects + 1;
    if (quiet > opt.max_stream_reconnects) {
      fail_awaited("MCP server " + url + " keeps closing the event stream without sending anything");
      return;
    }
    std::string last = s.reader.last_event_id().empty() ? s.last_id : s.reader.last_event_id();
    open_stream(std::move(s.awaited), std::move(last), reconnect_delay(), quiet);
  }
};

McpHttpClientTransport::McpHttpClientTransport(http::HttpClient& http, std::string url, McpHttpClientOptions options)
    : impl_(std::make_shared<Impl>()) {
  impl_->http = &http;
  impl_->url = std::move(url);
  impl_->opt = std::move(options);
}

McpHttpClientTransport::~McpHttpClientTransport() { close(); }

Status McpHttpClientTransport::start(Handlers handlers) {
  if (impl_->url.rfind("http://", 0) != 0 && impl_->url.rfind("https://", 0) != 0)
    return Error{"mcp", "MCP server URL must start with http:// or https://, got \"" + impl_->url + "\""};
  impl_->handlers = std::move(handlers);
  return Status::Ok();
}

void McpHttpClientTransport::send(const json& message) { impl_->post(message); }

void McpHttpClientTransport::send(const json& message,
                                  const std::vector<std::pair<std::string, std::string>>& headers) {
  impl_->post(message, headers);
}

bool McpHttpClientTransport::abandon_cancels() const { return impl_->modern(); }

void McpHttpClientTransport::set_protocol_version(const std::string& version) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->version = version;
}

void McpHttpClientTransport::initialized() {
  if (impl_->opt.open_get_stream) impl_->get({}, "", 0);
}

void McpHttpClientTransport::abandon(const json& id) {
  uint64_t transfer = 0;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    auto it = impl_->posts.find(key_of(id));
    if (it == impl_->posts.end()) return;
    transfer = it->second;
    impl_->posts.erase(it);
  }
  impl_->http->cancel(transfer);
}

void McpHttpClientTransport::close() {
  std::lock_guard<std::recursive_mutex> wait_for_handlers(impl_->deliver_mu);
  std::vector<uint64_t> transfers;
  std::string session;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->closed = true;
    for (const auto& [k, t] : impl_->posts) transfers.push_back(t);
    transfers.insert(transfers.end(), impl_->streams.begin(), impl_->streams.end());
    impl_->posts.clear();
    impl_->streams.clear();
    session = impl_->session;
    impl_->session.clear();
  }
  for (uint64_t t : transfers) impl_->http->cancel(t);
  if (!session.empty()) {
    // End the session on the server (it may answer 405; nothing to do then).
    http::HttpRequestSpec req;
    req.method = "DELETE";
    req.url = impl_->url;
    req.headers = {{kSessionHeader, session}};
    {
      std::lock_guard<std::mutex> lock(impl_->mu);
      if (!impl_->version.empty()) req.headers.push_back({kVersionHeader, impl_->version});
    }
    for (const auto& [k, v] : impl_->opt.headers) req.headers.push_back({k, v});
    if (impl_->opt.oauth)
      for (auto& kv : impl_->opt.oauth->request_headers("DELETE", impl_->url)) req.headers.push_back(std::move(kv));
    http::HttpOptions ho;
    ho.timeout_ms = 2000;
    ho.connect_timeout_ms = 1000;
    http::HttpCallbacks cb;
    cb.on_done = [](http::HttpResult) {};
    impl_->http->submit(std::move(req), ho, std::move(cb));
  }
}

std::string McpHttpClientTransport::describe() const { return impl_->url; }

std::string McpHttpClientTransport::session_id() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->session;
}

}  // namespace kaisha::mcp
