#include "actors/strategy_kit/strategy_actors.hpp"

#include <utility>

#include <yaml-cpp/yaml.h>

#include "actors/effgen/planner_actor.hpp"
#include "actors/strategy_kit/driven_strategy_actor.hpp"
#include "actors/strategy_kit/strategy_registration.hpp"
#include "actors/pyramid/pyramid_actor.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/core/data_paths.hpp"
#include "runtime/llm/usage_estimate.hpp"
#include "runtime/memory/hashed_ngram_embedder.hpp"
#include "runtime/effgen/prompt_optimizer/prompt_optimizer.hpp"
#include "runtime/pyramid/agent_router.hpp"
#include "runtime/pyramid/pyramid_driver.hpp"
#include "runtime/tools/pyramid_tools.hpp"
#include "runtime/tools/tool_setup.hpp"
#include "runtime/effgen/routing/router.hpp"

namespace kaisha::actors {
namespace {

// ------------------------------------------------------------------ hashiru

Result<caf::actor> spawn_hashiru(StrategyContext& ctx) {
  if (!ctx.ceo) return Error{"internal", "hashiru runs on the CEO, which was not started"};
  return ctx.ceo;
}

// ------------------------------------------------------------------- effgen

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

// The router, the prompt optimizer, the judge (when effgen.judge is on) and
// the planner.
Result<caf::actor> spawn_effgen(StrategyContext& ctx) {
  const config::Config& c = *ctx.config;
  auto rc = load_routing_config(c);
  if (!rc.ok()) return rc.error();
  auto router = routing::Router::create(*rc);
  if (!router.ok()) return router.error();
  auto optimizer = prompt::PromptOptimizer::from_file();
  if (!optimizer.ok()) return optimizer.error();
  PlannerDeps pd;
  // Calls go to the priced row's model ref, so a cost-table name works too.
  pd.planner_cost = ctx.cost_table->priced(c.effgen.planner_model.empty() ? c.ceo.model : c.effgen.planner_model);
  pd.planner_model = pd.planner_cost.model_ref;
  pd.worker_cost = c.effgen.worker_model.empty() ? pd.planner_cost : ctx.cost_table->priced(c.effgen.worker_model);
  for (const std::string& ref : {pd.planner_model, pd.worker_cost.model_ref})
    if (Status s = ctx.chat->check_model(ref); !s.ok())
      return Error{"config", "effgen model '" + ref + "': " + s.error().message};
  for (auto [path, out] : {std::pair{"prompts/effgen/worker_system.md", &pd.worker_system},
                           std::pair{"prompts/effgen/worker_task.md", &pd.worker_task},
                           std::pair{"prompts/effgen/synthesize.md", &pd.synthesis}}) {
    auto text = read_text_file(data_file(path));
    if (!text.ok()) return text.error();
    *out = std::move(text).value();
  }
  pd.ledger = ctx.ledger;
  pd.model_client = ctx.model_client;
  pd.journal = ctx.journal;
  if (c.effgen.judge) pd.judge = ctx.judge;
  pd.progress = ctx.progress;
  pd.placer = ctx.placer;
  pd.router = std::make_shared<const routing::Router>(std::move(router).value());
  pd.optimizer = std::make_shared<const prompt::PromptOptimizer>(std::move(optimizer).value());
  pd.config = c;
  pd.session_id = ctx.session_id;
  pd.planner_cost.invoke_resource_cost = 0;  // the planner's model is not an employee
  return spawn_planner(*ctx.system, std::move(pd));
}

// ------------------------------------------------------------------ pyramid

// The agent library, its prompts and texts, the level-0 tools, the router
// (unless pyramid.entry fixes where tasks enter) and the pyramid's actor.
Result<caf::actor> spawn_pyramid_strategy(StrategyContext& ctx) {
  const config::Config& c = *ctx.config;
  const config::PyramidConfig& pc = c.pyramid;
  if (pc.library.empty())
    return Error{"config",
                 "pyramid.library: the pyramid strategy needs an agent library (a YAML file; see "
                 "docs/agent-library.md and examples/pyramid/)"};
  auto library = pyramid::AgentLibrary::load_file(pc.library);
  if (!library.ok()) return library.error();
  auto context = pyramid::AgentContext::load();
  if (!context.ok()) return context.error();
  auto texts = pyramid::LoopTexts::load();
  if (!texts.ok()) return texts.error();
  auto tools = tools::make_pyramid_tools(c);
  if (!tools.ok()) return tools.error();

  auto setup = std::make_shared<pyramid::PyramidSetup>();
  setup->library = std::make_shared<const pyramid::AgentLibrary>(std::move(library).value());
  setup->context = std::make_shared<const pyramid::AgentContext>(std::move(context).value());
  setup->texts = std::make_shared<const pyramid::LoopTexts>(std::move(texts).value());
  for (const auto& spec : (*tools)->specs()) setup->level0[spec.name] = spec;
  // Every agent's model (and candidate), priced once; a model nobody
  // configured stops the start.
  const std::string default_model = pc.model.empty() ? c.ceo.model : pc.model;
  std::map<std::string, economy::ModelCost> costs;
  for (const auto& a : setup->library->agents()) {
    std::vector<std::pair<std::string, std::string>> refs;  // (ref, its key in the library)
    if (a.candidates.empty()) refs.emplace_back(a.model.empty() ? default_model : a.model, "model");
    for (size_t k = 0; k < a.candidates.size(); ++k)
      refs.emplace_back(a.candidates[k], "candidates[" + std::to_string(k) + "]");
    for (const auto& [ref, key] : refs) {
      if (costs.count(ref)) continue;
      economy::ModelCost cost = ctx.cost_table->priced(ref);
      if (Status s = ctx.chat->check_model(cost.model_ref); !s.ok())
        return Error{"config", pc.library + ":" + std::to_string(a.line) + ": agents." + a.name + "." + key + ": '" +
                                   ref + "': " + s.error().message};
      costs.emplace(ref, std::move(cost));
    }
  }
  setup->cost_of = [costs, default_model](const std::string& model) {
    return costs.at(model.empty() ? default_model : model);
  };
  setup->count = llm::estimate_tokens;
  setup->now_ms = [] { return steady_ms(); };
  setup->wall_ms = [] { return wall_ms(); };
  setup->poor_quality = pc.poor_quality;
  setup->limits.max_output_bytes = static_cast<size_t>(pc.max_inline_bytes);
  setup->index_budget_tokens = pc.index_budget_tokens;
  setup->env_budget_tokens = pc.env_budget_tokens;
  setup->max_nudges = pc.max_nudges;
  setup->max_calls_per_turn = pc.max_calls_per_turn;
  setup->max_final_output_retries = pc.max_final_output_retries;
  setup->enforce_judge = pc.enforce_judge;
  setup->max_judge_retries = pc.max_judge_retries;

  PyramidDeps pd;
  if (!pc.entry.empty()) {
    const pyramid::AgentDefinition* entry = setup->library->find(pc.entry);
    if (!entry || entry->level < 1)
      return Error{"config", "pyramid.entry: '" + pc.entry + "' is not an agent (level 1 or more) of " + pc.library};
    pd.entry = pc.entry;
  } else {
    memory::HashedNgramEmbedder embedder;
    std::map<std::string, memory::Vector> descriptions;
    for (const auto& a : setup->library->agents())
      if (a.level >= 1) descriptions[a.name] = embedder.embed_one(pyramid::AgentRouter::description_text(a));
    auto router = pyramid::AgentRouter::create(*setup->library, std::move(descriptions), pc.route_threshold);
    if (!router.ok()) return router.error();
    setup->router = std::make_shared<const pyramid::AgentRouter>(std::move(router).value());
    setup->route_method = *pyramid::route_method_named(pc.router);
    if (setup->route_method != pyramid::RouteMethod::embedding) {
      const std::string ref = pc.router_model.empty() ? default_model : pc.router_model;
      pd.router_model = ctx.cost_table->priced(ref);
      if (Status s = ctx.chat->check_model(pd.router_model.model_ref); !s.ok())
        return Error{"config", "pyramid.router_model: '" + ref + "': " + s.error().message};
    }
  }
  pd.ledger = ctx.ledger;
  pd.model_client = ctx.model_client;
  pd.journal = ctx.journal;
  pd.progress = ctx.progress;
  pd.placer = ctx.placer;
  pd.config = c;
  pd.session_id = ctx.session_id;
  pd.setup = setup;
  pd.tools = std::move(tools).value();
  return spawn_pyramid(*ctx.system, std::move(pd));
}

struct Entry {
  std::string name;
  StrategySpawner spawn;
};

// kaisha's own strategies, then those registered (register_strategy).
std::vector<Entry>& spawners() {
  static std::vector<Entry> all = {
      {ceo_strategy(), spawn_hashiru},
      {"effgen", spawn_effgen},
      {"pyramid", spawn_pyramid_strategy},
  };
  return all;
}

}  // namespace

StrategySpawner find_strategy_spawner(std::string_view name) {
  for (const Entry& e : spawners())
    if (e.name == name) return e.spawn;
  return {};
}

std::string ceo_strategy() { return "hashiru"; }

Result<RunnerChoice> runner_choice(const strategy::StrategyInfo& info, const config::Config& c) {
  const std::vector<std::string> on = info.runs_on.empty() ? std::vector<std::string>{info.name} : info.runs_on;
  if (on.size() == 1) return RunnerChoice([first = on[0]](const std::string&) { return first; });
  if (info.name != "auto" || on.size() != 2)
    return Error{"internal", "strategy " + info.name + " runs on several actors and has no way to choose"};
  auto rc = load_routing_config(c);
  if (!rc.ok()) return rc.error();
  auto router = routing::Router::create(*rc);
  if (!router.ok()) return router.error();
  auto shared = std::make_shared<const routing::Router>(std::move(router).value());
  return RunnerChoice([shared, on](const std::string& input) {
    return shared->route(input).kind != routing::RouteKind::single ? on[1] : on[0];
  });
}

std::vector<std::string> spawnable_strategies() {
  std::vector<std::string> out;
  for (const Entry& e : spawners()) out.emplace_back(e.name);
  return out;
}

Status register_strategy(strategy::StrategyInfo info, driver::StrategySetupFn setup) {
  if (!setup) return Error{"strategy", "strategy " + info.name + ": no setup function"};
  const std::string name = info.name;
  const std::string section = info.config_section;
  if (Status s = strategy::register_strategy_info(std::move(info)); !s.ok()) return s;
  spawners().push_back(
      {name, [name, section, setup = std::move(setup)](StrategyContext& ctx) -> Result<caf::actor> {
         driver::StrategySetup in;
         in.config = ctx.config;
         if (auto it = ctx.config->strategy_sections.find(section);
             !section.empty() && it != ctx.config->strategy_sections.end())
           in.section = it->second;
         in.session_id = ctx.session_id;
         in.price = [table = ctx.cost_table](const std::string& model) { return table->priced(model); };
         in.check_model = [chat = ctx.chat](const std::string& ref) { return chat->check_model(ref); };
         auto driven = setup(in);
         if (!driven.ok()) return driven.error();
         if (!driven->make) return Error{"strategy", "strategy " + name + ": its setup made no driver"};
         if (Status s = ctx.chat->check_model(driven->model.model_ref); !driven->model.model_ref.empty() && !s.ok())
           return Error{"config", name + " model '" + driven->model.model_ref + "': " + s.error().message};
         return spawn_driven_strategy(ctx, std::move(driven).value());
       }});
  return Status::Ok();
}

}  // namespace kaisha::actors
