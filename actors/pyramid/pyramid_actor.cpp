#include "actors/pyramid/pyramid_actor.hpp"

#include <utility>

#include "actors/caf/atoms.hpp"
#include "actors/strategy_kit/driver_runner.hpp"
#include "actors/strategy_kit/task_handlers.hpp"
#include "actors/strategy_kit/strategy_kit.hpp"
#include "runtime/core/bounded_json.hpp"
#include "runtime/driver/pending_calls.hpp"
#include "runtime/pyramid/agent_router.hpp"
#include "runtime/pyramid/pyramid_driver.hpp"

namespace kaisha::actors {
namespace {

constexpr const char* kPyramid = "Pyramid";
// The strategy state the quality scores are kept as: one key per agent
// (its library name, or "<agent>@<model>"), {"q": Q, "audits": n}; and each
// agent's candidate pool as "pool/<agent>" (the driver's SaveState effects).
constexpr const char* kStrategy = "pyramid";

struct PyramidState {
  PyramidDeps deps;
  std::unique_ptr<StrategyKit> kit;
  std::unique_ptr<pyramid::QualityScores> quality;
  std::unique_ptr<pyramid::CandidatePool> pool;
  std::unique_ptr<pyramid::PyramidDriver> driver;  // the running task's
  std::unique_ptr<DriverRunner> runner;
  static inline const char* name = "pyramid";
};

using PyramidSelf = caf::stateful_actor<PyramidState>;

// Where the task enters: the configured agent, or the router's choice.
pyramid::RouteDecision route(const PyramidState& st, const std::string& input) {
  const auto& router = st.deps.setup->router;
  if (!st.deps.entry.empty() || !router) {
    pyramid::RouteDecision d;
    d.agent = st.deps.entry;
    d.score = 1;
    d.method = "entry";
    return d;
  }
  // An embedder that answers at once routes here; a provider's is asked by
  // the driver (kEmbedQueryTool), since an actor may not wait for it.
  if (!st.deps.embedder->answers_at_once()) {
    pyramid::RouteDecision d;
    d.method = pyramid::kRouteByEmbedding;
    return d;
  }
  auto v = memory::embed_blocking(*st.deps.embedder, {input});
  return router->route(v.ok() && v->size() == 1 ? v->front() : memory::Vector{},
                       pyramid::AgentRouter::routing_quality(*st.deps.setup->library, *st.quality));
}

// A level-0 tool: run on the tools' threads, answered on this actor's.
void run_tool(PyramidSelf* self, const driver::RunTool& t, std::function<void(company::ToolResult)> done) {
  auto& st = self->state;
  BoundedJson args = parse_bounded_json(t.arguments, JsonLimits{4u << 20, 64});
  if (!args.ok) return done(company::ToolResult::error(t.tool + ": the arguments are not JSON: " + args.error.message));
  const bool embed = t.tool == pyramid::kEmbedQueryTool && st.deps.embed_tool;
  st.kit->call_tool(embed ? *st.deps.embed_tool : *st.deps.tools, t.tool, args.value,
                    company::ToolCallContext{st.deps.session_id, st.kit->task_id(), kPyramid, t.branch, t.trace},
                    std::move(done));
}

// The scores outcome `o` changed, saved as the pyramid's state, named by
// the outcome (so a resumed task's replay saves each once).
void save_quality(PyramidSelf* self, const driver::Outcome& o) {
  auto& st = self->state;
  const std::string change = "outcome " + std::to_string(st.runner->task_call(driver::id_of(o)));
  for (const auto& c : st.quality->changed())
    st.kit->save_state(kStrategy, c.agent, json{{"q", c.q}, {"audits", c.audits}}, change);
}

// Scores and candidate pools from `state` (stored by earlier runs), over fresh ones.
void seed_quality(PyramidSelf* self, const std::vector<driver::StateValue>& state) {
  auto& st = self->state;
  st.quality =
      std::make_unique<pyramid::QualityScores>(st.deps.settings.quality_alpha, st.deps.settings.quality_initial);
  const auto& e = st.deps.settings.evolution;
  st.pool = std::make_unique<pyramid::CandidatePool>(
      pyramid::EvolutionSettings{e.prune, e.window, e.prune_below, e.min_verdicts, e.dominance, e.min_calls});
  for (const auto& s : state) {
    if (pyramid::CandidatePool::is_state_key(s.key))
      st.pool->seed(s.key, s.value);
    else if (s.value.is_object())
      st.quality->seed(s.key, s.value.value("q", st.deps.settings.quality_initial),
                       s.value.value("audits", int64_t{0}));
  }
}

void finish(PyramidSelf* self, driver::Finish f) {
  self->state.driver.reset();
  self->state.kit->finish(std::move(f), StrategyKit::ClosingNote{});
}

DriverHooks hooks(PyramidSelf* self) {
  DriverHooks h;
  h.feed = [self](const driver::Outcome& o) {
    auto& d = self->state.driver;
    driver::Effects effects = d ? d->on(o) : driver::Effects{};
    save_quality(self, o);
    return effects;
  };
  // The pyramid's only model call of its own: the router's scores.
  h.model_role = [self](const driver::CallModel&) {
    const auto& m = self->state.deps.router_model;
    return ModelRole{kPyramid, m.model_ref, m};
  };
  h.run_as = [self](const msg::AgentSpec&) { return self->state.kit->employee_deps(); };
  h.tenure = Tenure::task;
  // The driver's saves: the candidate pools.
  h.save_state = [self](driver::SaveState s) {
    self->state.kit->save_state(kStrategy, s.key, std::move(s.value), s.change);
  };
  h.finish = [self](driver::Finish f) { finish(self, std::move(f)); };
  h.run_tool = [self](const driver::RunTool& t, std::function<void(company::ToolResult)> done) {
    run_tool(self, t, std::move(done));
  };
  h.repeatable = [self](const std::string& tool) {
    if (tool == pyramid::kEmbedQueryTool) return true;  // the same text embeds the same
    const auto& tools = self->state.deps.tools;
    return tools ? tools->repeatable(tool) : company::repeatable_tool(tool);
  };
  return h;
}

caf::behavior pyramid_actor(PyramidSelf* self, PyramidDeps deps) {
  auto& st = self->state;
  st.deps = std::move(deps);
  st.kit = std::make_unique<StrategyKit>(self, kit_deps_of(st.deps, kPyramid, "the pyramid"));
  seed_quality(self, {});
  // Scores from earlier runs: the actor takes no task until they are in.
  st.kit->load_state(kStrategy, [self](std::vector<driver::StateValue> state) { seed_quality(self, state); });
  st.kit->fail_on_exception([self](const std::string&) { self->state.driver.reset(); });
  st.runner = std::make_unique<DriverRunner>(self, *st.kit, hooks(self));
  auto make = [self](const msg::TaskRequest& req) {
    auto& s = self->state;
    return std::make_unique<pyramid::PyramidDriver>(
        *s.deps.setup, *s.quality, s.kit->task_id(), req.input, route(s, req.input),
        [self] { return self->state.kit->listening(); }, s.pool.get());
  };
  return {
      cancel_handler(self),
      wait_handler(self),
      task_handler(self, make),
      // A resumed task starts from the scores before it, not from those its
      // first run saved: replaying its verdicts makes those again.
      resume_handler(self, make,
                     [self](const driver::ReplayLog& log) { seed_quality(self, log.state_at_start(kStrategy)); }),
      st.kit->tool_handler(),
  };
}

}  // namespace

caf::actor spawn_pyramid(caf::actor_system& sys, PyramidDeps deps) { return sys.spawn(pyramid_actor, std::move(deps)); }

}  // namespace kaisha::actors
