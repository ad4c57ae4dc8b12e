// The pyramid's level-0 tools (infiagent.md §10 items 46–48): one test per
// tool, confinement to the task's directory, and the clear failures.
#include "runtime/tools/pyramid_tools.hpp"

#include <filesystem>

#include <gtest/gtest.h>

#include "runtime/company/tool_error_class.hpp"
#include "runtime/sandbox/sandbox.hpp"
#include "runtime/tools/workspace_history.hpp"
#include "tests/runtime/tools/tools_test_util.hpp"

namespace kaisha::tools {
namespace {

using testing::call_sync;
using testing::TempDir;

class PyramidToolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PyramidToolsOptions o;
    o.workspace_root = root.path();
    o.code_limits.wall_timeout_ms = 5000;
    o.code_limits.cpu_seconds = 4;
    auto p = PyramidTools::create(std::move(o));
    ASSERT_TRUE(p.ok()) << p.error().message;
    tools = *p;
  }
  void need_sandbox() {
    if (Status s = sandbox::sandbox_available(); !s) GTEST_SKIP() << "sandbox unavailable: " << s.error().message;
  }
  // The task directory of call_sync's session s1 and task t1.
  std::string task(const std::string& rel = "") const { return ".tasks/s1/t1" + (rel.empty() ? "" : "/" + rel); }

  TempDir root;
  std::shared_ptr<PyramidTools> tools;
};

TEST_F(PyramidToolsTest, OffersTheLevelZeroTools) {
  std::vector<std::string> names;
  for (const auto& s : tools->specs()) names.push_back(s.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"file_read", "file_write", "dir_list", "dir_create", "file_move", "execute_code",
                                      "execute_shell", "pip_install", "web_search", "final_output"}));
}

// A task resumed after its process died runs a call that was in flight again
// only when that is safe: reads and idempotent writes yes, code no.
TEST_F(PyramidToolsTest, OnlyCallsSafeToRepeatAreRepeatable) {
  for (const char* name : {"file_read", "file_write", "dir_list", "dir_create", "web_search", "check_files",
                           "branch_open", "branch_close", "branch_drop"})
    EXPECT_TRUE(tools->repeatable(name)) << name;
  for (const char* name : {"execute_code", "execute_shell", "pip_install", "file_move", "nonexistent"})
    EXPECT_FALSE(tools->repeatable(name)) << name;
}

TEST_F(PyramidToolsTest, FilesLiveInTheTasksOwnDirectory) {
  auto w = call_sync(*tools, "file_write", {{"task_id", "t1"}, {"file_path", "notes/a.md"}, {"content", "日本語 ✓"}});
  ASSERT_TRUE(w.ok) << w.message;
  EXPECT_EQ(root.read(task("notes/a.md")), "日本語 ✓");
  auto r = call_sync(*tools, "file_read", {{"task_id", "t1"}, {"file_path", "notes/a.md"}});
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_NE(r.to_json().dump().find("日本語"), std::string::npos);
}

// The session's own workspace (<root>/s1) is where other strategies'
// sandboxed programs write. What they plant there — a "tasks" symlink to a
// host directory, as the pyramid's old layout <root>/s1/tasks/<task> would
// have followed — never decides where a task's files go.
TEST_F(PyramidToolsTest, NothingInASessionsWorkspaceRedirectsATasksDirectory) {
  TempDir host;
  std::filesystem::create_directories(root.file("s1"));
  std::filesystem::create_directory_symlink(host.path(), root.file("s1/tasks"));
  auto w = call_sync(*tools, "file_write", {{"task_id", "t1"}, {"file_path", "a.txt"}, {"content", "x"}});
  ASSERT_TRUE(w.ok) << w.message;
  EXPECT_EQ(root.read(task("a.txt")), "x");
  EXPECT_TRUE(std::filesystem::is_empty(host.path()));
  auto dir = tools->task_directory("s1", "t1");
  ASSERT_TRUE(dir.ok()) << dir.error().message;
  EXPECT_EQ(*dir, std::filesystem::canonical(root.file(task())).string());
}

TEST_F(PyramidToolsTest, FileWriteWithoutContentIsRefused) {
  auto w = call_sync(*tools, "file_write", {{"task_id", "t1"}, {"file_path", "a.txt"}});
  EXPECT_FALSE(w.ok);
  EXPECT_NE(w.message.find("'content' is required"), std::string::npos) << w.message;
  EXPECT_FALSE(std::filesystem::exists(root.file(task("a.txt"))));
}

