#include "protocols/remote/remote_agent_client.hpp"

#include <condition_variable>
#include <utility>

#include "runtime/core/data_paths.hpp"
#include "runtime/economy/cost_table.hpp"
#include "runtime/llm/model_ref.hpp"
#include "runtime/llm/usage_estimate.hpp"

namespace kaisha::remote {
namespace {

std::string provider_of(const std::string& ref) {
  const auto colon = ref.find(':');
  return colon == std::string::npos ? std::string() : ref.substr(0, colon);
}

std::string target_of(const std::string& ref) {
  const auto colon = ref.find(':');
  return colon == std::string::npos ? std::string() : ref.substr(colon + 1);
}

// What the agent is asked: the conversation's last user message.
std::string question_of(const llm::ChatRequest& request) {
  for (auto it = request.messages.rbegin(); it != request.messages.rend(); ++it)
    if (it->role == llm::Role::user) return it->content;
  return {};
}

Status check_target(const std::string& ref) {
  const std::string url = target_of(ref);
  if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0)
    return Error{"config", "model ref '" + ref + "': expected " + provider_of(ref) + ":http(s)://host:port/..."};
  return Status::Ok();
}

}  // namespace

bool is_remote_agent_ref(const std::string& model_ref) {
  const std::string p = provider_of(model_ref);
  return p == "a2a" || p == "acp";
}

RemoteAgentClient::RemoteAgentClient(std::shared_ptr<company::ChatClient> inner, RemoteAgentOptions options)
    : inner_(std::move(inner)), options_(std::move(options)), http_(std::make_unique<http::HttpClient>()) {
  a2a::A2aClientOptions ao;
  ao.timeout_ms = options_.timeout_ms;
  ao.connect_timeout_ms = options_.connect_timeout_ms;
  ao.bearer_token = options_.bearer_token;
  a2a_ = std::make_unique<a2a::A2aClient>(*http_, ao);
  acp::AcpClientOptions co;
  co.timeout_ms = options_.timeout_ms;
  co.connect_timeout_ms = options_.connect_timeout_ms;
  co.bearer_token = options_.bearer_token;
  acp_ = std::make_unique<acp::AcpClient>(*http_, co);
}

RemoteAgentClient::~RemoteAgentClient() {
  // Requests in flight end (cancelled) while the clients still exist.
  http_.reset();
}

void RemoteAgentClient::fetch(const std::string& ref, std::function<void(const Card&)> done) {
  if (Status s = check_target(ref); !s.ok()) {
    Card c;
    c.status = s;
    return done(c);
  }
  auto store = [this, ref, done = std::move(done)](Card c) {
    {
      std::lock_guard lock(mu_);
      cards_[ref] = c;
    }
    done(c);
  };
  if (provider_of(ref) == "a2a") {
    a2a_->fetch_card(target_of(ref), [store](Result<a2a::RemoteAgentCard> r) {
      Card c;
      if (r.ok())
        c.a2a = std::move(r).value();
      else
        c.status = r.error();
      store(std::move(c));
    });
    return;
  }
  const acp::AcpAgentAddress addr = acp::parse_agent_address(target_of(ref));
  acp_->fetch_manifest(addr, [store](Result<json> r) {
    Card c;
    if (r.ok())
      c.acp_agent = (*r)["name"].get<std::string>();
    else
      c.status = r.error();
    store(std::move(c));
  });
}

void RemoteAgentClient::prefetch(const std::vector<std::string>& refs) {
  struct Wait {
    std::mutex mu;
    std::condition_variable cv;
    size_t left = 0;
  };
  auto w = std::make_shared<Wait>();
  std::vector<std::string> todo;
  for (const auto& r : refs)
    if (is_remote_agent_ref(r)) todo.push_back(r);
  w->left = todo.size();
  for (const auto& r : todo) {
    fetch(r, [w](const Card&) {
      std::lock_guard lock(w->mu);
      if (--w->left == 0) w->cv.notify_all();
    });
  }
  std::unique_lock lock(w->mu);
  w->cv.wait_for(lock, std::chrono::milliseconds(options_.prefetch_timeout_ms), [&] { return w->left == 0; });
}

Status RemoteAgentClient::check_model(const std::string& ref) const {
  if (!is_remote_agent_ref(ref)) {
    if (!inner_) return Error{"config", "model ref '" + ref + "': no LLM providers configured"};
    return inner_->check_model(ref);
  }
  if (Status s = check_target(ref); !s.ok()) return s;
  std::lock_guard lock(mu_);
  auto it = cards_.find(ref);
  if (it == cards_.end()) return Status::Ok();  // fetched at its first ask
  return it->second.status;
}

void RemoteAgentClient::chat(const std::string& ref, llm::ChatRequest request, company::ChatHandlers handlers) {
  if (!is_remote_agent_ref(ref)) {
    if (!inner_) return handlers.on_done(Error{"config", "model ref '" + ref + "': no LLM providers configured"});
    return inner_->chat(ref, std::move(request), std::move(handlers));
  }
  std::optional<Card> cached;
  {
    std::lock_guard lock(mu_);
    auto it = cards_.find(ref);
    if (it != cards_.end() && it->second.status.ok()) cached = it->second;
  }
  if (cached) return ask(ref, *cached, std::move(request), std::move(handlers));
  // Not fetched yet, or it failed before: the agent may be up by now.
  auto req = std::make_shared<llm::ChatRequest>(std::move(request));
  auto h = std::make_shared<company::ChatHandlers>(std::move(handlers));
  fetch(ref, [this, ref, req, h](const Card& c) {
    if (!c.status.ok()) return h->on_done(c.status.error());
    ask(ref, c, std::move(*req), std::move(*h));
  });
}

void RemoteAgentClient::ask(const std::string& ref, const Card& card, llm::ChatRequest request,
                            company::ChatHandlers handlers) {
  const std::string question = question_of(request);
  if (question.empty()) return handlers.on_done(Error{"llm", ref + ": nothing to ask (no user message)"});
  auto req = std::make_shared<llm::ChatRequest>(std::move(request));
  auto on_done = [ref, req, done = std::move(handlers.on_done)](Result<std::string> answer) {
    if (!answer.ok()) return done(answer.error());
    llm::ChatResponse resp;
    resp.model = ref;
    resp.message.role = llm::Role::assistant;
    resp.message.content = std::move(answer).value();
    resp.finish_reason = "stop";
    resp.usage.estimated = true;
    llm::fill_estimated_usage(*req, resp);
    done(std::move(resp));
  };
  if (card.a2a) return a2a_->ask(*card.a2a, question, std::move(on_done));
  acp::AcpAgentAddress addr = acp::parse_agent_address(target_of(ref));
  addr.agent = card.acp_agent;
  acp_->ask(addr, question, std::move(on_done));
}

std::shared_ptr<company::ChatClient> make_remote_agent_client(std::shared_ptr<company::ChatClient> inner,
                                                              const config::Config& config) {
  auto client = std::make_shared<RemoteAgentClient>(std::move(inner));
  std::vector<std::string> refs{config.ceo.model};
  auto table = economy::load_cost_table_file(config.cost_table_file.empty() ? data_file("data/cost_table.yaml")
                                                                            : config.cost_table_file);
  // A bad table is reported by the company itself, with its line numbers.
  if (table.ok())
    for (const auto& m : table->all()) refs.push_back(m.model_ref);
  client->prefetch(refs);
  return client;
}

}  // namespace kaisha::remote
