#include "runtime/economy/ledger.hpp"

#include <atomic>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace kaisha::economy {
namespace {

TEST(Ledger, ChargeAndRefund) {
  Ledger l("resource", 100);
  ASSERT_TRUE(l.charge(20));
  ASSERT_TRUE(l.charge(20));
  EXPECT_DOUBLE_EQ(l.used(), 40);
  EXPECT_DOUBLE_EQ(l.remaining(), 60);
  ASSERT_TRUE(l.refund(20));
  EXPECT_DOUBLE_EQ(l.used(), 20);
}

TEST(Ledger, ChargeRefusedPastTotalChargesNothing) {
  Ledger l("expense", 10);
  ASSERT_TRUE(l.charge(9));
  Status s = l.charge(2);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, "budget");
  EXPECT_DOUBLE_EQ(l.used(), 9);
  EXPECT_TRUE(l.charge(1));  // exactly to the total is allowed (current + cost <= total)
  EXPECT_DOUBLE_EQ(l.remaining(), 0);
}

TEST(Ledger, RefundBelowZeroIsRefusedWithHashiruText) {
  Ledger l("resource", 100);
  ASSERT_TRUE(l.charge(5));
  Status s = l.refund(6);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "Not enough resource budget to remove");
  EXPECT_DOUBLE_EQ(l.used(), 5);
}

TEST(Ledger, DecimalSumsAreExact) {
  Ledger l("expense", 0.3);
  ASSERT_TRUE(l.charge(0.1));
  ASSERT_TRUE(l.charge(0.2));  // 0.1 + 0.2 must fit 0.3
  EXPECT_DOUBLE_EQ(l.used(), 0.3);
  EXPECT_DOUBLE_EQ(l.remaining(), 0);
  EXPECT_FALSE(l.charge(0.000001));
}

TEST(Ledger, ReserveSettleReleaseArithmetic) {
  Ledger l("expense", 10);
  auto a = l.reserve(4);
  auto b = l.reserve(3);
  ASSERT_TRUE(a && b);
  EXPECT_DOUBLE_EQ(l.reserved(), 7);
  EXPECT_DOUBLE_EQ(l.remaining(), 3);
  EXPECT_FALSE(l.reserve(3.5));  // used + reserved + amount > total
  l.settle(*a, 1.5);             // commits 1.5, releases the other 2.5
  EXPECT_DOUBLE_EQ(l.used(), 1.5);
  EXPECT_DOUBLE_EQ(l.reserved(), 3);
  l.release(*b);
  EXPECT_DOUBLE_EQ(l.reserved(), 0);
  EXPECT_DOUBLE_EQ(l.used(), 1.5);
  EXPECT_DOUBLE_EQ(l.remaining(), 8.5);
  l.settle(*a, 5);  // already settled: ignored
  EXPECT_DOUBLE_EQ(l.used(), 1.5);
}

TEST(Ledger, SettleAboveHoldCommitsActual) {
  Ledger l("expense", 1);
  auto a = l.reserve(0.5);
  ASSERT_TRUE(a);
  // The provider billed more than was held: recorded, and the excess returned.
  EXPECT_DOUBLE_EQ(l.settle(*a, 1.25), 0.75);
  EXPECT_DOUBLE_EQ(l.used(), 1.25);
  EXPECT_DOUBLE_EQ(l.reserved(), 0);
  EXPECT_DOUBLE_EQ(l.remaining(), 0);
  EXPECT_DOUBLE_EQ(l.overspent(), 0.25);
  EXPECT_FALSE(l.reserve(0.01));
  EXPECT_DOUBLE_EQ(l.settle(*a, 1), 0);  // already settled
}

// Nothing costs nothing: a free call or hire fits even an overspent ledger.
TEST(Ledger, ZeroAlwaysFits) {
  Ledger l("expense", 1);
  l.record_spent(1.5);
  EXPECT_TRUE(l.can_spend(0));
  EXPECT_TRUE(l.reserve(0));
  EXPECT_TRUE(l.charge(0));
  EXPECT_FALSE(l.charge(0.000001));
}

TEST(Ledger, DisabledPassesEverythingAndChargesNothing) {
  Ledger l("resource", 10, /*enabled=*/false);
  EXPECT_TRUE(l.charge(1000));
  EXPECT_TRUE(l.can_spend(1e9));
  auto r = l.reserve(500);
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(l.reserved(), 0);
  l.settle(*r, 0);
  EXPECT_DOUBLE_EQ(l.used(), 0);
  EXPECT_TRUE(l.refund(5));
  EXPECT_DOUBLE_EQ(l.used(), 0);
  l.set_enabled(true);
  EXPECT_FALSE(l.charge(11));
}

TEST(Ledger, RaiseAddsToTotal) {
  Ledger l("expense", 1);
  ASSERT_TRUE(l.charge(1));
  EXPECT_FALSE(l.charge(0.5));
  l.raise(2);
  EXPECT_DOUBLE_EQ(l.total(), 3);
  EXPECT_TRUE(l.charge(0.5));
}

TEST(Ledger, SnapshotRestore) {
  Ledger a("resource", 100);
  ASSERT_TRUE(a.charge(42.5));
  Ledger b("resource", 1);
  b.restore(a.snapshot());
  EXPECT_DOUBLE_EQ(b.total(), 100);
  EXPECT_DOUBLE_EQ(b.used(), 42.5);
}

// 1,000 reservations of 0.7 from 8 threads against a total of 100: exactly
// floor(100 / 0.7) = 142 fit, whatever the interleaving.
TEST(Ledger, ConcurrentReservationsNeverOvershoot) {
  Ledger l("resource", 100);
  constexpr int kThreads = 8, kPerThread = 125;
  std::atomic<int> ok{0}, refused{0};
  std::atomic<bool> overshoot{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kPerThread; ++i) {
        if (l.reserve(0.7))
          ++ok;
        else
          ++refused;
        if (l.used() + l.reserved() > l.total() + 1e-9) overshoot = true;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(ok + refused, 1000);
  EXPECT_EQ(ok.load(), 142);
  EXPECT_FALSE(overshoot.load());
  EXPECT_NEAR(l.reserved(), 142 * 0.7, 1e-9);
  EXPECT_LE(l.reserved(), l.total());
}

// Reserve/settle churn from 8 threads: the final usage is exactly the sum of
// what was settled, and nothing stays reserved.
TEST(Ledger, ConcurrentReserveSettleIsExact) {
  Ledger l("expense", 1000);
  std::atomic<int> settled{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 125; ++i) {
        auto r = l.reserve(2);
        if (!r) continue;
        if (i % 2 == 0) {
          l.settle(*r, 0.001);
          ++settled;
        } else {
          l.release(*r);
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_DOUBLE_EQ(l.reserved(), 0);
  EXPECT_DOUBLE_EQ(l.used(), settled.load() * 0.001);
  EXPECT_EQ(settled.load(), 8 * 63);
}

}  // namespace
}  // namespace kaisha::economy
