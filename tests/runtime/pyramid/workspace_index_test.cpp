#include "runtime/pyramid/workspace_index.hpp"

#include <gtest/gtest.h>

#include "runtime/core/utf8.hpp"
#include "runtime/llm/usage_estimate.hpp"

namespace kaisha::pyramid {
namespace {

// One token per line: easy to reason about in tests.
int64_t lines(std::string_view text) { return std::count(text.begin(), text.end(), '\n'); }

TEST(WorkspaceIndex, ShowsEveryFileWithItsDescriptionWhenItFits) {
  WorkspaceIndex index(llm::estimate_tokens);
  index.describe("project_designs/project_design_summary.md", "how the scripts fit together");
  index.describe("code_run/main.py", "entry script; prints the result");
  index.describe("notes/川.md", "河川の一覧 🌊");
  index.describe("code_run/main.py", "");  // no new description: the earlier one stays
  EXPECT_EQ(index.size(), 3u);
  EXPECT_EQ(index.render(1000),
            "- code_run/main.py: entry script; prints the result\n"
            "- notes/川.md: 河川の一覧 🌊\n"
            "- project_designs/project_design_summary.md: how the scripts fit together\n");
  index.remove("notes/川.md");
  EXPECT_EQ(index.description("notes/川.md"), nullptr);
  ASSERT_NE(index.description("code_run/main.py"), nullptr);
  EXPECT_EQ(*index.description("code_run/main.py"), "entry script; prints the result");
  EXPECT_EQ(WorkspaceIndex(lines).render(100), "");
}

// The rendering is kept between calls, and any change shows at once.
TEST(WorkspaceIndex, AChangeShowsInTheNextRendering) {
  WorkspaceIndex index(llm::estimate_tokens);
  index.describe("a.md", "first");
  EXPECT_EQ(index.render(1000), index.render(1000));
  index.describe("b.md", "second");
  EXPECT_NE(index.render(1000).find("b.md: second"), std::string::npos) << index.render(1000);
  index.describe("a.md", "changed");
  EXPECT_NE(index.render(1000).find("a.md: changed"), std::string::npos);
  index.remove("b.md");
  EXPECT_EQ(index.render(1000).find("b.md"), std::string::npos);
  EXPECT_LT(index.render(1).size(), index.render(1000).size()) << "another budget renders anew";
}

TEST(WorkspaceIndex, ShortensDescriptionsAtACharacterBeforeDroppingThem) {
  WorkspaceIndex index(llm::estimate_tokens);
  const std::string long_desc(300, 'd');
  const std::string japanese = "説明" + std::string(200, 'x');
  index.describe("a.txt", long_desc);
  index.describe("b.txt", japanese);
  const int64_t full = llm::estimate_tokens(index.render(100000));
  const std::string shorter = index.render(full - 1);
  EXPECT_LT(llm::estimate_tokens(shorter), full);
  EXPECT_NE(shorter.find("- a.txt: ddd"), std::string::npos) << shorter;
  EXPECT_TRUE(utf8::valid(shorter));
  EXPECT_EQ(index.render(8), "- a.txt\n- b.txt\n");  // paths only
}

TEST(WorkspaceIndex, CollapsesTheDeepestDirectoriesFirst) {
  WorkspaceIndex index(lines);
  for (int i = 0; i < 4; ++i) index.describe("runs/2026/r" + std::to_string(i) + ".json", "run");
  index.describe("runs/summary.md", "all runs");
  index.describe("README.md", "start here");
  // 6 files: 6 lines do not fit in 5; collapsing runs/2026/ gives 3 lines.
  EXPECT_EQ(index.render(5), "- README.md\n- runs/2026/ (4 files; dir_list to see them)\n- runs/summary.md\n");
  EXPECT_EQ(index.render(2), "- README.md\n- runs/ (5 files; dir_list to see them)\n");
  EXPECT_EQ(index.render(1), "- … 2 more entries (dir_list .)\n");
}

// infiagent.md §10 item 40: with 10,000 files, C_LM stays within its budget.
TEST(WorkspaceIndex, TenThousandFilesStayWithinTheBudget) {
  WorkspaceIndex index(llm::estimate_tokens);
  for (int d = 0; d < 100; ++d)
    for (int f = 0; f < 100; ++f)
      index.describe("data/part" + std::to_string(d) + "/file" + std::to_string(f) + ".csv",
                     "rows of measurement series " + std::to_string(d * 100 + f));
  EXPECT_EQ(index.size(), 10000u);
  for (int64_t budget : {50000, 4000, 500, 20, 3}) {
    const std::string text = index.render(budget);
    EXPECT_LE(llm::estimate_tokens(text), budget) << budget;
    EXPECT_EQ(text.empty(), budget < 9) << budget;  // the shortest line, "- … N more entries", is 9 tokens
  }
  EXPECT_NE(index.render(4000).find("- data/part0/ (100 files; dir_list to see them)"), std::string::npos);
}

}  // namespace
}  // namespace kaisha::pyramid
