#include "protocols/a2a/a2a_client.hpp"

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <utility>

#include "runtime/core/utf8.hpp"
#include "runtime/core/bounded_json.hpp"
#include "runtime/jsonrpc/jsonrpc.hpp"
#include "runtime/llm/sse_parser.hpp"
#include "runtime/core/clock.hpp"

namespace kaisha::a2a {
namespace {

// The most of a streaming request's body kept to read as a plain JSON-RPC
// answer when no event comes (a refusal is a few hundred bytes).
constexpr size_t kMaxPlainAnswerBytes = 64 * 1024;

std::string message_id() {
  static std::atomic<uint64_t> n{0};
  const auto t = std::chrono::steady_clock::now().time_since_epoch().count();
  return "kaisha-" + std::to_string(t) + "-" + std::to_string(++n);
}

std::string transport_code(http::TransportError e) {
  switch (e) {
    case http::TransportError::timeout:
      return "timeout";
    case http::TransportError::connect:
      return "connect";
    default:
      return "http";
  }
}

// The error for a response that was not a successful HTTP exchange.
Error transport_error(const std::string& what, const http::HttpResult& r) {
  if (r.error != http::TransportError::none) return Error{transport_code(r.error), what + ": " + r.error_message};
  std::string body = utf8::truncate(utf8::repair(r.body), 300);
  json j = parse_json_or_discarded(utf8::repair(r.body));
  if (j.is_object() && j.contains("error") && j["error"].is_object()) body = j["error"].value("message", body);
  return Error{"http", what + ": HTTP " + std::to_string(r.status) + (body.empty() ? "" : ": " + body)};
}

// One ask in flight: the request, what has been learnt of the answer, and
// the callback owed. Lives as long as a pending HTTP callback holds it.
struct Ask : std::enable_shared_from_this<Ask> {
  http::HttpClient* http = nullptr;
  A2aClientOptions opt;
  RemoteAgentCard card;
  std::string text;
  A2aClient::AskDone done;
  std::function<void(std::string_view)> on_text;
  int64_t deadline_ms = 0;
  int rpc_id = 0;

  std::string task_id;
  std::vector<std::string> artifact_order;
  std::map<std::string, std::string> artifacts;
  std::string status_text;
  bool finished = false;
  llm::SseParser sse;
  // A streaming request's body up to its first event: a server may refuse
  // the request with a plain JSON-RPC error instead of opening a stream.
  std::string before_first_event;
  bool event_seen = false;

  std::string who() const { return "A2A agent " + card.endpoint; }

  void finish(Result<std::string> r) {
    if (finished) return;
    finished = true;
    auto d = std::move(done);
    d(std::move(r));
  }
  void fail(const std::string& what) { finish(Error{"a2a", who() + ": " + what}); }

  std::string answer() const {
    std::string all;
    for (const auto& id : artifact_order) {
      const std::string& t = artifacts.at(id);
      if (t.empty()) continue;
      if (!all.empty()) all += "\n";
      all += t;
    }
    return all.empty() ? status_text : all;
  }

  http::HttpRequestSpec rpc(const std::string& method, json params, bool stream) {
    http::HttpRequestSpec req;
    req.method = "POST";
    req.url = card.endpoint;
    req.headers = {{"Content-Type", "application/json"}, {"Accept", stream ? "text/event-stream" : "application/json"}};
    if (card.version == WireVersion::v1_0) req.headers.push_back({"A2A-Version", "1.0"});
    if (!opt.bearer_token.empty()) req.headers.push_back({"Authorization", "Bearer " + opt.bearer_token});
    req.body = jsonrpc::make_request(++rpc_id, method, std::move(params)).dump();
    return req;
  }

  http::HttpOptions http_options() const {
    http::HttpOptions o;
    o.timeout_ms = std::max<int64_t>(1, deadline_ms - steady_ms());
    o.connect_timeout_ms = opt.connect_timeout_ms;
    return o;
  }

  // Reads one JSON-RPC response; false (after failing the ask) when it is
  // an error or not a response at all.
  bool result_of(const json& response, json& result) {
    if (!response.is_object() || response.value("jsonrpc", "") != "2.0") {
      fail("not a JSON-RPC 2.0 response");
      return false;
    }
    if (auto e = response.find("error"); e != response.end() && e->is_object()) {
      // A peer's error is shown as it sent it: any code, any message type.
      auto code = e->find("code");
      auto message = e->find("message");
      fail("error " + (code != e->end() ? code->dump(-1, ' ', false, json::error_handler_t::replace) : "(no code)") +
           ": " + (message != e->end() && message->is_string() ? message->get<std::string>() : "(no message)"));
      return false;
    }
    auto r = response.find("result");
    if (r == response.end()) {
      fail("JSON-RPC response without result");
      return false;
    }
    result = *r;
    return true;
  }

