#include "runtime/mockllm/mock_llm_server.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <functional>
#include <mutex>
#include <set>
#include <thread>

#include "runtime/core/utf8.hpp"
#include "runtime/llm/dialect.hpp"
#include "runtime/llm/usage_estimate.hpp"
#include "runtime/mockllm/event_http_server.hpp"
#include "runtime/mockllm/mock_embedding.hpp"
#include "runtime/mockllm/mock_matcher.hpp"

namespace kaisha::mockllm {

using llm::Dialect;
using Reply = EventHttpServer::Reply;
using Headers = std::vector<std::pair<std::string, std::string>>;

namespace {

std::atomic<int> g_signal{0};
extern "C" void on_stop_signal(int sig) { g_signal = sig; }

}  // namespace

struct MockLlmServer::Impl {
  Impl(MockScript script, MockServerOptions o)
      : matcher(std::move(script)), options(o), server([this](const HttpRequest& q, Reply r) { route(q, r); }) {}

  MockMatcher matcher;
  MockServerOptions options;
  // Handlers below run on the server's one thread; only the request log and
  // the matcher's counters are also touched from other threads (request_log(),
  // reset()), hence their mutexes.
  EventHttpServer server;
  std::atomic<bool> started{false};
  std::atomic<bool> stopping{false};

  mutable std::mutex log_mu;
  std::vector<std::shared_ptr<json>> log;

  // Runs `send` after `ms` milliseconds (at once when 0): the scripted
  // latency is a timer on the server's thread, not a sleeping thread.
  void later(int ms, std::function<void()> send) {
    if (ms <= 0) return send();
    server.after(std::chrono::milliseconds(ms), std::move(send));
  }

  std::shared_ptr<json> log_entry(const Dialect& d, const char* kind, const HttpRequest& req) {
    auto e = std::make_shared<json>(json{{"dialect", d.name()},
                                         {"kind", kind},
                                         {"path", req.path},
                                         {"model", ""},
                                         {"stream", false},
                                         {"rule", ""},
                                         {"last_message", ""},
                                         {"status", 0},
                                         {"received_us", steady_us()}});
    std::lock_guard lock(log_mu);
    log.push_back(e);
    return e;
  }

  void set(const std::shared_ptr<json>& e, const char* key, json value) {
    std::lock_guard lock(log_mu);
    // The status is set when the answer goes out: note when, for tests that
    // order requests and answers more finely than by polling the log.
    if (std::string_view(key) == "status") (*e)["answered_us"] = steady_us();
    (*e)[key] = std::move(value);
  }

