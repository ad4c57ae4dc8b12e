// MemoryStore: long-term memories in SQLite — effGen's `memories` table with
// its four indices exactly as effgen.md §8.2 gives them, plus
//   memory_index  (label INTEGER PRIMARY KEY, memory_id, model, dims, vector):
//                 a stable integer per memory (the vector-index label and the
//                 FTS rowid) and its cached embedding, computed once per entry
//                 and embedding model (hashiru.md §9 item 52);
//   memories_fts  an FTS5 table over the contents for lexical search;
//   memory_meta   schema version and the index generation, a counter bumped
//                 by every change that a persisted vector index must see.
//
// The memories live in their own file, not in the journal: the journal has
// exactly one writer (the journal actor), and memories are written by the
// memory service's worker thread; two writers on one file would contend for
// SQLite's single write lock. Memories are also not per session: a
// preference stored in one session is recalled in the next.
//
// Threading: one thread at a time (the memory service's worker owns it).
// Every write is one transaction, as durable as the journal's
// (`journal.durability`: runtime/store/durability.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "runtime/core/result.hpp"
#include "runtime/memory/memory_entry.hpp"
#include "runtime/store/session_forgetter.hpp"
#include "runtime/store/sqlite_db.hpp"

namespace kaisha::memory {

// A lexical hit: bm25 from FTS5, turned into a positive score (higher is better).
struct LexicalHit {
  int64_t label = 0;
  double score = 0;
};

// Forgetting a session (store::SessionForgetter) removes its memories too.
class MemoryStore : public store::SessionRecords {
 public:
  static int current_schema_version();
  // Opens (creating and migrating if needed) the memory database at `path`.
  // ":memory:" gives a private in-memory database (tests).
  static Result<std::unique_ptr<MemoryStore>> open(const std::string& path,
                                                   store::Durability durability = store::Durability::normal);

  const std::string& path() const { return db_->path(); }

  // Adds an entry; fails with code "exists" when its id is taken. Sets
  // entry.label. A zero timestamp means now.
  Result<int64_t> add(MemoryEntry& entry);
  // Adds many entries in one transaction (bulk loads, benchmarks); entries
  // whose id is taken are skipped. Returns how many were added.
  Result<size_t> add_many(std::vector<MemoryEntry>& entries);
  // Removes the entry and its vector and FTS rows; false when absent.
  Result<bool> remove(const std::string& id);
  // Removes every entry stored by `session` (as remove() does, the content
  // zeroed in the file); returns how many.
  Result<int64_t> remove_session(const std::string& session) override;
  // Rewrites the FTS index without the removed entries' terms and empties
  // the write-ahead log, so removed text leaves no copy in the files.
  Status compact_files() override;

  Result<std::optional<MemoryEntry>> find(const std::string& id);
  // The first (oldest) entry whose content is exactly `content`.
  Result<std::optional<MemoryEntry>> find_by_content(const std::string& content);
  Result<std::vector<MemoryEntry>> by_labels(const std::vector<int64_t>& labels);
  // Oldest first; limit 0 = all. `session` "" = every session.
  Result<std::vector<MemoryEntry>> list(int64_t limit = 0, const std::string& session = "");
  Result<int64_t> count();

  // Embedding cache. set_vector replaces the entry's vector.
  Status set_vector(int64_t label, const std::string& model, const std::vector<float>& vec);
  // Many at once, in one transaction.
  Status set_vectors(const std::vector<std::pair<int64_t, std::vector<float>>>& vectors, const std::string& model);
  Result<std::optional<std::vector<float>>> vector(int64_t label, const std::string& model);
  // Labels above `after_label` (with contents) that have no vector for
  // `model`, in label order: page through them by passing the last label seen.
  Result<std::vector<std::pair<int64_t, std::string>>> missing_vectors(const std::string& model, int64_t after_label,
                                                                       int64_t limit);
  // Calls fn(label, vector) for every cached vector of `model` (index rebuild).
  Status for_each_vector(const std::string& model, const std::function<void(int64_t, const std::vector<float>&)>& fn);
  Result<int64_t> vector_count(const std::string& model);

  // FTS5 search of `text` (any user text; it is turned into an OR of its
  // words but `stopwords`). Best first, at most `limit`.
  Result<std::vector<LexicalHit>> lexical(const std::string& text, int limit,
                                          const std::set<std::string>& stopwords = {});

  // Records a retrieval: access_count + 1, last_accessed = now.
  Status touch(const std::vector<int64_t>& labels, double now_seconds);
  Result<int64_t> max_access_count();

  // Bumped by add/remove/set_vector: a persisted index built at another
  // generation is stale.
  Result<int64_t> generation();

 private:
  explicit MemoryStore(std::unique_ptr<store::SqliteDb> db) : db_(std::move(db)) {}
  Status migrate();
  Status bump_generation();
  Status insert(MemoryEntry& entry);
  Result<std::vector<MemoryEntry>> query(const std::string& sql_tail,
                                         const std::function<void(store::Statement&)>& bind);

  std::unique_ptr<store::SqliteDb> db_;
};

// Seconds since the epoch, with millisecond resolution.
double now_seconds();

}  // namespace kaisha::memory
