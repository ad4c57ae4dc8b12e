#include "actors/company/company_runtime.hpp"

#include <algorithm>
#include <chrono>
#include <future>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "actors/caf/atoms.hpp"
#include "runtime/driver/replay_log.hpp"
#include "actors/hashiru/ceo_actor.hpp"
#include "actors/system/journal_actor.hpp"
#include "actors/agents/judge_actor.hpp"
#include "actors/caf/scheduler_tuning.hpp"
#include "actors/caf/spawning_thread.hpp"
#include "actors/strategy_kit/sourced_tools.hpp"
#include "actors/strategy_kit/strategy_actors.hpp"
#include "actors/strategy_kit/strategy_registration.hpp"
#include "actors/system/ledger_actor.hpp"
#include "actors/system/provider_chat_client.hpp"
#include "actors/system/model_client_actor.hpp"
#include "runtime/company/tool_grants.hpp"
#include "runtime/company/tool_spec_file.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/core/data_paths.hpp"
#include "runtime/core/json_text.hpp"
#include "runtime/core/once_callback.hpp"
#include "runtime/core/utf8.hpp"
#include "runtime/economy/cost_table.hpp"
#include "runtime/memory/configured_embedder.hpp"
#include "runtime/memory/memory_injection.hpp"
#include "runtime/memory/memory_service.hpp"
#include "runtime/memory/memory_store.hpp"
#include "runtime/memory/memory_tool_source.hpp"
#include "runtime/store/journal_store.hpp"
#include "runtime/store/session_lock.hpp"
#include "runtime/store/session_retention.hpp"
#include "runtime/catalog/strategy_catalog.hpp"
#include "runtime/tools/tool_setup.hpp"
#include "runtime/company/progress_fan_out.hpp"
#include "runtime/telemetry/event_metrics.hpp"
#include "runtime/telemetry/metered_chat_client.hpp"

namespace kaisha::actors {
// Work the gateway actor runs on its own thread for a caller outside CAF: it
// sends one request and hands the answer to a OnceCallback. So no caller
// needs a scoped_actor (CAF registry work per handle, a blocking receive);
// a blocking call waits on that callback's BlockingAnswer.
using GatewayJob = std::function<void(caf::event_based_actor*)>;
}  // namespace kaisha::actors
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(kaisha::actors::GatewayJob)