  static int64_t steady_us() {
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

  void send_error(const Dialect& d, const Reply& reply, int status, const std::string& message,
                  const std::shared_ptr<json>& e, Headers headers = {}) {
    set(e, "status", status);
    set(e, "error", message);
    reply.send({status, "application/json", std::move(headers), d.render_error(status, message)});
  }

  void handle_chat(const Dialect& d, const HttpRequest& req, const Reply& reply) {
    auto entry = log_entry(d, "chat", req);
    auto parsed = d.parse_chat_request(req.path, req.body);
    if (!parsed) return send_error(d, reply, 400, "mock-llm: " + parsed.error().message, entry);
    const llm::ChatRequest& cr = *parsed;
    MatchContext ctx = MatchContext::of(cr);
    set(entry, "model", cr.model);
    set(entry, "stream", cr.stream);
    set(entry, "last_message", ctx.last_message_summary());
    json messages = json::array();
    for (const auto& m : cr.messages) {
      messages.push_back({{"role", std::string(llm::to_string(m.role))}, {"content", utf8::truncate(m.content, 200)}});
    }
    set(entry, "messages", std::move(messages));
    json tools = json::array();  // the names of the tools the request offers
    for (const auto& t : cr.tools) tools.push_back(t.name);
    set(entry, "tools", std::move(tools));
    // The sampling asked for, null when the request sets none.
    set(entry, "temperature", cr.temperature ? json(*cr.temperature) : json(nullptr));
    set(entry, "seed", cr.seed ? json(*cr.seed) : json(nullptr));
    MockMatcher::Pick pick = matcher.pick(ctx);
    set(entry, "rule", pick.label);
    if (!pick.reply && !pick.fault)
      return send_error(d, reply, 500,
                        "mock-llm: no rule matched in " + matcher.script().source + " (model \"" + cr.model +
                            "\", last message \"" + ctx.last_message_summary() + "\")",
                        entry);
    if (pick.fault) return handle_fault(d, *pick.fault, pick.label, cr, ctx, reply, entry);

    // The answer is built now and sent when the latency has passed.
    const int latency = pick.reply->latency_ms.value_or(matcher.script().default_latency_ms);
    const llm::ChatResponse resp = build_response(*pick.reply, ctx);
    if (cr.stream) {
      later(latency, [this, reply, entry, type = d.stream_content_type(), chunks = d.render_chat_stream(resp)] {
        set(entry, "status", 200);
        reply.send_chunked({200, type, {}, ""}, chunks);
      });
    } else {
      later(latency, [this, reply, entry, body = insert_raw_bytes(d.render_chat_response(resp))]() mutable {
        set(entry, "status", 200);
        reply.send({200, "application/json", {}, std::move(body)});
      });
    }
  }

  void handle_fault(const Dialect& d, const MockFault& f, const std::string& label, const llm::ChatRequest& cr,
                    const MatchContext& ctx, const Reply& reply, const std::shared_ptr<json>& entry) {
    const int latency = f.latency_ms.value_or(matcher.script().default_latency_ms);
    Headers headers;
    if (f.retry_after) headers.emplace_back("Retry-After", std::to_string(*f.retry_after));
    set(entry, "fault", f.kind.empty() ? "status" : f.kind);
    if (f.kind == "hang") {
      later(latency + std::max(0, options.hang_max_ms), [this, &d, reply, entry, headers, label] {
        send_error(d, reply, 504, "mock-llm: hang fault (" + label + ") released", entry, headers);
      });
      return;
    }
    if (f.kind == "close") {
      // Headers go out, then the connection drops without a body.
      later(latency, [this, reply, entry, headers] {
        set(entry, "status", 0);
        reply.send_headers_then_close({200, "application/json", headers, ""});
      });
      return;
    }
    const int status = f.status ? f.status : 200;
    if (f.kind == "malformed_json") {
      HttpResponse res{status, "application/json", headers, ""};
      if (cr.stream && d.stream_content_type() == "application/x-ndjson") {
        res.content_type = d.stream_content_type();
        res.body = "{\"model\": \"" + cr.model + "\", \"message\": {\n";
      } else if (cr.stream) {
        res.content_type = d.stream_content_type();
        res.body = "data: {\"broken\": [1, 2,\n\n";
      } else {
        res.body = "{\"id\": \"mock\", \"choices\": [{\"message\": ";
      }
      later(latency, [this, reply, entry, res = std::move(res)] {
        set(entry, "status", res.status);
        reply.send(res);
      });
      return;
    }
    if (f.kind == "cut_stream") {
      MockReply cut;
      cut.text = "This answer is cut off in the middle of a sentence and never finishes properly.";
      const llm::ChatResponse resp = build_response(cut, ctx);
      if (cr.stream) {
        auto chunks = d.render_chat_stream(resp);
        chunks.resize(std::max<size_t>(1, (chunks.size() - 1) / 2));
        later(latency, [this, reply, entry, status, headers, type = d.stream_content_type(), chunks] {
          set(entry, "status", status);
          reply.send_chunked({status, type, headers, ""}, chunks);
        });
      } else {
        std::string body = d.render_chat_response(resp);
        body.resize(body.size() / 2);
        later(latency, [this, reply, entry, status, headers, body] {
          set(entry, "status", status);
          reply.send({status, "application/json", headers, body});
        });
      }
      return;
    }
    later(latency, [this, &d, reply, entry, status, headers, label] {
      send_error(d, reply, status, "mock-llm: scripted fault (" + label + ") returns HTTP " + std::to_string(status),
                 entry, headers);
    });
  }

  void handle_embed(const Dialect& d, const HttpRequest& req, const Reply& reply) {
    auto entry = log_entry(d, "embed", req);
    auto parsed = d.parse_embed_request(req.path, req.body);
    if (!parsed) return send_error(d, reply, 400, "mock-llm: " + parsed.error().message, entry);
    set(entry, "model", parsed->model);
    json inputs = json::array();
    for (const auto& in : parsed->inputs) inputs.push_back(utf8::truncate(in, 200));
    set(entry, "inputs", std::move(inputs));
    llm::EmbedResponse out;
    for (const auto& in : parsed->inputs) {
      out.vectors.push_back(mock_embedding(in));
      out.usage.input_tokens += llm::estimate_tokens(in);
    }
    set(entry, "status", 200);
    reply.send({200, "application/json", {}, d.render_embed_response(out)});
  }

  std::vector<std::string> script_models() const {
    std::set<std::string> names;
    for (const auto& r : matcher.script().rules)
      if (r.match.model && !r.match.model->regex) names.insert(r.match.model->source);
    return {names.begin(), names.end()};
  }

  static HttpResponse json_response(int status, std::string body) {
    return {status, "application/json", {}, std::move(body)};
  }

  void route(const HttpRequest& q, const Reply& r) {
    const Dialect& openai = llm::openai_dialect();
    const Dialect& ollama = llm::ollama_dialect();
    const Dialect& gemini = llm::gemini_dialect();
    const Dialect& anthropic = llm::anthropic_dialect();
    const std::string& p = q.path;
    if (q.method == "POST") {
      if (p == "/v1/chat/completions") return handle_chat(openai, q, r);
      if (p == "/v1/embeddings") return handle_embed(openai, q, r);
      if (p == "/api/chat") return handle_chat(ollama, q, r);
      if (p == "/api/embed") return handle_embed(ollama, q, r);
      if (p == "/v1/messages") return handle_chat(anthropic, q, r);
      if (p == "/_mock/reset") {
        reset();
        return r.send(json_response(200, R"({"ok":true})"));
      }
      // /v1beta/models/{model}:{method}
      constexpr std::string_view kGemini = "/v1beta/models/";
      const size_t colon = p.rfind(':');
      if (p.starts_with(kGemini) && colon != std::string::npos && colon > kGemini.size() &&
          p.find('/', kGemini.size()) == std::string::npos) {
        const std::string method = p.substr(colon + 1);
        if (method == "generateContent" || method == "streamGenerateContent") return handle_chat(gemini, q, r);
        if (method == "embedContent" || method == "batchEmbedContents") return handle_embed(gemini, q, r);
        return r.send(json_response(404, gemini.render_error(404, "mock-llm: unknown Gemini method " + method)));
      }
    } else if (q.method == "GET") {
      if (p == "/api/tags") {
        json models = json::array();
        for (const auto& m : script_models())
          models.push_back({{"name", m},
                            {"model", m},
                            {"modified_at", "1970-01-01T00:00:00Z"},
                            {"size", 0},
                            {"digest", ""},
                            {"details", json::object()}});
        return r.send(json_response(200, json{{"models", models}}.dump()));
      }
      if (p == "/v1/models") {
        json data = json::array();
        for (const auto& m : script_models())
          data.push_back({{"id", m}, {"object", "model"}, {"owned_by", "mock-llm"}});
        return r.send(json_response(200, json{{"object", "list"}, {"data", data}}.dump()));
      }
      if (p == "/_mock/requests") {
        json arr = json::array();
        {
          std::lock_guard lock(log_mu);
          for (const auto& e : log) arr.push_back(*e);
        }
        return r.send(json_response(200, arr.dump()));
      }
    }
    r.send(json_response(404, json{{"error", "mock-llm: no route for " + q.method + " " + p}}.dump()));
  }

  void reset() {
    matcher.reset();
    std::lock_guard lock(log_mu);
    log.clear();
  }
};

MockLlmServer::MockLlmServer(MockScript script, MockServerOptions options)
    : impl_(std::make_unique<Impl>(std::move(script), options)) {}

MockLlmServer::~MockLlmServer() { stop(); }

Result<int> MockLlmServer::start(const std::string& host, int port) {
  if (impl_->started.exchange(true)) return Error{"mockllm", "mock-llm server already started"};
  auto bound = impl_->server.start(host, port);
  if (!bound) return Error{"mockllm", "mock-llm: " + bound.error().message};
  return *bound;
}

void MockLlmServer::stop() {
  impl_->stopping = true;
  impl_->server.stop();
}

int MockLlmServer::port() const { return impl_->server.port(); }

std::vector<json> MockLlmServer::request_log() const {
  std::lock_guard lock(impl_->log_mu);
  std::vector<json> out;
  out.reserve(impl_->log.size());
  for (const auto& e : impl_->log) out.push_back(*e);
  return out;
}

void MockLlmServer::reset() { impl_->reset(); }

Status MockLlmServer::serve(const std::string& host, int port) {
  auto bound = start(host, port);
  if (!bound) return bound.error();
  g_signal = 0;
  struct sigaction sa {
  }, old_int{}, old_term{};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  while (g_signal == 0 && !impl_->stopping) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  stop();
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  return Status::Ok();
}

}  // namespace kaisha::mockllm
