#include "runtime/pyramid/merge_plan.hpp"

#include <gtest/gtest.h>

namespace kaisha::pyramid {
namespace {

MergeCandidate cand(std::string name, bool accepted, double q, std::map<std::string, std::string> changed) {
  return MergeCandidate{std::move(name), accepted, q, std::move(changed)};
}

// Item 51: if 1 of 3 is accepted, main gets exactly that change set.
TEST(MergePlan, OnlyAcceptedChangeSetsAreMerged) {
  const MergePlan p = plan_merges(
      {cand("a", false, 0.9, {{"x", "1"}}), cand("b", true, 0.5, {{"y", "2"}}), cand("c", false, 0.7, {{"z", "3"}})});
  EXPECT_EQ(p.merge, std::vector<size_t>({1}));
  EXPECT_TRUE(p.rejected.empty());
}

// Every accepted change set is merged, not only the first; the order is by Q.
TEST(MergePlan, EveryAcceptedChangeSetIsMergedHighestQFirst) {
  const MergePlan p = plan_merges(
      {cand("a", true, 0.4, {{"x", "1"}}), cand("b", true, 0.8, {{"y", "2"}}), cand("c", true, 0.6, {{"z", "3"}})});
  EXPECT_EQ(p.merge, std::vector<size_t>({1, 2, 0}));
}

// Conflicting change sets: the higher Q wins, the other is rejected whole
// (its other files too), with the reason naming the winner and the file.
TEST(MergePlan, AConflictIsWonByTheHigherQAndTheLoserIsRejectedWhole) {
  const MergePlan p = plan_merges(
      {cand("a", true, 0.4, {{"draft.md", "1"}, {"notes.md", "n"}}), cand("b", true, 0.9, {{"draft.md", "2"}})});
  EXPECT_EQ(p.merge, std::vector<size_t>({1}));
  ASSERT_EQ(p.rejected.count(0), 1u);
  EXPECT_NE(p.rejected.at(0).find("conflict with b's"), std::string::npos) << p.rejected.at(0);
  EXPECT_NE(p.rejected.at(0).find("over draft.md"), std::string::npos) << p.rejected.at(0);
}

// The same content written by two candidates is no conflict; a removal of
// what another writes is one. Equal Q: candidate order.
TEST(MergePlan, SameContentIsNoConflictAndTiesGoInCandidateOrder) {
  MergePlan p = plan_merges({cand("a", true, 0.5, {{"x", "1"}}), cand("b", true, 0.5, {{"x", "1"}})});
  EXPECT_EQ(p.merge, std::vector<size_t>({0, 1}));
  p = plan_merges({cand("a", true, 0.5, {{"x", "1"}}), cand("b", true, 0.5, {{"x", ""}})});
  EXPECT_EQ(p.merge, std::vector<size_t>({0}));
  EXPECT_EQ(p.rejected.count(1), 1u);
}

// A candidate whose merge failed is left out; the one it beat goes in.
TEST(MergePlan, AnExcludedCandidateNeitherMergesNorConflicts) {
  const std::vector<MergeCandidate> c{cand("a", true, 0.9, {{"x", "1"}}), cand("b", true, 0.5, {{"x", "2"}})};
  EXPECT_EQ(plan_merges(c).merge, std::vector<size_t>({0}));
  EXPECT_EQ(plan_merges(c, {0}).merge, std::vector<size_t>({1}));
}

TEST(MergePlan, ReadsAChangeSetWithItsHashes) {
  const json changes{{"added", {"a"}}, {"modified", {"m"}}, {"removed", {"r"}}, {"hashes", {{"a", "h1"}}}};
  const auto files = changed_files(changes, "f1-1");
  EXPECT_EQ(files.at("a"), "h1");
  EXPECT_EQ(files.at("m"), "?f1-1");  // no hash: unlike anybody's
  EXPECT_EQ(files.at("r"), "");
}

}  // namespace
}  // namespace kaisha::pyramid
