// Employees with tools through the real binary and the scripted mock LLM:
// an employee granted Calculator calls it and answers with the result; a call
// outside its grant gets the listing and it recovers; malformed arguments go
// back to the model; the max_tool_iterations bound; declared tool costs
// charged and refused; employees without a grant keep the single call (the
// mock rule for them requires a request without tools); grant mistakes named
// with file:line:key before any work.
#include "e2e_fixture.hpp"

namespace kaisha::e2e {
namespace {

// The CEO hires MathWiz (llama3.2) and Plain (mistral), asks Plain, then
// MathWiz, and answers with MathWiz's answer.
const char* kCeoScript = R"(
  - name: ceo-hires
    match: { model: ceo-model, turn: 0 }
    reply:
      tool_calls:
        - { name: AgentCreator, arguments: { agent_name: MathWiz, base_model: llama3.2, system_prompt: "You are MathWiz. Use your tools.", description: "computes" } }
        - { name: AgentCreator, arguments: { agent_name: Plain, base_model: mistral, system_prompt: "You are Plain.", description: "talks" } }
  - name: ceo-asks-plain
    match: { model: ceo-model, turn: 1 }
    reply:
      tool_calls:
        - { name: AskAgent, arguments: { agent_name: Plain, prompt: "Say hi" } }
  - name: ceo-asks-mathwiz
    match: { model: ceo-model, turn: 2 }
    reply:
      tool_calls:
        - { name: AskAgent, arguments: { agent_name: MathWiz, prompt: "What is 123*456?" } }
  - name: ceo-answers
    match: { model: ceo-model, turn: 3 }
    reply: { text: "Final: {{last_tool}}" }
  - name: plain-single-call
    match: { model: mistral, has_tools: false }
    reply: { text: "hi from Plain" }
)";

class EmployeeToolsTest : public E2eTest {
 protected:
  // The fixture's config with `employee_yaml` as its employee: section.
  std::string config(const std::string& employee_yaml, const ConfigOptions& o = {}) {
    std::string y = config_yaml(o);
    const std::string plain = "employee:\n  max_output_tokens: 1024\n";
    y.replace(y.find(plain), plain.size(), "employee:\n  max_output_tokens: 1024\n" + employee_yaml);
    return dir_.write("config.yaml", y);
  }
  // tool_result events of `agent`, in order.
  static std::vector<json> results_of(const RunResult& r, const std::string& agent) {
    std::vector<json> v;
    for (auto& e : r.events("tool_result"))
      if (e.value("agent", "") == agent) v.push_back(e["data"]);
    return v;
  }
};

TEST_F(EmployeeToolsTest, GrantedCalculatorIsCalledAndTheAnswerCarriesItsResult) {
  start_mock(std::string("rules:\n") + kCeoScript + R"(
  - name: mathwiz-calls-calculator
    match: { model: llama3.2, turn: 0, has_tools: true }
    reply:
      text: "I will compute it."
      tool_calls: [ { name: Calculator, arguments: { expression: "123*456" } } ]
  - name: mathwiz-answers
    match: { model: llama3.2, last_tool_name: Calculator }
    reply: { text: "MathWiz says {{last_tool}}" }
)");
  ConfigOptions o;
  o.resource_total = 1000;  // room to ask mistral (it holds 100 per call) after both hires
  RunResult r = run_json(config("  tools:\n    agents:\n      MathWiz: [Calculator]\n", o), "compute");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  auto calls = results_of(r, "MathWiz");
  ASSERT_EQ(calls.size(), 1u) << r.describe();
  EXPECT_EQ(calls[0]["tool"], "Calculator");
  EXPECT_EQ(calls[0]["result"]["status"], "success") << calls[0];
  const std::string answer = r.result().value("answer", "");
  EXPECT_NE(answer.find("MathWiz says"), std::string::npos) << answer;
  EXPECT_NE(answer.find("56088"), std::string::npos) << answer;
  // Plain (no grant) was asked without tools: its rule requires has_tools false.
  EXPECT_EQ(requests_for("mistral").size(), 1u);
  EXPECT_EQ(requests_for("llama3.2").size(), 2u);

  // The employee's steps are journaled under its name.
  auto j = journal();
  ASSERT_TRUE(j);
  auto steps = j->session_steps(session_of(r));
  ASSERT_TRUE(steps.ok()) << steps.error().message;
  int tool_calls = 0, tool_results = 0;
  for (const auto& s : *steps) {
    if (s.agent != "MathWiz") continue;
    tool_calls += s.kind == "tool_call";
    tool_results += s.kind == "tool_result";
  }
  EXPECT_EQ(tool_calls, 1);
  EXPECT_EQ(tool_results, 1);
}

TEST_F(EmployeeToolsTest, UngrantedToolGetsTheListingAndMalformedArgumentsGoBackThenItRecovers) {
  start_mock(std::string("rules:\n") + kCeoScript + R"(
  - name: mathwiz-tries-readfile
    match: { model: llama3.2, turn: 0 }
    reply:
      tool_calls: [ { name: ReadFile, arguments: { file_path: secrets.txt } } ]
  - name: mathwiz-sends-bad-json
    match: { model: llama3.2, last_tool: "not granted" }
    reply:
      tool_calls: [ { name: Calculator, arguments: "{\"expression\": \"2+" } ]
  - name: mathwiz-fixes-it
    match: { model: llama3.2, last_tool: "not valid JSON" }
    reply:
      tool_calls: [ { name: Calculator, arguments: { expression: "2+2" } } ]
  - name: mathwiz-answers
    match: { model: llama3.2, last_tool_name: Calculator }
    reply: { text: "MathWiz says {{last_tool}}" }
)");
  RunResult r = run_json(config("  tools:\n    models:\n      llama3.2: [Calculator]\n"), "compute");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  auto calls = results_of(r, "MathWiz");
  ASSERT_EQ(calls.size(), 3u) << r.describe();
  EXPECT_EQ(calls[0]["tool"], "ReadFile");
  EXPECT_EQ(calls[0]["result"]["message"], "Tool ReadFile is not granted to this agent; it may use: [\"Calculator\"]");
  EXPECT_NE(calls[1]["result"]["message"].get<std::string>().find("not valid JSON"), std::string::npos) << calls[1];
  EXPECT_EQ(calls[2]["result"]["status"], "success") << calls[2];
  EXPECT_NE(r.result().value("answer", "").find("MathWiz says"), std::string::npos) << r.describe();
}

TEST_F(EmployeeToolsTest, MaxToolIterationsEndsTheLoopWithAClearAnswer) {
  start_mock(std::string("rules:\n") + kCeoScript + R"(
  - name: mathwiz-loops
    match: { model: llama3.2 }
    reply:
      tool_calls: [ { name: Calculator, arguments: { expression: "1+1" } } ]
)");
  RunResult r =
      run_json(config("  max_tool_iterations: 3\n  tools:\n    agents:\n      MathWiz: [Calculator]\n"), "compute");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(requests_for("llama3.2").size(), 3u);
  EXPECT_EQ(results_of(r, "MathWiz").size(), 2u);  // the third answer's calls are not run
  std::string said;
  for (auto& e : r.events("tool_result"))
    if (e["data"].value("tool", "") == "AskAgent" && e["data"]["result"]["output"].is_string())
      said = e["data"]["result"]["output"];
  EXPECT_NE(said.find("MathWiz stopped before a final answer: no final answer after 3 model calls "
                      "(employee.max_tool_iterations)"),
            std::string::npos)
      << r.describe();
}

TEST_F(EmployeeToolsTest, DeclaredToolCostsAreChargedAndRefusedWhenTheBudgetCannotCoverThem) {
  start_mock(std::string("rules:\n") + kCeoScript + R"(
  - name: mathwiz-calls-twice
    match: { model: llama3.2, turn: 0 }
    reply:
      tool_calls:
        - { name: Calculator, arguments: { expression: "1+1" } }
        - { name: Calculator, arguments: { expression: "2+2" } }
  - name: mathwiz-answers
    match: { model: llama3.2, turn: 1 }
    reply: { text: "MathWiz done" }
)");
  ConfigOptions o;
  o.expense_total = 0.75;
  o.extra = "tools:\n  costs:\n    Calculator: { invoke_expense_cost: 0.5 }\n";
  RunResult r = run_json(config("  tools:\n    agents:\n      MathWiz: [Calculator]\n", o), "compute");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  auto calls = results_of(r, "MathWiz");
  ASSERT_EQ(calls.size(), 2u) << r.describe();
  EXPECT_EQ(calls[0]["result"]["status"], "success") << calls[0];
  EXPECT_EQ(calls[1]["result"]["status"], "error");
  EXPECT_EQ(calls[1]["result"]["message"],
            "Tool `Calculator` was not run: Do not have enough expense budget to create/use the agent. "
            "Creating/Using the agent costs 0.5 but only 0.25 is remaining")
      << calls[1];
  // One call charged: $0.50 of $0.75 (the models here are free or local).
  EXPECT_NEAR(r.ledgers().value("current_expense", -1.0), 0.5, 1e-9) << r.ledgers();
  auto j = journal();
  ASSERT_TRUE(j);
  auto entries = j->ledger_entries(session_of(r));
  ASSERT_TRUE(entries.ok()) << entries.error().message;
  int settled = 0;
  for (const auto& e : *entries)
    if (e.kind == "tool_settle") {
      ++settled;
      EXPECT_EQ(e.agent, "MathWiz");
      EXPECT_NEAR(e.amount, 0.5, 1e-9);
    }
  EXPECT_EQ(settled, 1);
}

TEST_F(EmployeeToolsTest, GrantMistakesAreReportedBeforeAnyWork) {
  start_mock(std::string("rules:\n") + kCeoScript);
  RunResult r = run_json(config("  tools:\n    agents:\n      MathWiz: [Calculater]\n"), "compute");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_NE(r.err.find("config.yaml:9: employee.tools.agents.MathWiz[0]: unknown tool 'Calculater' (did you "
                       "mean 'Calculator'?)"),
            std::string::npos)
      << r.describe();
  EXPECT_TRUE(requests_for("ceo-model").empty());
  RunResult m = run_json(config("  tools:\n    all: [AgentCreator]\n"), "compute");
  EXPECT_EQ(m.exit_code, 2) << m.describe();
  EXPECT_NE(m.err.find("employee.tools.all[0]: 'AgentCreator' is a management tool of the CEO"), std::string::npos)
      << m.describe();
}

}  // namespace
}  // namespace kaisha::e2e
