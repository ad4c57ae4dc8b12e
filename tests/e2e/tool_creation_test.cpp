// hashiru.md Appendix Example 2 through the real binary: the CEO lists and
// reads existing tools, creates CurrentTimeTool, is refused once (no
// __all__; the file is not kept and the loader error comes back with the
// hint), fixes it, calls it on its next step and answers with the time.
#include <sys/stat.h>
#include <unistd.h>

#include <ctime>
#include <regex>

#include "e2e_fixture.hpp"

namespace kaisha::e2e {
namespace {

// Seconds since midnight of a "HH:MM:SS" time.
int seconds_of(const std::string& hms) {
  return std::stoi(hms.substr(0, 2)) * 3600 + std::stoi(hms.substr(3, 2)) * 60 + std::stoi(hms.substr(6, 2));
}

int now_seconds() {
  std::time_t t = std::time(nullptr);
  std::tm local{};
  localtime_r(&t, &local);
  return local.tm_hour * 3600 + local.tm_min * 60 + local.tm_sec;
}

TEST_F(E2eTest, CeoCreatesCurrentTimeToolFixesItAndUsesIt) {
  if (access("/usr/bin/bwrap", X_OK) != 0) GTEST_SKIP() << "bubblewrap is not installed";
  // When kaisha runs as root the sandbox runs as nobody, which must be able
  // to reach the workspace under the test's directory.
  chmod(dir_.path().c_str(), 0755);
  start_mock_file(std::string(KAISHA_SOURCE_DIR) + "/tests/e2e/data/current_time_tool.yaml");
  const std::string cfg = write_config();
  const int before = now_seconds();
  RunResult r = run_json(cfg, "give me the current time by creating a tool");
  const int after = now_seconds();
  ASSERT_EQ(r.exit_code, 0) << r.describe();

  // The existence check and the few-shot reading.
  auto lists = r.tool_results("ListFiles");
  ASSERT_EQ(lists.size(), 2u) << r.describe();
  // The two listings run concurrently and may finish in either order.
  std::set<json> listed = {lists[0]["output"], lists[1]["output"]};
  EXPECT_EQ(listed, (std::set<json>{json{"days_between.py", "word_count.py"}, json::array()}));
  auto read = r.tool_results("ReadFile");
  ASSERT_EQ(read.size(), 1u);
  EXPECT_NE(read[0]["output"].get<std::string>().find("__all__ = ['WordCount']"), std::string::npos);

  // Refused once with the loader error and the hint, then created.
  auto created = r.tool_results("ToolCreator");
  ASSERT_EQ(created.size(), 2u) << r.describe();
  EXPECT_EQ(created[0]["status"], "error");
  const std::string refusal = created[0]["message"];
  EXPECT_EQ(refusal.rfind("ToolCreator with {", 0), 0u) << refusal;
  EXPECT_NE(refusal.find("doesn't follow the required format, please read the other tool implementations for "
                         "reference. AttributeError: module 'CurrentTimeTool' has no attribute '__all__'"),
            std::string::npos)
      << refusal;
  EXPECT_EQ(created[1]["status"], "success") << created[1];
  EXPECT_EQ(created[1]["output"]["tool_file_path"], "src/tools/user_tools/CurrentTimeTool.py");

  // Called by name on the next step, no restart.
  auto time = r.tool_results("CurrentTimeTool");
  ASSERT_EQ(time.size(), 1u) << r.describe();
  ASSERT_EQ(time[0]["status"], "success") << time[0];
  const std::string hms = time[0]["output"];
  ASSERT_TRUE(std::regex_match(hms, std::regex("[0-2][0-9]:[0-5][0-9]:[0-5][0-9]"))) << hms;
  // The tool's clock is the host's (same timezone data, read-only in the
  // sandbox): the time lies within the run, allowing for midnight.
  const int t = seconds_of(hms);
  if (before <= after) {
    EXPECT_GE(t, before - 1);
    EXPECT_LE(t, after + 1);
  }

  // The answer carries the time; the tool is persisted for later sessions.
  const std::string answer = r.result().value("answer", "");
  EXPECT_NE(answer.find("The current time is"), std::string::npos) << answer;
  EXPECT_NE(answer.find(hms), std::string::npos) << answer;
  EXPECT_TRUE(fs::exists(dir_.path() / "kaisha-tools" / "CurrentTimeTool.py"));
}

}  // namespace
}  // namespace kaisha::e2e