  // Takes in one event (or a send/get result). Finishes the ask when the
  // event says the answer is complete or the task is over.
  void absorb(const StreamEvent& ev) {
    if (!ev.task_id.empty()) task_id = ev.task_id;
    switch (ev.kind) {
      case StreamEvent::Kind::message:
        return finish(ev.text);
      case StreamEvent::Kind::artifact: {
        const json& a = ev.body["artifact"];
        const std::string id = a.value("artifactId", std::string("?"));
        if (!artifacts.count(id)) artifact_order.push_back(id);
        if (ev.body.value("append", false))
          artifacts[id] += ev.text;
        else
          artifacts[id] = ev.text;
        if (on_text && !ev.text.empty()) on_text(ev.text);
        return;
      }
      case StreamEvent::Kind::task:
        // A task's own artifacts (GetTask, a blocking SendMessage) replace
        // what streaming assembled so far.
        if (auto arts = ev.body.find("artifacts"); arts != ev.body.end() && arts->is_array() && !arts->empty()) {
          artifacts.clear();
          artifact_order.clear();
          for (const auto& a : *arts) {
            if (!a.is_object()) continue;
            const std::string id = a.value("artifactId", std::to_string(artifact_order.size()));
            artifact_order.push_back(id);
            artifacts[id] = parts_text(a.value("parts", json::array()));
          }
        }
        [[fallthrough]];
      case StreamEvent::Kind::status: {
        const std::string name = ev.state.name;
        const json status = ev.body.value("status", json::object());
        std::string msg_text;
        if (auto m = status.find("message"); m != status.end() && m->is_object())
          msg_text = parts_text(m->value("parts", json::array()));
        if (!msg_text.empty()) status_text = msg_text;
        if (ev.state.state == company::TaskState::completed) return finish(answer());
        if (ev.state.interrupted)
          return fail("the task " + task_id + " needs input kaisha cannot give (" + name + ")" +
                      (msg_text.empty() ? "" : ": " + msg_text));
        if (ev.state.terminal)
          return fail("the task " + task_id + " ended " + name + (msg_text.empty() ? "" : ": " + msg_text));
        return;
      }
    }
  }

  void start() {
    json params{{"message", user_message(message_id(), text, "", "", card.version)}};
    if (card.version == WireVersion::v0_3) params["configuration"] = {{"blocking", true}};
    if (card.streaming) return send_streaming(std::move(params));
    auto self = shared_from_this();
    const char* method = card.version == WireVersion::v1_0 ? "SendMessage" : "message/send";
    http::HttpCallbacks cb;
    cb.on_done = [self](http::HttpResult r) { self->on_send_result(std::move(r)); };
    http->submit(rpc(method, std::move(params), false), http_options(), std::move(cb));
  }

  void on_send_result(http::HttpResult r) {
    if (!r.ok()) return finish(transport_error(who(), r));
    json response = parse_json_or_discarded(utf8::repair(r.body));
    json result;
    if (!result_of(response, result)) return;
    auto ev = read_stream_event(result);
    if (!ev.ok()) return fail(ev.error().message);
    absorb(*ev);
    if (!finished) poll_later();
  }

  void send_streaming(json params) {
    auto self = shared_from_this();
    const char* method = card.version == WireVersion::v1_0 ? "SendStreamingMessage" : "message/stream";
    http::HttpCallbacks cb;
    cb.on_data = [self](std::string_view chunk) {
      if (!self->event_seen && self->before_first_event.size() < kMaxPlainAnswerBytes)
        self->before_first_event += chunk;
      self->sse.feed(chunk, [&](const llm::SseEvent& e) {
        self->event_seen = true;
        if (self->finished || e.data.empty()) return;
        json response = parse_json_or_discarded(utf8::repair(e.data));
        json result;
        if (!self->result_of(response, result)) return;
        auto ev = read_stream_event(result);
        if (!ev.ok()) return self->fail(ev.error().message);
        self->absorb(*ev);
      });
    };
    cb.on_done = [self](http::HttpResult r) {
      if (self->finished) return;
      if (!r.ok()) return self->finish(transport_error(self->who(), r));
      if (!self->event_seen && !self->before_first_event.empty()) {
        // A plain JSON-RPC answer: a refusal (reported) or a task or message.
        json response = parse_json_or_discarded(utf8::repair(self->before_first_event));
        json result;
        if (response.is_object()) {
          if (!self->result_of(response, result)) return;
          auto ev = read_stream_event(result);
          if (!ev.ok()) return self->fail(ev.error().message);
          self->absorb(*ev);
          if (self->finished) return;
        }
      }
      // The stream ended before the task did: follow it by polling.
      if (self->task_id.empty()) return self->fail("the event stream ended before any task or answer arrived");
      self->poll_now();
    };
    http->submit(rpc(method, std::move(params), true), http_options(), std::move(cb));
  }

  void poll_later() {
    if (task_id.empty()) return fail("the agent returned neither a task nor a message");
    if (steady_ms() + opt.poll_interval_ms >= deadline_ms)
      return finish(Error{
          "timeout", who() + ": task " + task_id + " did not finish within " + std::to_string(opt.timeout_ms) + " ms"});
    auto self = shared_from_this();
    http->schedule(std::chrono::milliseconds(opt.poll_interval_ms), [self] { self->poll_now(); });
  }

