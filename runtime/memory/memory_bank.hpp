// MemoryBank: long-term memories with semantic and lexical search — the
// SQLite store, an Embedder and a VectorIndex kept in step.
//
// add() stores the entry, embeds it (the vector is cached in SQLite, once
// per entry and model) and indexes it. retrieve() embeds the query, takes
// the index's nearest neighbours and FTS5's best lexical hits, and ranks
// them by hybrid = (1 − w)·cosine + w·lexical (lexical = bm25 relative to the
// best hit, w = lexical_weight); an entry qualifies when its cosine is
// ≥ threshold or, for a lexical hit, its hybrid score is. With
// ranking = effgen, the qualifying entries are ordered by effGen's
// 0.3·R + 0.2·F + 0.3·𝓘 + 0.2·S with S = the hybrid similarity. The top_k
// are returned, and their access counts go up.
//
// open() loads the persisted index when it matches the store and rebuilds it
// from the cached vectors otherwise, then embeds entries that have no vector
// for the current model (new model, or an embedding that failed earlier).
//
// Synchronous and not thread-safe: the memory service's worker owns it. With
// a ProviderEmbedder, calls wait for HTTP — never call them on an actor.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/memory/embedder.hpp"
#include "runtime/memory/memory_scoring.hpp"
#include "runtime/memory/memory_store.hpp"
#include "runtime/memory/vector_index.hpp"

namespace kaisha::memory {

struct RetrievalOptions {
  double threshold = 0.1;       // cosine (hashiru.md §2.8: 0.1)
  int top_k = 5;                // hashiru.md §2.8: 5
  double lexical_weight = 0.3;  // 0 = vector only (HASHIRU literal)
  bool effgen_ranking = false;
  ScoringWeights weights;
  double decay_days = 7;
  DecayMode decay = DecayMode::half_life;
  std::vector<std::string> importance_keywords;
  bool touch = true;  // count the retrieval in access_count
};

struct RetrievedMemory {
  MemoryEntry entry;
  double similarity = 0;  // cosine
  double lexical = 0;     // 0..1
  double score = 0;       // what the ranking used
};

struct MemoryBankOptions {
  std::string index_dir;  // "" = never persisted
  VectorIndexOptions index;
  std::set<std::string> stopwords;  // left out of lexical queries
  size_t embed_batch = 64;
};

class MemoryBank {
 public:
  static Result<std::unique_ptr<MemoryBank>> open(std::unique_ptr<MemoryStore> store,
                                                  std::shared_ptr<Embedder> embedder, MemoryBankOptions options);
  ~MemoryBank();  // saves the index when it changed

  // Stores, embeds and indexes. Fails with code "exists" for a taken id. When
  // only the embedding fails the entry stays stored (found lexically, embedded
  // again at the next open()) and the error is returned.
  Result<MemoryEntry> add(MemoryEntry entry);
  // Bulk load for benchmarks and imports: one transaction, batched embedding.
  Result<size_t> add_many(std::vector<MemoryEntry> entries);
  // Deletes the entry whose id or exact content is `key_or_text`; nullopt when none.
  Result<std::optional<MemoryEntry>> remove(const std::string& key_or_text);
  Result<std::vector<RetrievedMemory>> retrieve(const std::string& query, const RetrievalOptions& options);

  Status save_index();
  MemoryStore& store() { return *store_; }
  const VectorIndex& index() const { return *index_; }
  const Embedder& embedder() const { return *embedder_; }
  // Whether open() found a usable persisted index (false: it rebuilt one).
  bool index_was_loaded() const { return index_loaded_; }

 private:
  MemoryBank() = default;
  Status embed_missing();

  std::unique_ptr<MemoryStore> store_;
  std::shared_ptr<Embedder> embedder_;
  std::unique_ptr<VectorIndex> index_;
  MemoryBankOptions options_;
  bool dirty_ = false;
  bool index_loaded_ = false;
};

}  // namespace kaisha::memory
