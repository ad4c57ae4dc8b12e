// hashiru.md Appendix Example 2 through the real binary: the CEO lists and
// reads existing tools, creates CurrentTimeTool, is refused once (no
// __all__; the file is not kept and the loader error comes back with the
// hint), fixes it, calls it on its next step and answers with the time.
// And the create costs a tool declares: charged, refused (the tool is not
// kept), refunded on delete.
#include <sys/stat.h>
#include <unistd.h>

#include <ctime>
#include <regex>

#include "e2e_fixture.hpp"
#include "runtime/economy/amount.hpp"

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

// hashiru.md §9 items 34 and 43: a tool that declares create costs is charged
// when ToolCreator makes it; one the budget cannot cover is not kept; deleting
// one refunds its resource part (expense stays spent).
TEST_F(E2eTest, ToolCreateCostsAreChargedRefusedAndRefundedOnDelete) {
  if (access("/usr/bin/bwrap", X_OK) != 0) GTEST_SKIP() << "bubblewrap is not installed";
  chmod(dir_.path().c_str(), 0755);
  auto tool = [](const std::string& name, int resource, double expense) {
    return "import datetime\n\n__all__ = ['" + name + "']\n\nclass " + name +
           "():\n    dependencies = []\n    inputSchema = {\"name\": \"" + name +
           "\", \"description\": \"Costs to make\", \"parameters\": {\"type\": \"object\", \"properties\": {}}, "
           "\"create_resource_cost\": " +
           std::to_string(resource) + ", \"create_expense_cost\": " + std::to_string(expense) +
           "}\n    def run(self, **kwargs):\n        return {\"status\": \"success\", "
           "\"message\": \"ok\", \"output\": 1}\n";
  };
  auto creator = [](const std::string& name, const std::string& code) {
    return json{{"name", "ToolCreator"}, {"arguments", {{"name", name}, {"tool_code", code}}}};
  };
  json rules = json::array();
  rules.push_back({{"match", {{"model", "ceo-model"}, {"turn", 0}}},
                   {"reply", {{"tool_calls", {creator("PricyTool", tool("PricyTool", 30, 0.5))}}}}});
  rules.push_back({{"match", {{"model", "ceo-model"}, {"turn", 1}}},
                   {"reply", {{"tool_calls", {creator("TooPricy", tool("TooPricy", 500, 0))}}}}});
  rules.push_back(
      {{"match", {{"model", "ceo-model"}, {"turn", 2}}},
       {"reply",
        {{"tool_calls",
          {{{"name", "ToolDeletor"},
            {"arguments", {{"name", "PricyTool"}, {"file_path", "src/tools/user_tools/PricyTool.py"}}}}}}}}});
  rules.push_back({{"match", {{"model", "ceo-model"}, {"turn", 3}}}, {"reply", {{"text", "done"}}}});
  start_mock(json{{"rules", rules}}.dump());  // JSON is YAML
  RunResult r = run_json(write_config(), "make tools");
  ASSERT_EQ(r.exit_code, 0) << r.describe();

  auto created = r.tool_results("ToolCreator");
  ASSERT_EQ(created.size(), 2u) << r.describe();
  EXPECT_EQ(created[0]["status"], "success") << created[0];
  EXPECT_EQ(created[1]["status"], "error");
  EXPECT_EQ(created[1]["message"],
            "Tool `TooPricy` was not kept: Do not have enough resource budget to create/use the agent. "
            "Creating/Using the agent costs 500 but only 70 is remaining")
      << created[1];
  EXPECT_FALSE(fs::exists(dir_.path() / "kaisha-tools" / "TooPricy.py"));
  auto deleted = r.tool_results("ToolDeletor");
  ASSERT_EQ(deleted.size(), 1u);
  EXPECT_EQ(deleted[0]["status"], "success") << deleted[0];
  EXPECT_FALSE(fs::exists(dir_.path() / "kaisha-tools" / "PricyTool.py"));

  // Resource back to 0 after the delete; the $0.50 stays spent.
  EXPECT_NEAR(r.ledgers().value("current_resource_usage", -1.0), 0.0, 1e-9) << r.ledgers();
  EXPECT_NEAR(r.ledgers().value("current_expense", -1.0), 0.5, 1e-9) << r.ledgers();
  auto j = journal();
  ASSERT_TRUE(j);
  auto entries = j->ledger_entries(session_of(r));
  ASSERT_TRUE(entries.ok()) << entries.error().message;
  std::vector<std::string> rows;
  for (const auto& e : *entries)
    if (e.kind.rfind("tool_", 0) == 0) rows.push_back(e.ledger + " " + e.kind + " " + economy::format_amount(e.amount));
  EXPECT_EQ(rows, (std::vector<std::string>{"resource tool_create 30", "expense tool_create 0.5",
                                            "resource tool_delete_refund -30"}))
      << r.describe();
}

}  // namespace
}  // namespace kaisha::e2e
