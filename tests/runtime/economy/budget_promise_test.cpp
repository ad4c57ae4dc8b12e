// The budget promise: concurrent asks never overshoot the expense budget, in
// any language, because each holds a true upper bound of its cost; and when a
// provider bills more than that anyway, the excess is recorded and shown, and
// only paid calls are refused afterwards (free ones go on).
#include <atomic>
#include <functional>
#include <latch>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/economy/budget.hpp"
#include "runtime/llm/token_bound.hpp"
#include "runtime/llm/usage_estimate.hpp"

namespace kaisha::economy {
namespace {

ModelCost api_model() {  // gemini-2.5-pro-exp-03-25's prices
  ModelCost m;
  m.name = "gemini-2.5-pro-exp-03-25";
  m.model_ref = "gemini:gemini-2.5-pro-exp-03-25";
  m.type = "cloud";
  m.invoke_expense_cost = 1.25;
  m.output_expense_cost = 10.0;
  return m;
}

ModelCost free_model() {
  ModelCost m;
  m.name = "ceo-model";
  m.model_ref = "ollama:ceo-model";
  m.type = "local";
  return m;
}

llm::ChatRequest ask(const std::string& system, const std::string& prompt) {
  llm::ChatRequest r;
  r.messages.push_back({llm::Role::system, system, {}, "", ""});
  r.messages.push_back({llm::Role::user, prompt, {}, "", ""});
  return r;
}

// What the worst tokenizer bills: a token per byte plus the framing.
int64_t billed_input(const llm::ChatRequest& r) {
  int64_t n = llm::TokenFraming::per_request;
  for (const auto& m : r.messages) n += llm::TokenFraming::per_message + int64_t(m.content.size());
  return n;
}

const std::vector<std::string> kPrompts = {
    "東京の主要な河川を三つ挙げ、それぞれの長さと歴史的な役割について簡潔に説明してください。",
    "長江と黄河の違いを、流域の気候と農業の観点から比較してください。",
    "🌊🏞️🐟🚣‍♀️🌉🌧️➡️🌊🙂 — explain with emoji",
    "Name three rivers of Europe and one fact about each.",
};
const std::string kSystem = "あなたは川について詳しい専門家です。簡潔に答えてください。";
constexpr int64_t kMaxOut = 64;

struct Outcome {
  int ok = 0;
  int refused = 0;
  double overshoot = 0;
  double used = 0;
  double total = 0;
};

// `asks` concurrent asks, each reserved with `bound` and billed by the worst
// tokenizer (output at the cap), against a budget of `total` USD. All are in
// flight together: every reservation is made before the first settles.
Outcome run_concurrent_asks(int asks, double total, const std::function<int64_t(const llm::ChatRequest&)>& bound) {
  Budget b(100, total);
  std::atomic<int> ok{0}, refused{0};
  std::latch start(asks), all_reserved(asks);
  std::vector<std::thread> threads;
  threads.reserve(asks);
  for (int i = 0; i < asks; ++i) {
    threads.emplace_back([&, i] {
      const llm::ChatRequest r = ask(kSystem, kPrompts[i % kPrompts.size()]);
      start.arrive_and_wait();
      auto held = b.reserve_ask(api_model(), bound(r), kMaxOut);
      all_reserved.arrive_and_wait();
      if (!held) {
        ++refused;
        return;
      }
      ++ok;
      b.settle_ask(*held, billed_input(r), kMaxOut);
    });
  }
  for (auto& t : threads) t.join();
  return Outcome{ok, refused, b.expense_overshoot(), b.expense().used(), b.expense().total()};
}

TEST(BudgetPromise, AThousandConcurrentCjkAndEmojiAsksNeverOvershoot) {
  const Outcome o =
      run_concurrent_asks(1000, 0.25, [](const llm::ChatRequest& r) { return llm::input_token_bound(r); });
  EXPECT_EQ(o.ok + o.refused, 1000);
  EXPECT_GT(o.ok, 100);
  EXPECT_GT(o.refused, 0);  // the budget ran out: the promise was tested
  EXPECT_EQ(o.overshoot, 0);
  EXPECT_LE(o.used, o.total);
}

// The same scenario reserved at ~4 characters per token (the old estimate)
// overshoots: the test above can fail.
TEST(BudgetPromise, TheOldEstimateOvershootsInTheSameScenario) {
  const Outcome o =
      run_concurrent_asks(1000, 0.25, [](const llm::ChatRequest& r) { return llm::estimate_input_tokens(r); });
  EXPECT_GT(o.overshoot, 0);
  EXPECT_GT(o.used, o.total);
}

// The case: nine Japanese asks under-reserved, billed past a 9,500
// micro-dollar budget; then even the CEO's free calls were refused.
TEST(BudgetPromise, AnOvershootIsRecordedAndOnlyPaidCallsAreRefusedAfter) {
  Budget b(100, 0.0095);
  std::vector<AskReservation> held;
  for (int i = 0; i < 9; ++i) {
    auto r = b.reserve_ask(api_model(), 100, 80);  // 0.000925 each, 0.008325 together
    ASSERT_TRUE(r) << r.error().message;
    held.push_back(*r);
  }
  double over = 0;
  for (const auto& r : held) over += b.settle_ask(r, 224, 80);  // billed 0.00108 each
  EXPECT_NEAR(over, 9 * (0.00108 - 0.000925), 1e-9);
  EXPECT_NEAR(b.expense_overshoot(), over, 1e-9);
  EXPECT_EQ(b.overshoot_calls(), 9);
  EXPECT_NEAR(b.expense().used(), 0.00972, 1e-9);

  auto paid = b.reserve_ask(api_model(), 10, 10);
  ASSERT_FALSE(paid);
  EXPECT_EQ(paid.error().code, "budget");
  EXPECT_EQ(paid.error().message,
            Budget::overspent_text(Budget::expense_for(api_model(), 10, 10), 0.00972, 0.0095, over));
  EXPECT_NE(paid.error().message.find("overspent"), std::string::npos);
  EXPECT_NE(paid.error().message.find("more than was reserved"), std::string::npos);

  // A free call is never refused for expense.
  auto free = b.reserve_ask(free_model(), 100000, 4096);
  ASSERT_TRUE(free) << free.error().message;
  EXPECT_EQ(b.settle_ask(*free, 100000, 4096), 0);
  ModelCost free_hire = free_model();
  EXPECT_TRUE(b.hire(free_hire));

  // Shown by GetBudget and kept across a restart.
  const json j = b.get_budget_json();
  EXPECT_NEAR(j["expense_overshoot"].get<double>(), over, 1e-9);
  EXPECT_EQ(j["overshoot_calls"], 9);
  auto state = BudgetState::from_json(b.snapshot().to_json());
  ASSERT_TRUE(state);
  Budget restored(100, 0.0095);
  restored.restore(*state);
  EXPECT_NEAR(restored.expense_overshoot(), over, 1e-9);
  EXPECT_EQ(restored.overshoot_calls(), 9);
  EXPECT_FALSE(restored.reserve_ask(api_model(), 10, 10));

  // Raising the budget past what was spent lets paid calls through again.
  b.raise_expense(0.01);
  EXPECT_TRUE(b.reserve_ask(api_model(), 10, 10));
}

// An overshoot that leaves the budget under its total is recorded, and paid
// calls that fit still run.
TEST(BudgetPromise, AnOvershootWithinTheTotalIsRecordedButRefusesNothing) {
  Budget b(100, 1.0);
  auto r = b.reserve_ask(api_model(), 100, 10);
  ASSERT_TRUE(r);
  EXPECT_GT(b.settle_ask(*r, 1000, 10), 0);
  EXPECT_EQ(b.overshoot_calls(), 1);
  EXPECT_TRUE(b.reserve_ask(api_model(), 100, 10));
}

}  // namespace
}  // namespace kaisha::economy