TEST_F(PyramidToolsTest, EscapingPathsAndOtherTasksAreRefused) {
  root.write(".tasks/s1/other/secret.txt", "no");
  auto up = call_sync(*tools, "file_read", {{"task_id", "t1"}, {"file_path", "../other/secret.txt"}});
  EXPECT_FALSE(up.ok);
  EXPECT_NE(up.message.find(".."), std::string::npos) << up.message;
  auto abs =
      call_sync(*tools, "file_read", {{"task_id", "t1"}, {"file_path", root.file(".tasks/s1/other/secret.txt")}});
  EXPECT_FALSE(abs.ok);
  auto other = call_sync(*tools, "file_read", {{"task_id", "other"}, {"file_path", "secret.txt"}});
  EXPECT_FALSE(other.ok);
  EXPECT_NE(other.message.find("is not this task's"), std::string::npos) << other.message;
  // A symlink planted in the task's directory is not followed.
  std::filesystem::create_directories(root.file(task()));
  std::filesystem::create_symlink(root.file(".tasks/s1/other"), root.file(task("link")));
  auto link = call_sync(*tools, "file_read", {{"task_id", "t1"}, {"file_path", "link/secret.txt"}});
  EXPECT_FALSE(link.ok);
  EXPECT_NE(link.message.find("symlink"), std::string::npos) << link.message;
}

TEST_F(PyramidToolsTest, DirListIsNotRecursiveAndDirCreateMakesParents) {
  ASSERT_TRUE(call_sync(*tools, "dir_create", {{"task_id", "t1"}, {"dir_path", "a/b/c"}}).ok);
  EXPECT_TRUE(std::filesystem::is_directory(root.file(task("a/b/c"))));
  root.write(task("top.txt"), "x");
  auto l = call_sync(*tools, "dir_list", {{"task_id", "t1"}});
  ASSERT_TRUE(l.ok) << l.message;
  EXPECT_EQ(l.output, json::array({"a/", "top.txt"}));
  auto missing = call_sync(*tools, "dir_list", {{"task_id", "t1"}, {"path", "nope"}});
  EXPECT_FALSE(missing.ok);
  EXPECT_NE(missing.message.find("dir_list"), std::string::npos) << missing.message;
}

TEST_F(PyramidToolsTest, FileMoveRenamesAndNeverReplaces) {
  root.write(task("draft.md"), "one");
  root.write(task("kept.md"), "two");
  auto mv =
      call_sync(*tools, "file_move", {{"task_id", "t1"}, {"source", "draft.md"}, {"destination", "final/paper.md"}});
  ASSERT_TRUE(mv.ok) << mv.message;
  EXPECT_EQ(root.read(task("final/paper.md")), "one");
  EXPECT_FALSE(std::filesystem::exists(root.file(task("draft.md"))));
  auto clash =
      call_sync(*tools, "file_move", {{"task_id", "t1"}, {"source", "final/paper.md"}, {"destination", "kept.md"}});
  EXPECT_FALSE(clash.ok);
  EXPECT_NE(clash.message.find("already exists"), std::string::npos) << clash.message;
  EXPECT_EQ(root.read(task("kept.md")), "two");
  auto gone = call_sync(*tools, "file_move", {{"task_id", "t1"}, {"source", "nothing"}, {"destination", "x"}});
  EXPECT_FALSE(gone.ok);
  EXPECT_NE(gone.message.find("does not exist"), std::string::npos) << gone.message;
  auto out = call_sync(*tools, "file_move", {{"task_id", "t1"}, {"source", "kept.md"}, {"destination", "../kept.md"}});
  EXPECT_FALSE(out.ok);
}

TEST_F(PyramidToolsTest, ExecuteCodeRunsInCodeRun) {
  need_sandbox();
  root.write(task("code_run/main.py"), "import os\nprint(os.getcwd())\nopen('out.txt','w').write('done')\n");
  auto r = call_sync(*tools, "execute_code", {{"task_id", "t1"}, {"file_path", "code_run/main.py"}});
  ASSERT_TRUE(r.ok) << r.to_json().dump();
  EXPECT_EQ(r.output["stdout"], "/workspace/code_run\n");
  EXPECT_EQ(root.read(task("code_run/out.txt")), "done");
  auto inline_code = call_sync(*tools, "execute_code", {{"task_id", "t1"}, {"code", "raise SystemExit(3)"}});
  EXPECT_FALSE(inline_code.ok);
  EXPECT_EQ(inline_code.output["return_code"], 3);
  auto both = call_sync(*tools, "execute_code", {{"task_id", "t1"}});
  EXPECT_FALSE(both.ok);
  EXPECT_NE(both.message.find("either file_path or code"), std::string::npos);
}

