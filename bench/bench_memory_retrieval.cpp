// Memory retrieval latency at 1k, 100k and 1M entries (issue 6): p50/p99 of
//   index    VectorIndex::search alone (HNSW above 10k entries, exact below)
//   vector   MemoryBank::retrieve with lexical_weight 0: embed the query,
//            search the index, read the hits from SQLite
//   hybrid   the same plus FTS5 (the configured default, lexical_weight 0.3)
// and, as the baseline, an exact scan of the same vectors (at every size up
// to 100k; at 1M it would only repeat the linear trend), with the HNSW
// recall@5 against it.
//
// Entries are synthetic sentences over a 2,000-word vocabulary, embedded by
// the built-in hashed n-gram embedder at 64 dimensions (so that building a
// million entries takes minutes; all-MiniLM's 384 would scale the vector
// work by 6). The stores live in $TMPDIR and are deleted afterwards.
//
// Usage: bench_memory_retrieval [sizes...]   (default: 1000 100000 1000000)
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "runtime/memory/hashed_ngram_embedder.hpp"
#include "runtime/memory/memory_bank.hpp"

using namespace kaisha;
using namespace kaisha::memory;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kDims = 64;
constexpr int kQueries = 300;

std::vector<std::string> vocabulary() {
  std::mt19937 rng(1);
  std::vector<std::string> v;
  const std::string letters = "abcdefghijklmnopqrstuvwxyz";
  for (int i = 0; i < 2000; ++i) {
    std::string w;
    const int len = 4 + static_cast<int>(rng() % 6);
    for (int k = 0; k < len; ++k) w += letters[rng() % letters.size()];
    v.push_back(w);
  }
  return v;
}

std::string sentence(std::mt19937& rng, const std::vector<std::string>& vocab, int words) {
  std::string s;
  for (int i = 0; i < words; ++i) s += (i ? " " : "") + vocab[rng() % vocab.size()];
  return s;
}

struct Stats {
  double p50 = 0, p99 = 0;
};

Stats percentiles(std::vector<double> us) {
  std::sort(us.begin(), us.end());
  auto at = [&](double q) { return us[std::min(us.size() - 1, static_cast<size_t>(q * us.size()))]; };
  return {at(0.50), at(0.99)};
}

template <class F>
Stats time_each(const std::vector<std::string>& queries, F f) {
  for (int i = 0; i < 20; ++i) f(queries[static_cast<size_t>(i) % queries.size()]);  // warm up
  std::vector<double> us;
  for (const auto& q : queries) {
    const auto t0 = Clock::now();
    f(q);
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
  return percentiles(std::move(us));
}

void run(size_t n) {
  const auto vocab = vocabulary();
  std::mt19937 rng(42);
  std::string tmpl = (std::filesystem::temp_directory_path() / "kaisha-bench-memory-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) return;
  const std::string dir = tmpl;
  auto embedder = std::make_shared<HashedNgramEmbedder>(kDims);

  const auto t_build = Clock::now();
  auto store = MemoryStore::open(dir + "/memory.db");
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.error().message.c_str());
    return;
  }
  MemoryBankOptions bo;
  bo.index.m = 16;
  bo.index.ef_construction = 64;
  bo.embed_batch = 4096;
  auto bank = MemoryBank::open(std::move(store).value(), embedder, bo);
  std::vector<MemoryEntry> entries;
  entries.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    MemoryEntry e;
    e.id = "m" + std::to_string(i);
    e.content = sentence(rng, vocab, 6 + static_cast<int>(rng() % 10));
    entries.push_back(std::move(e));
  }
  auto added = (*bank)->add_many(std::move(entries));
  if (!added.ok()) {
    std::fprintf(stderr, "%s\n", added.error().message.c_str());
    return;
  }
  const double build_s = std::chrono::duration<double>(Clock::now() - t_build).count();

  std::vector<std::string> queries;
  for (int i = 0; i < kQueries; ++i) queries.push_back(sentence(rng, vocab, 5));
  std::vector<Vector> qv;
  for (const auto& q : queries) qv.push_back(embedder->embed_one(q));

  const VectorIndex& index = (*bank)->index();
  size_t qi = 0;
  Stats idx = time_each(queries, [&](const std::string&) { index.search(qv[qi++ % qv.size()], 5); });
  RetrievalOptions vec;
  vec.lexical_weight = 0;
  vec.touch = false;
  Stats vector = time_each(queries, [&](const std::string& q) { (*bank)->retrieve(q, vec); });
  RetrievalOptions hyb;
  hyb.touch = false;
  Stats hybrid = time_each(queries, [&](const std::string& q) { (*bank)->retrieve(q, hyb); });

  std::printf(
      "%9zu entries  build %7.1f s  index %-5s  index p50 %8.1f us p99 %8.1f us | vector retrieve p50 %8.1f us "
      "p99 %8.1f us | hybrid retrieve p50 %8.1f us p99 %8.1f us\n",
      n, build_s, index.approximate() ? "hnsw" : "exact", idx.p50, idx.p99, vector.p50, vector.p99, hybrid.p50,
      hybrid.p99);

  if (n <= 100000) {  // the exact baseline over the same vectors, and recall@5
    VectorIndexOptions exact_opts;
    exact_opts.exact_below = n + 1;
    VectorIndex exact(exact_opts);
    (*bank)->store().for_each_vector(embedder->model_id(),
                                     [&](int64_t label, const Vector& v) { exact.add(label, v); });
    qi = 0;
    Stats ex = time_each(queries, [&](const std::string&) { exact.search(qv[qi++ % qv.size()], 5); });
    size_t agree = 0, total = 0;
    for (const auto& q : qv) {
      auto want = exact.search(q, 5), got = index.search(q, 5);
      for (const auto& w : want) {
        ++total;
        for (const auto& g : got)
          if (g.label == w.label) ++agree;
      }
    }
    std::printf(
        "%9zu entries  exact scan baseline p50 %8.1f us p99 %8.1f us  (index/exact p50 = %.3f)  recall@5 %.3f\n", n,
        ex.p50, ex.p99, idx.p50 / ex.p50, total ? double(agree) / total : 1.0);
  }
  std::fflush(stdout);
  bank->reset();
  std::filesystem::remove_all(dir);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<size_t> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::stoul(argv[i]));
  if (sizes.empty()) sizes = {1000, 100000, 1000000};
  std::printf("memory retrieval, hashed n-gram embedder at %d dims, top-5, %d queries per figure\n", kDims, kQueries);
  for (size_t n : sizes) run(n);
}
