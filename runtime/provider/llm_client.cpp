#include "runtime/provider/llm_client.hpp"

#include <cstdio>
#include <exception>
#include <future>
#include <optional>

#include "runtime/http/fetch_blocking.hpp"
#include "runtime/http/retry_after.hpp"
#include "runtime/llm/dialect.hpp"
#include "runtime/llm/usage_estimate.hpp"
#include "runtime/provider/concurrency_gate.hpp"
#include "runtime/provider/model_resolver.hpp"
#include "runtime/provider/retry_policy.hpp"

namespace kaisha::provider {

struct LlmClient::Shared {
  Shared(config::Config c, http::HttpClient* h) : cfg(std::move(c)), http(h), retry(cfg.retry) {
    for (const auto& [name, p] : cfg.providers)
      gates.emplace(name, std::make_unique<ConcurrencyGate>(p.max_concurrency));
  }
  config::Config cfg;
  http::HttpClient* http;
  RetryPolicy retry;
  std::map<std::string, std::unique_ptr<ConcurrencyGate>> gates;  // fixed after construction
};

namespace {

using Shared = LlmClient::Shared;

template <class F>
void guarded(const char* what, F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kaisha llm client: %s threw: %s\n", what, e.what());
  } catch (...) {
    std::fprintf(stderr, "kaisha llm client: %s threw\n", what);
  }
}

// Why one attempt failed, and whether another could succeed.
struct Failure {
  std::string code;   // Error::code of the final error
  std::string cause;  // for messages: "HTTP 500: overloaded"
  bool retryable = false;
  std::optional<std::chrono::milliseconds> retry_after;
};

std::string strip_prefix(std::string s, const std::string& prefix) {
  if (!prefix.empty() && s.starts_with(prefix)) s.erase(0, prefix.size());
  return s;
}

// One model call through all its attempts. Subclasses say how a 2xx body is
// consumed; the base class owns retries, the concurrency slot and messages.
class Call : public std::enable_shared_from_this<Call> {
 public:
  Call(std::shared_ptr<Shared> s, ResolvedModel m, llm::HttpRequestSpec spec,
       std::function<void(const RetryNotice&)> on_retry)
      : s_(std::move(s)), m_(std::move(m)), spec_(std::move(spec)), on_retry_(std::move(on_retry)) {
    opts_.timeout_ms = m_.provider->timeout_ms;
    opts_.connect_timeout_ms = m_.provider->connect_timeout_ms;
    gate_ = s_->gates.at(m_.ref.provider).get();
  }
  virtual ~Call() = default;

  void start() {
    auto self = shared_from_this();
    gate_->enter([self] { self->send(); });
  }

 protected:
  // Prepares per-attempt state (e.g. a fresh stream decoder).
  virtual void begin_attempt() {}
  // Receives the body of a 2xx response piecewise; empty: accumulate it.
  virtual std::function<void(std::string_view)> body_sink() { return {}; }
  // A 2xx response arrived. Delivers the result and returns nullopt, or
  // returns why the body was unusable.
  virtual std::optional<Failure> accept(http::HttpResult& r) = 0;
  // The call failed for good.
  virtual void fail(Error e) = 0;
  // Whether the attempt that just failed passed text to the caller.
  virtual bool attempt_streamed_text() const { return false; }

  std::shared_ptr<Shared> s_;
  ResolvedModel m_;

 private:
  void send() {
    ++attempt_;
    begin_attempt();
    http::HttpCallbacks cb;
    cb.on_data = body_sink();
    auto self = shared_from_this();
    cb.on_done = [self](http::HttpResult r) { self->finished(std::move(r)); };
    s_->http->submit(spec_, opts_, std::move(cb));
  }

  void finished(http::HttpResult r) {
    gate_->leave();
    Failure f;
    if (r.error != http::TransportError::none) {
      f = transport_failure(r);
    } else if (r.status >= 200 && r.status < 300) {
      auto bad = accept(r);
      if (!bad) return;
      f = std::move(*bad);
    } else {
      f.code = "http";
      f.cause = strip_prefix(m_.dialect->describe_error(r.status, r.body), std::string(m_.dialect->name()) + ": ");
      f.retryable = RetryPolicy::retryable_status(r.status);
      f.retry_after = http::parse_retry_after(r.header("retry-after"));
    }
    const int max = s_->retry.max_attempts();
    if (f.retryable && attempt_ < max) {
      const auto delay = s_->retry.backoff(attempt_, f.retry_after);
      if (on_retry_) {
        RetryNotice n{m_.text, attempt_ + 1, max, delay, f.cause, attempt_streamed_text()};
        guarded("on_retry", [&] { on_retry_(n); });
      }
      auto self = shared_from_this();
      s_->http->schedule(delay, [self] { self->gate_->enter([self] { self->send(); }); });
      return;
    }
    std::string msg = m_.text + " at " + spec_.url + " failed";
    if (f.retryable) {
      msg += " after " + std::to_string(attempt_) + (attempt_ == 1 ? " attempt" : " attempts");
    } else if (attempt_ > 1) {
      msg += " on attempt " + std::to_string(attempt_) + " of " + std::to_string(max);
    }
    fail(Error{f.code, msg + ": " + f.cause});
  }

