#include "runtime/economy/budget.hpp"

#include <atomic>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace kaisha::economy {
namespace {

ModelCost local(std::string name, double create, double invoke) {
  ModelCost m;
  m.name = name;
  m.model_ref = "ollama:" + name;
  m.type = "local";
  m.create_resource_cost = create;
  m.invoke_resource_cost = invoke;
  return m;
}

ModelCost cloud(std::string name, double create_expense, double in_per_m, double out_per_m) {
  ModelCost m;
  m.name = name;
  m.model_ref = "gemini:" + name;
  m.type = "cloud";
  m.create_expense_cost = create_expense;
  m.invoke_expense_cost = in_per_m;
  m.output_expense_cost = out_per_m;
  return m;
}

// §9 item 28.
TEST(Budget, HireMistralAndDeepseekUsesForty) {
  Budget b(100, 10);
  ASSERT_TRUE(b.hire(local("mistral", 20, 100)));
  ASSERT_TRUE(b.hire(local("deepseek-r1", 20, 150)));
  json j = b.get_budget_json();
  EXPECT_DOUBLE_EQ(j["current_resource_usage"].get<double>(), 40);
  EXPECT_DOUBLE_EQ(j["current_remaining_resource_budget"].get<double>(), 60);
  EXPECT_EQ(b.hired_agents(), 2);
}

// §9 item 27: churn friction.
TEST(Budget, HireFireHireChargesExpenseTwiceResourceOnce) {
  Budget b(100, 10);
  ModelCost m = local("mistral", 20, 100);
  m.create_expense_cost = 0.5;
  ASSERT_TRUE(b.hire(m));
  ASSERT_TRUE(b.fire(m));
  EXPECT_DOUBLE_EQ(b.resource().used(), 0);
  EXPECT_DOUBLE_EQ(b.expense().used(), 0.5);  // never refunded
  ASSERT_TRUE(b.hire(m));
  EXPECT_DOUBLE_EQ(b.resource().used(), 20);
  EXPECT_DOUBLE_EQ(b.expense().used(), 1.0);
}

TEST(Budget, RefusedHireChargesNothing) {
  Budget b(30, 1);
  ModelCost m = local("mistral", 20, 100);
  m.create_expense_cost = 2;  // resource fits, expense does not
  Status s = b.hire(m);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, "budget");
  EXPECT_DOUBLE_EQ(b.resource().used(), 0);
  EXPECT_DOUBLE_EQ(b.expense().used(), 0);
  EXPECT_EQ(b.hired_agents(), 0);
}

// §9 item 30: exact sentences.
TEST(Budget, ResourceRefusalTextIsExact) {
  Budget b(30, 10);
  ASSERT_TRUE(b.hire(local("mistral", 20, 100)));
  Status s = b.hire(local("deepseek-r1", 20, 150));
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message,
            "Do not have enough resource budget to create/use the agent. Creating/Using the agent "
            "costs 20 but only 10 is remaining");
  EXPECT_FALSE(b.can_hire(local("x", 10.5, 0)));
  EXPECT_TRUE(b.can_hire(local("x", 10, 0)));
}

TEST(Budget, ExpenseRefusalTextIsExact) {
  Budget b(100, 0.001);
  ModelCost m = cloud("gemini-2.5-pro-exp-03-25", 0, 1.25, 10.0);
  auto r = b.reserve_ask(m, 1000, 1000);  // worst case 0.00125 + 0.01 = 0.01125
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "Do not have enough expense budget to create/use the agent. Creating/Using the agent "
            "costs 0.01125 but only 0.001 is remaining");
  EXPECT_DOUBLE_EQ(b.expense().used(), 0);
  EXPECT_DOUBLE_EQ(b.expense().reserved(), 0);
}

