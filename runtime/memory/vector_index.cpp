#include "runtime/memory/vector_index.hpp"

#include "runtime/core/json.hpp"

// hnswlib 0.6.2's SSE path prefetches one link past a full upper-layer link
// list (hnswalg.h searchBaseLayer): a read past the allocation that no
// result depends on, which AddressSanitizer reports and cannot suppress. The
// sanitizer build takes hnswlib's portable path instead; the normal build
// keeps the SSE distance functions.
#if defined(__SANITIZE_ADDRESS__) && !defined(NO_MANUAL_VECTORIZATION)
#define NO_MANUAL_VECTORIZATION
#endif
#include <hnswlib/hnswlib.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace kaisha::memory {
namespace {

namespace fs = std::filesystem;
constexpr int kFormat = 1;

Error stale(const std::string& dir, const std::string& why) {
  return Error{"stale", "vector index in " + dir + ": " + why};
}

// Writes through a temporary file renamed into place, so a crash never
// leaves a half-written file under the final name.
Status write_file(const fs::path& path, const std::string& bytes) {
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) return Error{"io", "cannot write " + tmp.string()};
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) return Error{"io", "cannot rename " + tmp.string() + ": " + ec.message()};
  return Status::Ok();
}

}  // namespace

VectorIndex::VectorIndex(VectorIndexOptions options) : options_(options) {}
VectorIndex::~VectorIndex() = default;

void VectorIndex::ensure_hnsw_capacity() {
  if (hnsw_->cur_element_count < hnsw_->max_elements_) return;
  hnsw_->resizeIndex(std::max<size_t>(1024, hnsw_->max_elements_ * 2));
}

void VectorIndex::move_to_hnsw() {
  space_ = std::make_unique<hnswlib::InnerProductSpace>(static_cast<size_t>(dims_));
  hnsw_ = std::make_unique<hnswlib::HierarchicalNSW<float>>(space_.get(), std::max<size_t>(1024, size_ * 2),
                                                            static_cast<size_t>(options_.m),
                                                            static_cast<size_t>(options_.ef_construction));
  for (size_t i = 0; i < labels_.size(); ++i)
    hnsw_->addPoint(flat_.data() + i * static_cast<size_t>(dims_), static_cast<hnswlib::labeltype>(labels_[i]));
  labels_.clear();
  labels_.shrink_to_fit();
  flat_.clear();
  flat_.shrink_to_fit();
  slot_.clear();
}

Status VectorIndex::add(int64_t label, const Vector& v) {
  if (v.empty()) return Error{"memory", "cannot index an empty vector"};
  if (dims_ == 0) dims_ = static_cast<int>(v.size());
  if (static_cast<int>(v.size()) != dims_)
    return Error{"memory", "vector of " + std::to_string(v.size()) + " dimensions for an index of " +
                               std::to_string(dims_) + " (was the embedding model changed?)"};
  if (hnsw_) {
    auto it = hnsw_->label_lookup_.find(static_cast<hnswlib::labeltype>(label));
    const bool known = it != hnsw_->label_lookup_.end();
    const bool was_live = known && !hnsw_->isMarkedDeleted(it->second);
    if (!known) ensure_hnsw_capacity();
    try {
      hnsw_->addPoint(v.data(), static_cast<hnswlib::labeltype>(label));  // updates (and undeletes) a known label
    } catch (const std::exception& e) {
      return Error{"memory", std::string("HNSW insert failed: ") + e.what()};
    }
    if (!was_live) ++size_;
    return Status::Ok();
  }
  if (auto it = slot_.find(label); it != slot_.end()) {
    std::copy(v.begin(), v.end(), flat_.begin() + static_cast<std::ptrdiff_t>(it->second * dims_));
    return Status::Ok();
  }
  slot_[label] = labels_.size();
  labels_.push_back(label);
  flat_.insert(flat_.end(), v.begin(), v.end());
  ++size_;
  if (size_ > options_.exact_below) move_to_hnsw();
  return Status::Ok();
}

void VectorIndex::remove(int64_t label) {
  if (hnsw_) {
    auto it = hnsw_->label_lookup_.find(static_cast<hnswlib::labeltype>(label));
    if (it == hnsw_->label_lookup_.end() || hnsw_->isMarkedDeleted(it->second)) return;
    hnsw_->markDelete(static_cast<hnswlib::labeltype>(label));
    --size_;
    return;
  }
  auto it = slot_.find(label);
  if (it == slot_.end()) return;
  const size_t slot = it->second, last = labels_.size() - 1;
  if (slot != last) {  // move the last row into the hole
    std::copy(flat_.begin() + static_cast<std::ptrdiff_t>(last * dims_),
              flat_.begin() + static_cast<std::ptrdiff_t>((last + 1) * dims_),
              flat_.begin() + static_cast<std::ptrdiff_t>(slot * dims_));
    labels_[slot] = labels_[last];
    slot_[labels_[slot]] = slot;
  }
  labels_.pop_back();
  flat_.resize(labels_.size() * static_cast<size_t>(dims_));
  slot_.erase(it);
  --size_;
}