  Failure transport_failure(const http::HttpResult& r) const {
    Failure f;
    // The HTTP layer prefixes "<METHOD> <url>: "; our message names the URL.
    f.cause = strip_prefix(r.error_message, spec_.method + " " + spec_.url + ": ");
    switch (r.error) {
      case http::TransportError::timeout:
        f.code = "timeout";
        f.retryable = true;
        break;
      case http::TransportError::connect:
        f.code = "connect";
        f.retryable = true;
        break;
      case http::TransportError::cancelled:
        f.code = "cancelled";
        break;
      case http::TransportError::too_large:
        f.code = "http";
        break;
      default:  // reset or cut connection, mid-body failure
        f.code = "http";
        f.retryable = true;
        if (r.status > 0)
          f.cause = "connection failed during HTTP " + std::to_string(r.status) + " response: " + f.cause;
        break;
    }
    return f;
  }

  llm::HttpRequestSpec spec_;
  http::HttpOptions opts_;
  std::function<void(const RetryNotice&)> on_retry_;
  ConcurrencyGate* gate_ = nullptr;
  int attempt_ = 0;
};

// Providers that send no usage get the documented estimate (see header).
void settle_usage(const llm::ChatRequest& req, llm::ChatResponse& resp) {
  auto& u = resp.usage;
  if (!u.estimated && u.input_tokens == 0 && u.output_tokens == 0) u.estimated = true;
  if (!u.estimated) return;
  if (u.input_tokens == 0) u.input_tokens = llm::estimate_input_tokens(req);
  if (u.output_tokens == 0) u.output_tokens = llm::estimate_output_tokens(resp.message);
}

class ChatCall final : public Call {
 public:
  ChatCall(std::shared_ptr<Shared> s, ResolvedModel m, llm::HttpRequestSpec spec, llm::ChatRequest req,
           ChatCallbacks cb)
      : Call(std::move(s), std::move(m), std::move(spec), cb.on_retry), req_(std::move(req)), cb_(std::move(cb)) {}

 protected:
  void begin_attempt() override {
    streamed_text_ = false;
    if (!req_.stream) return;
    decoder_ = m_.dialect->stream_decoder();
    decoder_->on_text = [this](std::string_view t) {
      streamed_text_ = true;
      if (cb_.on_text) cb_.on_text(t);
    };
  }

  std::function<void(std::string_view)> body_sink() override {
    if (!req_.stream) return {};
    // The decoder belongs to this attempt; the Call outlives the transfer.
    auto self = std::static_pointer_cast<ChatCall>(shared_from_this());
    return [self](std::string_view chunk) { self->decoder_->feed(chunk); };
  }

  bool attempt_streamed_text() const override { return streamed_text_; }

  std::optional<Failure> accept(http::HttpResult& r) override {
    Result<llm::ChatResponse> res = req_.stream ? decoder_->finish() : m_.dialect->parse_chat_response(r.body);
    if (!res) {
      return Failure{"llm",
                     (req_.stream ? "response stream ended early or was malformed: " : "unparseable response body: ") +
                         res.error().message,
                     true, std::nullopt};
    }
    llm::ChatResponse resp = std::move(res).value();
    if (resp.model.empty()) resp.model = m_.ref.model;
    settle_usage(req_, resp);
    deliver(std::move(resp));
    return std::nullopt;
  }

  void fail(Error e) override { deliver(std::move(e)); }

 private:
  void deliver(Result<llm::ChatResponse> r) {
    if (cb_.on_done) guarded("on_done", [&] { cb_.on_done(std::move(r)); });
  }

  llm::ChatRequest req_;
  ChatCallbacks cb_;
  std::unique_ptr<llm::StreamDecoder> decoder_;
  bool streamed_text_ = false;
};

class EmbedCall final : public Call {
 public:
  EmbedCall(std::shared_ptr<Shared> s, ResolvedModel m, llm::HttpRequestSpec spec, llm::EmbedRequest req,
            EmbedCallback done)
      : Call(std::move(s), std::move(m), std::move(spec), {}), req_(std::move(req)), done_(std::move(done)) {}

 protected:
  std::optional<Failure> accept(http::HttpResult& r) override {
    auto res = m_.dialect->parse_embed_response(r.body);
    if (!res) return Failure{"llm", "unparseable response body: " + res.error().message, true, std::nullopt};
    llm::EmbedResponse resp = std::move(res).value();
    if (resp.usage.input_tokens == 0) {
      int64_t n = 0;
      for (const auto& s : req_.inputs) n += llm::estimate_tokens(s);
      resp.usage.input_tokens = std::max<int64_t>(1, n);
      resp.usage.estimated = true;
    }
    deliver(std::move(resp));
    return std::nullopt;
  }
  void fail(Error e) override { deliver(std::move(e)); }

