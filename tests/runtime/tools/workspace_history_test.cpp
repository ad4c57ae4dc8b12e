// The main-branch history of a pyramid task (runtime/tools/workspace_history.hpp).
#include "runtime/tools/workspace_history.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "runtime/tools/text_diff.hpp"
#include "tests/runtime/tools/tools_test_util.hpp"

namespace kaisha::tools {
namespace {

using testing::TempDir;

// Every visible regular file under `dir` with its bytes.
std::map<std::string, std::string> files_of(const TempDir& root, const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root.file(dir)))
    if (e.is_regular_file())
      out[std::filesystem::relative(e.path(), root.file(dir)).string()] =
          root.read(dir + "/" + std::filesystem::relative(e.path(), root.file(dir)).string());
  return out;
}

struct HistoryFixture {
  TempDir root;
  FileView main = *FileView::open(root.file("main"));
  FileView branch = *FileView::open(root.file("branch"));
  WorkspaceHistory history = *WorkspaceHistory::open(root.file("history"));
};

Commit meta(const std::string& key, const std::string& model) {
  Commit c;
  c.key = key;
  c.branch = key;
  c.agent = "drafter__1";
  c.model = model;
  c.q = 0.7;
  c.verdict = json{{"status", "success"}, {"output", "fine"}};
  c.at_ms = 1000;
  return c;
}

// Item 52: revert restores the byte-identical earlier state: files changed,
// added (binary too) and removed since come back exactly as they were.
TEST(WorkspaceHistory, ARevertRestoresTheByteIdenticalEarlierState) {
  HistoryFixture f;
  f.root.write("main/plan.md", "the plan\n");
  f.root.write("main/data.bin", std::string("\x00\x01\xff\x7f", 4) + std::string(3000, '\0'));
  f.root.write("main/.hidden", "not tracked");
  ASSERT_TRUE(f.history.catch_up(f.main, 1).ok());
  const auto before = files_of(f.root, "main");

  // A merge changes one file, adds one and removes one.
  f.root.write("main/plan.md", "the plan, revised\n");
  f.root.write("main/code_run/main.py", "print('hi')\n");
  std::filesystem::remove(f.root.file("main/data.bin"));
  auto merged = f.history.record_merge(f.main, meta("f1-1", "mock:a"));
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  EXPECT_EQ(merged->id, 2);
  EXPECT_EQ(merged->parent, 1);
  EXPECT_EQ(merged->changes["added"], json({"code_run/main.py"}));
  EXPECT_EQ(merged->changes["modified"], json({"plan.md"}));
  EXPECT_EQ(merged->changes["removed"], json({"data.bin"}));
  ASSERT_NE(files_of(f.root, "main"), before);

  auto reverted = f.history.revert(f.main, 1, 2000);
  ASSERT_TRUE(reverted.ok()) << reverted.error().message;
  EXPECT_EQ(reverted->kind, "revert");
  EXPECT_EQ(reverted->why, "to commit 1");
  EXPECT_EQ(files_of(f.root, "main"), before);  // every byte, the hidden file untouched
  // And the revert itself can be reverted: back to the merge's state.
  auto forward = f.history.revert(f.main, 2, 3000);
  ASSERT_TRUE(forward.ok()) << forward.error().message;
  EXPECT_EQ(f.root.read("main/plan.md"), "the plan, revised\n");
  EXPECT_FALSE(std::filesystem::exists(f.root.file("main/data.bin")));
  auto all = f.history.commits();
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 4u);
  EXPECT_EQ((*all)[3].parent, 3);
}

// What changed in the directory between merges is its own commit, so a
// revert goes back to just before a merge.
TEST(WorkspaceHistory, WorkBetweenMergesIsItsOwnCommit) {
  HistoryFixture f;
  f.root.write("main/a.md", "1");
  ASSERT_TRUE(f.history.catch_up(f.main, 1).ok());
  ASSERT_TRUE(f.history.catch_up(f.main, 2).ok());  // nothing changed: no commit
  f.root.write("main/a.md", "2");
  ASSERT_TRUE(f.history.catch_up(f.main, 3).ok());
  auto all = f.history.commits();
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].kind, "base");
  EXPECT_EQ((*all)[1].kind, "work");
  EXPECT_EQ((*all)[1].changes["modified"], json({"a.md"}));
}

