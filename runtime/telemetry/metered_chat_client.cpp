#include "runtime/telemetry/metered_chat_client.hpp"

#include <chrono>

namespace kaisha::telemetry {
namespace {

class MeteredChatClient : public company::ChatClient {
 public:
  MeteredChatClient(std::shared_ptr<company::ChatClient> inner, MetricsRegistry& r)
      : inner_(std::move(inner)),
        calls_(r.counter("kaisha_model_calls_total", "Model calls, by provider, model and outcome",
                         {"provider", "model", "outcome"})),
        seconds_(r.histogram("kaisha_model_call_seconds", "Model call latency, retries included",
                             {"provider", "model"}, seconds_buckets())),
        tokens_(r.counter("kaisha_model_tokens_total", "Tokens the providers reported",
                          {"provider", "model", "direction"})),
        retries_(r.counter("kaisha_model_retries_total", "Model call retries", {"provider", "model"})) {}

  Status check_model(const std::string& model_ref) const override { return inner_->check_model(model_ref); }

  void chat(const std::string& model_ref, llm::ChatRequest request, company::ChatHandlers handlers) override {
    const auto colon = model_ref.find(':');
    std::string provider = colon == std::string::npos ? "" : model_ref.substr(0, colon);
    std::string model = colon == std::string::npos ? model_ref : model_ref.substr(colon + 1);
    const auto started = std::chrono::steady_clock::now();
    // The families outlive every call (the registry outlives its users);
    // this client may not, so the handlers hold the families, not `this`.
    auto done = std::move(handlers.on_done);
    handlers.on_done = [calls = &calls_, seconds = &seconds_, tokens = &tokens_, provider, model, started,
                        done = std::move(done)](Result<llm::ChatResponse> r) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      calls->with({provider, model, r.ok() ? "ok" : "error"}).add();
      seconds->with({provider, model}).observe(s);
      if (r.ok()) {
        tokens->with({provider, model, "input"}).add(static_cast<double>(r->usage.input_tokens));
        tokens->with({provider, model, "output"}).add(static_cast<double>(r->usage.output_tokens));
      }
      if (done) done(std::move(r));
    };
    auto retry = std::move(handlers.on_retry);
    handlers.on_retry = [retries = &retries_, provider, model, retry = std::move(retry)](
                            int attempt, int64_t delay_ms, const std::string& reason) {
      retries->with({provider, model}).add();
      if (retry) retry(attempt, delay_ms, reason);
    };
    inner_->chat(model_ref, std::move(request), std::move(handlers));
  }

 private:
  std::shared_ptr<company::ChatClient> inner_;
  Family<Counter>& calls_;
  Family<Histogram>& seconds_;
  Family<Counter>& tokens_;
  Family<Counter>& retries_;
};

}  // namespace

std::shared_ptr<company::ChatClient> metered(std::shared_ptr<company::ChatClient> inner, MetricsRegistry& registry) {
  if (!inner) return inner;
  return std::make_shared<MeteredChatClient>(std::move(inner), registry);
}

}  // namespace kaisha::telemetry
