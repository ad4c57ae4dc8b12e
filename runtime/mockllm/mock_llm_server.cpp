#include "runtime/mockllm/mock_llm_server.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>

#include <sys/socket.h>

#include <httplib.h>

#include "runtime/llm/dialect.hpp"
#include "runtime/llm/usage_estimate.hpp"
#include "runtime/mockllm/mock_embedding.hpp"
#include "runtime/mockllm/mock_matcher.hpp"

namespace kaisha::mockllm {

using llm::Dialect;

namespace {

std::atomic<int> g_signal{0};
extern "C" void on_stop_signal(int sig) { g_signal = sig; }

}  // namespace

struct MockLlmServer::Impl {
  Impl(MockScript script, MockServerOptions o) : matcher(std::move(script)), options(o) {}

  MockMatcher matcher;
  MockServerOptions options;
  httplib::Server svr;
  std::thread thread;
  std::atomic<bool> started{false};
  std::atomic<bool> stopping{false};
  std::atomic<int> port{0};
  int listen_fd = -1;
  std::atomic<bool> listen_done{false};  // the accept loop has returned  // the listening socket, seen in the socket-options hook
  std::mutex stop_mu;  // serializes stop()

  std::mutex wait_mu;
  std::condition_variable wait_cv;

  mutable std::mutex log_mu;
  std::vector<std::shared_ptr<json>> log;

  // Sleeps `ms` unless the server stops first; false when it is stopping.
  bool pause(int ms) {
    if (ms <= 0) return !stopping;
    std::unique_lock lock(wait_mu);
    wait_cv.wait_for(lock, std::chrono::milliseconds(ms), [&] { return stopping.load(); });
    return !stopping;
  }

  std::shared_ptr<json> log_entry(const Dialect& d, const char* kind, const httplib::Request& req) {
    auto e = std::make_shared<json>(json{{"dialect", d.name()}, {"kind", kind}, {"path", req.path},
                                         {"model", ""}, {"stream", false}, {"rule", ""},
                                         {"last_message", ""}, {"status", 0}});
    std::lock_guard lock(log_mu);
    log.push_back(e);
    return e;
  }

  void set(const std::shared_ptr<json>& e, const char* key, json value) {
    std::lock_guard lock(log_mu);
    (*e)[key] = std::move(value);
  }

  void send_error(const Dialect& d, httplib::Response& res, int status, const std::string& message,
                  const std::shared_ptr<json>& e) {
    res.status = status;
    res.set_content(d.render_error(status, message), "application/json");
    set(e, "status", status);
    set(e, "error", message);
  }

  static void send_chunks(httplib::Response& res, const std::string& content_type,
                          std::vector<std::string> chunks) {
    auto shared = std::make_shared<std::vector<std::string>>(std::move(chunks));
    res.set_chunked_content_provider(content_type, [shared, i = size_t{0}](size_t, httplib::DataSink& sink) mutable {
      if (i < shared->size()) {
        const std::string& c = (*shared)[i++];
        if (!sink.write(c.data(), c.size())) return false;
      }
      if (i >= shared->size()) sink.done();
      return true;
    });
  }

  void handle_chat(const Dialect& d, const httplib::Request& req, httplib::Response& res) {
    auto entry = log_entry(d, "chat", req);
    auto parsed = d.parse_chat_request(req.path, req.body);
    if (!parsed) return send_error(d, res, 400, "mock-llm: " + parsed.error().message, entry);
    const llm::ChatRequest& cr = *parsed;
    MatchContext ctx = MatchContext::of(cr);
    set(entry, "model", cr.model);
    set(entry, "stream", cr.stream);
    set(entry, "last_message", ctx.last_message_summary());
    MockMatcher::Pick pick = matcher.pick(ctx);
    set(entry, "rule", pick.label);
    if (!pick.reply && !pick.fault)
      return send_error(d, res, 500,
                        "mock-llm: no rule matched in " + matcher.script().source + " (model \"" + cr.model +
                            "\", last message \"" + ctx.last_message_summary() + "\")",
                        entry);
    if (pick.fault) return handle_fault(d, *pick.fault, pick.label, cr, ctx, res, entry);

    int latency = pick.reply->latency_ms.value_or(matcher.script().default_latency_ms);
    if (!pause(latency)) return send_error(d, res, 503, "mock-llm: server is stopping", entry);
    llm::ChatResponse resp = build_response(*pick.reply, ctx);
    if (cr.stream) send_chunks(res, d.stream_content_type(), d.render_chat_stream(resp));
    else res.set_content(d.render_chat_response(resp), "application/json");
    set(entry, "status", 200);
  }

