#include "runtime/economy/held_charges.hpp"

#include <gtest/gtest.h>

namespace kaisha::economy {
namespace {

using Held = HeldCharges<std::string>;

BudgetChange spent(double usd) {
  BudgetChange c;
  c.expense_used = usd;
  return c;
}

TEST(HeldCharges, AKeysRowsComeBackInOrderOnceWithTheirChange) {
  Held h;
  h.hold({"t", 3, -1}, {"settle", "overshoot"}, spent(0.5));
  h.hold({"t", 3, -1}, {"release"}, spent(0));
  h.hold({"t", 4, -1}, {"other"}, spent(0.25));
  EXPECT_EQ(h.rows(), 4u);
  auto taken = h.take({"t", 3, -1});
  ASSERT_TRUE(taken);
  EXPECT_EQ(taken->rows, (std::vector<std::string>{"settle", "overshoot", "release"}));
  EXPECT_DOUBLE_EQ(taken->change.expense_used, 0.5);
  EXPECT_EQ(taken->holds, 2u);         // a settlement and a release under one key
  EXPECT_FALSE(h.take({"t", 3, -1}));  // taken once
  EXPECT_EQ(h.rows(), 1u);
  EXPECT_DOUBLE_EQ(h.take({"t", 4, -1})->change.expense_used, 0.25);
  EXPECT_TRUE(h.empty());
}

TEST(HeldCharges, AStepOfAToolLoopIsItsOwnKey) {
  Held h;
  h.hold({"t", 7, -1}, {"ask"}, spent(1));
  h.hold({"t", 7, 2}, {"step 2"}, spent(2));
  EXPECT_EQ(h.take({"t", 7, 2})->rows, std::vector<std::string>{"step 2"});
  EXPECT_FALSE(h.empty());
  EXPECT_DOUBLE_EQ(h.take({"t", 7, -1})->change.expense_used, 1);
}

TEST(HeldCharges, KeysOfATaskOrOfAll) {
  Held h;
  h.hold({"a", 1, -1}, {"a1"}, spent(0));
  h.hold({"b", 1, -1}, {"b1"}, spent(0));
  h.hold({"a", 2, 0}, {"a2"}, spent(0));
  auto a = h.keys_of("a");
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].call, 1);
  EXPECT_EQ(a[1].call, 2);
  EXPECT_EQ(h.keys_of("").size(), 3u);
  EXPECT_TRUE(h.keys_of("c").empty());
}

TEST(UnsavedChanges, TheBudgetOnDiskLeavesOutWhatIsHeld) {
  BudgetState before;
  before.expense.total = 10;
  before.expense.used = 1;
  before.internal_invoke_cost = 2;
  BudgetState after = before;
  after.expense.used = 1.4;
  after.internal_invoke_cost = 2.5;
  after.expense_overshoot = 0.1;
  after.overshoot_calls = 1;
  const BudgetChange c = BudgetChange::between(before, after);
  UnsavedChanges u;
  u.add(c);
  BudgetState disk = u.taken_from(after);
  EXPECT_DOUBLE_EQ(disk.expense.used, 1);
  EXPECT_DOUBLE_EQ(disk.internal_invoke_cost, 2);
  EXPECT_DOUBLE_EQ(disk.expense_overshoot, 0);
  EXPECT_EQ(disk.overshoot_calls, 0);
  EXPECT_DOUBLE_EQ(disk.expense.total, 10);  // totals are not held
  u.saved(c, 1);
  EXPECT_DOUBLE_EQ(u.taken_from(after).expense.used, 1.4);
  EXPECT_EQ(u.total().expense_used, 0.0);  // exactly: nothing is held
}

TEST(UnsavedChanges, SumsWhatIsHeldAndComesBackToExactlyZero) {
  UnsavedChanges u;
  u.add(spent(0.5));
  u.add(spent(0));
  u.add(spent(0.25));
  EXPECT_DOUBLE_EQ(u.total().expense_used, 0.75);
  u.saved(spent(0.5), 2);  // a settlement and a release under one key
  EXPECT_DOUBLE_EQ(u.total().expense_used, 0.25);
  u.add(spent(0.1));
  u.saved(spent(0.1), 1);
  u.saved(spent(0.25), 1);
  EXPECT_EQ(u.total().expense_used, 0.0);
}

}  // namespace
}  // namespace kaisha::economy
