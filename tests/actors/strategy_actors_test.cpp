#include "actors/strategy_kit/strategy_actors.hpp"

#include <algorithm>

#include <gtest/gtest.h>

#include "runtime/catalog/strategy_catalog.hpp"

namespace kaisha::actors {
namespace {

// A strategy named in the catalog that runs tasks must have an actor, or
// CompanyRuntime::start refuses the configuration; a spawner must belong to
// a catalog entry, or nobody can choose it.
TEST(StrategyActors, EveryStrategyThatRunsTasksHasASpawnerAndEverySpawnerAnEntry) {
  for (const auto& s : strategy::strategies())
    for (const auto& r : s.runs_on) EXPECT_NE(find_strategy_spawner(r), nullptr) << s.name << " runs on " << r;
  const auto names = strategy::strategy_names();
  for (const auto& n : spawnable_strategies())
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n << " is not in the catalog";
  EXPECT_EQ(find_strategy_spawner("auto"), nullptr);  // auto runs on the others' actors
  EXPECT_EQ(find_strategy_spawner("nonesuch"), nullptr);
}

}  // namespace
}  // namespace kaisha::actors