// Item 28: the judge's runs read and run the task's files but change none;
// /tmp is their scratch area.
TEST_F(PyramidToolsTest, TheJudgesRunsChangeNoFile) {
  need_sandbox();
  root.write(task("code_run/utils.py"), "VALUE = 55\n");
  root.write(task("code_run/main.py"),
             "from utils import VALUE\n"
             "open('/tmp/scratch.txt', 'w').write('ok')\n"
             "print(VALUE, open('/tmp/scratch.txt').read())\n"
             "for path in ('out.txt', '/workspace/new.txt', 'utils.py'):\n"
             "    try:\n"
             "        open(path, 'a').write('x')\n"
             "        print('wrote', path)\n"
             "    except OSError as e:\n"
             "        print('refused', path)\n");
  auto tree = [&] {
    std::string all;
    for (const auto& e : std::filesystem::recursive_directory_iterator(root.file(task())))
      all += e.path().string() + "=" +
             (e.is_regular_file() ? root.read(e.path().string().substr(root.path().size() + 1)) : "") + "\n";
    return all;
  };
  const std::string before = tree();
  auto r = call_sync(*tools, "judge_execute_code", {{"file_path", "code_run/main.py"}});
  ASSERT_TRUE(r.ok) << r.to_json().dump();
  EXPECT_EQ(r.output["stdout"], "55 ok\nrefused out.txt\nrefused /workspace/new.txt\nrefused utils.py\n") << r.output;
  EXPECT_EQ(tree(), before);
  auto inline_code = call_sync(*tools, "judge_execute_code", {{"code", "open('/workspace/x', 'w')"}});
  EXPECT_FALSE(inline_code.ok);
  EXPECT_EQ(tree(), before);
}

// A project's scripts import each other, as the reference planner designs them.
TEST_F(PyramidToolsTest, ScriptsInCodeRunImportEachOther) {
  need_sandbox();
  root.write(task("code_run/utils.py"), "def double(x):\n    return 2 * x\n");
  root.write(task("code_run/main.py"), "from utils import double\nprint(double(21))\n");
  auto r = call_sync(*tools, "execute_code", {{"task_id", "t1"}, {"file_path", "code_run/main.py"}});
  ASSERT_TRUE(r.ok) << r.to_json().dump();
  EXPECT_EQ(r.output["stdout"], "42\n");
  auto inline_code =
      call_sync(*tools, "execute_code", {{"task_id", "t1"}, {"code", "from utils import double\nprint(double(4))"}});
  ASSERT_TRUE(inline_code.ok) << inline_code.to_json().dump();
  EXPECT_EQ(inline_code.output["stdout"], "8\n");
}

TEST_F(PyramidToolsTest, AProgramThatNeverEndsIsStoppedAtTheTimeout) {
  need_sandbox();
  auto r = call_sync(*tools, "execute_code",
                     {{"task_id", "t1"}, {"code", "import time\nwhile True:\n    time.sleep(1)"}, {"timeout", 1}});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.message.find("stopped after 1 s"), std::string::npos) << r.message;
}

TEST_F(PyramidToolsTest, ExecuteShellRunsInTheTaskDirectory) {
  need_sandbox();
  root.write(task("a.txt"), "hello");
  auto r = call_sync(*tools, "execute_shell", {{"task_id", "t1"}, {"command", "cat a.txt && pwd"}});
  ASSERT_TRUE(r.ok) << r.to_json().dump();
  EXPECT_EQ(r.output["stdout"], "hello/workspace\n");
}

