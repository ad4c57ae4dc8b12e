#include "actors/hashiru/hashiru_spawner.hpp"

namespace kaisha::actors {

Result<caf::actor> spawn_hashiru(StrategyContext& ctx) {
  if (!ctx.ceo) return Error{"internal", "hashiru runs on the CEO, which was not started"};
  return ctx.ceo;
}

}  // namespace kaisha::actors
