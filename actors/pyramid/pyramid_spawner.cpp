#include "actors/pyramid/pyramid_spawner.hpp"

#include <map>
#include <utility>

#include "actors/pyramid/pyramid_actor.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/llm/usage_estimate.hpp"
#include "runtime/memory/configured_embedder.hpp"
#include "runtime/memory/embed_tool_source.hpp"
#include "runtime/pyramid/agent_router.hpp"
#include "runtime/pyramid/pyramid_driver.hpp"
#include "runtime/tools/pyramid_tools.hpp"
#include "runtime/tools/tool_setup.hpp"

namespace kaisha::actors {

// The agent library, its prompts and texts, the level-0 tools, the router
// (unless pyramid.entry fixes where tasks enter) and the pyramid's actor.
Result<caf::actor> spawn_pyramid_strategy(StrategyContext& ctx) {
  const config::Config& c = *ctx.config;
  const auto pc = config::strategy_settings<pyramid::PyramidConfig>(c, pyramid::kSection);
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
  setup->max_judge_failures = pc.max_judge_failures;

  PyramidDeps pd;
  if (!pc.entry.empty()) {
    const pyramid::AgentDefinition* entry = setup->library->find(pc.entry);
    if (!entry || entry->level < 1)
      return Error{"config", "pyramid.entry: '" + pc.entry + "' is not an agent (level 1 or more) of " + pc.library};
    pd.entry = pc.entry;
  } else {
    // The company's embedder (memory.embedding_model), as memory's; the
    // descriptions in one batch, once, as the company starts.
    auto configured = memory::configured_embedder(c);
    if (!configured) return configured.error();
    pd.embedder = std::move(configured).value();
    pd.embed_tool = std::make_shared<memory::EmbedToolSource>(pyramid::kEmbedQueryTool, pd.embedder);
    std::vector<std::string> names, texts;
    for (const auto& a : setup->library->agents())
      if (a.level >= 1) {
        names.push_back(a.name);
        texts.push_back(pyramid::AgentRouter::description_text(a));
      }
    auto vectors = memory::embed_blocking(*pd.embedder, texts);
    if (vectors && vectors->size() != texts.size())
      vectors = Error{"embedder", std::to_string(vectors->size()) + " vectors for " + std::to_string(texts.size()) +
                                      " descriptions"};
    if (!vectors)
      return Error{"config", "pyramid router: embedding the agents' descriptions with " + pd.embedder->model_id() +
                                 ": " + vectors.error().message};
    std::map<std::string, memory::Vector> descriptions;
    for (size_t i = 0; i < names.size(); ++i) descriptions[names[i]] = std::move((*vectors)[i]);
    auto router = pyramid::AgentRouter::create(*setup->library, std::move(descriptions), pc.route_threshold,
                                               pc.route_tie_tolerance);
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
  pd.settings = pc;
  pd.session_id = ctx.session_id;
  pd.setup = setup;
  pd.tools = ctx.wrapped(std::move(tools).value());
  return spawn_pyramid(*ctx.system, std::move(pd));
}

}  // namespace kaisha::actors
