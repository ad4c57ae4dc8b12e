#include "runtime/driver/pending_calls.hpp"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace kaisha::driver {
namespace {

TEST(PendingCalls, AnOutcomeRunsItsContinuationOnceWithTheCallersArguments) {
  PendingCalls<std::vector<std::string>&> pending;
  const CallId hire = pending.expect<HireAnswered>(
      [](const HireAnswered& h, std::vector<std::string>& out) { out.push_back(h.ok ? "hired" : "refused"); });
  const CallId ask = pending.expect<AskAnswered>(
      [](const AskAnswered& a, std::vector<std::string>& out) { out.push_back("answer " + a.reply.output); });
  EXPECT_NE(hire, ask);
  EXPECT_EQ(pending.waiting(), 2u);
  EXPECT_EQ(pending.waiting_for<HireAnswered>(), 1u);

  std::vector<std::string> out;
  AskAnswered a;
  a.id = ask;
  a.reply.output = "川";
  EXPECT_TRUE(pending.deliver(a, out));
  EXPECT_FALSE(pending.deliver(a, out));  // answered already
  HireAnswered h;
  h.id = hire;
  h.ok = true;
  EXPECT_TRUE(pending.deliver(h, out));
  EXPECT_EQ(out, (std::vector<std::string>{"answer 川", "hired"}));
  EXPECT_EQ(pending.waiting(), 0u);
}

TEST(PendingCalls, UnknownIdsAndOutcomesOfAnotherTypeAreIgnored) {
  PendingCalls<> pending;
  int runs = 0;
  const CallId id = pending.expect<ModelAnswered>([&](const ModelAnswered&) { ++runs; });
  HireAnswered wrong;
  wrong.id = id;
  EXPECT_FALSE(pending.deliver(wrong));  // same id, not the outcome it waits for
  ModelAnswered stray;
  stray.id = id + 100;
  EXPECT_FALSE(pending.deliver(stray));
  EXPECT_EQ(runs, 0);
  ModelAnswered right;
  right.id = id;
  EXPECT_TRUE(pending.deliver(right));
  EXPECT_EQ(runs, 1);
}

TEST(PendingCalls, AScopeIsDroppedWithoutTouchingDirectCalls) {
  PendingCalls<> pending;
  std::vector<std::string> ran;
  const CallId task1 = pending.expect<BudgetRead>([&](const BudgetRead&) { ran.push_back("task1"); }, 1);
  const CallId task2 = pending.expect<BudgetRead>([&](const BudgetRead&) { ran.push_back("task2"); }, 2);
  const CallId direct = pending.expect<BudgetRead>([&](const BudgetRead&) { ran.push_back("direct"); });
  pending.drop(1);
  uint64_t scope = 99;
  EXPECT_FALSE(pending.deliver(BudgetRead{task1, {}}, &scope));
  EXPECT_EQ(scope, 99u);  // untouched when nothing ran
  EXPECT_TRUE(pending.deliver(BudgetRead{task2, {}}, &scope));
  EXPECT_EQ(scope, 2u);
  const CallId task3 = pending.expect<BudgetRead>([&](const BudgetRead&) { ran.push_back("task3"); }, 3);
  pending.drop_scoped();
  EXPECT_FALSE(pending.deliver(BudgetRead{task3, {}}));
  EXPECT_TRUE(pending.deliver(BudgetRead{direct, {}}, &scope));
  EXPECT_EQ(scope, 0u);
  EXPECT_EQ(ran, (std::vector<std::string>{"task2", "direct"}));
}

TEST(PendingCalls, IdOfReadsEveryOutcome) {
  EXPECT_EQ(id_of(Outcome(Recalled{7, {}})), 7u);
  EXPECT_EQ(id_of(Outcome(ToolRan{9, {}})), 9u);
}

}  // namespace
}  // namespace kaisha::driver