namespace kaisha::actors {
namespace {

std::string resolve(const std::string& configured, const std::string& fallback_relative) {
  return configured.empty() ? data_file(fallback_relative) : configured;
}

// The judge's model when judge.model is not set: the one named by the first
// of the configured strategy and the strategies it runs on whose catalog
// entry has one (effGen's planner model), else the CEO's.
std::string default_judge_model(const strategy::StrategyInfo& info, const config::Config& c) {
  std::vector<std::string> names{info.name};
  names.insert(names.end(), info.runs_on.begin(), info.runs_on.end());
  for (const std::string& name : names) {
    const strategy::StrategyInfo* s = strategy::find_strategy(name);
    if (!s || !s->audit_model) continue;
    auto it = c.strategy_settings.find(s->config_section);
    const std::string model = s->audit_model(it == c.strategy_settings.end() ? std::any() : it->second);
    if (!model.empty()) return model;
  }
  return c.ceo.model;
}

// The conversation texts the memory query is built from: the session's
// recent user messages and answers (seeded from the journal on resume).
struct RecallContext {
  std::mutex mu;
  std::vector<std::string> recent;
  void push(const std::string& text) {
    std::lock_guard<std::mutex> lock(mu);
    recent.push_back(text);
    if (recent.size() > 16) recent.erase(recent.begin());
  }
};

// The memory function (runtime/memory): the built-in embedder unless an
// embedding model is configured, whose provider is checked now.
Result<std::shared_ptr<memory::MemoryService>> start_memory(const config::Config& c) {
  auto embedder = memory::configured_embedder(c);
  if (!embedder) return embedder.error();
  return memory::MemoryService::start(c.memory, c.store_path, std::move(embedder).value(),
                                      store::durability_named(c.journal.durability));
}

// Retention (journal.keep_days, keep_sessions), as `kaisha forget` forgets:
// run with the session opened and its lock held, before any actor writes to
// the store. A failure is reported and the company starts anyway: what was
// not forgotten yet is only kept longer.
void apply_retention_on_start(const config::Config& c, store::JournalStore& journal, const std::string& current) {
  const store::RetentionPolicy policy{c.journal.keep_days, c.journal.keep_sessions};
  if (!policy.active()) return;
  auto report = [&]() -> Result<store::RetentionReport> {
    const std::string memory_path = memory::MemoryService::path_of(c.memory, c.store_path);
    std::unique_ptr<memory::MemoryStore> memories;
    std::error_code ec;
    if (std::filesystem::exists(memory_path, ec)) {
      auto m = memory::MemoryStore::open(memory_path, store::durability_named(c.journal.durability));
      if (!m.ok()) return m.error();
      memories = std::move(m).value();
    }
    store::SessionForgetter forgetter(journal, c.store_path, memories.get());
    return store::apply_retention(journal, forgetter, policy, current, store::JournalStore::now_ms());
  }();
  if (!report.ok()) {
    std::cerr << "kaisha: journal retention (" << policy.describe() << ") stopped: " << report.error().message
              << "; the sessions it had not forgotten yet are kept\n";
    return;
  }
  if (const std::string line = report->summary(policy); !line.empty()) std::cerr << "kaisha: " << line << "\n";
}

msg::AgentSpec spec_from_row(const store::AgentRow& a) {
  return msg::AgentSpec{a.name, a.base_model, a.model_ref, a.type, a.system_prompt, a.description, a.costs};
}

json error_envelope(const std::string& message) {
  return json{{"status", "error"}, {"message", message}, {"output", nullptr}};
}

// What a call gets when the runtime stops before its answer came.
constexpr const char* kStopped = "the company runtime stopped before the call finished";
json stopped_envelope() { return error_envelope(kStopped); }

// The company's levels, read at each scrape: both ledgers, what is reserved
// and in flight, and the journal's backlog and health.
std::vector<std::shared_ptr<void>> runtime_metrics(telemetry::MetricsRegistry& r,
                                                   std::shared_ptr<economy::Budget> budget, caf::actor journal) {
  using telemetry::MetricType;
  using telemetry::Sample;
  std::vector<std::shared_ptr<void>> out;
  const auto ledger = [&](const char* name, const char* help, const char* resource_key, const char* expense_key) {
    out.push_back(r.collector(name, help, MetricType::gauge, {"ledger"}, [budget, resource_key, expense_key] {
      const json b = budget->get_budget_json();
      return std::vector<Sample>{{{"resource"}, b.value(resource_key, 0.0)}, {{"expense"}, b.value(expense_key, 0.0)}};
    }));
  };
  ledger("kaisha_ledger_total", "Ledger size: resource points, expense USD", "total_resource_budget",
         "total_expense_budget");
  ledger("kaisha_ledger_used", "Ledger spent or held by hires: resource points, expense USD", "current_resource_usage",
         "current_expense");
  ledger("kaisha_ledger_remaining", "Ledger left: resource points, expense USD", "current_remaining_resource_budget",
         "current_remaining_expense_budget");
  ledger("kaisha_ledger_reserved", "Reserved for calls in flight: resource points, expense USD", "reserved_resource",
         "reserved_expense");
  const auto one = [&](const char* name, const char* help, const char* key) {
    out.push_back(r.collector(name, help, MetricType::gauge, {}, [budget, key] {
      return std::vector<Sample>{{{}, budget->get_budget_json().value(key, 0.0)}};
    }));
  };
  one("kaisha_asks_in_flight", "Asks holding a reservation now", "inflight_asks");
  one("kaisha_hired_agents", "Agents hired now", "hired_agents");
  one("kaisha_expense_overshoot_usd", "USD providers billed beyond what was reserved", "expense_overshoot");
  out.push_back(r.collector("kaisha_journal_backlog", "Journal writes queued and not yet committed", MetricType::gauge,
                            {}, [journal] {
                              return std::vector<Sample>{{{}, static_cast<double>(journal_backlog(journal))}};
                            }));
  out.push_back(r.collector("kaisha_journal_failing", "1 while the journal's last commit failed", MetricType::gauge, {},
                            [journal] {
                              return std::vector<Sample>{{{}, journal_failing(journal) ? 1.0 : 0.0}};
                            }));
  return out;
}

// Sends `a` an exit and waits, on this thread (never a scheduler's), until
// it has terminated or `limit` has passed.
void stop_and_wait(const caf::actor& a, std::chrono::milliseconds limit) {
  auto gone = std::make_shared<std::promise<void>>();
  std::future<void> terminated = gone->get_future();
  a->attach_functor([gone] { gone->set_value(); });
  caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  terminated.wait_for(limit);
}

}  // namespace

struct CompanyRuntime::Impl {
  // First member, so destroyed last: released after every actor has stopped
  // and the journal has written its last row.
  std::unique_ptr<store::SessionLock> session_lock;
  config::Config config;
  std::string session_id;
  std::shared_ptr<store::JournalStore> store;
  std::shared_ptr<economy::Budget> budget;
  // Every tool source of the company, stopped before the actors.
  std::vector<std::shared_ptr<company::ToolSource>> tool_sources;
  size_t own_tool_sources = 0;     // the first ones; the rest are the caller's
  bool stops_tool_sources = true;  // the caller's too
  std::unique_ptr<caf::actor_system_config> cfg;
  std::unique_ptr<caf::actor_system> system;
  caf::actor journal, model_client, ledger, ceo, judge;
  std::vector<caf::actor> strategy_actors;  // besides the CEO (effgen's planner, ...)
  caf::actor gateway;                       // runs the GatewayJobs of every call from outside CAF
  std::string strategy;
  const strategy::StrategyInfo* info = nullptr;  // the catalog's entry for `strategy`
  std::map<std::string, caf::actor> runners;     // strategy name -> the actor that runs its tasks
  RunnerChoice choose_runner;                    // which of `runners` takes a task
  std::shared_ptr<memory::MemoryService> memory_service;
  std::shared_ptr<RecallContext> recall_context = std::make_shared<RecallContext>();
  // The memory's tool and its retrieval before a turn (null when
  // memory.auto_retrieve is off), shared by the CEO and other strategies.
  std::shared_ptr<company::ToolSource> memory_tools;
  std::function<void(const std::string& message, std::function<void(json)> done)> recall;
  std::shared_ptr<tools::ToolSwitches> tool_switches;  // obeyed by the tool sources
  std::shared_ptr<company::ToolHealth> tool_health;    // every tool's breaker, shared by all who call tools
  std::mutex running_mu;
  // Tasks a killed process left running, for resume_interrupted() (only
  // when RuntimeOptions::resume asked for them), oldest first.
  std::vector<std::string> interrupted;
  // Runs `req` to its end, resumed from `log` when given.
  msg::TaskResult run(msg::TaskRequest req, std::shared_ptr<driver::ReplayLog> log);

