#include "actors/system/provider_chat_client.hpp"

#include "runtime/provider/llm_client.hpp"

namespace kaisha::actors {
namespace {

class ProviderChatClient final : public company::ChatClient {
 public:
  explicit ProviderChatClient(const config::Config& c) : client_(c) {}

  Status check_model(const std::string& model_ref) const override { return client_.check_model(model_ref); }

  void chat(const std::string& model_ref, llm::ChatRequest request, company::ChatHandlers h) override {
    provider::ChatCallbacks cb;
    cb.on_done = std::move(h.on_done);
    if (h.on_retry) {
      cb.on_retry = [on_retry = std::move(h.on_retry)](const provider::RetryNotice& n) {
        on_retry(n.next_attempt, n.delay.count(), n.reason);
      };
    }
    client_.chat(model_ref, std::move(request), std::move(cb));
  }

 private:
  provider::LlmClient client_;
};

}  // namespace

std::shared_ptr<company::ChatClient> make_provider_chat_client(const config::Config& config) {
  return std::make_shared<ProviderChatClient>(config);
}

}  // namespace kaisha::actors
