// Branch copies and change sets (runtime/tools/workspace_branch.hpp); the
// tools that use them are tested in pyramid_tools_test.cpp.
#include "runtime/tools/workspace_branch.hpp"

#include <gtest/gtest.h>

#include "tests/runtime/tools/tools_test_util.hpp"

namespace kaisha::tools {
namespace {

using testing::TempDir;

TEST(WorkspaceBranch, ChangesBetweenManifestsAreAddedModifiedAndRemoved) {
  Manifest base{{"a", "1"}, {"b", "2"}, {"c", "3"}};
  Manifest now{{"a", "1"}, {"b", "9"}, {"d", "4"}};
  ChangeSet c = changes_between(base, now);
  EXPECT_EQ(c.added, std::vector<std::string>{"d"});
  EXPECT_EQ(c.modified, std::vector<std::string>{"b"});
  EXPECT_EQ(c.removed, std::vector<std::string>{"c"});
  EXPECT_TRUE(changes_between(now, now).to_json()["added"].empty());
}

TEST(WorkspaceBranch, ATreeTooLargeToBranchSaysWhy) {
  TempDir dir;
  for (int i = 0; i < 3; ++i) dir.write("main/f" + std::to_string(i) + ".txt", std::string(100, 'x'));
  auto main = FileView::open(dir.file("main"));
  auto branch = FileView::open(dir.file("branch"));
  ASSERT_TRUE(main.ok() && branch.ok());
  auto many = copy_tree(*main, *branch, BranchLimits{2, 1 << 20});
  ASSERT_FALSE(many.ok());
  EXPECT_EQ(many.error().message, "the task's directory has more than 2 files to branch");
  auto big = copy_tree(*main, *branch, BranchLimits{100, 250});
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.error().message.find("too much to branch"), std::string::npos) << big.error().message;
  auto fits = copy_tree(*main, *branch, BranchLimits{3, 300});
  ASSERT_TRUE(fits.ok()) << fits.error().message;
  EXPECT_EQ(fits->size(), 3u);
  auto again = manifest_of(*branch);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *fits);  // the copy hashes as the original
}

}  // namespace
}  // namespace kaisha::tools
