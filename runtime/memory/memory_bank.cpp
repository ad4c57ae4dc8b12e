#include "runtime/memory/memory_bank.hpp"

#include <algorithm>
#include <map>

namespace kaisha::memory {

Result<std::unique_ptr<MemoryBank>> MemoryBank::open(std::unique_ptr<MemoryStore> store,
                                                     std::shared_ptr<Embedder> embedder, MemoryBankOptions options) {
  std::unique_ptr<MemoryBank> bank(new MemoryBank());
  bank->store_ = std::move(store);
  bank->embedder_ = std::move(embedder);
  bank->options_ = std::move(options);
  const std::string model = bank->embedder_->model_id();
  auto generation = bank->store_->generation();
  if (!generation.ok()) return generation.error();
  if (!bank->options_.index_dir.empty()) {
    auto loaded = VectorIndex::load(bank->options_.index_dir, model, *generation, bank->options_.index);
    if (loaded.ok()) {
      bank->index_ = std::move(loaded).value();
      bank->index_loaded_ = true;
    }
  }
  if (!bank->index_) {  // missing or stale: rebuild from the vectors cached in SQLite
    bank->index_ = std::make_unique<VectorIndex>(bank->options_.index);
    Status failed = Status::Ok();
    Status s = bank->store_->for_each_vector(model, [&](int64_t label, const Vector& v) {
      if (failed.ok()) failed = bank->index_->add(label, v);
    });
    if (!s.ok()) return s.error();
    if (!failed.ok()) return failed.error();
    bank->dirty_ = true;
  }
  if (Status s = bank->embed_missing(); !s.ok()) return s.error();
  return bank;
}

MemoryBank::~MemoryBank() { save_index(); }

Status MemoryBank::embed_missing() {
  const std::string model = embedder_->model_id();
  int64_t after = 0;
  while (true) {
    auto missing = store_->missing_vectors(model, after, static_cast<int64_t>(options_.embed_batch));
    if (!missing.ok()) return missing.error();
    if (missing->empty()) return Status::Ok();
    std::vector<std::string> texts;
    for (const auto& [_, content] : *missing) texts.push_back(content);
    auto vectors = embed_blocking(*embedder_, std::move(texts));
    if (!vectors.ok()) return vectors.error();
    std::vector<std::pair<int64_t, Vector>> rows;
    for (size_t i = 0; i < missing->size(); ++i) rows.emplace_back((*missing)[i].first, std::move((*vectors)[i]));
    if (Status s = store_->set_vectors(rows, model); !s.ok()) return s;
    for (const auto& [label, v] : rows)
      if (Status s = index_->add(label, v); !s.ok()) return s;
    after = missing->back().first;
    dirty_ = true;
  }
}

Result<MemoryEntry> MemoryBank::add(MemoryEntry entry) {
  auto label = store_->add(entry);
  if (!label.ok()) return label.error();
  dirty_ = true;
  auto vectors = embed_blocking(*embedder_, {entry.content});
  if (!vectors.ok()) return vectors.error();
  const Vector& v = vectors->front();
  if (Status s = store_->set_vector(entry.label, embedder_->model_id(), v); !s.ok()) return s.error();
  if (Status s = index_->add(entry.label, v); !s.ok()) return s.error();
  return entry;
}

Result<size_t> MemoryBank::add_many(std::vector<MemoryEntry> entries) {
  auto added = store_->add_many(entries);
  if (!added.ok()) return added.error();
  dirty_ = true;
  if (Status s = embed_missing(); !s.ok()) return s.error();
  return *added;
}

Result<std::optional<MemoryEntry>> MemoryBank::remove(const std::string& key_or_text) {
  auto found = store_->find(key_or_text);
  if (!found.ok()) return found.error();
  if (!found->has_value()) {
    found = store_->find_by_content(key_or_text);
    if (!found.ok()) return found.error();
    if (!found->has_value()) return std::optional<MemoryEntry>();
  }
  MemoryEntry e = std::move(**found);
  auto removed = store_->remove(e.id);
  if (!removed.ok()) return removed.error();
  index_->remove(e.label);
  dirty_ = true;
  return std::optional<MemoryEntry>(std::move(e));
}

Result<std::vector<RetrievedMemory>> MemoryBank::retrieve(const std::string& query, const RetrievalOptions& o) {
  std::vector<RetrievedMemory> out;
  if (o.top_k <= 0 || query.empty()) return out;
  auto qv = embed_blocking(*embedder_, {query});
  if (!qv.ok()) return qv.error();
  const Vector& q = qv->front();
  // Look wider than top_k: the lexical and effGen rankings reorder candidates.
  const size_t wide = static_cast<size_t>(std::max(o.top_k * 4, 20));
  struct Candidate {
    double sim = 0, lex = 0;
    bool has_sim = false;
  };
  std::map<int64_t, Candidate> cands;
  for (const IndexHit& h : index_->search(q, wide)) cands[h.label] = {h.similarity, 0, true};
  if (o.lexical_weight > 0) {
    auto lex = store_->lexical(query, static_cast<int>(wide), options_.stopwords);
    if (!lex.ok()) return lex.error();
    const double best = lex->empty() ? 0 : lex->front().score;
    for (const LexicalHit& h : *lex) {
      Candidate& c = cands[h.label];
      c.lex = best > 0 ? h.score / best : 0;
      if (!c.has_sim) {
        auto v = store_->vector(h.label, embedder_->model_id());
        if (!v.ok()) return v.error();
        if (v->has_value()) c.sim = dot(**v, q);
        c.has_sim = true;
      }
    }
  }
  std::vector<std::pair<int64_t, RetrievedMemory>> ranked;
  for (const auto& [label, c] : cands) {
    const double hybrid = (1 - o.lexical_weight) * c.sim + o.lexical_weight * c.lex;
    if (!(c.sim >= o.threshold || (c.lex > 0 && hybrid >= o.threshold))) continue;
    RetrievedMemory r;
    r.similarity = c.sim;
    r.lexical = c.lex;
    r.score = hybrid;
    ranked.emplace_back(label, std::move(r));
  }
  if (o.effgen_ranking && !ranked.empty()) {
    auto max_ac = store_->max_access_count();
    if (!max_ac.ok()) return max_ac.error();
    const double now = now_seconds();
    for (auto& [label, r] : ranked) {
      auto rows = store_->by_labels({label});
      if (!rows.ok()) return rows.error();
      if (rows->empty()) continue;
      r.entry = std::move(rows->front());
      const double rec = recency_score(now - r.entry.timestamp, o.decay_days, o.decay);
      const double freq = frequency_score(r.entry.access_count, *max_ac);
      const double imp = importance_score(r.entry.importance, r.entry.type, r.entry.content, o.importance_keywords);
      r.score = retrieval_score(rec, freq, imp, r.score, o.weights);
    }
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.second.score > b.second.score; });
  if (ranked.size() > static_cast<size_t>(o.top_k)) ranked.resize(static_cast<size_t>(o.top_k));
  std::vector<int64_t> labels;
  for (auto& [label, r] : ranked) {
    if (r.entry.label == 0) {
      auto rows = store_->by_labels({label});
      if (!rows.ok()) return rows.error();
      if (rows->empty()) continue;  // deleted meanwhile
      r.entry = std::move(rows->front());
    }
    labels.push_back(label);
    out.push_back(std::move(r));
  }
  if (o.touch) {
    if (Status s = store_->touch(labels, now_seconds()); !s.ok()) return s.error();
  }
  return out;
}

Status MemoryBank::save_index() {
  if (!dirty_ || options_.index_dir.empty() || !index_) return Status::Ok();
  auto generation = store_->generation();
  if (!generation.ok()) return generation.error();
  if (Status s = index_->save(options_.index_dir, embedder_->model_id(), *generation); !s.ok()) return s;
  dirty_ = false;
  return Status::Ok();
}

}  // namespace kaisha::memory