TEST(Budget, InvocationNeedsResourceHeadroom) {
  Budget b(100, 10);
  ASSERT_TRUE(b.hire(local("mistral", 20, 100)));
  auto r = b.reserve_ask(local("mistral", 20, 100), 10, 10);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "Do not have enough resource budget to create/use the agent. Creating/Using the agent "
            "costs 100 but only 80 is remaining");
  EXPECT_DOUBLE_EQ(b.resource().reserved(), 0);
}

TEST(Budget, ExpenseFormula) {
  ModelCost m = cloud("g", 0, 0.15, 0.60);
  EXPECT_DOUBLE_EQ(Budget::expense_for(m, 1'000'000, 0), 0.15);
  EXPECT_DOUBLE_EQ(Budget::expense_for(m, 0, 1'000'000), 0.60);
  EXPECT_NEAR(Budget::expense_for(m, 2000, 500), 0.15 * 2000 / 1e6 + 0.60 * 500 / 1e6, 1e-15);
  EXPECT_DOUBLE_EQ(Budget::expense_for(local("l", 10, 40), 5000, 5000), 0);
}

// The ledger actor's replies carry summary(); GetBudget shows the full view.
// Both must agree on the six §3.3 numbers, holds in flight included.
TEST(Budget, SummaryIsTheSixGetBudgetKeys) {
  Budget b(100, 10);
  ModelCost c = cloud("gemini-2.0-flash", 0.25, 0.10, 0.40);
  ASSERT_TRUE(b.hire(local("llama3.2", 10, 50)));
  ASSERT_TRUE(b.hire(c));
  auto held = b.reserve_ask(c, 1000, 1000);
  ASSERT_TRUE(held);
  const BudgetSummary s = b.summary();
  EXPECT_DOUBLE_EQ(s.total_resource_budget, 100);
  EXPECT_DOUBLE_EQ(s.current_resource_usage, 10);
  EXPECT_DOUBLE_EQ(s.current_remaining_resource_budget, 90);
  EXPECT_DOUBLE_EQ(s.total_expense_budget, 10);
  EXPECT_DOUBLE_EQ(s.current_expense, 0.25);
  EXPECT_DOUBLE_EQ(s.current_remaining_expense_budget, 10 - 0.25 - held->expense_held);
  const json full = b.get_budget_json();
  const json six = s.to_json();
  ASSERT_EQ(six.size(), 6u);
  for (const auto& [key, value] : six.items()) EXPECT_EQ(value, full.at(key)) << key;
}

TEST(Budget, AskReservesSettlesAndCountsSalary) {
  Budget b(100, 10);
  ModelCost l = local("llama3.2", 10, 50);
  ModelCost c = cloud("gemini-2.0-flash", 0, 0.10, 0.40);
  ASSERT_TRUE(b.hire(l));
  auto r1 = b.reserve_ask(l, 100, 1024);
  ASSERT_TRUE(r1);
  EXPECT_DOUBLE_EQ(b.resource().reserved(), 50);
  EXPECT_DOUBLE_EQ(b.get_budget_json()["current_remaining_resource_budget"].get<double>(), 40);
  // A second concurrent call on a 50-point salary does not fit in the 40 left.
  EXPECT_FALSE(b.reserve_ask(l, 100, 1024));
  b.settle_ask(*r1, 100, 200);
  EXPECT_DOUBLE_EQ(b.resource().reserved(), 0);
  EXPECT_DOUBLE_EQ(b.resource().used(), 10);  // the salary is not kept
  EXPECT_DOUBLE_EQ(b.internal_invoke_cost(), 50);

  auto r2 = b.reserve_ask(c, 1000, 1000);
  ASSERT_TRUE(r2);
  EXPECT_DOUBLE_EQ(b.expense().reserved(), 0.0005);  // 0.0001 + 0.0004
  b.settle_ask(*r2, 1000, 500);
  EXPECT_DOUBLE_EQ(b.expense().reserved(), 0);
  EXPECT_DOUBLE_EQ(b.expense().used(), 0.0003);
  b.settle_ask(*r2, 1000, 500);  // twice: ignored
  EXPECT_DOUBLE_EQ(b.expense().used(), 0.0003);
  EXPECT_EQ(b.inflight_asks(), 0);
}