  // start(), step by step.
  // The journal, and the session: continued (its lock taken, the tasks a
  // killed process left running closed, its budget and agents back, its
  // interrupted tasks listed when resuming) or created. Gives the agents to
  // start again.
  Result<std::vector<msg::AgentSpec>> open_session(const RuntimeOptions& o, const economy::CostTable& costs);
  // The actor system, the journal, the model client, the ledger, and the
  // judge when anything audits.
  Status spawn_system_actors(const RuntimeOptions& o, std::shared_ptr<company::ChatClient> chat,
                             const economy::CostTable& costs);
  // The CEO, with its prompt, its tools (built-in, created, memory, the
  // caller's) and its memory.
  Status spawn_company_ceo(const RuntimeOptions& o, std::shared_ptr<company::ChatClient> chat,
                           std::shared_ptr<economy::CostTable> cost_table, std::string system_prompt,
                           std::vector<llm::ToolSpec> tool_specs, std::vector<msg::AgentSpec> restored);
  // The actors that run the strategy's tasks, and how a task picks one.
  Status spawn_strategy_runners(const RuntimeOptions& o, std::shared_ptr<company::ChatClient> chat,
                                std::shared_ptr<economy::CostTable> cost_table);
  std::shared_ptr<company::ProgressSink> progress;  // where events go
  // Scrape-time metrics (RuntimeOptions::metrics): released first, since
  // they hold actor handles that would keep the journal's thread alive.
  std::vector<std::shared_ptr<void>> metric_collectors;
  std::string running_task;   // the task run_task is waiting on, "" when idle
  caf::actor running_target;  // the CEO or the planner, whichever runs it

  // Runs `job` on the gateway actor and returns at once. `done` gets the
  // answer there, or `if_stopped` if the runtime stops first (the job or its
  // pending request is then dropped with the gateway).
  template <class T>
  void post(std::function<void(caf::event_based_actor*, const OnceCallback<T>&)> job, OnceCallback<T> done) {
    caf::anon_send(gateway, GatewayJob([job = std::move(job), done = std::move(done)](caf::event_based_actor* self) {
                     job(self, done);
                   }));
  }

  // The same, blocking the calling thread until the answer.
  template <class T>
  T wait_for(T if_stopped, std::function<void(caf::event_based_actor*, const OnceCallback<T>&)> job) {
    BlockingAnswer<T> answer;
    post<T>(std::move(job), answer.callback([v = std::move(if_stopped)] { return v; }));
    return answer.wait();
  }

  // Asks the journal to commit everything queued before this point; blocks.
  void sync_journal(caf::duration timeout, JournalOp op) {
    wait_for<bool>(false, [journal = journal, timeout, op = std::move(op)](caf::event_based_actor* self,
                                                                           const OnceCallback<bool>& done) {
      self->request(journal, timeout, sync_atom::value, op)
          .then([done](bool) { done(true); }, [done](caf::error&) { done(false); });
    });
  }

