// HASHIRU Case Study 3 through the CLI: the bundled demo scenario, and the
// paper's own setting (hashiru.md §9 items 32-33) — an expense budget below
// one call refuses the API employee before any request reaches it, and an
// authorised increase in the same session lets the same request through.
#include <regex>

#include "e2e_fixture.hpp"
#include "runtime/economy/budget.hpp"

namespace kaisha::e2e {
namespace {

const char* kRefusalPrefix = "Do not have enough expense budget to create/use the agent.";

TEST_F(E2eTest, DemoScenarioRunsToAnAnswerWithOneRefusal) {
  start_mock_file(std::string(KAISHA_SOURCE_DIR) + "/examples/demo/scenario.yaml");
  // The demo's own config, with the mock's port and small retry delays.
  ConfigOptions o;
  o.ceo_model = "gemini:gemini-2.0-flash";
  o.expense_total = 0.02;
  const std::string cfg = write_config(o);
  RunResult r = kaisha({"run", "--config", cfg,
                        "Write me a short guide to rivers: a poem and three facts, using an expense based "
                        "agent for the facts."});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("Here is your river guide."), std::string::npos) << r.out;
  EXPECT_NE(r.err.find(kRefusalPrefix), std::string::npos) << r.err;
  // The second AskAgent to RiverFacts was refused before reaching its model.
  EXPECT_EQ(requests_for("gemini-2.5-pro-exp-03-25").size(), 1u);
  EXPECT_EQ(requests_for("llama3.2").size(), 1u);

  RunResult agents = kaisha({"agents", "--config", cfg, "--json", "--all"});
  ASSERT_EQ(agents.exit_code, 0) << agents.describe();
  json a = json::parse(agents.out);
  std::map<std::string, std::string> state;
  for (auto& row : a["agents"]) state[row["name"]] = row["state"];
  EXPECT_EQ(state["RiverPoet"], "fired");
  EXPECT_EQ(state["RiverFacts"], "hired");
  RunResult active = kaisha({"agents", "--config", cfg, "--json"});
  ASSERT_EQ(active.exit_code, 0) << active.describe();
  ASSERT_EQ(json::parse(active.out)["agents"].size(), 1u);

  RunResult budget = kaisha({"budget", "--config", cfg, "--json"});
  ASSERT_EQ(budget.exit_code, 0) << budget.describe();
  json b = json::parse(budget.out)["budget"];
  // RiverPoet's 10 points came back when it was fired; RiverFacts is cloud.
  EXPECT_DOUBLE_EQ(b["current_resource_usage"].get<double>(), 0);
  EXPECT_LE(b["current_expense"].get<double>(), 0.02);
  EXPECT_GT(b["current_expense"].get<double>(), 0);
  EXPECT_NEAR(b["current_expense"].get<double>() + b["current_remaining_expense_budget"].get<double>(), 0.02, 1e-9);
  // The ledger entries add up to the saved state: hires + settled calls.
  auto j = journal();
  ASSERT_TRUE(j);
  auto entries = j->ledger_entries(json::parse(budget.out)["session"]);
  ASSERT_TRUE(entries.ok());
  double settled = 0;
  for (auto& e : *entries)
    if (e.ledger == "expense" && (e.kind == "ask_settle" || e.kind == "hire")) settled += e.amount;
  EXPECT_NEAR(settled, b["current_expense"].get<double>(), 1e-6);
  const store::LedgerEntryRow* last = nullptr;
  for (auto& e : *entries)
    if (e.ledger == "expense") last = &e;
  ASSERT_NE(last, nullptr);
  EXPECT_NEAR(last->used_after, b["current_expense"].get<double>(), 1e-6);
}

// The CEO on a priced-at-zero model; RiverFacts on the API model
// gemini-2.5-pro-exp-03-25 (1.25 / 10.00 USD per 1M tokens).
const char* kCaseStudy3Script = R"(
rules:
  - name: facts-poem
    match: { model: gemini-2.5-pro-exp-03-25 }
    reply: { text: "Rivers run, rivers rhyme.", usage: { input_tokens: 40, output_tokens: 12 } }
  # session set-up: hire the cloud employee
  - match: { model: ceo-model, last_user: "Hire", turn: 0 }
    reply:
      tool_calls:
        - name: AgentCreator
          arguments: { agent_name: RiverFacts, base_model: gemini-2.5-pro-exp-03-25,
                       system_prompt: "You are a poet.", description: "Writes poems" }
  - match: { model: ceo-model, last_user: "Hire", turn: 1 }
    reply: { text: "RiverFacts is hired." }
  # the poem request
  - match: { model: ceo-model, last_user: "poem on rivers", turn: 0 }
    reply:
      text: "Let me check my budget and agents."
      tool_calls: [ { name: GetBudget, arguments: {} }, { name: GetAgents, arguments: {} } ]
  - match: { model: ceo-model, last_user: "poem on rivers", turn: 1 }
    reply:
      tool_calls: [ { name: AskAgent, arguments: { agent_name: RiverFacts, prompt: "Write a poem on rivers." } } ]
  - name: ceo-refused
    match: { model: ceo-model, turn: 2, last_tool: "Do not have enough expense budget" }
    reply: { text: "I do not have enough expense budget; please authorise an increase." }
  - name: ceo-answers
    match: { model: ceo-model, turn: 2 }
    reply: { text: "Here is the poem: {{last_tool}}" }
)";

