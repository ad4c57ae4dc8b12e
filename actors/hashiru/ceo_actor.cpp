#include "actors/hashiru/ceo_actor.hpp"

#include <map>
#include <utility>

#include "actors/caf/atoms.hpp"
#include "actors/system/journal_actor.hpp"
#include "actors/strategy_kit/driver_runner.hpp"
#include "actors/strategy_kit/sourced_tools.hpp"
#include "actors/strategy_kit/strategy_kit.hpp"
#include "actors/strategy_kit/task_handlers.hpp"
#include "runtime/hashiru/hashiru_texts.hpp"
#include "runtime/company/tool_grants.hpp"
#include "runtime/company/tool_registry.hpp"
#include "runtime/hashiru/hashiru_driver.hpp"

namespace kaisha::actors {
namespace {

using company::ToolResult;

// The CEO's algorithm is its driver's (runtime/hashiru/hashiru_driver.hpp);
// the actor runs the driver's effects through the strategy kit and feeds the
// answers back.
struct CeoState {
  CeoDeps deps;
  std::unique_ptr<StrategyKit> kit;  // the task, the employees, the charged calls
  std::unique_ptr<hashiru::HashiruDriver> driver;
  std::unique_ptr<DriverRunner> runner;  // executes the driver's effects through the kit
  // The ToolSources' tools, their calls and declared costs; the HASHIRU
  // six are the driver's and no source's tool replaces one of them.
  company::ToolRegistry tools;
  std::unique_ptr<SourcedTools> sourced_tools;
  std::string tool_trace;  // the running tool call's traceparent, while invoke() starts it
  // Direct tool calls (tool_atom) not answered yet, by ticket (see handler_failure.hpp).
  std::map<uint64_t, caf::typed_response_promise<json>> direct_calls;
  uint64_t last_ticket = 0;
  static inline const char* name = "ceo";
};

using CeoSelf = caf::stateful_actor<CeoState>;

constexpr const char* kCeo = "CEO";

StrategyKit& kit(CeoSelf* self) { return *self->state.kit; }
hashiru::HashiruDriver& driver_of(CeoSelf* self) { return *self->state.driver; }

// The CEO's own model: priced from the cost table when it is listed there.
// Its resource is not held per call: the CEO's model is not an employee.
ModelRole ceo_role(CeoSelf* self) {
  auto& st = self->state;
  economy::ModelCost c;
  if (const economy::ModelCost* found = st.deps.cost_table->find(st.deps.config.ceo.model)) c = *found;
  c.name = c.name.empty() ? st.deps.config.ceo.model : c.name;
  c.model_ref = st.deps.config.ceo.model;
  c.invoke_resource_cost = 0;
  return {kCeo, st.deps.config.ceo.model, c};
}

// Brings the registry up to date with every ToolSource, so a tool created,
// deleted or listed anew by an MCP server is seen on the very next model call.
void sync_sources(CeoSelf* self) { self->state.sourced_tools->sync(self, self->state.tools); }

economy::ModelCost cost_of(const msg::AgentSpec& spec) {
  economy::ModelCost c;
  c.name = spec.base_model;
  c.model_ref = spec.model_ref;
  c.type = spec.type;
  const json& k = spec.costs;
  c.create_resource_cost = k.value("create_resource_cost", 0.0);
  c.invoke_resource_cost = k.value("invoke_resource_cost", 0.0);
  c.create_expense_cost = k.value("create_expense_cost", 0.0);
  c.invoke_expense_cost = k.value("invoke_expense_cost", 0.0);
  c.output_expense_cost = k.value("output_expense_cost", 0.0);
  return c;
}

EmployeeDeps employee_deps(CeoSelf* self, const msg::AgentSpec& spec) {
  auto& st = self->state;
  EmployeeDeps d = st.kit->employee_deps();
  // Tools only for an employee granted some (employee.tools); the others
  // keep the single-call path.
  d.grant = company::grant_for(st.deps.config.employee.tools, spec.name, spec.base_model);
  if (!d.grant.empty()) {
    d.tool_sources = st.deps.tool_sources;
    d.tool_costs = st.deps.config.tools.costs;
    d.tool_health = st.deps.tool_health;
    d.ledger = st.deps.ledger;
    d.max_tool_iterations = st.deps.config.employee.max_tool_iterations;
    d.max_malformed_tool_calls = st.deps.config.employee.max_malformed_tool_calls;
  }
  return d;
}

// ------------------------------------------------------------ the effects

// The CEO's task ends without a closing note: its history shows the answer.
void finish(CeoSelf* self, driver::Finish f) { kit(self).finish(std::move(f), std::nullopt); }

void reply(CeoSelf* self, driver::Reply r) {
  auto it = self->state.direct_calls.find(r.request);
  if (it == self->state.direct_calls.end()) return;
  auto promise = std::move(it->second);
  self->state.direct_calls.erase(it);
  promise.deliver(std::move(r.value));
}

DriverHooks hooks(CeoSelf* self) {
  DriverHooks h;
  h.feed = [self](const driver::Outcome& o) { return driver_of(self).on(o); };
  h.model_role = [self](const driver::CallModel&) { return ceo_role(self); };
  h.run_as = [self](const msg::AgentSpec& spec) { return employee_deps(self, spec); };
  h.tenure = Tenure::session;
  h.finish = [self](driver::Finish f) { finish(self, std::move(f)); };
  h.run_tool = [self](const driver::RunTool& t, std::function<void(ToolResult)> done) {
    // The call site is read inside invoke(): the trace is the call's for that long.
    self->state.tool_trace = t.trace;
    self->state.tools.invoke(t.tool, t.arguments, std::nullopt, std::move(done));
    self->state.tool_trace.clear();
  };
  h.repeatable = [self](const std::string& tool) { return self->state.sourced_tools->repeatable(tool); };
  // Retrieval may wait for an embedding model: its answer comes back as a message.
  h.recall = [self](const driver::Recall& r, const std::string& tid) {
    caf::actor me = caf::actor_cast<caf::actor>(self);
    self->state.deps.recall(r.query, [me, tid, id = r.id](json found) {
      caf::anon_send(me, recall_atom::value, tid, id, std::move(found));
    });
  };
  h.reply = [self](driver::Reply r) { reply(self, std::move(r)); };
  h.invokes_agent = [](const std::string& tool) { return tool == "AskAgent"; };
  return h;
}

// ---------------------------------------------------------------- the actor

hashiru::HashiruSetup setup_of(CeoSelf* self) {
  const CeoDeps& d = self->state.deps;
  hashiru::HashiruSetup h;
  h.system_prompt = d.system_prompt;
  h.limits = company::ConversationLimits{d.config.ceo.max_turns, d.config.ceo.max_malformed_tool_calls};
  h.model_ref = d.config.ceo.model;
  h.temperature = d.config.ceo.temperature;
  h.stream = d.config.ceo.stream;
  h.tool_specs = d.tool_specs;
  h.cost_table = d.cost_table;
  h.switches = d.config.switches;
  h.grants = d.config.employee.tools;
  h.cluster = d.placer != nullptr;
  h.audit = static_cast<bool>(d.judge);
  h.max_judge_retries = d.config.judge.max_retries;
  h.recall = static_cast<bool>(d.recall);
  h.error_reflection = d.error_reflection;
  h.summarizer = d.summarizer;
  h.check_model = [chat = d.chat](const std::string& model_ref) { return chat->check_model(model_ref); };
  h.other_tools = [self] {
    sync_sources(self);
    return self->state.tools.specs();
  };
  h.roster = [self]() -> const company::AgentRoster& { return kit(self).roster(); };
  h.hired = [self](const std::string& agent) { return kit(self).hired(agent); };
  h.listening = [self] { return kit(self).listening(); };
  const config::ToolFailureConfig& f = d.config.tools.failures;
  h.tool_retry = company::ToolRetryPolicy{f.max_attempts, f.backoff_ms, f.max_backoff_ms, f.backoff_jitter};
  h.repeatable = [self](const std::string& tool) {
    // The tools as they are now: a resumed task's replayed model calls did
    // not sync, and it must decide as the first run did.
    sync_sources(self);
    return self->state.sourced_tools->repeatable(tool);
  };
  h.task_id = [self] { return kit(self).task_id(); };
  return h;
}

caf::behavior ceo(CeoSelf* self, CeoDeps deps) {
  auto& st = self->state;
  st.deps = std::move(deps);
  st.kit = std::make_unique<StrategyKit>(self, kit_deps_of(st.deps, kCeo, "the CEO"));
  st.driver = std::make_unique<hashiru::HashiruDriver>(setup_of(self));
  st.runner = std::make_unique<DriverRunner>(self, *st.kit, hooks(self));
  st.sourced_tools = std::make_unique<SourcedTools>(
      st.deps.tool_sources, st.deps.ledger, st.deps.config.tools.costs,
      [self] {
        auto& s = self->state;
        const std::string tid = s.kit->task_id();
        return SourcedTools::CallSite{company::ToolCallContext{s.deps.session_id, tid, kCeo, "", s.tool_trace},
                                      [self, tid](double usd) { kit(self).account(tid, {}, usd); }};
      },
      [self](const std::string& tool, const std::string&) { return !driver_of(self).owns(tool); });
  {
    const auto& r = st.deps.config.tools.repeatable;
    st.sourced_tools->handle_failures(
        SourcedTools::FailureHandling{st.deps.tool_health, std::set<std::string>(r.begin(), r.end()),
                                      SourcedTools::report_breakers(st.deps.journal, st.deps.progress, kCeo)});
  }
  for (const auto& spec : st.deps.restored_agents) st.kit->rehire(spec, cost_of(spec), employee_deps(self, spec));
  st.kit->fail_on_exception([self](const std::string& why) {
    auto calls = std::move(self->state.direct_calls);
    self->state.direct_calls.clear();
    for (auto& [_, promise] : calls) promise.deliver(ToolResult::error(why).to_json());
  });
  return {
      task_handler(self, KeptDriver{}),
      resume_handler(self, KeptDriver{}),
      // In-flight calls are abandoned: their results find no task and are
      // dropped, while the ledger still settles what they cost.
      cancel_handler(self),
      wait_handler(self),
      [=](recall_atom, const std::string& tid, uint64_t id, json& found) {
        self->state.runner->answer(tid, driver::Recalled{id, std::move(found)});
      },
      [=](tool_atom, const std::string& name, const std::string& arguments) -> caf::result<json> {
        // One CEO tool called directly (protocol adapters, benchmarks, ops):
        // the same checks and ledgers as a model's tool call.
        auto promise = self->make_response_promise<json>();
        const uint64_t ticket = ++self->state.last_ticket;
        self->state.direct_calls.emplace(ticket, promise);
        // Asking every source for its specs costs more than an AskAgent's
        // own work on the CEO; only a source's tool can have changed.
        if (!driver_of(self).owns(name)) sync_sources(self);
        self->state.runner->run_direct(driver_of(self).call_directly(ticket, name, arguments));
        return promise;
      },
      [=](tool_done_atom, uint64_t id, company::ToolResult& r) {
        self->state.sourced_tools->on_done(id, std::move(r));
      },
      [=](switch_atom, const std::string& name, bool on) {
        auto& s = self->state;
        const bool known = driver_of(self).set_switch(name, on);
        if (name == "resource_budget") self->send(s.deps.ledger, switch_atom::value, std::string("resource"), on);
        if (name == "economy_budget") self->send(s.deps.ledger, switch_atom::value, std::string("expense"), on);
        return known;
      },
  };
}

}  // namespace

caf::actor spawn_ceo(caf::actor_system& sys, CeoDeps deps) { return sys.spawn(ceo, std::move(deps)); }

}  // namespace kaisha::actors