TEST(Budget, CancelAskReleasesEverything) {
  Budget b(100, 10);
  ModelCost c = cloud("g", 0, 1, 1);
  auto r = b.reserve_ask(c, 1000, 1000);
  ASSERT_TRUE(r);
  EXPECT_EQ(b.inflight_asks(), 1);
  b.cancel_ask(*r);
  EXPECT_DOUBLE_EQ(b.expense().used(), 0);
  EXPECT_DOUBLE_EQ(b.expense().reserved(), 0);
  EXPECT_DOUBLE_EQ(b.internal_invoke_cost(), 0);
  EXPECT_EQ(b.inflight_asks(), 0);
}

TEST(Budget, DisabledLedgersPassAndChargeNothing) {
  config::BudgetConfig cfg;
  cfg.resource_total = 10;
  cfg.expense_total = 0;
  config::Switches sw;
  sw.resource_budget = false;
  sw.economy_budget = false;
  Budget b(cfg, sw);
  ModelCost m = local("mistral", 20, 100);
  m.create_expense_cost = 5;
  ASSERT_TRUE(b.hire(m));
  auto r = b.reserve_ask(m, 1000, 1000);
  ASSERT_TRUE(r);
  b.settle_ask(*r, 1000, 1000);
  EXPECT_DOUBLE_EQ(b.resource().used(), 0);
  EXPECT_DOUBLE_EQ(b.expense().used(), 0);
  EXPECT_FALSE(b.get_budget_json()["resource_budget_enabled"].get<bool>());
}

TEST(Budget, GetBudgetJsonHasHashiruKeys) {
  Budget b(100, 10);
  json j = b.get_budget_json();
  for (const char* k : {"total_resource_budget", "current_resource_usage", "current_remaining_resource_budget",
                        "total_expense_budget", "current_expense", "current_remaining_expense_budget",
                        "reserved_resource", "reserved_expense", "internal_invoke_cost"}) {
    EXPECT_TRUE(j.contains(k)) << k;
  }
  EXPECT_DOUBLE_EQ(j["total_expense_budget"].get<double>(), 10);
}

// §9 items 32/33: an insufficient expense budget refuses, raising it lets the
// same call through.
TEST(Budget, RaiseExpenseAuthorisesTheCall) {
  Budget b(100, 0.0001);
  ModelCost c = cloud("g", 0, 1, 1);
  EXPECT_FALSE(b.reserve_ask(c, 1000, 1000));
  b.raise_expense(1);
  EXPECT_DOUBLE_EQ(b.expense().total(), 1.0001);
  EXPECT_TRUE(b.reserve_ask(c, 1000, 1000));
  b.raise_resource(50);
  EXPECT_DOUBLE_EQ(b.resource().total(), 150);
}

TEST(Budget, ResourceModes) {
  config::BudgetConfig cfg;
  cfg.resource_total = 42;
  EXPECT_DOUBLE_EQ(Budget::resource_total_for(cfg), 42);
  cfg.resource_mode = "paper_16GiB_is_100";
  EXPECT_DOUBLE_EQ(Budget::resource_total_for(cfg), 100);
  cfg.resource_mode = "host_memory";
  double gib = Budget::host_memory_gib();
  ASSERT_GT(gib, 0);  // Linux test hosts have /proc/meminfo
  EXPECT_DOUBLE_EQ(Budget::resource_total_for(cfg), std::round(gib / 16 * 100));
}

