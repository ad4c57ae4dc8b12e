// effGen's execution strategies (effgen.md §3.3): one ReAct agent, or a
// decomposition whose subtasks run in parallel, in sequence, as a hybrid DAG,
// or under a manager (hierarchical). Routing decides which
// (routing_decision.hpp: final_strategy); the four multi-agent strategies
// each have a decomposition prompt (decomposition_prompts.hpp), single has
// none.
#pragma once

#include <string_view>

namespace kaisha::routing {

enum class Strategy { single, parallel, sequential, hybrid, hierarchical };

// "single", "parallel", "sequential", "hybrid", "hierarchical".
std::string_view to_string(Strategy s);

}  // namespace kaisha::routing
