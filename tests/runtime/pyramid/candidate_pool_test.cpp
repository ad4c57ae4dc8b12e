#include "runtime/pyramid/candidate_pool.hpp"

#include <gtest/gtest.h>

namespace kaisha::pyramid {
namespace {

const std::vector<std::string> kModels{"m:a", "m:b", "m:c"};

EvolutionSettings small() {
  EvolutionSettings s;
  s.window = 4;
  s.prune_below = 0.3;
  s.min_verdicts = 3;
  s.dominance = 0.75;
  s.min_calls = 4;
  return s;
}

// Item 54 with synthetic scores: the pool shrinks, then the default changes.
TEST(CandidatePool, AWeakCandidateIsPrunedAndAConsistentWinnerBecomesTheDefault) {
  CandidatePool pool(small());
  EXPECT_EQ(pool.running("w", kModels), kModels);
  std::vector<CandidatePool::Change> changes;
  for (int i = 0; i < 3; ++i) {
    pool.on_verdict("w", "m:a", true);
    pool.on_verdict("w", "m:b", true);
    auto c = pool.on_verdict("w", "m:c", false);
    changes.insert(changes.end(), c.begin(), c.end());
  }
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].kind, "pruned");
  EXPECT_EQ(changes[0].model, "m:c");
  EXPECT_NE(changes[0].why.find("windowed Q 0"), std::string::npos) << changes[0].why;
  EXPECT_EQ(pool.running("w", kModels), std::vector<std::string>({"m:a", "m:b"}));
  // m:b answers 3 of 4 calls: it dominates once there are 4 in the window.
  EXPECT_TRUE(pool.on_call("w", {"m:a", "m:b"}, "m:b").empty());
  EXPECT_TRUE(pool.on_call("w", {"m:a", "m:b"}, "m:a").empty());
  EXPECT_TRUE(pool.on_call("w", {"m:a", "m:b"}, "m:b").empty());
  auto d = pool.on_call("w", {"m:a", "m:b"}, "m:b");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].kind, "default");
  EXPECT_EQ(d[0].model, "m:b");
  EXPECT_EQ(pool.running("w", kModels), std::vector<std::string>({"m:b"}));
}

// Reversible: a default whose windowed Q falls is revoked; by hand too; a
// pruned candidate can be restored by hand.
TEST(CandidatePool, ADefaultIsRevokedWhenItFallsAndChangesCanBeUndone) {
  CandidatePool pool(small());
  for (int i = 0; i < 4; ++i) pool.on_call("w", {"m:a", "m:b"}, "m:a");
  ASSERT_EQ(pool.default_model("w"), "m:a");
  std::vector<CandidatePool::Change> changes;
  for (int i = 0; i < 3; ++i) {
    auto c = pool.on_verdict("w", "m:a", false);
    changes.insert(changes.end(), c.begin(), c.end());
  }
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].kind, "default_revoked");
  EXPECT_EQ(pool.running("w", kModels), kModels);

  for (int i = 0; i < 4; ++i) pool.on_call("w", {"m:a", "m:b"}, "m:b");
  ASSERT_EQ(pool.default_model("w"), "m:b");
  auto undone = pool.undo("w", "");
  ASSERT_TRUE(undone.ok());
  EXPECT_EQ(undone->kind, "default_revoked");
  EXPECT_EQ(pool.default_model("w"), "");
  EXPECT_FALSE(pool.undo("w", "").ok());
  EXPECT_NE(pool.undo("w", "m:z").error().message.find("is not pruned"), std::string::npos);
}

// The last candidate standing is never pruned; off keeps everybody.
TEST(CandidatePool, TheLastCandidateStaysAndPruningCanBeTurnedOff) {
  CandidatePool pool(small());
  for (int i = 0; i < 3; ++i) pool.on_verdict("w", "m:a", false);
  EXPECT_EQ(pool.running("w", {"m:a"}), std::vector<std::string>({"m:a"}));
  EvolutionSettings off = small();
  off.prune = false;
  CandidatePool kept(off);
  for (int i = 0; i < 5; ++i) {
    kept.on_verdict("w", "m:a", true);
    EXPECT_TRUE(kept.on_verdict("w", "m:b", false).empty());
  }
  EXPECT_EQ(kept.running("w", kModels), kModels);
}

// The pool is saved as state and starts again from it.
TEST(CandidatePool, ItsStateRoundTrips) {
  CandidatePool pool(small());
  for (int i = 0; i < 3; ++i) {
    pool.on_verdict("w", "m:a", true);
    pool.on_verdict("w", "m:c", false);
  }
  for (int i = 0; i < 4; ++i) pool.on_call("w", {"m:a", "m:b"}, "m:a");
  const json state = pool.state_of("w");
  CandidatePool again(small());
  again.seed(CandidatePool::state_key("w"), state);
  EXPECT_EQ(again.state_of("w"), state);
  EXPECT_EQ(again.default_model("w"), "m:a");
  EXPECT_TRUE(CandidatePool::is_state_key("pool/w"));
  EXPECT_FALSE(CandidatePool::is_state_key("w@m:a"));
}

}  // namespace
}  // namespace kaisha::pyramid