// C_LM sees what programs make: a run reports the visible files it created
// or changed (not those it only read, nor hidden ones), even when it fails.
TEST_F(PyramidToolsTest, AProgramsRunReportsTheFilesItCreatedOrChanged) {
  need_sandbox();
  root.write(task("keep.txt"), "same");
  root.write(task("grow.txt"), "a");
  auto r = call_sync(*tools, "execute_shell",
                     {{"task_id", "t1"},
                      {"command",
                       "cat keep.txt >/dev/null; mkdir -p 結果 && echo x > 結果/表.csv && echo bb >> grow.txt "
                       "&& echo h > .hidden"}});
  ASSERT_TRUE(r.ok) << r.to_json().dump();
  EXPECT_EQ(r.output["files_changed"], json({"grow.txt", "結果/表.csv"})) << r.output.dump();
  auto failed = call_sync(*tools, "execute_code",
                          {{"task_id", "t1"}, {"code", "open('out.txt','w').write('1')\nraise SystemExit(3)"}});
  EXPECT_FALSE(failed.ok);
  EXPECT_EQ(failed.output["files_changed"], json({"code_run/out.txt"})) << failed.output.dump();
  // A failing program is the caller's, not the tool's: it never opens the tool's breaker.
  EXPECT_EQ(company::classify_tool_error(failed), company::ToolErrorClass::invalid_input);
  auto quiet = call_sync(*tools, "execute_shell", {{"task_id", "t1"}, {"command", "true"}});
  ASSERT_TRUE(quiet.ok);
  EXPECT_FALSE(quiet.output.contains("files_changed"));
}

TEST_F(PyramidToolsTest, PipInstallAndWebSearchFailClearlyOffline) {
  auto pip = call_sync(*tools, "pip_install", {{"task_id", "t1"}, {"packages", {"numpy"}}});
  EXPECT_FALSE(pip.ok);
  EXPECT_NE(pip.message.find("no network access"), std::string::npos) << pip.message;
  auto search = call_sync(*tools, "web_search", {{"task_id", "t1"}, {"query", "kaisha"}});
  EXPECT_FALSE(search.ok);
  EXPECT_NE(search.message.find("web_search"), std::string::npos) << search.message;
}

TEST_F(PyramidToolsTest, CheckFilesNamesTheMissingOnes) {
  root.write(task("out/a.json"), "{}");
  auto ok = call_sync(*tools, "check_files", {{"paths", {"out/a.json"}}});
  EXPECT_TRUE(ok.ok) << ok.message;
  auto bad = call_sync(*tools, "check_files", {{"paths", {"out/a.json", "out/b.json", "../x"}}});
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.message.find("out/b.json"), std::string::npos) << bad.message;
  EXPECT_NE(bad.message.find("../x"), std::string::npos) << bad.message;
  EXPECT_EQ(bad.message.find("out/a.json"), std::string::npos) << bad.message;
  EXPECT_EQ(company::classify_tool_error(bad), company::ToolErrorClass::invalid_input);  // the caller's mistake
  EXPECT_NE(bad.message.find("named in your final_output"), std::string::npos) << bad.message;
  EXPECT_NE(bad.message.find("remove them from 'files'"), std::string::npos) << bad.message;
  // An agent call's references: the message says which list to fix, and the
  // prompts' own spelling of the task's directory is understood.
  auto refs = call_sync(*tools, "check_files",
                        {{"paths", {"workspace/tasks/{task_id}/out/a.json", "計画.md"}}, {"list", "references"}});
  EXPECT_FALSE(refs.ok);
  EXPECT_NE(refs.message.find("named in this call's references do not exist in the task's workspace: 計画.md"),
            std::string::npos)
      << refs.message;
  EXPECT_NE(refs.message.find("remove them from 'references'"), std::string::npos) << refs.message;
}