  ~Impl() {
    metric_collectors.clear();
    // e.g. ends MCP servers' processes and sessions
    for (size_t i = 0; i < tool_sources.size(); ++i)
      if (i < own_tool_sources || stops_tool_sources) tool_sources[i]->stop();
    // The gateway first: calls still waiting on it get kStopped.
    if (gateway) caf::anon_send_exit(gateway, caf::exit_reason::user_shutdown);
    gateway = nullptr;
    for (auto& a : strategy_actors) caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
    strategy_actors.clear();
    runners.clear();

    for (auto* a : {&judge, &ceo, &ledger, &model_client, &journal}) {
      // The ledger journals the charges it holds as it exits (ledger_actor.hpp):
      // the journal is told to exit once they are in its mailbox.
      if (*a && a == &ledger)
        stop_and_wait(*a, std::chrono::seconds(10));
      else if (*a)
        caf::anon_send_exit(*a, caf::exit_reason::user_shutdown);
      *a = nullptr;  // a detached actor's thread ends only when no handle is left
    }
    system.reset();  // waits for the actors (the journal finishes its writes)
  }
};

CompanyRuntime::CompanyRuntime(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CompanyRuntime::~CompanyRuntime() = default;

const std::string& CompanyRuntime::session_id() const { return impl_->session_id; }

std::shared_ptr<economy::Budget> CompanyRuntime::budget_handle() const { return impl_->budget; }
std::shared_ptr<memory::MemoryService> CompanyRuntime::memory_handle() const { return impl_->memory_service; }

Result<std::unique_ptr<CompanyRuntime>> CompanyRuntime::start(RuntimeOptions o) {
  const SpawningThread spawning;  // the caller's thread may outlive the runtime
  auto impl = std::make_unique<Impl>();
  impl->config = o.config;
  const config::Config& c = impl->config;
  impl->strategy = o.strategy.empty() ? c.strategy : o.strategy;
  impl->info = strategy::find_strategy(impl->strategy);
  if (!impl->info)
    return Error{"usage", "unknown strategy '" + impl->strategy + "' (" + strategy::strategy_names_text() + ")"};

  if (c.ceo.model.empty())
    return Error{"config",
                 "no CEO model configured: set ceo.model in the config file or KAISHA_MODEL "
                 "(e.g. KAISHA_MODEL=ollama:llama3.2)"};
  auto table = economy::load_cost_table_file(resolve(c.cost_table_file, "data/cost_table.yaml"));
  if (!table.ok()) return table.error();
  auto cost_table = std::make_shared<economy::CostTable>(std::move(table).value());
  const std::string prompts = c.prompts_dir.empty() ? data_file("prompts") : c.prompts_dir;
  auto prompt =
      read_text_file(c.ceo.system_prompt_file.empty() ? prompts + "/ceo_system.md" : c.ceo.system_prompt_file);
  if (!prompt.ok()) return prompt.error();
  auto specs = company::load_tool_specs(data_file("data/tools/hashiru_ceo_tools.json"));
  if (!specs.ok()) return specs.error();

  auto chat = o.chat ? o.chat : make_provider_chat_client(c);
  if (o.metrics) chat = telemetry::metered(chat, *o.metrics);
  if (Status s = chat->check_model(c.ceo.model); !s.ok())
    return Error{"config", "CEO model '" + c.ceo.model + "': " + s.error().message};

  auto restored = impl->open_session(o, *cost_table);
  if (!restored.ok()) return restored.error();
  if (o.apply_retention) apply_retention_on_start(c, *impl->store, impl->session_id);
  if (Status s = impl->spawn_system_actors(o, chat, *cost_table); !s.ok()) return s.error();
  if (Status s = impl->spawn_company_ceo(o, chat, cost_table, std::move(prompt).value(), std::move(specs).value(),
                                         std::move(restored).value());
      !s.ok())
    return s.error();
  if (Status s = impl->spawn_strategy_runners(o, chat, cost_table); !s.ok()) return s.error();
  return std::unique_ptr<CompanyRuntime>(new CompanyRuntime(std::move(impl)));
}

Result<std::vector<msg::AgentSpec>> CompanyRuntime::Impl::open_session(const RuntimeOptions& o,
                                                                       const economy::CostTable& costs) {
  const config::Config& c = config;
  auto st = store::JournalStore::open(c.store_path, {store::durability_named(c.journal.durability)});
  if (!st.ok()) return st.error();
  store = std::shared_ptr<store::JournalStore>(std::move(st).value());

  budget = o.shared_budget ? o.shared_budget : std::make_shared<economy::Budget>(c.budget, c.switches);
  std::vector<msg::AgentSpec> restored;
  if (!o.session_id.empty()) {
    auto session = store->get_session(o.session_id);
    if (!session.ok()) return session.error();
    if (!session->has_value()) return Error{"session", "no session '" + o.session_id + "' in " + c.store_path};
    // Before reading its state: another process may be writing it.
    auto lock = store::SessionLock::acquire(c.store_path, o.session_id);
    if (!lock.ok()) return lock.error();
    session_lock = std::move(lock).value();
    // Tasks still `running` belong to a process that was killed: with the
    // lock held, nobody runs them any more.
    auto orphans =
        store->close_orphaned_tasks(o.session_id,
                                    "the process running this task stopped before it finished (killed or crashed); "
                                    "its journaled steps and charges are kept");
    if (!orphans.ok()) return orphans.error();
    auto state = store->load_budget_state(o.session_id);
    if (!state.ok()) return state.error();
    if (state->has_value() && !o.shared_budget) {
      auto bs = economy::BudgetState::from_json(**state);
      if (!bs.ok()) return Error{"session", "budget state of session " + o.session_id + ": " + bs.error().message};
      budget->restore(*bs);
    }
    auto agents = store->active_agents(o.session_id);
    if (!agents.ok()) return agents.error();
    // Agents whose last hire was made by a task about to be resumed are its
    // to adopt when it hires them again, as it does while replaying.
    std::set<std::string> theirs;
    if (o.resume) {
      auto tasks = store->tasks(o.session_id);
      if (!tasks.ok()) return tasks.error();
      for (const auto& t : *tasks)
        if (t.status == "interrupted" && (t.strategy.empty() || t.strategy == strategy)) interrupted.push_back(t.id);
      const std::set<std::string> resumed(interrupted.begin(), interrupted.end());
      auto ledger = store->ledger_entries(o.session_id);
      if (!ledger.ok()) return ledger.error();
      std::map<std::string, std::string> last_hire;  // agent -> task of its last hire
      for (const auto& e : *ledger)
        if (e.ledger == "resource" && e.kind == "hire") last_hire[e.agent] = e.task_id;
      for (const auto& [agent, task] : last_hire)
        if (resumed.count(task)) theirs.insert(agent);
    }
    for (const auto& a : *agents)
      if (!theirs.count(a.name)) restored.push_back(spec_from_row(a));
    session_id = o.session_id;
    auto tasks = store->tasks(o.session_id);
    if (!tasks.ok()) return tasks.error();
    if (!tasks->empty()) {
      recall_context->push(tasks->back().input);
      if (!tasks->back().final_answer.empty()) recall_context->push(tasks->back().final_answer);
    }
  } else {
    store::SessionRow row;
    row.id = store::JournalStore::make_id("s");
    row.ceo_model = c.ceo.model;
    row.config = json{{"source", c.source}, {"ceo_model", c.ceo.model}};
    if (o.session_tags.is_object()) row.config.update(o.session_tags);
    // Held from before the session exists: nobody can continue it under us.
    auto lock = store::SessionLock::acquire(c.store_path, row.id);
    if (!lock.ok()) return lock.error();
    session_lock = std::move(lock).value();
    if (Status s = store->create_session(row); !s.ok()) return s.error();
    if (Status s = store->save_cost_table(row.id, costs.to_json()); !s.ok()) return s.error();
    if (Status s = store->save_budget_state(row.id, budget->snapshot().to_json()); !s.ok()) return s.error();
    session_id = row.id;
  }
  return restored;
}

Status CompanyRuntime::Impl::spawn_system_actors(const RuntimeOptions& o, std::shared_ptr<company::ChatClient> chat,
                                                 const economy::CostTable& costs) {
  const config::Config& c = config;
  cfg = std::make_unique<caf::actor_system_config>();
  int threads = o.scheduler_threads > 0 ? o.scheduler_threads
                                        : static_cast<int>(std::max(2u, std::thread::hardware_concurrency()));
  cfg->set("scheduler.max-threads", threads);
  cfg->set("logger.console", caf::atom("none"));
  // Calls, HTTP replies and cluster replies enter from threads outside CAF.
  actors::use_prompt_wakeups(*cfg);
  system = std::make_unique<caf::actor_system>(*cfg);
  auto& sys = *system;

  journal = spawn_journal(sys, store);
  progress = o.progress ? o.progress : std::make_shared<company::NullProgressSink>();
  if (o.metrics) {
    progress = std::make_shared<company::ProgressFanOut>(std::vector<std::shared_ptr<company::ProgressSink>>{
        progress, std::make_shared<telemetry::EventMetrics>(*o.metrics)});
    // Every session's journal commits count; the levels are reported once.
    measure_journal_commits(journal, &o.metrics
                                          ->histogram("kaisha_journal_commit_seconds", "Journal commit duration", {},
                                                      telemetry::seconds_buckets())
                                          .with());
    if (o.level_metrics) metric_collectors = runtime_metrics(*o.metrics, budget, journal);
  }
  model_client = spawn_model_client(sys, chat, progress);
  ledger = spawn_ledger(sys, budget, journal, session_id, o.shared_budget ? o.shared_budget_session : std::string());
  // The judge: audits effgen's worker results when judge.subtasks is on, and
  // the CEO's final answers when judge.final_answer is.
  if (c.judge.final_answer || (info->audits_with_judge && c.judge.subtasks)) {
    const economy::ModelCost jc = costs.priced(c.judge.model.empty() ? default_judge_model(*info, c) : c.judge.model);
    if (Status s = chat->check_model(jc.model_ref); !s.ok())
      return Error{"config", "judge model '" + jc.model_ref + "': " + s.error().message};
    JudgeDeps jd;
    jd.ledger = ledger;
    jd.model_client = model_client;
    jd.journal = journal;
    jd.progress = progress;
    jd.session_id = session_id;
    jd.model_ref = jc.model_ref;
    jd.cost = jc;
    jd.cost.invoke_resource_cost = 0;  // the judge is not an employee
    jd.config = c;
    judge = spawn_judge(sys, std::move(jd));
  }

  return Status::Ok();
}

Status CompanyRuntime::Impl::spawn_company_ceo(const RuntimeOptions& o, std::shared_ptr<company::ChatClient> chat,
                                               std::shared_ptr<economy::CostTable> cost_table,
                                               std::string system_prompt, std::vector<llm::ToolSpec> tool_specs,
                                               std::vector<msg::AgentSpec> restored) {
  const config::Config& c = config;
  auto& sys = *system;
  CeoDeps deps;
  deps.model_client = model_client;
  deps.ledger = ledger;
  deps.journal = journal;
  if (c.judge.final_answer) deps.judge = judge;
  deps.progress = progress;
  deps.chat = chat;
  deps.cost_table = cost_table;
  deps.config = c;
  deps.session_id = session_id;
  deps.system_prompt = std::move(system_prompt);
  deps.tool_specs = std::move(tool_specs);
  deps.restored_agents = std::move(restored);
  deps.placer = o.placer;
  {
    const config::ToolFailureConfig& f = c.tools.failures;
    company::ToolBreakerSettings b;
    b.failures_to_open = f.breaker_failures;
    b.cooldown_ms = f.breaker_cooldown_ms;
    b.half_open_calls = f.breaker_half_open_calls;
    tool_health = std::make_shared<company::ToolHealth>(b);
    deps.tool_health = tool_health;
  }
  // Built-in and created tools (runtime/tools), under the two tool switches.
  auto tool_setup = tools::make_tool_sources(c, deps.tool_specs);
  if (!tool_setup.ok()) return tool_setup.error();
  tool_switches = tool_setup->switches;
  for (auto& p : tool_setup->sources) deps.tool_sources.push_back(o.wrap_tool_source ? o.wrap_tool_source(p) : p);
  {
    if (o.shared_memory) {
      memory_service = o.shared_memory;
    } else {
      auto mem = start_memory(c);
      if (!mem.ok()) return mem.error();
      memory_service = std::move(mem).value();
    }
    auto tool = memory::MemoryToolSource::create(memory_service);
    if (!tool.ok()) return tool.error();
    memory_tools = std::move(tool).value();
    deps.tool_sources.push_back(memory_tools);
    if (c.memory.short_term.enabled) {
      auto summarizer = memory::ConversationSummarizer::create(c.memory.short_term, c.prompts_dir);
      if (!summarizer.ok()) return summarizer.error();
      deps.summarizer = std::make_shared<const memory::ConversationSummarizer>(std::move(summarizer).value());
    }
    if (c.memory.error_reflection && c.judge.final_answer) {
      auto reflection = memory::ErrorReflection::load();
      if (!reflection.ok()) return reflection.error();
      deps.error_reflection = std::make_shared<const memory::ErrorReflection>(std::move(reflection).value());
    }
    if (c.memory.auto_retrieve) {
      // Weak: the service must not be destroyed on an actor's thread.
      std::weak_ptr<memory::MemoryService> weak = memory_service;
      std::shared_ptr<RecallContext> context = recall_context;
      const int context_messages = c.memory.context_messages;
      deps.recall = [weak, context, context_messages](const std::string& message, std::function<void(json)> done) {
        auto service = weak.lock();
        if (!service) return done(json{{"memories", json::array()}});
        std::vector<std::string> recent;
        {
          std::lock_guard<std::mutex> lock(context->mu);
          recent = context->recent;
        }
        const memory::MemoryTexts* texts = &service->texts();
        service->retrieve(memory::retrieval_query(recent, message, context_messages),
                          [done, texts](Result<std::vector<memory::RetrievedMemory>> r) {
                            if (!r.ok()) return done(json{{"error", r.error().message}});
                            done(memory::injection_payload(*r, *texts));
                          });
      };
      recall = deps.recall;
    }
  }
  // The caller's (the CLI's MCP servers, embedders' and tests' tools) come
  // last: a name the company's own tools use stays theirs.
  own_tool_sources = deps.tool_sources.size();
  stops_tool_sources = o.stops_tool_sources;
  for (auto& p : o.tool_sources) deps.tool_sources.push_back(p);
  tool_sources = deps.tool_sources;
  // Employee tool grants name tools and sources that must exist now.
  if (!c.employee.tools.empty()) {
    std::map<std::string, std::string> offered;
    std::set<std::string> origins;
    for (const auto& p : deps.tool_sources) {
      origins.insert(p->origin());
      for (const auto& spec : p->specs()) offered.emplace(spec.name, p->origin());
    }
    if (Status s = company::check_grants(c.employee.tools, offered, origins); !s.ok()) return s.error();
  }
  ceo = spawn_ceo(sys, std::move(deps));
  gateway = sys.spawn(
      [](caf::event_based_actor* self) -> caf::behavior { return {[=](const GatewayJob& job) { job(self); }}; });

  return Status::Ok();
}

Status CompanyRuntime::Impl::spawn_strategy_runners(const RuntimeOptions& o, std::shared_ptr<company::ChatClient> chat,
                                                    std::shared_ptr<economy::CostTable> cost_table) {
  const config::Config& c = config;
  auto& sys = *system;
  // The actors that run the strategy's tasks (actors/strategy_kit/strategy_actors.hpp).
  StrategyContext sc;
  sc.system = &sys;
  sc.config = &c;
  sc.session_id = session_id;
  sc.cost_table = cost_table;
  sc.chat = chat;
  sc.ledger = ledger;
  sc.model_client = model_client;
  sc.journal = journal;
  sc.judge = judge;
  sc.ceo = ceo;
  sc.progress = progress;
  sc.placer = o.placer;
  sc.wrap_tool_source = o.wrap_tool_source;
  sc.tool_health = tool_health;
  sc.on_breaker = SourcedTools::report_breakers(journal, progress, "");
  sc.memory_tools = memory_tools;
  sc.recall = recall;
  for (const std::string& name : info->runs_on) {
    StrategySpawner spawn = find_strategy_spawner(name);
    if (!spawn) return Error{"internal", "strategy '" + name + "' has no actor to run its tasks"};
    auto actor = spawn(sc);
    if (!actor.ok()) return actor.error();
    runners[name] = *actor;
    if (*actor != ceo) strategy_actors.push_back(*actor);
  }
  auto choice = runner_choice(*info, c);
  if (!choice.ok()) return choice.error();
  choose_runner = std::move(choice).value();
  return Status::Ok();
}

msg::TaskResult CompanyRuntime::run_task(const std::string& input) {
  return run_task(input, store::JournalStore::make_id("t"));
}

bool CompanyRuntime::cancel(const std::string& task_id, const std::string& why, bool failed) {
  auto& d = *impl_;
  caf::actor target;
  {
    std::lock_guard<std::mutex> lock(d.running_mu);
    if (d.running_task != task_id) return false;
    target = d.running_target;
  }
  return d.wait_for<bool>(false,
                          [target, task_id, why, failed](caf::event_based_actor* self, const OnceCallback<bool>& done) {
                            self->request(target, std::chrono::seconds(10), cancel_atom::value, task_id, why, failed)
                                .then([done](bool s) { done(s); }, [done](caf::error&) { done(false); });
                          });
}

msg::TaskResult CompanyRuntime::run_task(const std::string& raw_input, const std::string& task_id) {
  auto& d = *impl_;
  // The task's text enters here from every door (command line, chat, serve,
  // protocols): made valid UTF-8 once, for the journal, prompts and JSON.
  const std::string input = utf8::repair(raw_input);
  // The task row is queued before the CEO or planner is asked, so the journal,
  // which writes in arrival order, has it before any step of the task (their
  // foreign key) and before an interrupt's sync; waiting for its commit here
  // cost every task a journal round trip and a transaction of its own.
  journal_task_start(d.journal, d.session_id, task_id, input, d.strategy);
  return impl_->run(msg::TaskRequest{d.session_id, task_id, input}, nullptr);
}

Status CompanyRuntime::accept_task(const std::string& raw_input, const std::string& task_id) {
  auto& d = *impl_;
  const std::string input = utf8::repair(raw_input);
  // By value: after write_journal's timeout the write may still run.
  return write_journal([session = d.session_id, task_id, input, strategy = d.strategy, at = wall_ms()](
                           store::JournalStore& s) { return s.start_task(session, task_id, input, at, strategy); });
}

msg::TaskResult CompanyRuntime::run_accepted_task(const std::string& raw_input, const std::string& task_id) {
  auto& d = *impl_;
  return impl_->run(msg::TaskRequest{d.session_id, task_id, utf8::repair(raw_input)}, nullptr);
}

Status CompanyRuntime::end_accepted_task(const std::string& task_id, const std::string& why) {
  store::TaskOutcome o;
  o.task_id = task_id;
  o.status = "canceled";
  o.error = why;
  return write_journal([o](store::JournalStore& s) { return s.finish_task(o); });
}

const std::string& CompanyRuntime::strategy() const { return impl_->strategy; }

const std::vector<std::string>& CompanyRuntime::interrupted_tasks() const { return impl_->interrupted; }

Result<std::vector<msg::TaskResult>> CompanyRuntime::resume_interrupted(const std::string& only) {
  auto& d = *impl_;
  std::vector<msg::TaskResult> results;
  if (!only.empty() && std::find(d.interrupted.begin(), d.interrupted.end(), only) == d.interrupted.end())
    return Error{"resume", "task '" + only + "' is not an interrupted task of session " + d.session_id +
                               " run with strategy " + d.strategy};
  for (const std::string& tid : d.interrupted) {
    if (!only.empty() && tid != only) continue;
    // Read and reopened on the journal's writer, in order with its writes.
    std::optional<store::TaskRow> task;
    std::vector<std::string> kept;
    std::map<driver::CallId, std::vector<std::string>> ask_steps;
    std::vector<store::LedgerEntryRow> ledger;
    std::vector<store::StateRow> state;
    Status read = Status::Ok();
    d.sync_journal(caf::infinite, [&](store::JournalStore& s) {
      auto t = s.get_task(tid);
      auto o = s.kept_outcomes(tid);
      auto a = s.kept_ask_steps(tid);
      auto l = s.ledger_entries(d.session_id);
      auto st = s.state_before_task(tid);
      if (!t.ok() || !o.ok() || !a.ok() || !l.ok() || !st.ok() || !t->has_value()) {
        read = !t.ok()    ? Status(t.error())
               : !o.ok()  ? Status(o.error())
               : !a.ok()  ? Status(a.error())
               : !l.ok()  ? Status(l.error())
               : !st.ok() ? Status(st.error())
                          : Status(Error{"resume", "no task " + tid});
        return;
      }
      state = std::move(*st);
      task = **t;
      kept = std::move(*o);
      for (auto& [call, steps] : *a) ask_steps[static_cast<driver::CallId>(call)] = std::move(steps);
      ledger = std::move(*l);
      read = s.reopen_task(tid);
    });
    if (!read.ok()) return Error{"resume", "task " + tid + ": " + read.error().message};
    auto log = driver::ReplayLog::from_records(kept, ask_steps);
    if (!log.ok()) return Error{"resume", "task " + tid + ": " + log.error().message};
    std::vector<driver::StateValue> at_start;
    for (auto& r : state) at_start.push_back({std::move(r.strategy), std::move(r.key), std::move(r.value)});
    log->set_state_at_start(std::move(at_start));
    for (const auto& e : ledger) {
      if (e.task_id != tid || e.ledger != "resource") continue;
      if (e.kind == "hire") log->ledger_hire(e.agent);
      if (e.kind == "fire_refund") log->ledger_fire(e.agent);
    }
    results.push_back(d.run(msg::TaskRequest{d.session_id, tid, task->input},
                            std::make_shared<driver::ReplayLog>(std::move(log).value())));
  }
  if (only.empty())
    d.interrupted.clear();
  else
    d.interrupted.erase(std::find(d.interrupted.begin(), d.interrupted.end(), only));
  return results;
}

msg::TaskResult CompanyRuntime::Impl::run(msg::TaskRequest req, std::shared_ptr<driver::ReplayLog> log) {
  auto& d = *this;
  const std::string input = req.input;
  const std::string tid = req.task_id;
  msg::TaskResult out;
  caf::actor target = d.runners.at(d.choose_runner(input));
  {
    std::lock_guard<std::mutex> lock(d.running_mu);
    d.running_task = tid;
    d.running_target = target;
  }
  msg::TaskResult stopped;
  stopped.task_id = tid;
  stopped.ok = false;
  stopped.error = kStopped;
  auto not_running = [&d] {
    std::lock_guard<std::mutex> lock(d.running_mu);
    d.running_task.clear();
    d.running_target = nullptr;
  };
  out = d.wait_for<msg::TaskResult>(
      std::move(stopped), [target, not_running, ledger = d.ledger, req = std::move(req), log = std::move(log)](
                              caf::event_based_actor* self, const OnceCallback<msg::TaskResult>& done) {
        // The result is handed back once the journal has committed what the
        // task wrote (queued before the result came here, the charges the
        // ledger held until the task's end among them: hence through the
        // ledger), without a round trip to the calling thread in between.
        auto committed = [self, not_running, ledger, done](msg::TaskResult r) {
          not_running();  // an interrupt from now on no longer concerns this task
          // Shared by the two handlers below, so the result is not copied.
          auto result = std::make_shared<msg::TaskResult>(std::move(r));
          after_ledger_synced(self, ledger, [done, result] { done(std::move(*result)); });
        };
        auto answered = [committed](msg::TaskResult& r) { committed(std::move(r)); };
        auto failed = [self, committed, tid = req.task_id](caf::error& e) {
          msg::TaskResult f;
          f.task_id = tid;
          f.ok = false;
          f.error = "the CEO did not answer: " + self->system().render(e);
          committed(std::move(f));
        };
        if (log)
          self->request(target, caf::infinite, resume_atom::value, req, log).then(answered, failed);
        else
          self->request(target, caf::infinite, task_atom::value, req).then(answered, failed);
      });
  not_running();  // also when the runtime stopped before the task answered
  // The conversation so far, for the next turn's memory query and effGen's
  // short-term tier (consolidated in the background).
  d.recall_context->push(input);
  if (!out.answer.empty()) d.recall_context->push(out.answer);
  if (d.memory_service) {
    d.memory_service->observe(memory::StmRole::user, input, d.session_id);
    if (!out.answer.empty()) d.memory_service->observe(memory::StmRole::assistant, out.answer, d.session_id);
  }
  return out;
}

namespace {

// The gateway job of one CEO tool call.
std::function<void(caf::event_based_actor*, const OnceCallback<json>&)> tool_job(caf::actor ceo, std::string name,
                                                                                 std::string arguments) {
  return [ceo = std::move(ceo), name = std::move(name), arguments = std::move(arguments)](
             caf::event_based_actor* self, const OnceCallback<json>& done) {
    self->request(ceo, caf::infinite, tool_atom::value, name, arguments)
        .then([done](json& r) { done(std::move(r)); },
              [self, done](caf::error& e) { done(error_envelope(self->system().render(e))); });
  };
}

}  // namespace

json CompanyRuntime::call_tool(const std::string& name, const json& arguments) {
  BlockingAnswer<json> answer;
  impl_->post<json>(tool_job(impl_->ceo, name, dump_text(arguments)), answer.callback(stopped_envelope));
  return answer.wait();
}

void CompanyRuntime::call_tool_async(const std::string& name, const json& arguments, std::function<void(json)> done) {
  impl_->post<json>(tool_job(impl_->ceo, name, dump_text(arguments)),
                    OnceCallback<json>(std::move(done), stopped_envelope));
}

void CompanyRuntime::interrupt(const std::string& why) {
  std::string tid;
  {
    std::lock_guard<std::mutex> lock(impl_->running_mu);
    tid = impl_->running_task;
  }
  // First the charges the ledger holds for answers not kept yet: they are
  // paid for, and the journal is synced behind them.
  impl_->wait_for<bool>(false, [ledger = impl_->ledger](caf::event_based_actor* self, const OnceCallback<bool>& done) {
    self->request(ledger, std::chrono::seconds(10), done_atom::value)
        .then([done](bool) { done(true); }, [done](caf::error&) { done(false); });
  });
  JournalOp op = [tid, why](store::JournalStore& s) {
    if (tid.empty()) return;
    store::TaskOutcome o;
    o.task_id = tid;
    o.status = "interrupted";
    o.error = why;
    s.finish_task(o);
  };
  impl_->sync_journal(caf::duration(std::chrono::seconds(10)), std::move(op));
}

Status CompanyRuntime::write_journal(std::function<Status(store::JournalStore&)> write) {
  if (!impl_->journal) return Status::Ok();
  // Shared: after a timeout the write may still run, and find this alive.
  auto outcome = std::make_shared<std::optional<Status>>();
  impl_->sync_journal(caf::duration(std::chrono::seconds(30)),
                      [outcome, write = std::move(write)](store::JournalStore& s) { *outcome = write(s); });
  if (!*outcome) return Error{"journal", "the journal did not answer within 30 s"};
  return **outcome;
}

Status CompanyRuntime::set_switch(const std::string& name, bool on) {
  const bool known = impl_->wait_for<bool>(
      false, [ceo = impl_->ceo, name, on](caf::event_based_actor* self, const OnceCallback<bool>& done) {
        self->request(ceo, caf::infinite, switch_atom::value, name, on)
            .then([done](bool k) { done(k); }, [done](caf::error&) { done(false); });
      });
  if (name == "tool_creation") impl_->tool_switches->tool_creation = on;
  if (name == "tool_invocation") impl_->tool_switches->tool_invocation = on;
  if (!known) {
    std::string names;  // the CEO's switches, as its catalog entry declares them
    if (const strategy::StrategyInfo* ceo = strategy::find_strategy(ceo_strategy()))
      for (const auto& w : ceo->switches) names += (names.empty() ? "" : ", ") + w.name;
    return Error{"switch", "unknown switch '" + name + "' (" + names + ")"};
  }
  return Status::Ok();
}

json CompanyRuntime::budget() {
  return impl_->wait_for<json>(
      json(), [ledger = impl_->ledger](caf::event_based_actor* self, const OnceCallback<json>& done) {
        self->request(ledger, caf::infinite, budget_atom::value)
            .then([done](LedgerReply& r) { done(std::move(r.view)); }, [done](caf::error&) { done(json()); });
      });
}

Status CompanyRuntime::raise_budget(const std::string& which, double amount) {
  // A string, not a Status: Status has no default state to say "no answer".
  const std::string refused = impl_->wait_for<std::string>(
      kStopped,
      [ledger = impl_->ledger, which, amount](caf::event_based_actor* self, const OnceCallback<std::string>& done) {
        self->request(ledger, caf::infinite, raise_atom::value, which, amount)
            .then([done](LedgerReply& r) { done(r.ok ? std::string() : r.error); },
                  [self, done](caf::error& e) { done(self->system().render(e)); });
      });
  impl_->sync_journal(caf::infinite, JournalOp([](store::JournalStore&) {}));
  if (!refused.empty()) return Error{"budget", refused};
  return Status::Ok();
}

}  // namespace kaisha::actors
