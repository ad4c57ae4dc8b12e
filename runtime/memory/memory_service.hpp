// MemoryService: the memory function of one running company. It owns the
// MemoryBank on a worker thread of its own, so that embedding (possibly an
// HTTP call), SQLite writes and index updates never run on an actor's
// thread: callers queue jobs and get their results through callbacks, which
// run on the worker and must only post the result on (e.g. anon_send).
//
// It also keeps effGen's short-term tier: observe() records conversation
// messages, and every `interval` (50) of them a consolidation job is queued
// that moves the qualifying ones into long-term memory (effgen.md §8.4) — in
// the background, never blocking the agent that observed them.
//
// The destructor runs the jobs already queued, saves the vector index and
// joins the worker.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "runtime/company/tool_result.hpp"
#include "runtime/config/config.hpp"
#include "runtime/core/json.hpp"
#include "runtime/memory/consolidation.hpp"
#include "runtime/memory/memory_bank.hpp"
#include "runtime/memory/memory_manager.hpp"
#include "runtime/memory/memory_texts.hpp"
#include "runtime/memory/short_term_memory.hpp"

namespace kaisha::memory {

class MemoryService {
 public:
  // Opens the memory file (config.path, or next to the journal at
  // `journal_path`), loads or rebuilds the index and embeds what is missing,
  // all before returning: errors (a bad file, an unreachable embedding
  // model) are reported here, before any work starts. The file is written
  // with the journal's durability.
  static Result<std::shared_ptr<MemoryService>> start(const config::MemoryConfig& config,
                                                      const std::string& journal_path,
                                                      std::shared_ptr<Embedder> embedder,
                                                      store::Durability durability = store::Durability::normal);
  ~MemoryService();
  MemoryService(const MemoryService&) = delete;
  MemoryService& operator=(const MemoryService&) = delete;

  // "kaisha.db" -> "kaisha.memory.db"; other names get ".memory.db" appended.
  static std::string default_path(const std::string& journal_path);
  // Where the memory store of a company on `journal_path` is: `config.path`,
  // or default_path(journal_path) when that is empty.
  static std::string path_of(const config::MemoryConfig& config, const std::string& journal_path);

  // The MemoryManager tool (memory_manager.hpp).
  void run_tool(json args, std::string session_id, std::function<void(company::ToolResult)> done);
  // Retrieval with the configured threshold, top_k, weights and ranking.
  void retrieve(std::string query, std::function<void(Result<std::vector<RetrievedMemory>>)> done);
  void add(MemoryEntry entry, std::function<void(Result<MemoryEntry>)> done);
  // Records a message in the short-term tier; may queue a consolidation.
  void observe(StmRole role, std::string content, std::string session_id);
  // Returns once every job queued before this call has run. Not from the worker.
  void flush();
  // Consolidates the short-term messages not consolidated yet, now (queued).
  void consolidate_now(std::string session_id);

  const MemoryTexts& texts() const { return texts_; }
  const config::MemoryConfig& config() const { return config_; }
  const RetrievalOptions& retrieval_options() const { return retrieval_; }
  // Entries consolidation added so far (diagnostics and tests).
  size_t consolidated() const;

 private:
  MemoryService() = default;
  void post(std::function<void()> job);
  void loop();
  void consolidate(std::vector<StmMessage> messages, const std::string& session_id);

  config::MemoryConfig config_;
  MemoryTexts texts_;
  ConsolidationRules rules_;
  RetrievalOptions retrieval_;
  std::unique_ptr<MemoryBank> bank_;        // worker only
  std::unique_ptr<MemoryManager> manager_;  // worker only

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  ShortTermMemory short_term_;
  size_t observed_ = 0;              // messages observed
  size_t consolidated_upto_ = 0;     // observed_ at the last consolidation
  std::vector<StmMessage> pending_;  // observed since the last consolidation
  size_t consolidated_entries_ = 0;
  std::thread worker_;
};

}  // namespace kaisha::memory
