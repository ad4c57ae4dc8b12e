#include "actors/effgen/effgen_spawner.hpp"

#include <utility>

#include <yaml-cpp/yaml.h>

#include "actors/effgen/planner_actor.hpp"
#include "runtime/core/data_paths.hpp"
#include "runtime/effgen/entry/effgen_settings.hpp"
#include "runtime/effgen/prompt_optimizer/prompt_optimizer.hpp"
#include "runtime/effgen/routing/router.hpp"

namespace kaisha::actors {
namespace {

// The effgen section's `routing:` subsection, read from the config file with
// its own parser (positions in errors point into that file).
Result<routing::RoutingConfig> load_routing_config(const config::Config& c) {
  if (c.source.empty()) return routing::parse_routing_config(YAML::Node(), "<defaults>");
  try {
    YAML::Node root = YAML::LoadFile(c.source);
    YAML::Node effgen = root["effgen"];
    return routing::parse_routing_config(effgen ? effgen["routing"] : YAML::Node(), c.source);
  } catch (const std::exception& e) {
    return Error{"config", c.source + ": " + e.what()};
  }
}

}  // namespace

// The router, the prompt optimizer, the judge (when judge.subtasks is on) and
// the planner.
Result<caf::actor> spawn_effgen(StrategyContext& ctx) {
  const config::Config& c = *ctx.config;
  auto rc = load_routing_config(c);
  if (!rc.ok()) return rc.error();
  auto router = routing::Router::create(*rc);
  if (!router.ok()) return router.error();
  auto optimizer = prompt::PromptOptimizer::from_file();
  if (!optimizer.ok()) return optimizer.error();
  const auto ec = config::strategy_settings<effgen::EffgenConfig>(c, effgen::kSection);
  PlannerDeps pd;
  // Calls go to the priced row's model ref, so a cost-table name works too.
  pd.planner_cost = ctx.cost_table->priced(ec.planner_model.empty() ? c.ceo.model : ec.planner_model);
  pd.planner_model = pd.planner_cost.model_ref;
  pd.worker_cost = ec.worker_model.empty() ? pd.planner_cost : ctx.cost_table->priced(ec.worker_model);
  pd.max_concurrent = ec.max_concurrent;
  pd.max_subtask_retries = ec.max_subtask_retries;
  for (const std::string& ref : {pd.planner_model, pd.worker_cost.model_ref})
    if (Status s = ctx.chat->check_model(ref); !s.ok())
      return Error{"config", "effgen model '" + ref + "': " + s.error().message};
  for (auto [path, out] : {std::pair{"prompts/effgen/worker_system.md", &pd.worker_system},
                           std::pair{"prompts/effgen/worker_task.md", &pd.worker_task},
                           std::pair{"prompts/effgen/synthesize.md", &pd.synthesis},
                           std::pair{"prompts/effgen/memory.md", &pd.memory_note}}) {
    auto text = read_text_file(data_file(path));
    if (!text.ok()) return text.error();
    *out = std::move(text).value();
  }
  pd.ledger = ctx.ledger;
  pd.model_client = ctx.model_client;
  pd.journal = ctx.journal;
  if (c.judge.subtasks) pd.judge = ctx.judge;
  pd.progress = ctx.progress;
  pd.placer = ctx.placer;
  pd.router = std::make_shared<const routing::Router>(std::move(router).value());
  pd.optimizer = std::make_shared<const prompt::PromptOptimizer>(std::move(optimizer).value());
  pd.config = c;
  pd.session_id = ctx.session_id;
  pd.planner_cost.invoke_resource_cost = 0;  // the planner's model is not an employee
  if (c.switches.memory) {
    pd.recall = ctx.recall;
    pd.memory_tools = ctx.memory_tools;
  }
  return spawn_planner(*ctx.system, std::move(pd));
}

Result<RunnerChoice> effgen_router_choice(const std::string& single, const std::string& decomposed,
                                          const config::Config& c) {
  auto rc = load_routing_config(c);
  if (!rc.ok()) return rc.error();
  auto router = routing::Router::create(*rc);
  if (!router.ok()) return router.error();
  auto shared = std::make_shared<const routing::Router>(std::move(router).value());
  return RunnerChoice([shared, single, decomposed](const std::string& input) {
    return shared->route(input).kind != routing::RouteKind::single ? decomposed : single;
  });
}

}  // namespace kaisha::actors