TEST_F(E2eTest, CaseStudy3RefusesTheApiAgentUntilTheUserRaisesTheBudget) {
  start_mock(kCaseStudy3Script);
  ConfigOptions o;
  o.expense_total = 0.005;  // one RiverFacts call holds > 0.01 (1024 output tokens at $10/1M)
  const std::string cfg = write_config(o);

  RunResult setup = run_json(cfg, "Hire a river poet on an API model.");
  ASSERT_EQ(setup.exit_code, 0) << setup.describe();
  const std::string session = session_of(setup);
  ASSERT_FALSE(session.empty());

  const std::string task = "Write me a poem on rivers by using an expense based agent";
  RunResult refused = run_json(cfg, task, {"--session", session});
  ASSERT_EQ(refused.exit_code, 0) << refused.describe();
  EXPECT_EQ(session_of(refused), session);
  // The CEO oriented itself first.
  ASSERT_EQ(refused.tool_results("GetBudget").size(), 1u);
  ASSERT_EQ(refused.tool_results("GetAgents").size(), 1u);
  EXPECT_TRUE(refused.tool_results("GetAgents")[0]["output"].contains("RiverFacts")) << refused.out;
  // AskAgent came back with the exact HASHIRU sentence...
  auto asks = refused.tool_results("AskAgent");
  ASSERT_EQ(asks.size(), 1u) << refused.out;
  EXPECT_EQ(asks[0]["status"], "error");
  const std::string msg = asks[0]["message"];
  std::smatch m;
  ASSERT_TRUE(std::regex_match(
      msg, m,
      std::regex(
          R"(Do not have enough expense budget to create/use the agent\. Creating/Using the agent costs ([0-9.]+) but only ([0-9.]+) is remaining)")))
      << msg;
  const double cost = std::stod(m[1]);
  EXPECT_GE(cost, 1024 * 10.0 / 1e6);
  EXPECT_EQ(msg, economy::Budget::refusal_text("expense", cost, 0.005));
  // ...and nothing reached the API model.
  EXPECT_TRUE(requests_for("gemini-2.5-pro-exp-03-25").empty());
  EXPECT_NE(refused.result().value("answer", "").find("authorise an increase"), std::string::npos) << refused.out;

  // Item 33: the user authorises more, and the same request in the same
  // session goes through.
  RunResult raise = kaisha({"budget", "--config", cfg, "--session", session, "--raise-expense", "1", "--json"});
  ASSERT_EQ(raise.exit_code, 0) << raise.describe();
  EXPECT_NEAR(json::parse(raise.out)["budget"]["total_expense_budget"].get<double>(), 1.005, 1e-9);

  RunResult ok = run_json(cfg, task, {"--session", session});
  ASSERT_EQ(ok.exit_code, 0) << ok.describe();
  asks = ok.tool_results("AskAgent");
  ASSERT_EQ(asks.size(), 1u) << ok.out;
  EXPECT_EQ(asks[0]["status"], "success") << asks[0];
  EXPECT_EQ(requests_for("gemini-2.5-pro-exp-03-25").size(), 1u);
  EXPECT_NE(ok.result().value("answer", "").find("Rivers run, rivers rhyme."), std::string::npos) << ok.out;
  // Charged exactly the settled call: 40 in x 1.25/1M + 12 out x 10/1M.
  EXPECT_NEAR(ok.ledgers()["current_expense"].get<double>(), 40 * 1.25 / 1e6 + 12 * 10.0 / 1e6, 1e-9);
}

}  // namespace
}  // namespace kaisha::e2e
