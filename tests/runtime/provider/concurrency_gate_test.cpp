#include "runtime/provider/concurrency_gate.hpp"

#include <vector>

#include <gtest/gtest.h>

namespace kaisha::provider {
namespace {

TEST(ConcurrencyGate, QueuesBeyondLimitInFifoOrder) {
  ConcurrencyGate gate(2);
  std::vector<int> started;
  for (int i = 0; i < 5; ++i) gate.enter([&, i] { started.push_back(i); });
  EXPECT_EQ(started, (std::vector<int>{0, 1}));
  EXPECT_EQ(gate.in_use(), 2);
  EXPECT_EQ(gate.waiting(), 3u);
  gate.leave();
  EXPECT_EQ(started, (std::vector<int>{0, 1, 2}));
  gate.leave();
  gate.leave();
  EXPECT_EQ(started, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(gate.in_use(), 2);
  gate.leave();
  gate.leave();
  EXPECT_EQ(gate.in_use(), 0);
  EXPECT_EQ(gate.waiting(), 0u);
}

TEST(ConcurrencyGate, UnlimitedWhenLimitIsZero) {
  ConcurrencyGate gate(0);
  int n = 0;
  for (int i = 0; i < 100; ++i) gate.enter([&] { ++n; });
  EXPECT_EQ(n, 100);
}

TEST(ConcurrencyGate, WorkThatEndsAtOnceDoesNotRecurse) {
  // Each queued piece of work finishes inside its own start: a long queue
  // must drain iteratively (this would overflow the stack if recursive).
  ConcurrencyGate gate(1);
  int ran = 0;
  gate.enter([] {});  // holds the only slot
  constexpr int kN = 200000;
  for (int i = 0; i < kN; ++i)
    gate.enter([&] {
      ++ran;
      gate.leave();
    });
  gate.leave();
  EXPECT_EQ(ran, kN);
  EXPECT_EQ(gate.in_use(), 0);
}

}  // namespace
}  // namespace kaisha::provider