TEST(Budget, LimitsOnAgentsAndInflightAsks) {
  Budget b(100, 10);
  b.set_limits(1, 1);
  ModelCost m = local("llama3.2", 10, 1);
  ASSERT_TRUE(b.hire(m));
  Status s = b.hire(m);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("limit of 1"), std::string::npos);
  auto r = b.reserve_ask(m, 1, 1);
  ASSERT_TRUE(r);
  EXPECT_FALSE(b.reserve_ask(m, 1, 1));
  b.settle_ask(*r, 1, 1);
  EXPECT_TRUE(b.reserve_ask(m, 1, 1));
  ASSERT_TRUE(b.fire(m));
  EXPECT_TRUE(b.hire(m));
}

TEST(Budget, SnapshotRestoreRoundTripsThroughJson) {
  Budget a(100, 10);
  ModelCost m = local("mistral", 20, 10);
  m.create_expense_cost = 0.25;
  ASSERT_TRUE(a.hire(m));
  auto r = a.reserve_ask(m, 1, 1);
  ASSERT_TRUE(r);
  a.settle_ask(*r, 1, 1);
  auto state = BudgetState::from_json(a.snapshot().to_json());
  ASSERT_TRUE(state) << state.error().message;
  Budget b(1, 1);
  b.restore(*state);
  EXPECT_EQ(b.get_budget_json(), a.get_budget_json());
  EXPECT_FALSE(BudgetState::from_json(json{{"resource", 1}}));
}

TEST(Budget, NumbersFormatWithoutNoise) {
  EXPECT_EQ(Budget::refusal_text("resource", 20, 60),
            "Do not have enough resource budget to create/use the agent. Creating/Using the agent "
            "costs 20 but only 60 is remaining");
  EXPECT_EQ(format_amount(0.1 + 0.2), "0.3");
  EXPECT_EQ(format_amount(0.0000375), "0.000038");
  EXPECT_EQ(format_amount(-1.5), "-1.5");
  EXPECT_EQ(format_amount(1e-7), "0");
}

// Concurrent asks from 8 threads on a shared budget: usage never passes the
// total, and exactly the reservations that fit succeed.
TEST(Budget, ConcurrentAsksNeverOvershoot) {
  Budget b(100, 1);
  ModelCost c = cloud("g", 0, 1.0, 0.0);  // 1000 input tokens = $0.001
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  std::mutex mu;
  std::vector<AskReservation> held;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 125; ++i) {
        auto r = b.reserve_ask(c, 3000, 0);  // $0.003 each: 333 fit in $1
        if (!r) continue;
        ++ok;
        std::lock_guard lock(mu);
        held.push_back(*r);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok.load(), 333);
  EXPECT_LE(b.expense().reserved(), 1.0);
  for (auto& r : held) b.settle_ask(r, 3000, 0);
  EXPECT_DOUBLE_EQ(b.expense().used(), 0.999);
  EXPECT_DOUBLE_EQ(b.expense().reserved(), 0);
}

}  // namespace
}  // namespace kaisha::economy

namespace kaisha::economy {
namespace {

// §9 item 34: a tool's declared create costs go to the right ledger.
TEST(Budget, ToolCreateCostsChargeTheRightLedger) {
  Budget b(1, 1);
  ASSERT_TRUE(b.charge_create_costs(0.1, 0.25));
  EXPECT_DOUBLE_EQ(b.resource().used(), 0.1);
  EXPECT_DOUBLE_EQ(b.expense().used(), 0.25);
  EXPECT_EQ(b.hired_agents(), 0);
  Status s = b.charge_create_costs(0.1, 0.8);  // expense refuses: resource undone
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message,
            "Do not have enough expense budget to create/use the agent. Creating/Using the agent "
            "costs 0.8 but only 0.75 is remaining");
  EXPECT_DOUBLE_EQ(b.resource().used(), 0.1);
  ASSERT_TRUE(b.refund_resource(0.1));
  EXPECT_DOUBLE_EQ(b.resource().used(), 0);
  EXPECT_EQ(b.refund_resource(0.1).error().message, "Not enough resource budget to remove");
}

}  // namespace
}  // namespace kaisha::economy
