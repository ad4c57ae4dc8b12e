// hiva.md §14 item 8.
#include "runtime/hiva/routing/synergy.hpp"

#include <gtest/gtest.h>

namespace kaisha::hiva {
namespace synergy_test {

TEST(HivaSynergy, ThreeAgentsAverageTheirSixOrderedPairs) {
  const SynergyLookup c = synergy_table({{{"a", "b"}, 0.2},
                                         {{"b", "a"}, 0.4},
                                         {{"a", "c"}, 0.6},
                                         {{"c", "a"}, 0.8},
                                         {{"b", "c"}, 1.0},
                                         {{"c", "b"}, 1.6}});
  EXPECT_NEAR(team_synergy({"a", "b", "c"}, c), (0.2 + 0.4 + 0.6 + 0.8 + 1.0 + 1.6) / 6.0, 1e-12);
  EXPECT_NEAR(team_synergy({"c", "a", "b"}, c), 4.6 / 6.0, 1e-12);          // a set: order does not matter
  EXPECT_NEAR(team_synergy({"a", "b", "a"}, c), (0.2 + 0.4) / 2.0, 1e-12);  // a repeat counts once
}

TEST(HivaSynergy, ATeamOfOneOrNoneIsNeutral) {
  const SynergyLookup c = synergy_table({{{"a", "b"}, 0.2}});
  EXPECT_EQ(team_synergy({"a"}, c), 1.0);
  EXPECT_EQ(team_synergy({}, c), 1.0);
  SynergySettings s;
  s.singleton = 0.7;
  EXPECT_EQ(team_synergy({"a", "a"}, c, s), 0.7);
}

TEST(HivaSynergy, APairWithoutAnEdgeTakesTheConfiguredDefault) {
  // A DAG holds a -> b but never b -> a.
  const SynergyLookup c = synergy_table({{{"a", "b"}, 3.0}});
  EXPECT_EQ(team_synergy({"a", "b"}, c), (3.0 + 1.0) / 2.0);
  SynergySettings s;
  s.missing_edge = 0.0;
  EXPECT_EQ(team_synergy({"a", "b"}, c, s), 1.5);
  EXPECT_EQ(team_synergy({"a", "b"}, SynergyLookup{}, s), 0.0);  // no lookup: every pair is missing
}

}  // namespace synergy_test
}  // namespace kaisha::hiva
