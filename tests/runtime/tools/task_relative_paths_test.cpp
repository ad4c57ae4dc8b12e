// Paths as InfiHelper's prompts spell them (runtime/tools/task_relative_paths.hpp).
#include <gtest/gtest.h>

#include "runtime/tools/task_relative_paths.hpp"

namespace kaisha::tools {
namespace {

TEST(TaskRelativePaths, ThePromptsPrefixForThisTaskIsDropped) {
  const std::string t = "t-20261207-1";
  EXPECT_EQ(task_relative_path("workspace/tasks/t-20261207-1/project_designs/a.md", t), "project_designs/a.md");
  EXPECT_EQ(task_relative_path("workspace/tasks/{task_id}/code_run/x.py", t), "code_run/x.py");
  EXPECT_EQ(task_relative_path("workspace/tasks/task_id/code_run/x.py", t), "code_run/x.py");
  EXPECT_EQ(task_relative_path("./workspace/tasks/t-20261207-1/論文/草稿 🚀.md", t), "論文/草稿 🚀.md");
  EXPECT_EQ(task_relative_path("/workspace/tasks/{task_id}/a.md", t), "a.md");
  EXPECT_EQ(task_relative_path("workspace/tasks/t-20261207-1", t), ".");
  EXPECT_EQ(task_relative_path("workspace/tasks/t-20261207-1/", t), ".");
}

TEST(TaskRelativePaths, AnyOtherPathIsLeftForTheFileViewToJudge) {
  const std::string t = "t-1";
  for (const std::string p :
       {"code_run/x.py", "workspace/tasks/t-2/a.md", "workspace/tasks", "workspace/a.md", "/etc/passwd", ""})
    EXPECT_EQ(task_relative_path(p, t), p) << p;
  // What follows the prefix is not trusted either: ".." stays for the file view to refuse.
  EXPECT_EQ(task_relative_path("workspace/tasks/t-1/../../../etc/passwd", t), "../../../etc/passwd");
}

TEST(TaskRelativePaths, EveryPathArgumentOfAFileToolIsRewritten) {
  const json args{{"file_path", "workspace/tasks/{task_id}/a.md"},
                  {"source", "workspace/tasks/{task_id}/b.md"},
                  {"destination", "c.md"},
                  {"paths", {"workspace/tasks/{task_id}/d.md", 5}},
                  {"content", "workspace/tasks/{task_id}/a.md stays as written"}};
  const json out = task_relative_arguments(args, "t-1");
  EXPECT_EQ(out["file_path"], "a.md");
  EXPECT_EQ(out["source"], "b.md");
  EXPECT_EQ(out["destination"], "c.md");
  EXPECT_EQ(out["paths"], json({"d.md", 5}));
  EXPECT_EQ(out["content"], args["content"]);
  EXPECT_EQ(task_relative_arguments(json("not an object"), "t-1"), json("not an object"));
}

}  // namespace
}  // namespace kaisha::tools