// Item 20's branches: a copy of the task's directory per candidate model,
// tools confined to it, its change set, and a merge that adds and updates.
TEST_F(PyramidToolsTest, ABranchIsACopyWhoseChangesAreMergedBack) {
  root.write(task("plan.md"), "the plan");
  root.write(task("code_run/main.py"), "print(1)\n");
  auto opened = call_sync(*tools, "branch_open", {{"from", ""}, {"branch", "f1-1"}});
  ASSERT_TRUE(opened.ok) << opened.message;
  ASSERT_TRUE(opened.output.is_object());
  EXPECT_EQ(opened.output.size(), 2u) << opened.output;
  const std::string branch_dir = ".tasks/s1/.branches/t1/f1-1/";
  EXPECT_EQ(root.read(branch_dir + "plan.md"), "the plan");

  // A call in the branch sees and writes the branch only.
  auto in_branch = [&](const std::string& name, const json& args) {
    auto promise = std::make_shared<std::promise<company::ToolResult>>();
    auto future = promise->get_future();
    tools->call(name, args, company::ToolCallContext{"s1", "t1", "Pyramid", "f1-1"},
                [promise](company::ToolResult r) { promise->set_value(std::move(r)); });
    return future.get();
  };
  ASSERT_TRUE(in_branch("file_write", {{"file_path", "code_run/main.py"}, {"content", "print(2)\n"}}).ok);
  ASSERT_TRUE(in_branch("file_write", {{"file_path", "results/out.md"}, {"content", "結果 ✓"}}).ok);
  ASSERT_TRUE(in_branch("file_move", {{"source", "plan.md"}, {"destination", "old/plan.md"}}).ok);
  EXPECT_EQ(root.read(task("code_run/main.py")), "print(1)\n");  // the task's directory is untouched
  EXPECT_FALSE(std::filesystem::exists(root.file(task("results/out.md"))));
  auto escape = in_branch("file_read", {{"file_path", "../../t1/plan.md"}});
  EXPECT_FALSE(escape.ok);

  // Closed without merging: the change set, and nothing reaches the task.
  auto closed =
      call_sync(*tools, "branch_close", {{"branch", "f1-1"}, {"into", ""}, {"base", opened.output}, {"merge", false}});
  ASSERT_TRUE(closed.ok) << closed.message;
  EXPECT_EQ(closed.output["added"], json({"old/plan.md", "results/out.md"})) << closed.output;
  EXPECT_EQ(closed.output["modified"], json({"code_run/main.py"}));
  EXPECT_EQ(closed.output["removed"], json({"plan.md"}));
  EXPECT_EQ(closed.output["merged"], false);
  EXPECT_FALSE(std::filesystem::exists(root.file(task("results/out.md"))));

  // Merged: added and modified files land; nothing is deleted.
  auto merged =
      call_sync(*tools, "branch_close", {{"branch", "f1-1"}, {"into", ""}, {"base", opened.output}, {"merge", true}});
  ASSERT_TRUE(merged.ok) << merged.message;
  EXPECT_EQ(merged.output["merged"], true);
  EXPECT_EQ(root.read(task("results/out.md")), "結果 ✓");
  EXPECT_EQ(root.read(task("code_run/main.py")), "print(2)\n");
  EXPECT_EQ(root.read(task("plan.md")), "the plan");
  EXPECT_EQ(merged.output["conflicts"], json::array());
}

// A file the task's directory changed after the branch was made is a
// conflict: the merge leaves it as it is and says so.
TEST_F(PyramidToolsTest, AMergeKeepsWhatChangedMeanwhileAndListsIt) {
  root.write(task("shared.md"), "v1");
  auto opened = call_sync(*tools, "branch_open", {{"from", ""}, {"branch", "f3-1"}});
  ASSERT_TRUE(opened.ok) << opened.message;
  root.write(".tasks/s1/.branches/t1/f3-1/shared.md", "the branch's v2");
  root.write(".tasks/s1/.branches/t1/f3-1/new.md", "the branch's new file");
  root.write(".tasks/s1/.branches/t1/f3-1/mine.md", "only the branch has it");
  root.write(task("shared.md"), "a sibling's v2");     // changed meanwhile
  root.write(task("new.md"), "a sibling's new file");  // added meanwhile
  auto merged =
      call_sync(*tools, "branch_close", {{"branch", "f3-1"}, {"into", ""}, {"base", opened.output}, {"merge", true}});
  ASSERT_TRUE(merged.ok) << merged.message;
  EXPECT_NE(merged.message.find("2 files changed meanwhile kept as they were"), std::string::npos) << merged.message;
  EXPECT_EQ(merged.output["conflicts"], json({"new.md", "shared.md"})) << merged.output;
  EXPECT_EQ(root.read(task("shared.md")), "a sibling's v2");
  EXPECT_EQ(root.read(task("new.md")), "a sibling's new file");
  EXPECT_EQ(root.read(task("mine.md")), "only the branch has it");
}