  void handle_fault(const Dialect& d, const MockFault& f, const std::string& label, const llm::ChatRequest& cr,
                    const MatchContext& ctx, httplib::Response& res, const std::shared_ptr<json>& entry) {
    if (!pause(f.latency_ms.value_or(matcher.script().default_latency_ms)))
      return send_error(d, res, 503, "mock-llm: server is stopping", entry);
    if (f.retry_after) res.set_header("Retry-After", std::to_string(*f.retry_after));
    set(entry, "fault", f.kind.empty() ? "status" : f.kind);
    if (f.kind == "hang") {
      pause(options.hang_max_ms);
      return send_error(d, res, 504, "mock-llm: hang fault (" + label + ") released", entry);
    }
    if (f.kind == "close") {
      // Headers go out, then the connection drops without a body.
      res.set_chunked_content_provider("application/json", [](size_t, httplib::DataSink&) { return false; });
      set(entry, "status", 0);
      return;
    }
    int status = f.status ? f.status : 200;
    set(entry, "status", status);
    if (f.kind == "malformed_json") {
      res.status = status;
      if (cr.stream && d.stream_content_type() == "application/x-ndjson")
        res.set_content("{\"model\": \"" + cr.model + "\", \"message\": {\n", d.stream_content_type());
      else if (cr.stream)
        res.set_content("data: {\"broken\": [1, 2,\n\n", d.stream_content_type());
      else
        res.set_content("{\"id\": \"mock\", \"choices\": [{\"message\": ", "application/json");
      return;
    }
    if (f.kind == "cut_stream") {
      res.status = status;
      MockReply reply;
      reply.text = "This answer is cut off in the middle of a sentence and never finishes properly.";
      llm::ChatResponse resp = build_response(reply, ctx);
      if (cr.stream) {
        auto chunks = d.render_chat_stream(resp);
        size_t keep = std::max<size_t>(1, (chunks.size() - 1) / 2);
        chunks.resize(keep);
        send_chunks(res, d.stream_content_type(), std::move(chunks));
      } else {
        std::string body = d.render_chat_response(resp);
        res.set_content(body.substr(0, body.size() / 2), "application/json");
      }
      return;
    }
    send_error(d, res, status, "mock-llm: scripted fault (" + label + ") returns HTTP " + std::to_string(status),
               entry);
  }

  void handle_embed(const Dialect& d, const httplib::Request& req, httplib::Response& res) {
    auto entry = log_entry(d, "embed", req);
    auto parsed = d.parse_embed_request(req.path, req.body);
    if (!parsed) return send_error(d, res, 400, "mock-llm: " + parsed.error().message, entry);
    set(entry, "model", parsed->model);
    llm::EmbedResponse out;
    for (const auto& in : parsed->inputs) {
      out.vectors.push_back(mock_embedding(in));
      out.usage.input_tokens += llm::estimate_tokens(in);
    }
    res.set_content(d.render_embed_response(out), "application/json");
    set(entry, "status", 200);
  }

  std::vector<std::string> script_models() const {
    std::set<std::string> names;
    for (const auto& r : matcher.script().rules)
      if (r.match.model && !r.match.model->regex) names.insert(r.match.model->source);
    return {names.begin(), names.end()};
  }

