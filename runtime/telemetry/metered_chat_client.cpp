#include "runtime/telemetry/metered_chat_client.hpp"

#include <chrono>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "runtime/llm/model_ref.hpp"

namespace kaisha::telemetry {
namespace {

// One model's children of every family, looked up once per model ref.
struct ModelMetrics {
  Counter* ok;
  Counter* error;
  Histogram* seconds;
  Counter* tokens_in;
  Counter* tokens_out;
  Counter* retries;
};

class MeteredChatClient : public company::ChatClient {
 public:
  MeteredChatClient(std::shared_ptr<company::ChatClient> inner, MetricsRegistry& r)
      : inner_(std::move(inner)),
        calls_(r.counter("kaisha_model_calls_total", "Model calls, by provider, model and outcome",
                         {"provider", "model", "outcome"})),
        seconds_(r.histogram("kaisha_model_call_seconds", "Model call latency, retries included", {"provider", "model"},
                             seconds_buckets())),
        tokens_(r.counter("kaisha_model_tokens_total", "Tokens the providers reported",
                          {"provider", "model", "direction"})),
        retries_(r.counter("kaisha_model_retries_total", "Model call retries", {"provider", "model"})) {}

  Status check_model(const std::string& model_ref) const override { return inner_->check_model(model_ref); }

  void chat(const std::string& model_ref, llm::ChatRequest request, company::ChatHandlers handlers) override {
    std::shared_ptr<const ModelMetrics> m = metrics_of(model_ref);
    const auto started = std::chrono::steady_clock::now();
    // The handlers hold the model's children, not `this`: a call may outlive
    // this client (the registry outlives both).
    auto done = std::move(handlers.on_done);
    handlers.on_done = [m, started, done = std::move(done)](Result<llm::ChatResponse> r) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      (r.ok() ? m->ok : m->error)->add();
      m->seconds->observe(s);
      if (r.ok()) {
        m->tokens_in->add(static_cast<double>(r->usage.input_tokens));
        m->tokens_out->add(static_cast<double>(r->usage.output_tokens));
      }
      if (done) done(std::move(r));
    };
    auto retry = std::move(handlers.on_retry);
    handlers.on_retry = [m, retry = std::move(retry)](int attempt, int64_t delay_ms, const std::string& reason) {
      m->retries->add();
      if (retry) retry(attempt, delay_ms, reason);
    };
    inner_->chat(model_ref, std::move(request), std::move(handlers));
  }

 private:
  std::shared_ptr<const ModelMetrics> metrics_of(const std::string& model_ref) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = by_ref_.find(model_ref);
    if (it != by_ref_.end()) return it->second;
    // A ref that is not "provider:model" is counted under its whole text, no provider.
    auto ref = llm::parse_model_ref(model_ref);
    const std::string provider = ref.ok() ? ref->provider : "";
    const std::string model = ref.ok() ? ref->model : model_ref;
    auto m = std::make_shared<const ModelMetrics>(
        ModelMetrics{&calls_.with({provider, model, "ok"}), &calls_.with({provider, model, "error"}),
                     &seconds_.with({provider, model}), &tokens_.with({provider, model, "input"}),
                     &tokens_.with({provider, model, "output"}), &retries_.with({provider, model})});
    // Model refs come from the config and from hires a model asked for: past
    // the families' cap they are counted as "other", and not remembered here.
    if (by_ref_.size() < MetricsRegistry::kDefaultMaxChildren) by_ref_.emplace(model_ref, m);
    return m;
  }

  std::shared_ptr<company::ChatClient> inner_;
  Family<Counter>& calls_;
  Family<Histogram>& seconds_;
  Family<Counter>& tokens_;
  Family<Counter>& retries_;
  std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<const ModelMetrics>> by_ref_;
};

}  // namespace

std::shared_ptr<company::ChatClient> metered(std::shared_ptr<company::ChatClient> inner, MetricsRegistry& registry) {
  if (!inner) return inner;
  return std::make_shared<MeteredChatClient>(std::move(inner), registry);
}

}  // namespace kaisha::telemetry
