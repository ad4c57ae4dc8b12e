#include "runtime/memory/memory_service.hpp"

#include <filesystem>
#include <future>

namespace kaisha::memory {

std::string MemoryService::default_path(const std::string& journal_path) {
  const std::string db = ".db";
  if (journal_path.size() > db.size() && journal_path.compare(journal_path.size() - db.size(), db.size(), db) == 0)
    return journal_path.substr(0, journal_path.size() - db.size()) + ".memory.db";
  return journal_path + ".memory.db";
}

std::string MemoryService::path_of(const config::MemoryConfig& config, const std::string& journal_path) {
  return config.path.empty() ? default_path(journal_path) : config.path;
}

Result<std::shared_ptr<MemoryService>> MemoryService::start(const config::MemoryConfig& config,
                                                            const std::string& journal_path,
                                                            std::shared_ptr<Embedder> embedder,
                                                            store::Durability durability) {
  std::shared_ptr<MemoryService> s(new MemoryService());
  s->config_ = config;
  s->config_.path = path_of(config, journal_path);
  if (s->config_.index_dir.empty()) s->config_.index_dir = s->config_.path + ".index";
  auto texts = MemoryTexts::load();
  if (!texts.ok()) return texts.error();
  s->texts_ = std::move(texts).value();
  auto rules = ConsolidationRules::load();
  if (!rules.ok()) return rules.error();
  s->rules_ = std::move(rules).value();
  s->short_term_ = ShortTermMemory({}, s->rules_.summarize_prompt);

  s->retrieval_.threshold = config.threshold;
  s->retrieval_.top_k = config.top_k;
  s->retrieval_.lexical_weight = config.lexical_weight;
  s->retrieval_.effgen_ranking = config.ranking == "effgen";
  s->retrieval_.importance_keywords = s->rules_.importance_keywords;

  auto store = MemoryStore::open(s->config_.path, durability);
  if (!store.ok()) return Error{store.error().code, "memory: " + store.error().message};
  MemoryBankOptions bo;
  bo.index_dir = s->config_.index_dir;
  bo.index.exact_below = static_cast<size_t>(config.exact_below);
  bo.stopwords = s->texts_.stopwords;
  auto bank = MemoryBank::open(std::move(store).value(), std::move(embedder), bo);
  if (!bank.ok()) return Error{bank.error().code, "memory: " + bank.error().message};
  s->bank_ = std::move(bank).value();
  s->manager_ = std::make_unique<MemoryManager>(*s->bank_, s->texts_);
  s->worker_ = std::thread([raw = s.get()] { raw->loop(); });
  return s;
}

MemoryService::~MemoryService() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (worker_.joinable()) worker_.join();
  if (bank_) bank_->save_index();
}

void MemoryService::post(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back(std::move(job));
  }
  cv_.notify_one();
}

void MemoryService::loop() {
  while (true) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) return;  // stopping, and everything queued has run
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job();
  }
}

void MemoryService::run_tool(json args, std::string session_id, std::function<void(company::ToolResult)> done) {
  post([this, args = std::move(args), session_id = std::move(session_id), done = std::move(done)] {
    done(manager_->run(args, session_id));
  });
}

void MemoryService::retrieve(std::string query, std::function<void(Result<std::vector<RetrievedMemory>>)> done) {
  post([this, query = std::move(query), done = std::move(done)] { done(bank_->retrieve(query, retrieval_)); });
}

void MemoryService::add(MemoryEntry entry, std::function<void(Result<MemoryEntry>)> done) {
  post([this, entry = std::move(entry), done = std::move(done)]() mutable { done(bank_->add(std::move(entry))); });
}

void MemoryService::observe(StmRole role, std::string content, std::string session_id) {
  std::vector<StmMessage> batch;
  {
    std::lock_guard<std::mutex> lock(mu_);
    short_term_.add(role, content, now_seconds());
    pending_.push_back(short_term_.messages().back());
    if (++observed_ - consolidated_upto_ < rules_.interval) return;
    consolidated_upto_ = observed_;
    batch.swap(pending_);
  }
  post([this, batch = std::move(batch), session_id = std::move(session_id)]() mutable {
    consolidate(std::move(batch), session_id);
  });
}

void MemoryService::consolidate_now(std::string session_id) {
  std::vector<StmMessage> batch;
  {
    std::lock_guard<std::mutex> lock(mu_);
    consolidated_upto_ = observed_;
    batch.swap(pending_);
  }
  post([this, batch = std::move(batch), session_id = std::move(session_id)]() mutable {
    consolidate(std::move(batch), session_id);
  });
}

void MemoryService::consolidate(std::vector<StmMessage> messages, const std::string& session_id) {
  std::vector<MemoryEntry> entries;
  for (const auto& m : messages)
    if (auto e = consolidate_message(m, rules_, session_id)) entries.push_back(std::move(*e));
  if (entries.empty()) return;
  auto added = bank_->add_many(std::move(entries));
  std::lock_guard<std::mutex> lock(mu_);
  if (added.ok()) consolidated_entries_ += *added;
}

size_t MemoryService::consolidated() const {
  std::lock_guard<std::mutex> lock(mu_);
  return consolidated_entries_;
}

void MemoryService::flush() {
  auto done = std::make_shared<std::promise<void>>();
  auto f = done->get_future();
  post([done] { done->set_value(); });
  f.wait();
}

}  // namespace kaisha::memory
