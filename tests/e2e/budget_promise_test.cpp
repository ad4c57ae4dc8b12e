// The budget promise through the CLI: concurrent asks with Japanese prompts
// never spend past the expense budget (each holds a true upper bound of its
// cost), and a provider that bills more than any tokenizer could is recorded
// as an overshoot, shown by `kaisha budget`, after which paid calls are
// refused with a clear text while the free CEO carries on to an answer.
#include "e2e_fixture.hpp"
#include "runtime/economy/budget.hpp"
#include "runtime/llm/token_bound.hpp"

namespace kaisha::e2e {
namespace {

const std::string kSystem = "あなたは日本の川に詳しい専門家です。";

// A long Japanese prompt: 6,900 bytes, 2,300 characters.
std::string long_japanese_prompt() {
  std::string p;
  for (int i = 0; i < 100; ++i) p += "日本の川の名前と長さと歴史を説明してください。";
  return p;
}

// The CEO (free, ceo-model) hires Kawa on gemini-2.5-pro-exp-03-25 and asks
// it `asks` times in one reply; `usage` is what the mock bills each ask.
std::string script(const std::string& prompt, int asks, const std::string& usage, const std::string& later = "") {
  std::string calls;
  for (int i = 0; i < asks; ++i)
    calls +=
        std::string(i ? ", " : "") + "{ name: AskAgent, arguments: { agent_name: Kawa, prompt: \"" + prompt + "\" } }";
  return R"(
rules:
  - match: { model: gemini-2.5-pro-exp-03-25 }
    reply: { text: "川の答え", usage: )" +
         usage + R"(, latency_ms: 300 }
  - match: { model: ceo-model, turn: 0 }
    reply:
      tool_calls:
        - name: AgentCreator
          arguments: { agent_name: Kawa, base_model: gemini-2.5-pro-exp-03-25, system_prompt: ")" +
         kSystem +
         R"(", description: "Rivers" }
  - match: { model: ceo-model, turn: 1 }
    reply: { tool_calls: [ )" +
         calls + R"( ] }
)" + later +
         R"(
  - match: { model: ceo-model }
    reply: { text: "CEO done: {{last_tool}}" }
)";
}

double budget_number(const json& b, const char* key) { return b.value(key, json(0.0)).get<double>(); }

// Billed at the bound itself (a tokenizer making one token per byte, output
// at the cap): the third concurrent ask does not fit and is refused before
// it reaches the model; nothing is spent past the budget. With the old
// estimate (~4 bytes per token) each held 0.0124, all three were admitted and
// billed 0.057 of a 0.045 budget.
TEST_F(E2eTest, ConcurrentJapaneseAsksNeverSpendPastTheBudget) {
  const std::string prompt = long_japanese_prompt();
  const int64_t in = llm::ask_input_token_bound(kSystem, prompt);
  start_mock(script(prompt, 3, "{ input_tokens: " + std::to_string(in) + ", output_tokens: 1024 }"));
  ConfigOptions o;
  o.expense_total = 0.045;
  const std::string cfg = write_config(o);
  RunResult r = run_json(cfg, "日本の川について三回聞いてください。");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  auto asks = r.tool_results("AskAgent");
  ASSERT_EQ(asks.size(), 3u) << r.out;
  int answered = 0, refused = 0;
  for (const auto& a : asks) {
    if (a["status"] == "success")
      ++answered;
    else if (a.value("message", "").find("Do not have enough expense budget") != std::string::npos)
      ++refused;
  }
  EXPECT_EQ(answered, 2) << r.out;
  EXPECT_EQ(refused, 1) << r.out;
  EXPECT_EQ(requests_for("gemini-2.5-pro-exp-03-25").size(), 2u);

  RunResult budget = kaisha({"budget", "--config", cfg, "--json"});
  ASSERT_EQ(budget.exit_code, 0) << budget.describe();
  const json b = json::parse(budget.out)["budget"];
  EXPECT_LE(budget_number(b, "current_expense"), 0.045);
  EXPECT_NEAR(budget_number(b, "current_expense"),
              2 * economy::Budget::expense_for(
                      [] {
                        economy::ModelCost c;
                        c.invoke_expense_cost = 1.25;
                        c.output_expense_cost = 10;
                        return c;
                      }(),
                      in, 1024),
              1e-6);
  EXPECT_EQ(budget_number(b, "expense_overshoot"), 0);
}

TEST_F(E2eTest, AnOvershootIsRecordedShownAndStopsOnlyPaidCalls) {
  // 50,000 input tokens billed for a prompt of a few dozen bytes: more than
  // any tokenizer makes, i.e. a provider billing past the reservation.
  const std::string later = R"(
  - match: { model: ceo-model, turn: 2 }
    reply: { tool_calls: [ { name: AskAgent, arguments: { agent_name: Kawa, prompt: "もう一度" } } ] })";
  start_mock(script("川を一つ", 2, "{ input_tokens: 50000, output_tokens: 12 }", later));
  ConfigOptions o;
  o.expense_total = 0.03;
  const std::string cfg = write_config(o);
  RunResult r = run_json(cfg, "川について聞いてください。");
  // The free CEO is never refused: the task ends with its answer.
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.result().value("answer", "").find("CEO done"), std::string::npos) << r.out;
  auto asks = r.tool_results("AskAgent");
  ASSERT_EQ(asks.size(), 3u) << r.out;
  EXPECT_EQ(asks[0]["status"], "success");
  EXPECT_EQ(asks[1]["status"], "success");
  EXPECT_EQ(asks[2]["status"], "error");
  const std::string refusal = asks[2].value("message", "");
  EXPECT_NE(refusal.find("The expense budget is overspent"), std::string::npos) << refusal;
  EXPECT_NE(refusal.find("more than was reserved"), std::string::npos) << refusal;
  EXPECT_NE(refusal.find("free calls still can"), std::string::npos) << refusal;
  EXPECT_EQ(requests_for("gemini-2.5-pro-exp-03-25").size(), 2u);

  RunResult json_budget = kaisha({"budget", "--config", cfg, "--json"});
  ASSERT_EQ(json_budget.exit_code, 0) << json_budget.describe();
  const json b = json::parse(json_budget.out)["budget"];
  EXPECT_GT(budget_number(b, "expense_overshoot"), 0.1);
  EXPECT_EQ(b.value("overshoot_calls", 0), 2);
  RunResult text_budget = kaisha({"budget", "--config", cfg});
  ASSERT_EQ(text_budget.exit_code, 0) << text_budget.describe();
  EXPECT_NE(text_budget.out.find("overshoot: providers billed"), std::string::npos) << text_budget.out;

  // Journaled like every other ledger change.
  auto j = journal();
  ASSERT_TRUE(j);
  auto entries = j->ledger_entries(json::parse(json_budget.out)["session"]);
  ASSERT_TRUE(entries.ok());
  int overshoots = 0;
  for (const auto& e : *entries)
    if (e.kind == "overshoot") {
      ++overshoots;
      EXPECT_GT(e.amount, 0);
      EXPECT_EQ(e.agent, "Kawa");
      EXPECT_NE(e.reason.find("more than the"), std::string::npos) << e.reason;
    }
  EXPECT_EQ(overshoots, 2);
}

}  // namespace
}  // namespace kaisha::e2e
