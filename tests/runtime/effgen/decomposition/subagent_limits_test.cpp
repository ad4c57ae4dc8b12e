#include "runtime/effgen/decomposition/subagent_limits.hpp"

#include <gtest/gtest.h>

namespace kaisha::planning {
namespace {

using std::chrono::milliseconds;

TEST(SubAgentLimits, DepthLimitMakesTheParentWorkItself) {
  SubAgentLimits l;
  EXPECT_TRUE(may_spawn(0, l));
  EXPECT_TRUE(may_spawn(1, l));
  EXPECT_FALSE(may_spawn(2, l));  // at max_depth 2: execute locally
  l.max_depth = 1;
  EXPECT_FALSE(may_spawn(1, l));
}

TEST(SubAgentLimits, ConcurrencyIsCapped) {
  SubAgentLimits l;
  EXPECT_EQ(concurrency(3, l), 3u);
  EXPECT_EQ(concurrency(8, l), 5u);
  EXPECT_EQ(concurrency(0, l), 1u);
}

TEST(SubAgentLimits, ChildGetsHalfTheIterationsAndTime) {
  SubAgentLimits l;
  AgentBudget parent{10, milliseconds(120000)};
  AgentBudget child = child_budget(parent, 4, l);
  EXPECT_EQ(child.max_iterations, 5);
  EXPECT_EQ(child.timeout, milliseconds(60000));
  EXPECT_EQ(child_budget({7, milliseconds(1001)}, 2, l).max_iterations, 3);
  EXPECT_EQ(child_budget({1, milliseconds(10)}, 2, l).max_iterations, 1);  // never zero
  l.divide_timeout_by_n = true;                                            // Algorithm 11's literal parent.timeout / n
  EXPECT_EQ(child_budget(parent, 4, l).timeout, milliseconds(30000));
  EXPECT_EQ(child_budget(parent, 0, l).timeout, milliseconds(120000));
}

TEST(SubAgentLimits, ValidateRanges) {
  EXPECT_TRUE(validate(SubAgentLimits{}).ok());
  SubAgentLimits l;
  l.max_depth = 6;
  EXPECT_EQ(validate(l).error().message, "sub_agents.max_depth must be in 1–5, got 6");
  l = {};
  l.max_concurrent = 21;
  EXPECT_FALSE(validate(l).ok());
  l = {};
  l.timeout_fraction = 0.05;
  EXPECT_FALSE(validate(l).ok());
  l = {};
  l.max_iterations_fraction = 0.0;
  EXPECT_FALSE(validate(l).ok());
}

}  // namespace
}  // namespace kaisha::planning