  void install_routes() {
    const Dialect& openai = llm::openai_dialect();
    const Dialect& ollama = llm::ollama_dialect();
    const Dialect& gemini = llm::gemini_dialect();
    const Dialect& anthropic = llm::anthropic_dialect();
    svr.Post("/v1/chat/completions", [this, &openai](const auto& q, auto& r) { handle_chat(openai, q, r); });
    svr.Post("/v1/embeddings", [this, &openai](const auto& q, auto& r) { handle_embed(openai, q, r); });
    svr.Post("/api/chat", [this, &ollama](const auto& q, auto& r) { handle_chat(ollama, q, r); });
    svr.Post("/api/embed", [this, &ollama](const auto& q, auto& r) { handle_embed(ollama, q, r); });
    svr.Post("/v1/messages", [this, &anthropic](const auto& q, auto& r) { handle_chat(anthropic, q, r); });
    svr.Post(R"(/v1beta/models/([^/:]+):([A-Za-z]+))", [this, &gemini](const httplib::Request& q, httplib::Response& r) {
      std::string method = q.matches[2];
      if (method == "generateContent" || method == "streamGenerateContent") return handle_chat(gemini, q, r);
      if (method == "embedContent" || method == "batchEmbedContents") return handle_embed(gemini, q, r);
      r.status = 404;
      r.set_content(gemini.render_error(404, "mock-llm: unknown Gemini method " + method), "application/json");
    });
    svr.Get("/api/tags", [this](const httplib::Request&, httplib::Response& r) {
      json models = json::array();
      for (const auto& m : script_models())
        models.push_back({{"name", m}, {"model", m}, {"modified_at", "1970-01-01T00:00:00Z"}, {"size", 0},
                          {"digest", ""}, {"details", json::object()}});
      r.set_content(json{{"models", models}}.dump(), "application/json");
    });
    svr.Get("/v1/models", [this](const httplib::Request&, httplib::Response& r) {
      json data = json::array();
      for (const auto& m : script_models()) data.push_back({{"id", m}, {"object", "model"}, {"owned_by", "mock-llm"}});
      r.set_content(json{{"object", "list"}, {"data", data}}.dump(), "application/json");
    });
    svr.Get("/_mock/requests", [this](const httplib::Request&, httplib::Response& r) {
      json arr = json::array();
      {
        std::lock_guard lock(log_mu);
        for (const auto& e : log) arr.push_back(*e);
      }
      r.set_content(arr.dump(), "application/json");
    });
    svr.Post("/_mock/reset", [this](const httplib::Request&, httplib::Response& r) {
      reset();
      r.set_content(R"({"ok":true})", "application/json");
    });
    svr.set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request& q, httplib::Response& r) {
      if (!r.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
      r.set_content(json{{"error", "mock-llm: no route for " + q.method + " " + q.path}}.dump(), "application/json");
      return httplib::Server::HandlerResponse::Handled;
    }));
  }

  void reset() {
    matcher.reset();
    std::lock_guard lock(log_mu);
    log.clear();
  }
};

MockLlmServer::MockLlmServer(MockScript script, MockServerOptions options)
    : impl_(std::make_unique<Impl>(std::move(script), options)) {
  int threads = std::max(1, options.threads);
  impl_->svr.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  impl_->svr.set_keep_alive_max_count(100);
  // httplib's default also sets SO_REUSEPORT, which would let a second server
  // share a busy port silently; a port clash must be an error instead.
  impl_->svr.set_socket_options([impl = impl_.get()](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, reinterpret_cast<const void*>(&yes), sizeof(yes));
    impl->listen_fd = sock;
  });
  impl_->install_routes();
}

MockLlmServer::~MockLlmServer() { stop(); }

Result<int> MockLlmServer::start(const std::string& host, int port) {
  if (impl_->started.exchange(true)) return Error{"mockllm", "mock-llm server already started"};
  int bound = -1;
  if (port == 0) bound = impl_->svr.bind_to_any_port(host);
  else if (impl_->svr.bind_to_port(host, port)) bound = port;
  if (bound <= 0)
    return Error{"mockllm", "mock-llm: cannot listen on " + host + ":" + std::to_string(port) + ": " +
                                std::strerror(errno)};
  impl_->port = bound;
  // The packaged libcpp-httplib listens with a backlog of 5, which drops
  // connections when hundreds of clients arrive at once; Linux lets a second
  // listen() on the bound socket raise it.
  if (impl_->listen_fd >= 0) ::listen(impl_->listen_fd, 1024);
  impl_->thread = std::thread([impl = impl_.get()] {
    impl->svr.listen_after_bind();
    impl->listen_done = true;
  });
  // stop() is a no-op until the accept loop runs, so wait for it.
  for (int i = 0; i < 500 && !impl_->svr.is_running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return bound;
}

void MockLlmServer::stop() {
  std::lock_guard lock(impl_->stop_mu);
  {
    std::lock_guard wl(impl_->wait_mu);
    impl_->stopping = true;
  }
  impl_->wait_cv.notify_all();
  if (impl_->thread.joinable()) {
    // httplib's stop() does nothing until the accept loop has started, so
    // repeat it until the loop has really ended.
    while (!impl_->listen_done) {
      impl_->svr.stop();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    impl_->thread.join();
  }
}

int MockLlmServer::port() const { return impl_->port; }

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
  struct sigaction sa {}, old_int{}, old_term{};
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