std::vector<IndexHit> VectorIndex::search(const Vector& q, size_t k) const {
  std::vector<IndexHit> hits;
  if (k == 0 || size_ == 0 || static_cast<int>(q.size()) != dims_) return hits;
  if (hnsw_) {
    hnsw_->setEf(std::max<size_t>(static_cast<size_t>(options_.ef_search), k));
    auto pq = hnsw_->searchKnn(q.data(), k);
    while (!pq.empty()) {  // farthest first
      hits.push_back({static_cast<int64_t>(pq.top().second), 1.0 - static_cast<double>(pq.top().first)});
      pq.pop();
    }
    std::reverse(hits.begin(), hits.end());
    return hits;
  }
  // Exact: keep the best k in a small sorted vector.
  const size_t d = static_cast<size_t>(dims_);
  for (size_t i = 0; i < labels_.size(); ++i) {
    const float* row = flat_.data() + i * d;
    float s = 0;
    for (size_t j = 0; j < d; ++j) s += row[j] * q[j];
    if (hits.size() == k && s <= hits.back().similarity) continue;
    IndexHit h{labels_[i], s};
    auto pos = std::upper_bound(hits.begin(), hits.end(), h,
                                [](const IndexHit& a, const IndexHit& b) { return a.similarity > b.similarity; });
    hits.insert(pos, h);
    if (hits.size() > k) hits.pop_back();
  }
  return hits;
}

Status VectorIndex::save(const std::string& dir, const std::string& model, int64_t generation) const {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Error{"io", "cannot create index directory " + dir + ": " + ec.message()};
  const fs::path data = fs::path(dir) / (hnsw_ ? "hnsw.bin" : "vectors.bin");
  if (hnsw_) {
    const std::string tmp = data.string() + ".tmp";
    try {
      hnsw_->saveIndex(tmp);
    } catch (const std::exception& e) {
      return Error{"io", "cannot write " + tmp + ": " + e.what()};
    }
    fs::rename(tmp, data, ec);
    if (ec) return Error{"io", "cannot rename " + tmp + ": " + ec.message()};
  } else {
    std::string bytes;
    bytes.reserve(labels_.size() * (8 + flat_.size() / std::max<size_t>(1, labels_.size()) * 4));
    const size_t d = static_cast<size_t>(dims_);
    for (size_t i = 0; i < labels_.size(); ++i) {
      bytes.append(reinterpret_cast<const char*>(&labels_[i]), sizeof(int64_t));
      bytes.append(reinterpret_cast<const char*>(flat_.data() + i * d), d * sizeof(float));
    }
    if (Status s = write_file(data, bytes); !s) return s;
  }
  const auto bytes = fs::file_size(data, ec);
  json meta = {{"format", kFormat},
               {"model", model},
               {"generation", generation},
               {"dims", dims_},
               {"count", size_},
               {"mode", hnsw_ ? "hnsw" : "exact"},
               {"file", data.filename().string()},
               {"file_bytes", ec ? 0 : bytes}};
  // The meta file goes last: it vouches for the data file written before it.
  return write_file(fs::path(dir) / "meta.json", meta.dump());
}

Result<std::unique_ptr<VectorIndex>> VectorIndex::load(const std::string& dir, const std::string& model,
                                                       int64_t generation, VectorIndexOptions options) {
  std::ifstream in(fs::path(dir) / "meta.json", std::ios::binary);
  if (!in) return stale(dir, "no meta.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  json meta = json::parse(text, nullptr, false);
  if (!meta.is_object() || meta.value("format", 0) != kFormat) return stale(dir, "unreadable meta.json");
  if (meta.value("model", "") != model) return stale(dir, "built for model " + meta.value("model", std::string("?")));
  if (meta.value("generation", int64_t{-1}) != generation) return stale(dir, "built at another generation");
  const int dims = meta.value("dims", 0);
  const size_t count = meta.value("count", size_t{0});
  const fs::path data = fs::path(dir) / meta.value("file", std::string("?"));
  std::error_code ec;
  const auto bytes = fs::file_size(data, ec);
  if (ec || bytes != meta.value("file_bytes", uintmax_t{0})) return stale(dir, "data file missing or truncated");
  auto index = std::make_unique<VectorIndex>(options);
  index->dims_ = dims;
  if (meta.value("mode", "") == "hnsw") {
    if (dims <= 0) return stale(dir, "bad dims");
    index->space_ = std::make_unique<hnswlib::InnerProductSpace>(static_cast<size_t>(dims));
    try {
      index->hnsw_ = std::make_unique<hnswlib::HierarchicalNSW<float>>(index->space_.get(), data.string());
    } catch (const std::exception& e) {
      return stale(dir, std::string("cannot load HNSW graph: ") + e.what());
    }
    // Count the live elements ourselves, and set num_deleted_ from that:
    // hnswlib 0.6.2's loading constructor leaves it uninitialised, and its
    // search skips the deleted check when it reads 0.
    size_t live = 0;
    for (const auto& [label, internal] : index->hnsw_->label_lookup_)
      if (!index->hnsw_->isMarkedDeleted(internal)) ++live;
    index->hnsw_->num_deleted_ = index->hnsw_->cur_element_count - live;
    index->size_ = live;
    if (index->size_ != count) return stale(dir, "element count differs from meta.json");
    return index;
  }
  const size_t row = sizeof(int64_t) + static_cast<size_t>(dims) * sizeof(float);
  if (dims < 0 || (count > 0 && (dims == 0 || bytes != count * row))) return stale(dir, "bad vectors.bin size");
  std::ifstream vin(data, std::ios::binary);
  std::vector<float> v(static_cast<size_t>(dims));
  for (size_t i = 0; i < count; ++i) {
    int64_t label = 0;
    vin.read(reinterpret_cast<char*>(&label), sizeof label);
    vin.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(float)));
    if (!vin) return stale(dir, "cannot read vectors.bin");
    if (Status s = index->add(label, v); !s) return stale(dir, s.error().message);
  }
  return index;
}

}  // namespace kaisha::memory
