#include "runtime/memory/vector_index.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "memory_test_util.hpp"

namespace kaisha::memory {
namespace {

Vector random_unit(std::mt19937& rng, int dims) {
  std::normal_distribution<float> n(0, 1);
  Vector v(static_cast<size_t>(dims));
  for (float& x : v) x = n(rng);
  normalize(v);
  return v;
}

// The exact answer by brute force, for comparison.
int64_t brute_best(const std::vector<Vector>& vs, const Vector& q) {
  int64_t best = -1;
  double s = -2;
  for (size_t i = 0; i < vs.size(); ++i)
    if (double d = dot(vs[i], q); d > s) s = d, best = static_cast<int64_t>(i + 1);
  return best;
}

TEST(VectorIndex, ExactSearchReturnsTheTopKInOrder) {
  VectorIndex idx;
  ASSERT_TRUE(idx.add(1, {1, 0}).ok());
  ASSERT_TRUE(idx.add(2, {0, 1}).ok());
  Vector diag = {1, 1};
  normalize(diag);
  ASSERT_TRUE(idx.add(3, diag).ok());
  auto hits = idx.search({1, 0}, 2);
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].label, 1);
  EXPECT_NEAR(hits[0].similarity, 1.0, 1e-6);
  EXPECT_EQ(hits[1].label, 3);
  EXPECT_NEAR(hits[1].similarity, std::sqrt(0.5), 1e-6);
  EXPECT_FALSE(idx.approximate());
}

TEST(VectorIndex, ReplaceRemoveAndDimensionMismatch) {
  VectorIndex idx;
  ASSERT_TRUE(idx.add(1, {1, 0}).ok());
  ASSERT_TRUE(idx.add(2, {0, 1}).ok());
  ASSERT_TRUE(idx.add(1, {0, 1}).ok());  // replaces
  EXPECT_EQ(idx.size(), 2u);
  idx.remove(2);
  idx.remove(99);  // unknown: ignored
  EXPECT_EQ(idx.size(), 1u);
  auto hits = idx.search({0, 1}, 5);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].label, 1);
  Status bad = idx.add(3, {1, 0, 0});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("3 dimensions"), std::string::npos);
}

TEST(VectorIndex, MovesToHnswPastTheThresholdAndStillFindsNeighbours) {
  VectorIndexOptions o;
  o.exact_below = 200;
  VectorIndex idx(o);
  std::mt19937 rng(7);
  std::vector<Vector> vs;
  for (int i = 1; i <= 600; ++i) {
    vs.push_back(random_unit(rng, 16));
    ASSERT_TRUE(idx.add(i, vs.back()).ok());
    EXPECT_EQ(idx.approximate(), i > 200) << i;
  }
  EXPECT_EQ(idx.size(), 600u);
  int found = 0;
  for (int t = 0; t < 50; ++t) {
    const Vector q = random_unit(rng, 16);
    auto hits = idx.search(q, 5);
    ASSERT_EQ(hits.size(), 5u);
    for (size_t i = 1; i < hits.size(); ++i) EXPECT_GE(hits[i - 1].similarity, hits[i].similarity);
    if (hits[0].label == brute_best(vs, q)) ++found;
  }
  EXPECT_GE(found, 45);  // approximate, but this small graph is nearly exact
  // Removing and re-adding work in HNSW mode too.
  idx.remove(1);
  EXPECT_EQ(idx.size(), 599u);
  for (const auto& h : idx.search(vs[0], 10)) EXPECT_NE(h.label, 1);
  ASSERT_TRUE(idx.add(1, vs[0]).ok());
  EXPECT_EQ(idx.size(), 600u);
  EXPECT_EQ(idx.search(vs[0], 1).at(0).label, 1);
}

void round_trip(size_t n, size_t exact_below) {
  testing::TempDir dir;
  VectorIndexOptions o;
  o.exact_below = exact_below;
  VectorIndex idx(o);
  std::mt19937 rng(3);
  std::vector<Vector> vs;
  for (size_t i = 1; i <= n; ++i) {
    vs.push_back(random_unit(rng, 8));
    ASSERT_TRUE(idx.add(static_cast<int64_t>(i), vs.back()).ok());
  }
  idx.remove(2);
  const std::string d = dir.file("index");
  ASSERT_TRUE(idx.save(d, "model-a", 42).ok());
  auto loaded = VectorIndex::load(d, "model-a", 42, o);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  EXPECT_EQ((*loaded)->size(), n - 1);
  EXPECT_EQ((*loaded)->approximate(), idx.approximate());
  EXPECT_EQ((*loaded)->search(vs[4], 1).at(0).label, 5);
  // Another generation or model: stale.
  auto stale = VectorIndex::load(d, "model-a", 43, o);
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.error().code, "stale");
  EXPECT_EQ(VectorIndex::load(d, "model-b", 42, o).error().code, "stale");
  // A truncated data file: stale, not a crash.
  for (const auto& f : std::filesystem::directory_iterator(d))
    if (f.path().filename() != "meta.json") std::filesystem::resize_file(f.path(), 10);
  EXPECT_EQ(VectorIndex::load(d, "model-a", 42, o).error().code, "stale");
  // Garbage meta: stale.
  std::ofstream(d + "/meta.json") << "{not json";
  EXPECT_EQ(VectorIndex::load(d, "model-a", 42, o).error().code, "stale");
  EXPECT_EQ(VectorIndex::load(dir.file("missing"), "model-a", 42, o).error().code, "stale");
}

TEST(VectorIndex, ExactIndexSavesAndLoads) { round_trip(50, 1000); }
TEST(VectorIndex, HnswIndexSavesAndLoads) { round_trip(300, 100); }

}  // namespace
}  // namespace kaisha::memory
