// VectorIndex: nearest neighbours by cosine similarity over unit vectors,
// keyed by the store's integer labels. Below `exact_below` vectors it is an
// exact scan of a flat array; when it grows past that it moves every vector
// into an HNSW graph (hnswlib, inner-product space) and stays there, so
// search stays fast at a million entries (approximate: a true neighbour may
// be missed, rarely; see bench/README.md for recall figures).
//
// Persistence: save() writes <dir>/meta.json plus the flat vectors or the
// hnswlib graph, through temporary files renamed into place. load() accepts
// the files only when they were written for the same embedding model and the
// same store generation and are intact; otherwise it fails with code "stale"
// and the caller rebuilds from the vectors cached in SQLite.
//
// Threading: not thread-safe; one owner (the memory service's worker).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/core/result.hpp"
#include "runtime/memory/embedder.hpp"

namespace hnswlib {
template <typename T>
class HierarchicalNSW;
class InnerProductSpace;
}  // namespace hnswlib

namespace kaisha::memory {

struct IndexHit {
  int64_t label = 0;
  double similarity = 0;  // cosine, in [-1, 1]
};

struct VectorIndexOptions {
  size_t exact_below = 10000;  // exact scan up to this many vectors (effGen's flat/IVF switch)
  int m = 16;                  // HNSW links per node
  int ef_construction = 100;   // HNSW build-time beam
  int ef_search = 64;          // HNSW query-time beam (at least k)
};

class VectorIndex {
 public:
  explicit VectorIndex(VectorIndexOptions options = {});
  ~VectorIndex();
  VectorIndex(const VectorIndex&) = delete;
  VectorIndex& operator=(const VectorIndex&) = delete;

  // 0 until the first vector fixes it.
  int dims() const { return dims_; }
  size_t size() const { return size_; }
  bool approximate() const { return hnsw_ != nullptr; }

  // Adds or replaces the vector of `label`; fails when its size differs from
  // the index's dims.
  Status add(int64_t label, const Vector& v);
  // Forgets `label` (unknown labels are ignored).
  void remove(int64_t label);
  // The k most similar, best first.
  std::vector<IndexHit> search(const Vector& query, size_t k) const;

  Status save(const std::string& dir, const std::string& model, int64_t generation) const;
  static Result<std::unique_ptr<VectorIndex>> load(const std::string& dir, const std::string& model, int64_t generation,
                                                   VectorIndexOptions options = {});

 private:
  void move_to_hnsw();
  void ensure_hnsw_capacity();

  VectorIndexOptions options_;
  int dims_ = 0;
  size_t size_ = 0;
  // Exact mode.
  std::vector<int64_t> labels_;
  std::vector<float> flat_;  // size_ rows of dims_ floats
  std::unordered_map<int64_t, size_t> slot_;
  // HNSW mode.
  std::unique_ptr<hnswlib::InnerProductSpace> space_;
  std::unique_ptr<hnswlib::HierarchicalNSW<float>> hnsw_;
};

}  // namespace kaisha::memory
