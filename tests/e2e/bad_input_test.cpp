// Bad input through the CLI: a malformed config, an unknown provider, no
// model at all (each refused with exit 2 before any request reaches a model),
// and a model sending malformed tool-call JSON (the error goes back to it;
// after ceo.max_malformed_tool_calls the task fails cleanly).
#include "e2e_fixture.hpp"

namespace kaisha::e2e {
namespace {

const char* kAnswerAtOnce = R"(
rules:
  - match: { model: ceo-model }
    reply: { text: "Hello." }
)";

TEST_F(E2eTest, ConfigTypoNamesFileLineAndKey) {
  start_mock(kAnswerAtOnce);
  std::string yaml = config_yaml({});
  // Line 1 is `store:`; insert the typo as line 2.
  yaml.insert(yaml.find('\n') + 1, "budgte: { expense_total: 1 }\n");
  const std::string cfg = dir_.write("typo.yaml", yaml);
  RunResult r = kaisha({"run", "--config", cfg, "Hello"});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_NE(r.err.find(cfg + ":2:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("budgte"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("did you mean 'budget'"), std::string::npos) << r.err;
  EXPECT_TRUE(mock_->request_log().empty());
}

TEST_F(E2eTest, NestedConfigTypoNamesTheKeyPath) {
  start_mock(kAnswerAtOnce);
  ConfigOptions o;
  o.extra = "switches:\n  cloud_agent: false\n";
  const std::string cfg = write_config(o);
  RunResult r = kaisha({"run", "--config", cfg, "Hello"});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_NE(r.err.find(cfg + ":"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cloud_agent"), std::string::npos) << r.err;
  EXPECT_TRUE(mock_->request_log().empty());
}

TEST_F(E2eTest, UnknownProviderIsRefusedBeforeAnyWork) {
  start_mock(kAnswerAtOnce);
  ConfigOptions o;
  o.ceo_model = "nope:model";
  RunResult r = kaisha({"run", "--config", write_config(o), "Hello"});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_NE(r.err.find("nope:model"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nope"), std::string::npos) << r.err;
  EXPECT_TRUE(mock_->request_log().empty());
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST_F(E2eTest, NoModelConfiguredSaysHowToConfigureOne) {
  start_mock(kAnswerAtOnce);
  ConfigOptions o;
  o.ceo_model = "";
  std::string yaml = config_yaml(o);
  // Drop the ollama override so that OLLAMA_HOST (a closed port) applies.
  const size_t at = yaml.find("  ollama:");
  yaml.erase(at, yaml.find('\n', at) + 1 - at);
  const std::string cfg = dir_.write("nomodel.yaml", yaml);
  const std::string closed = "127.0.0.1:" + std::to_string(kaisha::test::unused_loopback_port());
  RunResult r = kaisha({"run", "--config", cfg, "Hello"}, {{"OLLAMA_HOST", closed}});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_NE(r.err.find("no model configured"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(closed), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("KAISHA_MODEL"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ceo.model"), std::string::npos) << r.err;
  EXPECT_TRUE(mock_->request_log().empty());
}

TEST_F(E2eTest, MalformedToolCallJsonGoesBackToTheModel) {
  start_mock(R"(
rules:
  - name: fixed
    match: { model: ceo-model, turn: 1, last_tool: "not valid JSON" }
    reply: { text: "Sorry, my arguments were broken." }
  - name: broken
    match: { model: ceo-model, turn: 0 }
    reply:
      tool_calls:
        - { name: AgentCreator, arguments: '{"agent_name": "X",' }
)");
  RunResult r = run_json(write_config(), "Hire X.");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.result()["answer"], "Sorry, my arguments were broken.");
  auto calls = requests_for("ceo-model");
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[1]["rule"], "fixed");
  EXPECT_NE(calls[1]["last_message"].get<std::string>().find("not valid JSON"), std::string::npos) << calls[1];
  // Nothing was hired or charged.
  EXPECT_DOUBLE_EQ(r.ledgers()["current_resource_usage"].get<double>(), 0);
}

TEST_F(E2eTest, ModelThatKeepsSendingMalformedJsonFailsAfterTheLimit) {
  start_mock(R"(
rules:
  - match: { model: ceo-model }
    reply:
      tool_calls:
        - { name: GetBudget, arguments: '{"oops": ' }
)");
  ConfigOptions o;
  o.ceo_extra = "  max_malformed_tool_calls: 2\n";
  RunResult r = run_json(write_config(o), "Anything.");
  ASSERT_EQ(r.exit_code, 1) << r.describe();
  const std::string error = r.result().value("error", "");
  EXPECT_NE(error.find("malformed tool-call arguments"), std::string::npos) << error;
  EXPECT_NE(error.find("limit 2"), std::string::npos) << error;
  // Two malformed answers are sent back for correction; the third ends the task.
  EXPECT_EQ(requests_for("ceo-model").size(), 3u);
  auto j = journal();
  ASSERT_TRUE(j);
  auto tasks = j->tasks(session_of(r));
  ASSERT_TRUE(tasks.ok());
  ASSERT_EQ(tasks->size(), 1u);
  EXPECT_EQ((*tasks)[0].status, "failed");
}

}  // namespace
}  // namespace kaisha::e2e

namespace kaisha::e2e {
namespace {

TEST_F(E2eTest, AConfigKeyGivenTwiceNamesBothLines) {
  start_mock(kAnswerAtOnce);
  ConfigOptions o;
  o.extra = "budget:\n  expense_total: 99\n";  // the fixture already wrote a budget: section
  const std::string cfg = write_config(o);
  RunResult r = kaisha({"run", "--config", cfg, "Hello"});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_NE(r.err.find("'budget' is given twice (lines "), std::string::npos) << r.err;
  EXPECT_TRUE(mock_->request_log().empty());
}

// Another program's SQLite file as `store:` gets one line, from every command.
TEST_F(E2eTest, AForeignSqliteStoreIsOneClearLine) {
  start_mock(kAnswerAtOnce);
  {
    auto other = store::SqliteDb::open(db());
    ASSERT_TRUE(other);
    ASSERT_TRUE(
        (*other)->exec("CREATE TABLE tasks (id INTEGER PRIMARY KEY, title TEXT); "
                       "CREATE TABLE sessions (id TEXT)"));
  }
  const std::string cfg = write_config();
  for (std::vector<std::string> args :
       {std::vector<std::string>{"run", "--config", cfg, "Hello"}, std::vector<std::string>{"history", "--config", cfg},
        std::vector<std::string>{"budget", "--config", cfg}}) {
    RunResult r = kaisha(args);
    EXPECT_EQ(r.exit_code, 2) << r.describe();
    EXPECT_EQ(r.err, "kaisha: " + db() + " is not a kaisha journal (no kaisha schema version); choose another file\n")
        << r.describe();
  }
  EXPECT_TRUE(mock_->request_log().empty());
}

TEST_F(E2eTest, HistoryWithNoJournalYetSaysThereAreNoSessions) {
  const std::string cfg = write_config();
  ASSERT_FALSE(std::filesystem::exists(db()));
  RunResult r = kaisha({"history", "--config", cfg});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("no sessions yet in " + db()), std::string::npos) << r.describe();
  EXPECT_TRUE(r.err.empty()) << r.err;
  RunResult listed = kaisha({"history", "--config", cfg, "--sessions"});
  EXPECT_EQ(listed.exit_code, 0) << listed.describe();
  EXPECT_NE(listed.out.find("no sessions yet"), std::string::npos) << listed.describe();
  RunResult budget = kaisha({"budget", "--config", cfg});
  EXPECT_EQ(budget.exit_code, 2) << budget.describe();
  EXPECT_NE(budget.err.find("no sessions yet in " + db()), std::string::npos) << budget.describe();
  EXPECT_FALSE(std::filesystem::exists(db())) << "reading created the journal";
}

}  // namespace
}  // namespace kaisha::e2e
