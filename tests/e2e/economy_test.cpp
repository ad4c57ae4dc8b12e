// The HASHIRU economy and tool texts through the CLI (hashiru.md §3.3, §9 D/E):
// resource charges on hire, hire -> fire -> hire charging expense twice, the
// exact refusal texts, and the runtime switches.
#include "e2e_fixture.hpp"
#include "runtime/economy/budget.hpp"

namespace kaisha::e2e {
namespace {

TEST_F(E2eTest, HiringMistralAndDeepseekUsesFortyOfAHundred) {
  start_mock(R"(
rules:
  - match: { model: ceo-model, turn: 0 }
    reply:
      tool_calls:
        - name: AgentCreator
          arguments: { agent_name: Lawyer, base_model: mistral, system_prompt: "You read contracts.", description: "Contracts" }
        - name: AgentCreator
          arguments: { agent_name: Mathematician, base_model: deepseek-r1, system_prompt: "You prove things.", description: "Maths" }
  - match: { model: ceo-model, turn: 1 }
    reply: { tool_calls: [ { name: GetBudget, arguments: {} } ] }
  - match: { model: ceo-model, turn: 2 }
    reply: { text: "Both hired." }
)");
  ConfigOptions o;
  o.resource_total = 100;
  RunResult r = run_json(write_config(o), "Hire a lawyer and a mathematician.");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  auto creates = r.tool_results("AgentCreator");
  ASSERT_EQ(creates.size(), 2u);
  for (auto& c : creates) EXPECT_EQ(c["status"], "success") << c;
  auto budgets = r.tool_results("GetBudget");
  ASSERT_EQ(budgets.size(), 1u);
  const json& b = budgets[0]["output"];
  EXPECT_DOUBLE_EQ(b["current_resource_usage"].get<double>(), 40);
  EXPECT_DOUBLE_EQ(b["current_remaining_resource_budget"].get<double>(), 60);
  EXPECT_DOUBLE_EQ(b["total_resource_budget"].get<double>(), 100);

  // The journal agrees: both hired, the saved state says 40 used.
  auto j = journal();
  ASSERT_TRUE(j);
  auto agents = j->active_agents(session_of(r));
  ASSERT_TRUE(agents.ok());
  ASSERT_EQ(agents->size(), 2u);
  auto state = j->load_budget_state(session_of(r));
  ASSERT_TRUE(state.ok() && state->has_value());
  auto bs = economy::BudgetState::from_json(**state);
  ASSERT_TRUE(bs.ok());
  economy::Budget restored(bs->resource.total, bs->expense.total);
  restored.restore(*bs);
  EXPECT_DOUBLE_EQ(restored.get_budget_json()["current_resource_usage"].get<double>(), 40);
  EXPECT_EQ(bs->hired_agents, 2);
}

TEST_F(E2eTest, HireFireHireChargesTheExpenseTwiceAndTheResourceOnce) {
  start_mock(R"(
rules:
  - match: { model: ceo-model, turn: 0 }
    reply: { tool_calls: [ { name: AgentCreator, arguments: { agent_name: Worker, base_model: paidlocal, system_prompt: "Work.", description: "Works" } } ] }
  - match: { model: ceo-model, turn: 1 }
    reply: { tool_calls: [ { name: FireAgent, arguments: { agent_name: Worker } } ] }
  - match: { model: ceo-model, turn: 2 }
    reply: { tool_calls: [ { name: AgentCreator, arguments: { agent_name: Worker, base_model: paidlocal, system_prompt: "Work.", description: "Works" } } ] }
  - match: { model: ceo-model, turn: 3 }
    reply: { tool_calls: [ { name: GetBudget, arguments: {} } ] }
  - match: { model: ceo-model, turn: 4 }
    reply: { text: "Done." }
)");
  // A local model with a one-off expense to hire (a licence fee, say).
  const std::string table = dir_.write("costs.yaml", R"(
models:
  paidlocal:
    model_ref: ollama:paidlocal
    type: local
    create_resource_cost: 30
    invoke_resource_cost: 10
    create_expense_cost: 0.5
    description: "A local model with a licence fee"
)");
  ConfigOptions o;
  o.expense_total = 2;
  o.extra = "cost_table: " + table + "\n";
  RunResult r = run_json(write_config(o), "Hire, fire and hire again.");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  for (const char* tool : {"AgentCreator", "FireAgent"})
    for (auto& res : r.tool_results(tool)) EXPECT_EQ(res["status"], "success") << res;
  ASSERT_EQ(r.tool_results("AgentCreator").size(), 2u);
  const json b = r.tool_results("GetBudget").at(0)["output"];
  EXPECT_DOUBLE_EQ(b["current_expense"].get<double>(), 1.0);        // 2 x 0.5, never refunded
  EXPECT_DOUBLE_EQ(b["current_resource_usage"].get<double>(), 30);  // refunded once, charged again
  EXPECT_DOUBLE_EQ(r.ledgers()["current_expense"].get<double>(), 1.0);

  auto j = journal();
  ASSERT_TRUE(j);
  auto entries = j->ledger_entries(session_of(r));
  ASSERT_TRUE(entries.ok());
  int expense_hires = 0, resource_hires = 0, refunds = 0;
  for (auto& e : *entries) {
    if (e.ledger == "expense" && e.kind == "hire") {
      ++expense_hires;
      EXPECT_DOUBLE_EQ(e.amount, 0.5);
    }
    if (e.ledger == "resource" && e.kind == "hire") ++resource_hires;
    if (e.ledger == "resource" && e.kind == "fire_refund") ++refunds;
  }
  EXPECT_EQ(expense_hires, 2);
  EXPECT_EQ(resource_hires, 2);
  EXPECT_EQ(refunds, 1);
  auto all = j->all_agents(session_of(r));
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);  // the first hire (fired) and the second (hired)
}

// One refusal per CEO turn, so that results come back in a known order.
TEST_F(E2eTest, RefusalsUseTheExactHashiruTexts) {
  start_mock(R"(
rules:
  - match: { model: ceo-model, turn: 0 }
    reply: { tool_calls: [ { name: AgentCreator, arguments: { agent_name: Poet, base_model: llama3.2, system_prompt: "Poems.", description: "Poems" } } ] }
  - match: { model: ceo-model, turn: 1 }
    reply: { tool_calls: [ { name: AgentCreator, arguments: { agent_name: Poet, base_model: llama3.2, system_prompt: "Poems.", description: "Poems" } } ] }
  - match: { model: ceo-model, turn: 2 }
    reply: { tool_calls: [ { name: AskAgent, arguments: { agent_name: Ghost, prompt: "Boo?" } } ] }
  - match: { model: ceo-model, turn: 3 }
    reply: { tool_calls: [ { name: FireAgent, arguments: { agent_name: Ghost } } ] }
  - match: { model: ceo-model, turn: 4 }
    reply: { tool_calls: [ { name: AgentCreator, arguments: { agent_name: Oracle, base_model: gpt-17, system_prompt: "x", description: "x" } } ] }
  - match: { model: ceo-model, turn: 5 }
    reply: { tool_calls: [ { name: AgentCreator, arguments: { agent_name: "River Poet", base_model: llama3.2, system_prompt: "x", description: "x" } } ] }
  - match: { model: ceo-model, turn: 6 }
    reply: { text: "Done." }
)");
  RunResult r = run_json(write_config(), "Try everything wrong.");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  auto creates = r.tool_results("AgentCreator");
  ASSERT_EQ(creates.size(), 4u) << r.out;
  EXPECT_EQ(creates[0]["status"], "success");
  EXPECT_EQ(creates[1]["status"], "error");
  EXPECT_EQ(creates[1]["message"], "Agent Poet already exists");
  EXPECT_EQ(creates[2]["message"], "Model gpt-17 not found in the cost manager.");
  EXPECT_EQ(creates[3]["message"],
            "Agent name 'River Poet' is invalid: it cannot have spaces or special characters. It should be a "
            "single word.");
  ASSERT_EQ(r.tool_results("AskAgent").size(), 1u);
  EXPECT_EQ(r.tool_results("AskAgent")[0]["message"], "Agent Ghost does not exists");
  ASSERT_EQ(r.tool_results("FireAgent").size(), 1u);
  EXPECT_EQ(r.tool_results("FireAgent")[0]["message"], "Agent Ghost does not exists");
  // Refusals charge nothing: only Poet's 10 points are used.
  EXPECT_DOUBLE_EQ(r.ledgers()["current_resource_usage"].get<double>(), 10);
  EXPECT_TRUE(requests_for("llama3.2").empty());
}

TEST_F(E2eTest, AgentCreationSwitchOffRefusesHiring) {
  start_mock(R"(
rules:
  - match: { model: ceo-model, turn: 0 }
    reply: { tool_calls: [ { name: AgentCreator, arguments: { agent_name: Poet, base_model: llama3.2, system_prompt: "Poems.", description: "Poems" } } ] }
  - match: { model: ceo-model, turn: 1 }
    reply: { text: "Could not hire." }
)");
  ConfigOptions o;
  o.extra = "switches: { agent_creation: false }\n";
  RunResult r = run_json(write_config(o), "Hire a poet.");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  auto creates = r.tool_results("AgentCreator");
  ASSERT_EQ(creates.size(), 1u);
  EXPECT_EQ(creates[0]["status"], "error");
  EXPECT_EQ(creates[0]["message"], "Agent creation mode is disabled.");
  EXPECT_DOUBLE_EQ(r.ledgers()["current_resource_usage"].get<double>(), 0);
}

TEST_F(E2eTest, CloudAgentsSwitchOffRefusesAskingACloudEmployee) {
  start_mock(R"(
rules:
  - match: { model: gemini-2.0-flash-lite }
    reply: { text: "cloud answer" }
  - match: { model: ceo-model, last_user: "Hire", turn: 0 }
    reply: { tool_calls: [ { name: AgentCreator, arguments: { agent_name: Cloudy, base_model: gemini-2.0-flash-lite, system_prompt: "x", description: "x" } } ] }
  - match: { model: ceo-model, last_user: "Hire", turn: 1 }
    reply: { text: "Hired." }
  - match: { model: ceo-model, last_user: "Ask", turn: 0 }
    reply: { tool_calls: [ { name: AskAgent, arguments: { agent_name: Cloudy, prompt: "Hello?" } } ] }
  - match: { model: ceo-model, last_user: "Ask", turn: 1 }
    reply: { text: "Asked." }
)");
  const std::string on = write_config({}, "on.yaml");
  ConfigOptions off;
  off.extra = "switches: { cloud_agents: false }\n";
  const std::string off_cfg = write_config(off, "off.yaml");
  RunResult hire = run_json(on, "Hire a cloud agent.");
  ASSERT_EQ(hire.exit_code, 0) << hire.describe();
  ASSERT_EQ(hire.tool_results("AgentCreator").at(0)["status"], "success");

  RunResult ask = run_json(off_cfg, "Ask the cloud agent.", {"--session", session_of(hire)});
  ASSERT_EQ(ask.exit_code, 0) << ask.describe();
  auto asks = ask.tool_results("AskAgent");
  ASSERT_EQ(asks.size(), 1u) << ask.out;
  EXPECT_EQ(asks[0]["message"], "Cloud invocation mode is disabled.");
  EXPECT_TRUE(requests_for("gemini-2.0-flash-lite").empty());
}

}  // namespace
}  // namespace kaisha::e2e
