// Seeded samples of a suite: distinct, ascending, the same for the same
// seed, and (a promise to users) the same items for a seed in every version.
#include "runtime/suite/suite_sample.hpp"

#include <algorithm>
#include <set>

#include <gtest/gtest.h>

namespace kaisha::suite {
namespace suite_sample_test {

TEST(SuiteSample, DistinctAscendingAndTheSameForTheSameSeed) {
  const auto a = sample_indices(1000, 50, 42);
  ASSERT_EQ(a.size(), 50u);
  EXPECT_TRUE(std::is_sorted(a.begin(), a.end()));
  EXPECT_EQ(std::set<size_t>(a.begin(), a.end()).size(), 50u);
  EXPECT_LT(a.back(), 1000u);
  EXPECT_EQ(sample_indices(1000, 50, 42), a);
  EXPECT_NE(sample_indices(1000, 50, 43), a);
  // A larger sample with the same seed keeps the smaller one's items (a run
  // extended with --resume --limit answers only new ones).
  const auto more = sample_indices(1000, 80, 42);
  EXPECT_TRUE(std::includes(more.begin(), more.end(), a.begin(), a.end()));
}

TEST(SuiteSample, AskingForAsManyOrMoreGivesEveryItem) {
  EXPECT_EQ(sample_indices(3, 3, 7), (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(sample_indices(3, 10, 7), (std::vector<size_t>{0, 1, 2}));
  EXPECT_TRUE(sample_indices(0, 5, 7).empty());
  EXPECT_TRUE(sample_indices(5, 0, 7).empty());
}

TEST(SuiteSample, Seed42PicksTheSameItemsInEveryVersion) {
  // Fixed here: changing the engine or the shuffle would change users' samples.
  EXPECT_EQ(sample_indices(20, 5, 42), (std::vector<size_t>{1, 9, 10, 14, 17}));
}

}  // namespace suite_sample_test
}  // namespace kaisha::suite