 private:
  void deliver(Result<llm::EmbedResponse> r) {
    if (done_) guarded("embed callback", [&] { done_(std::move(r)); });
  }
  llm::EmbedRequest req_;
  EmbedCallback done_;
};

// Reports an error through `fn` on the loop thread, as every other outcome is.
template <class R>
void post_error(http::HttpClient& http, std::function<void(R)> fn, Error e) {
  if (!fn) return;
  http.schedule(std::chrono::milliseconds(0),
                [fn = std::move(fn), e = std::move(e)]() mutable { guarded("on_done", [&] { fn(R(std::move(e))); }); });
}

}  // namespace

LlmClient::LlmClient(config::Config cfg, http::HttpClient& http)
    : shared_(std::make_shared<Shared>(std::move(cfg), &http)) {}

LlmClient::LlmClient(config::Config cfg)
    : owned_http_(std::make_unique<http::HttpClient>()),
      shared_(std::make_shared<Shared>(std::move(cfg), owned_http_.get())) {}

LlmClient::~LlmClient() {
  // Completes our requests in flight (as cancelled) while their state lives.
  owned_http_.reset();
}

const config::Config& LlmClient::config() const { return shared_->cfg; }

Status LlmClient::check_model(std::string_view model_ref) const {
  auto m = resolve_model(shared_->cfg, model_ref);
  if (!m) return m.error();
  return Status::Ok();
}

void LlmClient::chat(std::string model_ref, llm::ChatRequest req, ChatCallbacks cb) {
  auto m = resolve_model(shared_->cfg, model_ref);
  if (!m) return post_error(*shared_->http, std::move(cb.on_done), m.error());
  req.model = m->ref.model;
  llm::HttpRequestSpec spec = m->dialect->chat_request(req, m->endpoint);
  auto call = std::make_shared<ChatCall>(shared_, std::move(m).value(), std::move(spec), std::move(req), std::move(cb));
  call->start();
}

void LlmClient::embed(std::string model_ref, llm::EmbedRequest req, EmbedCallback done) {
  auto m = resolve_model(shared_->cfg, model_ref);
  if (!m) return post_error(*shared_->http, std::move(done), m.error());
  if (!m->dialect->supports_embeddings()) {
    return post_error(*shared_->http, std::move(done),
                      Error{"config", "model ref '" + m->text + "': the " + std::string(m->dialect->name()) +
                                          " dialect has no embeddings API"});
  }
  req.model = m->ref.model;
  llm::HttpRequestSpec spec = m->dialect->embed_request(req, m->endpoint);
  auto call =
      std::make_shared<EmbedCall>(shared_, std::move(m).value(), std::move(spec), std::move(req), std::move(done));
  call->start();
}

Result<llm::ChatResponse> LlmClient::chat_sync(std::string model_ref, llm::ChatRequest req,
                                               std::function<void(std::string_view)> on_text,
                                               std::function<void(const RetryNotice&)> on_retry) {
  if (shared_->http->on_loop_thread())
    return Error{"usage", "LlmClient::chat_sync called on the HTTP loop thread, where it would deadlock"};
  auto p = std::make_shared<std::promise<Result<llm::ChatResponse>>>();
  auto f = p->get_future();
  ChatCallbacks cb;
  cb.on_text = std::move(on_text);
  cb.on_retry = std::move(on_retry);
  cb.on_done = [p](Result<llm::ChatResponse> r) { p->set_value(std::move(r)); };
  chat(std::move(model_ref), std::move(req), std::move(cb));
  return f.get();
}

Result<llm::EmbedResponse> LlmClient::embed_sync(std::string model_ref, llm::EmbedRequest req) {
  if (shared_->http->on_loop_thread())
    return Error{"usage", "LlmClient::embed_sync called on the HTTP loop thread, where it would deadlock"};
  auto p = std::make_shared<std::promise<Result<llm::EmbedResponse>>>();
  auto f = p->get_future();
  embed(std::move(model_ref), std::move(req), [p](Result<llm::EmbedResponse> r) { p->set_value(std::move(r)); });
  return f.get();
}

std::map<std::string, int> LlmClient::in_flight() const {
  std::map<std::string, int> out;
  for (const auto& [name, gate] : shared_->gates) out[name] = gate->in_use();
  return out;
}

bool LlmClient::probe_ollama(const std::string& base_url, int timeout_ms) {
  std::string base = base_url;
  while (base.ends_with("/")) base.pop_back();
  if (base.ends_with("/v1")) base.resize(base.size() - 3);  // an OpenAI-compatible URL of Ollama
  if (base.empty()) return false;
  llm::HttpRequestSpec req;
  req.method = "GET";
  req.url = base + "/api/tags";
  http::HttpOptions opts;
  opts.timeout_ms = std::max(1, timeout_ms);
  opts.connect_timeout_ms = opts.timeout_ms;
  opts.max_response_bytes = 4u << 20;
  return http::fetch_blocking(req, opts).ok();
}

}  // namespace kaisha::provider
