// RemoteAgentClient: remote A2A and ACP agents hired as employees. It is a
// company::ChatClient that serves model refs of two providers itself and
// passes every other ref to the chat client it wraps (the LLM providers):
//
//   a2a:<url>           an A2A agent; <url> is its base URL (its card is at
//                       <url>/.well-known/agent-card.json) or the card's URL
//   acp:<url>[#agent]   an ACP server and one of its agents (default: the
//                       first it lists)
//
// A chat turn becomes one task for the agent: the last user message is
// sent, the agent's answer comes back as the assistant's message. Token
// usage is estimated from the texts (~4 characters per token), so the
// agent's row in the cost table (a row whose model_ref is the a2a:/acp:
// ref) prices it like any model: that row is its cost profile.
//
// Vetting: prefetch() reads the cards/manifests of the given refs before any
// actor runs; check_model() then answers from that cache without I/O, so an
// unreachable agent is refused at hire time. A ref not prefetched passes
// check_model() (nothing may block the calling actor) and its card is
// fetched at its first ask, whose failure names the agent.
//
// Threading: chat() never blocks; callbacks run on this client's own
// HttpClient loop thread.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "protocols/a2a/a2a_client.hpp"
#include "protocols/acp/acp_client.hpp"
#include "runtime/company/chat_client.hpp"
#include "runtime/config/config.hpp"

namespace kaisha::remote {

struct RemoteAgentOptions {
  int64_t timeout_ms = 300'000;  // one ask
  int64_t connect_timeout_ms = 5'000;
  int64_t prefetch_timeout_ms = 5'000;  // a card at start-up
  std::string bearer_token;             // sent to remote agents when set
};

// True for "a2a:..." and "acp:..." refs.
bool is_remote_agent_ref(const std::string& model_ref);

class RemoteAgentClient final : public company::ChatClient {
 public:
  // `inner` serves every other model ref; it may be null when only remote
  // agents are used.
  RemoteAgentClient(std::shared_ptr<company::ChatClient> inner, RemoteAgentOptions options = {});
  ~RemoteAgentClient() override;

  // Fetches the card (A2A) or manifest (ACP) of each remote ref, blocking up
  // to prefetch_timeout_ms in all. For start-up only, never from an actor.
  // Failures are remembered (check_model reports them) and not returned:
  // a listed agent being down must not stop a company that may not hire it.
  void prefetch(const std::vector<std::string>& refs);

  Status check_model(const std::string& model_ref) const override;
  void chat(const std::string& model_ref, llm::ChatRequest request, company::ChatHandlers handlers) override;

 private:
  struct Card {
    Status status;                            // the fetch's outcome
    std::optional<a2a::RemoteAgentCard> a2a;  // A2A refs
    std::string acp_agent;                    // ACP refs: the agent's resolved name
  };
  void fetch(const std::string& model_ref, std::function<void(const Card&)> done);
  void ask(const std::string& model_ref, const Card& card, llm::ChatRequest request, company::ChatHandlers handlers);

  std::shared_ptr<company::ChatClient> inner_;
  RemoteAgentOptions options_;
  std::unique_ptr<http::HttpClient> http_;
  std::unique_ptr<a2a::A2aClient> a2a_;
  std::unique_ptr<acp::AcpClient> acp_;
  mutable std::mutex mu_;
  std::map<std::string, Card> cards_;  // by model ref
};

// The CLI's chat client: `inner` wrapped so that a2a:/acp: refs work, with the
// cards of every such ref in the cost table (config.cost_table_file, or the
// default table) and of the CEO's model prefetched.
std::shared_ptr<company::ChatClient> make_remote_agent_client(std::shared_ptr<company::ChatClient> inner,
                                                              const config::Config& config);

}  // namespace kaisha::remote
