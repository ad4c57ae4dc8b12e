#include "actors/planner_actor.hpp"

#include <map>
#include <sstream>
#include <utility>

#include "actors/atoms.hpp"
#include "actors/strategy_kit.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/core/utf8.hpp"
#include "runtime/llm/model_tier.hpp"
#include "runtime/llm/usage_estimate.hpp"
#include "runtime/planning/dag_scheduler.hpp"
#include "runtime/planning/decomposition_metrics.hpp"
#include "runtime/planning/decomposition_prompts.hpp"
#include "runtime/planning/decomposition_round.hpp"
#include "runtime/planning/prompt_template.hpp"
#include "runtime/prompt/prompt_optimizer.hpp"
#include "runtime/routing/router.hpp"

namespace kaisha::actors {
namespace {

constexpr const char* kPlanner = "Planner";
constexpr int64_t kPlannerMaxOutputTokens = 2048;
// Room for predecessors' outputs in a worker's prompt when a plan is priced
// before any subtask has run.
constexpr int64_t kContextAllowanceTokens = 512;

// A worker hired for the task (the kit holds it); busy while it runs a job.
struct Worker {
  std::string name;
  bool busy = false;
};

// One unit of work on a worker: a subtask of the plan, or the whole task.
struct Job {
  std::string id;
  std::string instruction;  // what the judge checks the result against
  std::string prompt;       // what the worker is asked (before feedback)
  std::string worker;
  int64_t started_ms = 0;  // steady_ms(): durations only
  std::unique_ptr<planning::AuditLoop> audit;
  std::function<void(bool ok, std::string text)> done;
};

// What the planner keeps of the running task beyond the kit's task scope.
struct PlanTask {
  json metadata = json::object();
  planning::Strategy strategy = planning::Strategy::hybrid;
  std::optional<planning::DecompositionRound> round;
  std::vector<llm::ChatMessage> planning_conversation;
  std::unique_ptr<planning::DagScheduler> scheduler;
  std::vector<Worker> workers;
  std::map<std::string, Job> jobs;
  int64_t dag_started_ms = 0;  // steady_ms(): durations only
  int64_t subtask_ms = 0;  // sum of subtask durations, for the speedup figure
  double prompt_tokens_original = 0;
  double prompt_tokens_optimized = 0;
  std::optional<prompt::TextOptimization> worker_input;  // see worker_input()
  int judge_calls = 0;
  bool fallback = false;
};

struct PlannerState {
  PlannerDeps deps;
  std::unique_ptr<StrategyKit> kit;  // the task scope, the workers, the charged calls
  std::optional<planning::PromptTemplate> worker_task;
  std::optional<planning::PromptTemplate> synthesis;
  // The decomposition prompts the router can choose, read once at start (a
  // missing file fails each task that needs it, with the path).
  std::map<planning::Strategy, Result<planning::PromptTemplate>> decompose;
  std::string worker_system;
  llm::ModelTier worker_tier = llm::ModelTier::medium;  // the worker model's, for the optimizer
  // The optimizer for the parts of a worker prompt (see optimize_for_worker).
  std::optional<prompt::PromptOptimizer> part_optimizer;
  std::optional<PlanTask> task;  // while the kit runs a task
  static inline const char* name = "planner";
};

using Self = caf::stateful_actor<PlannerState>;

StrategyKit& kit(Self* self) { return *self->state.kit; }

bool current(Self* self, const std::string& tid) { return kit(self).current(tid); }

// A call of the planner's own model (decomposition, synthesis).
ModelRole planner_role(Self* self) {
  return {kPlanner, self->state.deps.planner_model, self->state.deps.planner_cost};
}

llm::ChatRequest planner_request(Self* self, std::vector<llm::ChatMessage> messages) {
  llm::ChatRequest request;
  request.messages = std::move(messages);
  request.temperature = self->state.deps.config.ceo.temperature;
  request.max_tokens = kPlannerMaxOutputTokens;
  return request;
}

// Fires the task's workers that are still hired (their resource hire cost
// comes back); the task's answer waits for the ledger (StrategyKit::finish).
void fire_workers(Self* self) {
  for (const auto& w : self->state.task->workers)
    kit(self).fire(w.name, [self, name = w.name](bool, std::string, economy::BudgetSummary budget) {
      if (kit(self).listening()) kit(self).emit("fire", name, json{{"agent", name}, {"budget", budget.to_json()}});
    });
}

// Fires the task's workers and answers, with effgen's metadata.
void finish(Self* self, bool ok, const std::string& text) {
  auto& st = self->state;
  if (!st.kit->running()) return;
  fire_workers(self);
  PlanTask t = std::move(*st.task);
  st.task.reset();
  msg::TaskResult r = st.kit->result(ok, text);
  json& m = t.metadata;
  m["strategy"] = "effgen";
  m["execution_time_ms"] = r.wall_ms;
  m["num_sub_agents"] = t.workers.size();
  m["total_tokens"] = r.tokens_in + r.tokens_out;
  m["prompt_tokens_original"] = t.prompt_tokens_original;
  m["prompt_tokens_optimized"] = t.prompt_tokens_optimized;
  m["compression_ratio"] = t.prompt_tokens_original > 0 ? t.prompt_tokens_optimized / t.prompt_tokens_original : 1.0;
  m["judge_calls"] = t.judge_calls;
  m["fallback"] = t.fallback;
  m["backend"] = st.deps.worker_cost.model_ref;
  m["retrieved_memories"] = 0;
  if (t.dag_started_ms > 0) {
    const int64_t dag_wall = std::max<int64_t>(1, steady_ms() - t.dag_started_ms);
    m["speedup"] = double(t.subtask_ms) / double(dag_wall);
  }
  // The routing decision has its own note at the task's start: not repeated.
  json routing = m.contains("routing") ? std::move(m["routing"]) : json();
  m.erase("routing");
  st.kit->step("note", json{{"metadata", m}});
  if (!routing.is_null()) m["routing"] = std::move(routing);
  r.metadata = std::move(m);
  st.kit->finish(std::move(r));
}

// --------------------------------------------------------------- workers

// A worker could not be hired (no node for it, or the ledger said no): the
// task ends with the reason.
void hire_refused(Self* self, const std::string& worker, const std::string& why) {
  kit(self).step("refusal", json{{"hire", worker}, {"error", why}});
  finish(self, false, "Could not hire a worker: " + why);
}

// Hires workers up to `n`, all at once (the ledger answers in order), then
// calls `then` once every hire is in (or finishes the task with the first
// refusal; hires answered after that are given back).
void hire_workers(Self* self, size_t n, std::function<void()> then) {
  auto& st = self->state;
  auto& t = *st.task;
  if (t.workers.size() >= n) return then();
  const std::string tid = st.kit->task_id();
  auto missing = std::make_shared<size_t>(n - t.workers.size());
  auto done = std::make_shared<std::function<void()>>(std::move(then));
  for (size_t i = t.workers.size(); i < n; ++i) {
    msg::AgentSpec spec;
    spec.name = "Worker" + std::to_string(i + 1);
    spec.base_model = st.deps.worker_cost.name;
    spec.model_ref = st.deps.worker_cost.model_ref;
    spec.type = st.deps.worker_cost.type;
    spec.system_prompt = st.worker_system;
    spec.description = "effgen worker";
    spec.costs = economy::spec_costs_json(st.deps.worker_cost);
    st.kit->hire(spec, st.deps.worker_cost, Tenure::task, st.kit->employee_deps(), [=](HireResult h) {
      if (!current(self, tid)) return;
      if (!h.ok) return hire_refused(self, spec.name, h.error);
      self->state.task->workers.push_back({spec.name, false});
      if (kit(self).listening())
        kit(self).emit("hire", spec.name + " (" + spec.base_model + ", " + spec.type + ")",
                       json{{"agent", spec.name}, {"budget", h.budget.to_json()}});
      if (--*missing == 0) (*done)();
    });
    if (!current(self, tid)) return;  // refused at once (no node for it): no more hires
  }
}

Worker* idle_worker(Self* self) {
  for (auto& w : self->state.task->workers)
    if (!w.busy) return &w;
  return nullptr;
}

void release_worker(Self* self, const std::string& name) {
  for (auto& w : self->state.task->workers)
    if (w.name == name) w.busy = false;
}

void count_prompt_tokens(Self* self, const prompt::OptimizationReport& r) {
  self->state.task->prompt_tokens_original += r.original_tokens;
  self->state.task->prompt_tokens_optimized += r.optimized_tokens;
}

// Optimizes one part of a worker prompt for the worker model's size and
// counts its tokens.
std::string optimize_for_worker(Self* self, const std::string& text) {
  auto& st = self->state;
  if (!st.part_optimizer || text.empty()) return text;
  prompt::TextOptimization o = st.part_optimizer->optimize(text, st.worker_tier, prompt::TextRole::user);
  count_prompt_tokens(self, o.report);
  return std::move(o.text);
}

// The task text optimized for the worker model: once per task, since every
// subtask's prompt repeats it (its tokens still count in each prompt).
std::string worker_input(Self* self) {
  auto& st = self->state;
  auto& t = *st.task;
  const std::string& input = st.kit->task().input;
  if (!st.part_optimizer) return input;
  if (!t.worker_input) t.worker_input = st.part_optimizer->optimize(input, st.worker_tier, prompt::TextRole::user);
  count_prompt_tokens(self, t.worker_input->report);
  return t.worker_input->text;
}

// The parts of a worker prompt are optimized one by one; the tier's hard
// limit (tau_prompt, effgen.md §21.1) is on the whole, so a prompt still above
// it goes through the optimizer again, which cuts it.
std::string fit_for_worker(Self* self, std::string prompt) {
  const auto& opt = self->state.deps.optimizer;
  const llm::ModelTier tier = self->state.worker_tier;
  if (!opt || !opt->stages_for(tier).truncation ||
      prompt::estimate_tokens(prompt, opt->options().estimate_mode) <= double(opt->max_prompt_tokens(tier)))
    return prompt;
  return opt->optimize(prompt, tier, prompt::TextRole::user).text;
}

void finish_job(Self* self, const std::string& job_id, bool ok, std::string text) {
  auto& t = *self->state.task;
  auto it = t.jobs.find(job_id);
  if (it == t.jobs.end()) return;
  Job job = std::move(it->second);
  t.jobs.erase(it);
  release_worker(self, job.worker);
  t.subtask_ms += steady_ms() - job.started_ms;
  job.done(ok, std::move(text));
}

void produce(Self* self, const std::string& job_id, const std::string& feedback);

// Feeds an audit step back into the job: ask the judge, retry, or deliver.
void on_audit_step(Self* self, const std::string& job_id, Result<planning::AuditStep> step_r) {
  auto& st = self->state;
  if (!step_r.ok()) return finish_job(self, job_id, false, step_r.error().message);
  planning::AuditStep s = std::move(step_r).value();
  switch (s.kind) {
    case planning::AuditStep::Kind::deliver:
      return finish_job(self, job_id, s.report.status == planning::VerdictStatus::success,
                        s.report.status == planning::VerdictStatus::success
                            ? s.report.output
                            : "rejected by the judge: " + s.report.error_information);
    case planning::AuditStep::Kind::retry:
      kit(self).emit("retry", job_id + ": the judge rejected the result, asking again", json{{"job", job_id}});
      return produce(self, job_id, s.feedback);
    case planning::AuditStep::Kind::ask_judge: {
      Job& job = st.task->jobs.at(job_id);
      ++st.task->judge_calls;
      st.kit->audit(job.worker, job.instruction, s.claimed_result, [self, job_id](AuditOutcome o) {
        auto& t = *self->state.task;
        auto it = t.jobs.find(job_id);
        if (it == t.jobs.end()) return;
        if (o.kind == AuditOutcome::Kind::judge_failed) return finish_job(self, job_id, false, o.error);
        if (o.kind == AuditOutcome::Kind::no_answer)
          return finish_job(self, job_id, false, "the judge did not answer: " + o.error);
        on_audit_step(self, job_id, it->second.audit->on_verdict(o.verdict));
      });
      return;
    }
  }
}

// Asks the job's worker (again, with the judge's feedback when given).
void produce(Self* self, const std::string& job_id, const std::string& feedback) {
  auto& st = self->state;
  Job& job = st.task->jobs.at(job_id);
  const std::string tid = st.kit->task_id();
  std::string prompt = job.prompt;
  if (!feedback.empty()) prompt += "\n\nA reviewer rejected your previous answer:\n" + feedback;
  if (st.kit->listening())
    st.kit->emit("ask", "Planner -> " + job.worker + " [" + job_id + "]: " + utf8::truncate(prompt, 200),
                 json{{"agent", job.worker}, {"job", job_id}});
  // Only the answer event shows the budget after the call: nobody else waits
  // for the settlement (finish waits for the ledger once, at the end).
  st.kit->ask(job.worker, prompt, job_id, st.kit->listening(), [=](ChargedAskResult r) {
    if (!current(self, tid)) return;
    auto& t = *self->state.task;
    auto it = t.jobs.find(job_id);
    if (it == t.jobs.end()) return;
    Job& j = it->second;
    if (!r.ok) {
      kit(self).emit(r.refused ? "refusal" : "error", j.worker + ": " + r.error, json{{"job", job_id}});
      if (j.audit) return on_audit_step(self, job_id, j.audit->on_producer_error(r.error));
      return finish_job(self, job_id, false, r.error);
    }
    // The worker's answer, which subtask it belongs to and what it cost, in
    // one step under the worker's name (the worker journaled only its request:
    // AskRequest::job).
    kit(self).step("llm_response",
                   json{{"job", job_id}, {"text", r.reply.output}, {"usage_estimated", r.reply.usage.estimated},
                        {"latency_ms", r.reply.latency_ms}},
                   r.reply.usage.input_tokens, r.reply.usage.output_tokens, r.expense, j.worker);
    if (kit(self).listening())
      kit(self).emit("answer", j.worker + " [" + job_id + "]: " + r.reply.output,
                     json{{"agent", j.worker}, {"job", job_id}, {"input_tokens", r.reply.usage.input_tokens},
                          {"output_tokens", r.reply.usage.output_tokens}, {"expense", r.expense},
                          {"latency_ms", r.reply.latency_ms}, {"budget", r.budget.to_json()}},
                     j.worker);
    if (j.audit) return on_audit_step(self, job_id, j.audit->on_claim(r.reply.output));
    finish_job(self, job_id, true, r.reply.output);
  });
}

// Starts a job on an idle worker; `prompt` is already optimized for it.
void start_job(Self* self, std::string id, std::string instruction, std::string prompt,
               std::function<void(bool, std::string)> done) {
  auto& st = self->state;
  Worker* w = idle_worker(self);
  w->busy = true;
  Job job;
  job.id = id;
  job.instruction = std::move(instruction);
  job.prompt = std::move(prompt);
  job.worker = w->name;
  job.started_ms = steady_ms();
  job.done = std::move(done);
  if (st.deps.judge && st.deps.config.effgen.judge)
    job.audit = std::make_unique<planning::AuditLoop>(job.instruction,
                                                      planning::AuditLimits{st.deps.config.effgen.max_judge_retries});
  st.task->jobs.emplace(id, std::move(job));
  produce(self, id, "");
}

// ------------------------------------------------------------ single agent

void run_single(Self* self, const std::string& why) {
  auto& st = self->state;
  const std::string tid = st.kit->task_id();
  st.task->metadata["routing_strategy"] = "single";
  st.task->metadata["num_subtasks"] = 0;
  st.task->metadata["tree_depth"] = 0;
  kit(self).emit("plan", "single agent: " + why);
  hire_workers(self, 1, [=] {
    if (!current(self, tid)) return;
    const std::string input = kit(self).task().input;
    start_job(self, "task", input, fit_for_worker(self, worker_input(self)), [=](bool ok, std::string text) {
      if (!current(self, tid)) return;
      finish(self, ok, ok ? text : "The worker could not complete the task: " + text);
    });
  });
}

// -------------------------------------------------------------- the plan

void synthesize(Self* self, const std::vector<planning::SubtaskResult>& results) {
  auto& st = self->state;
  const std::string tid = st.kit->task_id();
  auto prompt = st.synthesis->render({{"task", st.kit->task().input}, {"results", planning::render_results(results)}});
  if (!prompt.ok()) return finish(self, false, prompt.error().message);
  kit(self).emit("synthesis", "synthesising " + std::to_string(results.size()) + " subtask results");
  // The task's last ledger operation: its settlement is waited for (finish).
  llm::ChatRequest request = planner_request(self, {{llm::Role::user, *prompt, {}, "", ""}});
  st.kit->call_model(planner_role(self), std::move(request), true, [=](ChargedCallResult r) {
    if (!current(self, tid)) return;
    if (!r.ok) return finish(self, false, "Synthesis failed: " + r.error);
    kit(self).step("llm_response", json{{"call", "synthesis"}, {"text", r.response.message.content}},
                   r.response.usage.input_tokens, r.response.usage.output_tokens, r.expense);
    finish(self, true, r.response.message.content);
  });
}

void on_plan_progress(Self* self);

void pump(Self* self) {
  auto& t = *self->state.task;
  const std::string tid = kit(self).task_id();
  for (planning::Assignment& a : t.scheduler->start_ready()) {
    std::string context = a.context.empty() ? "" : "\n" + optimize_for_worker(self, planning::render_context(a.context));
    auto prompt = self->state.worker_task->render({{"task", worker_input(self)},
                                                   {"subtask", optimize_for_worker(self, a.description)},
                                                   {"expected_output", optimize_for_worker(self, a.expected_output)},
                                                   {"context", context}});
    const std::string instruction = a.description + (a.expected_output.empty() ? "" : "\nExpected output: " + a.expected_output);
    if (kit(self).listening())
      kit(self).emit("subtask", a.id + " running (attempt " + std::to_string(a.attempt) + "): " + a.description,
                     json{{"subtask", a.id}, {"state", "running"}, {"attempt", a.attempt}});
    const std::string id = a.id;
    start_job(self, id, instruction, fit_for_worker(self, prompt.ok() ? *prompt : instruction), [=](bool ok, std::string text) {
      if (!current(self, tid)) return;
      auto& sch = *self->state.task->scheduler;
      if (ok) {
        (void)sch.complete(id, text);
        if (kit(self).listening())
          kit(self).emit("subtask", id + " completed", json{{"subtask", id}, {"state", "completed"}});
      } else {
        auto again = sch.fail(id, text);
        kit(self).emit("subtask", id + (again.ok() && *again ? " failed, will retry: " : " failed: ") + text,
                       json{{"subtask", id}, {"state", "failed"}});
      }
      on_plan_progress(self);
    });
  }
}

void on_plan_progress(Self* self) {
  auto& t = *self->state.task;
  if (!t.scheduler->finished()) return pump(self);
  auto outcome = t.scheduler->outcome();
  if (!outcome.ok()) return finish(self, false, outcome.error().message);
  json states = json::array();
  for (const auto& r : outcome->results)
    states.push_back({{"id", r.id}, {"state", planning::to_string(r.state)}, {"attempts", r.attempts}});
  t.metadata["subtasks"] = states;
  switch (outcome->kind) {
    case planning::PlanOutcome::Kind::answer:
      return finish(self, true, outcome->answer);
    case planning::PlanOutcome::Kind::synthesize:
      // The workers are done: they are fired while the synthesis runs.
      fire_workers(self);
      return synthesize(self, outcome->results);
    case planning::PlanOutcome::Kind::all_failed:
      t.fallback = true;
      t.scheduler.reset();
      t.dag_started_ms = 0;
      return run_single(self, "every subtask failed");
  }
}

// Worst-case USD of running `dag`: every subtask once on a worker (plus its
// audit), the workers' hire costs and the synthesis call. Retries are not
// priced in: each one is still reserved before it runs.
double plan_worst_case(Self* self, const planning::SubtaskDag& dag, size_t workers) {
  auto& st = self->state;
  const auto& c = st.deps.config;
  double usd = double(workers) * st.deps.worker_cost.create_expense_cost;
  const int64_t sys = llm::estimate_tokens(st.worker_system);
  for (const auto& s : dag.subtasks()) {
    const int64_t in = sys + llm::estimate_tokens(st.kit->task().input) + llm::estimate_tokens(s.description) +
                       kContextAllowanceTokens;
    usd += economy::Budget::expense_for(st.deps.worker_cost, in, c.employee.max_output_tokens);
  }
  const int64_t synth_in = llm::estimate_tokens(st.kit->task().input) +
                           int64_t(dag.subtasks().size()) * c.employee.max_output_tokens;
  usd += economy::Budget::expense_for(st.deps.planner_cost, synth_in, kPlannerMaxOutputTokens);
  return usd;
}

void run_plan(Self* self, planning::SubtaskDag dag) {
  auto& st = self->state;
  auto& t = *st.task;
  const std::string tid = st.kit->task_id();
  const auto metrics = planning::measure(dag);
  const bool hierarchical = t.strategy == planning::Strategy::hierarchical;
  t.metadata["routing_strategy"] = hierarchical ? "hierarchical" : planning::to_string(dag.shape());
  t.metadata["num_subtasks"] = dag.subtasks().size();
  t.metadata["tree_depth"] = 1;
  t.metadata["parallelism"] = metrics.parallelism;
  t.metadata["granularity"] = metrics.granularity;
  json plan = json::array();
  for (const auto& s : dag.subtasks())
    plan.push_back({{"id", s.id}, {"description", s.description}, {"depends_on", s.depends_on}});
  if (kit(self).listening())
    kit(self).emit("plan", std::to_string(plan.size()) + " subtasks, " + planning::to_string(dag.shape()),
                   json{{"subtasks", plan}, {"shape", planning::to_string(dag.shape())}});
  kit(self).step("note", json{{"plan", std::move(plan)}, {"shape", planning::to_string(dag.shape())}});
  // How many workers the resource budget allows to run at once.
  self->request(st.deps.ledger, caf::infinite, budget_atom::value).then([=](LedgerReply& b) mutable {
    if (!current(self, tid)) return;
    auto& s = self->state;
    const auto& wc = s.deps.worker_cost;
    // No more workers than subtasks can ever run side by side (the widest
    // topological level), nor than effgen.max_concurrent.
    size_t widest = 1;
    for (const auto& level : dag.levels()) widest = std::max(widest, level.size());
    size_t workers = std::min<size_t>(size_t(s.deps.config.effgen.max_concurrent), widest);
    const double per_worker = wc.create_resource_cost + wc.invoke_resource_cost;
    if (b.view.value("resource_budget_enabled", true) && per_worker > 0) {
      const double room = b.view.value("current_remaining_resource_budget", 0.0);
      workers = std::min(workers, size_t(room / per_worker));
    }
    if (workers == 0)
      return finish(self, false,
                    "The plan cannot be afforded: one worker on " + wc.name + " needs " +
                        std::to_string(per_worker) + " resource units");
    const double worst = plan_worst_case(self, dag, workers);
    const double left = b.view.value("current_remaining_expense_budget", 0.0);
    if (b.view.value("expense_budget_enabled", true) && worst > left) {
      std::ostringstream why;
      why << "The plan cannot be afforded: its " << dag.subtasks().size() << " subtasks need up to $" << worst
          << " (worst case) but only $" << left << " of the expense budget is remaining";
      kit(self).step("refusal", json{{"plan_worst_case", worst}, {"remaining", left}});
      kit(self).emit("refusal", why.str());
      return finish(self, false, why.str() + ". Authorise an increase (kaisha budget --raise-expense USD).");
    }
    s.task->metadata["plan_worst_case_expense"] = worst;
    hire_workers(self, workers, [=]() mutable {
      if (!current(self, tid)) return;
      auto& t2 = *self->state.task;
      planning::SchedulerOptions o;
      o.max_concurrent = t2.workers.size();
      o.max_retries = self->state.deps.config.effgen.max_subtask_retries;
      o.always_synthesize = t2.strategy == planning::Strategy::hierarchical;
      t2.scheduler = std::make_unique<planning::DagScheduler>(std::move(dag), o);
      t2.dag_started_ms = steady_ms();
      pump(self);
    });
  });
}

void ask_for_plan(Self* self) {
  auto& st = self->state;
  const std::string tid = st.kit->task_id();
  // Nothing waits for the settlement: the ledger applies it before the
  // budget query that follows.
  llm::ChatRequest request = planner_request(self, st.task->planning_conversation);
  st.kit->call_model(planner_role(self), std::move(request), false, [=](ChargedCallResult r) {
    if (!current(self, tid)) return;
    auto& t = *self->state.task;
    if (!r.ok) return finish(self, false, "The planner's model call failed: " + r.error);
    const std::string answer = r.response.message.content;
    kit(self).step("llm_response", json{{"call", "decomposition"}, {"text", answer}}, r.response.usage.input_tokens,
                   r.response.usage.output_tokens, r.expense);
    planning::RoundStep next = t.round->on_answer(answer);
    switch (next.kind) {
      case planning::RoundStep::Kind::accept: {
        auto dag = planning::SubtaskDag::build(next.plan->subtasks);
        if (!dag.ok()) {
          t.fallback = true;
          return run_single(self, "the plan is not a valid DAG: " + dag.error().message);
        }
        return run_plan(self, std::move(dag).value());
      }
      case planning::RoundStep::Kind::retry:
        kit(self).emit("retry", "the decomposition was not usable: " + next.reason);
        t.planning_conversation.push_back({llm::Role::assistant, answer, {}, "", ""});
        t.planning_conversation.push_back({llm::Role::user, next.feedback, {}, "", ""});
        return ask_for_plan(self);
      case planning::RoundStep::Kind::fall_back:
        t.fallback = true;
        return run_single(self, "no usable decomposition: " + next.reason);
    }
  });
}

caf::behavior planner(Self* self, PlannerDeps deps) {
  auto& st = self->state;
  st.deps = std::move(deps);
  st.kit = std::make_unique<StrategyKit>(self, kit_deps_of(st.deps, kPlanner, "the planner"));
  st.kit->fail_on_exception();
  st.worker_system = st.deps.worker_system;
  llm::TierQuery tq;
  tq.model_name = st.deps.worker_cost.model_ref;
  st.worker_tier = llm::resolve_tier(tq);
  if (st.deps.optimizer) {
    // In the template every part sits under a heading line ending in ':',
    // which keeps τ4 from turning it into bullets; optimized on its own a
    // part would lose that, so the parts are rewritten without τ4.
    prompt::OptimizerOptions o = st.deps.optimizer->options();
    o.enable_bullets = false;
    st.part_optimizer.emplace(st.deps.optimizer->patterns(), o);
  }
  st.worker_task = planning::PromptTemplate::from_text(st.deps.worker_task, "prompts/effgen/worker_task.md");
  st.synthesis = planning::PromptTemplate::from_text(st.deps.synthesis, "prompts/effgen/synthesize.md");
  for (planning::Strategy s : {planning::Strategy::hybrid, planning::Strategy::hierarchical})
    st.decompose.emplace(s, planning::load_decomposition_prompt(s));
  return {
      [=](cancel_atom, const std::string& tid, const std::string& why) {
        // Workers are fired by finish(); their late results find no task.
        if (!kit(self).cancel(tid, why)) return false;
        finish(self, false, why);
        return true;
      },
      [=](task_atom, msg::TaskRequest& req) -> caf::result<msg::TaskResult> {
        auto& s = self->state;
        auto promise = self->make_response_promise<msg::TaskResult>();
        if (!s.kit->start(req, promise)) return promise;
        s.task.emplace();
        // Route with zero model calls (effgen.md §23 item 2).
        routing::RoutingDecision d = s.deps.router->route(req.input);
        const json decision = d.to_json();
        s.task->metadata["complexity_score"] = d.score.total;
        s.task->metadata["routing"] = decision;
        kit(self).step("note", json{{"routing", decision}});
        if (kit(self).listening())
          kit(self).emit("routing",
                         "complexity " + std::to_string(d.score.total).substr(0, 4) + " -> " +
                             std::string(routing::to_string(d.kind)) + " (" + d.reason + ")",
                         decision);
        if (d.kind == routing::RouteKind::single) {
          run_single(self, d.reason);
          return promise;
        }
        s.task->strategy = d.kind == routing::RouteKind::hierarchical ? planning::Strategy::hierarchical
                                                                      : planning::Strategy::hybrid;
        s.task->round.emplace(s.task->strategy);
        const auto& decompose = s.decompose.at(s.task->strategy);
        auto prompt = decompose.ok() ? decompose->render({{"task", req.input}}) : Result<std::string>(decompose.error());
        if (!prompt.ok()) {
          finish(self, false, prompt.error().message);
          return promise;
        }
        s.task->planning_conversation = {{llm::Role::user, *prompt, {}, "", ""}};
        ask_for_plan(self);
        return promise;
      },
  };
}

}  // namespace

caf::actor spawn_planner(caf::actor_system& sys, PlannerDeps deps) {
  return sys.spawn(planner, std::move(deps));
}

}  // namespace kaisha::actors