// A rejected change set keeps its files (the branch can go) and never
// becomes main's parent; a revert to it is refused, saying why.
TEST(WorkspaceHistory, ARejectedChangeSetIsKeptButNeverInMain) {
  HistoryFixture f;
  f.root.write("main/draft.md", "main's\n");
  ASSERT_TRUE(f.history.catch_up(f.main, 1).ok());
  f.root.write("branch/draft.md", "the loser's\n");
  ChangeSet changes;
  changes.modified = {"draft.md"};
  Commit m = meta("f1-2", "mock:b");
  m.why = "its changes conflict with mock:a's";
  auto rejected = f.history.record_rejected(f.branch, changes, m);
  ASSERT_TRUE(rejected.ok()) << rejected.error().message;
  EXPECT_EQ(rejected->kind, "rejected");
  std::filesystem::remove_all(f.root.file("branch"));
  auto diff = f.history.diff(rejected->id);
  ASSERT_TRUE(diff.ok()) << diff.error().message;
  EXPECT_NE(diff->find("-main's\n+the loser's\n"), std::string::npos) << *diff;
  auto refused = f.history.revert(f.main, rejected->id, 5);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("was rejected"), std::string::npos) << refused.error().message;
  // The next main commit follows the base, not the rejected one.
  f.root.write("main/more.md", "x");
  auto next = f.history.record_merge(f.main, meta("f2-1", "mock:a"));
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->parent, 1);
}

// Bad input: a commit that does not exist says so and which there are.
TEST(WorkspaceHistory, ACommitThatDoesNotExistSaysSo) {
  HistoryFixture f;
  auto none = f.history.revert(f.main, 3, 1);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message, "no commit 3: the task has no commits");
  f.root.write("main/a.md", "1");
  ASSERT_TRUE(f.history.catch_up(f.main, 1).ok());
  auto missing = f.history.diff(7);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "no commit 7: the task's commits are 1 to 1");
}

// A commit recorded under a key is found by it (a resumed merge records once),
// and a damaged blob is refused rather than restored.
TEST(WorkspaceHistory, KeysFindCommitsAndADamagedBlobIsRefused) {
  HistoryFixture f;
  f.root.write("main/a.md", "1");
  ASSERT_TRUE(f.history.catch_up(f.main, 1).ok());
  f.root.write("main/a.md", "2");
  ASSERT_TRUE(f.history.record_merge(f.main, meta("f1-1", "mock:a")).ok());
  auto found = f.history.by_key("f1-1");
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_EQ((**found).id, 2);
  EXPECT_FALSE(f.history.by_key("f9-9")->has_value());
  auto base = f.history.get(1);
  ASSERT_TRUE(base.ok());
  f.root.write("history/objects/" + base->tree.at("a.md"), "tampered");
  auto refused = f.history.revert(f.main, 1, 2);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("is damaged"), std::string::npos);
  EXPECT_EQ(f.root.read("main/a.md"), "2");  // nothing was touched
}

// A merge cut short by a kill and begun again: what main holds of it is
// its own, so no work commit is made and the merge commit has its changes.
TEST(WorkspaceHistory, AMergeBegunAgainAfterAKillIsOneCommit) {
  HistoryFixture f;
  f.root.write("main/a.md", "1");
  ASSERT_TRUE(f.history.begin_merge(f.main, "f1-2", 1).ok());
  f.root.write("main/b.md", "merged before the kill");
  ASSERT_TRUE(f.history.begin_merge(f.main, "f1-2", 2).ok());  // the resume
  auto merged = f.history.record_merge(f.main, meta("f1-2", "mock:b"));
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  EXPECT_EQ(merged->id, 2);
  EXPECT_EQ(merged->changes["added"], json({"b.md"}));
  // The mark is gone: a later merge catches up with the task's own work.
  f.root.write("main/c.md", "the task's own");
  ASSERT_TRUE(f.history.begin_merge(f.main, "f2-1", 3).ok());
  auto all = f.history.commits();
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[2].kind, "work");
}

TEST(TextDiff, ShowsChangedLinesWithContext) {
  const std::string d = line_diff("a\nb\nc\nd\ne\nf\ng\nh\n", "a\nb\nc\nD\ne\nf\ng\nh\n", 1);
  EXPECT_EQ(d, "@@ -3,3 +3,3 @@\n c\n-d\n+D\n e\n");
  EXPECT_EQ(line_diff("same\n", "same\n"), "");
  EXPECT_EQ(line_diff("", "new\n"), "@@ -0,0 +1,1 @@\n+new\n");
  EXPECT_FALSE(looks_like_text(std::string("a\0b", 3)));
}

}  // namespace
}  // namespace kaisha::tools