  void poll_now() {
    auto self = shared_from_this();
    const char* method = card.version == WireVersion::v1_0 ? "GetTask" : "tasks/get";
    http::HttpCallbacks cb;
    cb.on_done = [self](http::HttpResult r) {
      if (!r.ok()) return self->finish(transport_error(self->who(), r));
      json response = parse_json_or_discarded(utf8::repair(r.body));
      json result;
      if (!self->result_of(response, result)) return;
      // GetTask answers with the bare Task in v1.0.
      json wrapped = self->card.version == WireVersion::v1_0 ? json{{"task", result}} : result;
      auto ev = read_stream_event(wrapped);
      if (!ev.ok()) return self->fail(ev.error().message);
      self->absorb(*ev);
      if (!self->finished) self->poll_later();
    };
    http->submit(rpc(method, json{{"id", task_id}}, false), http_options(), std::move(cb));
  }
};

}  // namespace

std::string agent_card_url(std::string_view url) {
  std::string u(url);
  if (u.size() >= 5 && u.compare(u.size() - 5, 5, ".json") == 0) return u;
  while (!u.empty() && u.back() == '/') u.pop_back();
  return u + "/.well-known/agent-card.json";
}

Result<RemoteAgentCard> read_agent_card(const json& card, const std::string& card_url) {
  auto bad = [&](const std::string& what) { return Error{"card", "A2A agent card " + card_url + ": " + what}; };
  if (!card.is_object()) return bad("is not a JSON object");
  RemoteAgentCard out;
  out.card_url = card_url;
  out.name = card.value("name", std::string());
  out.description = card.value("description", std::string());
  if (auto caps = card.find("capabilities"); caps != card.end() && caps->is_object())
    out.streaming = caps->value("streaming", false) == true;
  const json* v03 = nullptr;
  if (auto ifs = card.find("supportedInterfaces"); ifs != card.end() && ifs->is_array()) {
    for (const auto& i : *ifs) {
      if (!i.is_object() || i.value("protocolBinding", std::string()) != "JSONRPC") continue;
      if (!i.contains("url") || !i["url"].is_string()) continue;
      const std::string v = i.value("protocolVersion", std::string());
      if (v == "1.0" || v.rfind("1.0.", 0) == 0) {
        out.endpoint = i["url"];
        out.version = WireVersion::v1_0;
        break;
      }
      if (v.rfind("0.3", 0) == 0 && !v03) v03 = &i;
    }
  }
  if (out.endpoint.empty() && v03) {
    out.endpoint = (*v03)["url"];
    out.version = WireVersion::v0_3;
  }
  if (out.endpoint.empty()) {
    auto url = card.find("url");
    const std::string transport = card.value("preferredTransport", std::string("JSONRPC"));
    if (url != card.end() && url->is_string() && transport == "JSONRPC") {
      out.endpoint = *url;
      out.version = WireVersion::v0_3;
    }
  }
  if (out.endpoint.empty()) return bad("offers no JSON-RPC interface (kaisha speaks A2A's JSON-RPC binding)");
  auto skills = jsonrpc::skills_from_a2a_agent_card(card);
  if (!skills.ok()) return bad(skills.error().message);
  out.skills = std::move(skills).value();
  return out;
}

A2aClient::A2aClient(http::HttpClient& http, A2aClientOptions options) : http_(http), options_(std::move(options)) {}

void A2aClient::fetch_card(const std::string& url, CardDone done) {
  http::HttpRequestSpec req;
  req.method = "GET";
  req.url = agent_card_url(url);
  req.headers = {{"Accept", "application/json"}, {"A2A-Version", "1.0"}};
  if (!options_.bearer_token.empty()) req.headers.push_back({"Authorization", "Bearer " + options_.bearer_token});
  http::HttpOptions o;
  o.timeout_ms = options_.timeout_ms;
  o.connect_timeout_ms = options_.connect_timeout_ms;
  o.max_response_bytes = 1u << 20;
  const std::string card_url = req.url;
  http::HttpCallbacks cb;
  cb.on_done = [done = std::move(done), card_url](http::HttpResult r) {
    if (!r.ok()) {
      Error e = transport_error("A2A agent card " + card_url, r);
      if (e.code == "http") e.code = "card";
      return done(e);
    }
    json card = parse_json_or_discarded(utf8::repair(r.body));
    if (card.is_discarded()) return done(Error{"card", "A2A agent card " + card_url + ": not valid JSON"});
    done(read_agent_card(card, card_url));
  };
  http_.submit(std::move(req), o, std::move(cb));
}

void A2aClient::ask(const RemoteAgentCard& card, const std::string& text, AskDone done,
                    std::function<void(std::string_view)> on_text) {
  auto a = std::make_shared<Ask>();
  a->http = &http_;
  a->opt = options_;
  a->card = card;
  a->text = text;
  a->done = std::move(done);
  a->on_text = std::move(on_text);
  a->deadline_ms = steady_ms() + options_.timeout_ms;
  a->start();
}

}  // namespace kaisha::a2a