TEST_F(PyramidToolsTest, BranchesSkipSymlinksAndHiddenFilesAndRefuseOddNames) {
  root.write(task("a.md"), "a");
  root.write(task(".secret"), "hidden");
  root.write("outside.txt", "host file");
  std::filesystem::create_symlink(root.file("outside.txt"), root.file(task("link.txt")));
  auto opened = call_sync(*tools, "branch_open", {{"from", ""}, {"branch", "f2-1"}});
  ASSERT_TRUE(opened.ok) << opened.message;
  ASSERT_TRUE(opened.output.is_object());
  EXPECT_EQ(opened.output.size(), 1u) << opened.output;
  EXPECT_TRUE(opened.output.contains("a.md")) << opened.output;
  EXPECT_FALSE(std::filesystem::exists(root.file(".tasks/s1/.branches/t1/f2-1/link.txt")));
  for (const std::string bad : {"../x", "a/b", "", ".."}) {
    auto r = call_sync(*tools, "branch_open", {{"from", ""}, {"branch", bad}});
    EXPECT_FALSE(r.ok) << bad;
  }
  // A task id cannot reach the branches' directory.
  auto promise = std::make_shared<std::promise<company::ToolResult>>();
  auto future = promise->get_future();
  tools->call("dir_list", json::object(), company::ToolCallContext{"s1", ".branches", "Pyramid", ""},
              [promise](company::ToolResult r) { promise->set_value(std::move(r)); });
  auto listed = future.get();
  EXPECT_FALSE(listed.ok);
  EXPECT_NE(listed.message.find("starts with '.'"), std::string::npos) << listed.message;
}

}  // namespace
// A close with a record is a commit of the task's history, made once: the
// same close again (a resumed task) finds it and merges nothing twice; the
// branches are dropped afterwards, the history keeping what it needs.
TEST_F(PyramidToolsTest, ARecordedMergeIsACommitMadeOnceAndBranchesAreDropped) {
  root.write(task("plan.md"), "v1");
  auto opened = call_sync(*tools, "branch_open", {{"from", ""}, {"branch", "f1-1"}});
  ASSERT_TRUE(opened.ok) << opened.message;
  root.write(".tasks/s1/.branches/t1/f1-1/plan.md", "v2");
  const json record{{"agent", "drafter__1"}, {"model", "mock:a"}, {"q", 0.6}};
  const json args{{"branch", "f1-1"}, {"into", ""}, {"base", opened.output}, {"merge", true}, {"record", record}};
  auto merged = call_sync(*tools, "branch_close", args);
  ASSERT_TRUE(merged.ok) << merged.message;
  EXPECT_EQ(merged.output["commit"], 2);  // 1 is the directory before it
  EXPECT_TRUE(merged.output["hashes"].contains("plan.md"));
  EXPECT_EQ(root.read(task("plan.md")), "v2");
  root.write(task("plan.md"), "changed after the merge");
  auto again = call_sync(*tools, "branch_close", args);
  ASSERT_TRUE(again.ok) << again.message;
  EXPECT_EQ(again.output, merged.output);  // what the first close answered
  EXPECT_NE(again.message.find("recorded already"), std::string::npos) << again.message;
  EXPECT_EQ(root.read(task("plan.md")), "changed after the merge");

  auto dropped = call_sync(*tools, "branch_drop", {{"branches", {"f1-1"}}});
  ASSERT_TRUE(dropped.ok) << dropped.message;
  EXPECT_FALSE(std::filesystem::exists(root.file(".tasks/s1/.branches/t1/f1-1")));
  EXPECT_TRUE(call_sync(*tools, "branch_drop", {{"branches", {"f1-1"}}}).ok);  // gone already: done
  EXPECT_FALSE(call_sync(*tools, "branch_drop", {{"branches", {"../x"}}}).ok);
  auto history = WorkspaceHistory::open(root.file(".tasks/s1/.history/t1"));
  ASSERT_TRUE(history.ok());
  auto commits = history->commits();
  ASSERT_TRUE(commits.ok());
  ASSERT_EQ(commits->size(), 2u);
  EXPECT_EQ((*commits)[1].model, "mock:a");
  EXPECT_TRUE(tools->repeatable("branch_close"));
}

// A branch opened again (a resume repeating an open cut short) starts
// afresh: nothing of an earlier copy stays.
TEST_F(PyramidToolsTest, ABranchOpenedAgainStartsAfresh) {
  root.write(task("plan.md"), "v1");
  root.write(".tasks/s1/.branches/t1/f1-1/partial.md", "left by a copy cut short");
  auto opened = call_sync(*tools, "branch_open", {{"from", ""}, {"branch", "f1-1"}});
  ASSERT_TRUE(opened.ok) << opened.message;
  EXPECT_EQ(opened.output, json({{"plan.md", opened.output["plan.md"]}}));
  EXPECT_FALSE(std::filesystem::exists(root.file(".tasks/s1/.branches/t1/f1-1/partial.md")));
}

}  // namespace kaisha::tools
