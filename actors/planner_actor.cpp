#include "actors/planner_actor.hpp"

#include <map>
#include <sstream>
#include <utility>

#include "actors/atoms.hpp"
#include "actors/charged_call.hpp"
#include "actors/employee_actor.hpp"
#include "actors/handler_failure.hpp"
#include "actors/journal_actor.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/core/utf8.hpp"
#include "runtime/llm/model_tier.hpp"
#include "runtime/llm/token_bound.hpp"
#include "runtime/llm/usage_estimate.hpp"
#include "runtime/messages/task_result_json.hpp"
#include "runtime/planning/audit_loop.hpp"
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

struct Worker {
  std::string name;
  caf::actor actor;
  bool busy = false;
  bool fired = false;  // fired before the task's end (see fire_workers)
};

// The workers' fires the ledger has not answered yet, and what runs once it
// has answered them all (the task's result waits for them: see finish).
struct Fires {
  size_t in_flight = 0;
  std::function<void()> then;
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

struct PlanTask {
  std::string id;
  bool canceled = false;  // stopped on request
  std::string input;
  caf::typed_response_promise<msg::TaskResult> promise;
  int64_t started_ms = 0;  // steady_ms(): durations only
  int64_t tokens_in = 0;
  int64_t tokens_out = 0;
  double expense = 0;
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
  std::shared_ptr<Fires> fires = std::make_shared<Fires>();
};

struct PlannerState {
  PlannerDeps deps;
  std::optional<planning::PromptTemplate> worker_task;
  std::optional<planning::PromptTemplate> synthesis;
  // The decomposition prompts the router can choose, read once at start (a
  // missing file fails each task that needs it, with the path).
  std::map<planning::Strategy, Result<planning::PromptTemplate>> decompose;
  std::string worker_system;
  llm::ModelTier worker_tier = llm::ModelTier::medium;  // the worker model's, for the optimizer
  // The optimizer for the parts of a worker prompt (see optimize_for_worker).
  std::optional<prompt::PromptOptimizer> part_optimizer;
  std::optional<PlanTask> task;
  // A finished task whose answer waits for the ledger's fires (see finish).
  std::shared_ptr<Fires> finishing;
  static inline const char* name = "planner";
};

using Self = caf::stateful_actor<PlannerState>;

// One call of the planner's own model (decomposition, synthesis).
ChargedCall planner_call(Self* self, std::vector<llm::ChatMessage> messages, bool await_settle) {
  auto& st = self->state;
  ChargedCall call;
  call.ledger = st.deps.ledger;
  call.model_client = st.deps.model_client;
  call.timeout = model_call_timeout(st.deps.config);
  call.cost = st.deps.planner_cost;
  call.agent = kPlanner;
  call.task_id = st.task->id;
  call.model_ref = st.deps.planner_model;
  call.request.messages = std::move(messages);
  call.request.temperature = st.deps.config.ceo.temperature;
  call.request.max_tokens = kPlannerMaxOutputTokens;
  call.await_settle = await_settle;
  return call;
}

bool current(Self* self, const std::string& tid) { return self->state.task && self->state.task->id == tid; }

// Whether anybody watches progress: the per-subtask paths skip building
// their events (text and JSON) otherwise.
bool listening(Self* self) { return self->state.deps.progress && self->state.deps.progress->listening(); }

void emit(Self* self, const std::string& kind, const std::string& text, json data = json::object(),
          const std::string& agent = kPlanner) {
  auto& st = self->state;
  if (!listening(self)) return;
  msg::ProgressEvent e;
  e.session_id = st.deps.session_id;
  e.task_id = st.task ? st.task->id : "";
  e.agent = agent;
  e.kind = kind;
  e.text = text;
  e.data = std::move(data);
  e.at_ms = wall_ms();
  st.deps.progress->emit(e);
}

void step(Self* self, const std::string& kind, json payload, int64_t in = 0, int64_t out = 0, double usd = 0,
          const std::string& agent = kPlanner) {
  auto& st = self->state;
  journal_step(st.deps.journal, {st.deps.session_id, st.task ? st.task->id : "", agent, kind,
                                 std::move(payload), in, out, usd});
}

void account(Self* self, const llm::Usage& u, double usd) {
  auto& t = *self->state.task;
  t.tokens_in += u.input_tokens;
  t.tokens_out += u.output_tokens;
  t.expense += usd;
}

// Fires the task's workers that are still hired (their resource hire cost
// comes back); t.fires counts the ledger's answers still to come.
void fire_workers(Self* self, PlanTask& t) {
  auto& st = self->state;
  for (auto& w : t.workers) {
    if (std::exchange(w.fired, true)) continue;
    ++t.fires->in_flight;
    auto answered = [fires = t.fires] {
      if (--fires->in_flight == 0 && fires->then) std::exchange(fires->then, nullptr)();
    };
    self->request(st.deps.ledger, caf::infinite, fire_atom::value, st.deps.worker_cost, w.name, t.id)
        .then(
            [self, answered, name = w.name](LedgerReply& r) {
              if (listening(self)) emit(self, "fire", name, json{{"agent", name}, {"budget", r.budget.to_json()}});
              answered();
            },
            [answered](caf::error&) { answered(); });
    self->send_exit(w.actor, caf::exit_reason::user_shutdown);
    journal_agent_fired(st.deps.journal, st.deps.session_id, w.name);
  }
}

// Fires the task's workers and answers. The answer waits until the ledger has
// applied the fires, and with them every settlement sent before (a worker's
// is not waited for: see produce): their journal rows are then queued before
// the caller's journal sync, so a returned task has all its rows committed.
void finish(Self* self, bool ok, const std::string& text) {
  auto& st = self->state;
  if (!st.task) return;
  PlanTask t = std::move(*st.task);
  st.task.reset();
  fire_workers(self, t);
  const int64_t wall = steady_ms() - t.started_ms;
  json& m = t.metadata;
  m["strategy"] = "effgen";
  m["execution_time_ms"] = wall;
  m["num_sub_agents"] = t.workers.size();
  m["total_tokens"] = t.tokens_in + t.tokens_out;
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
  msg::TaskResult r;
  r.task_id = t.id;
  r.ok = ok;
  (ok ? r.answer : r.error) = text;
  r.tokens_in = t.tokens_in;
  r.tokens_out = t.tokens_out;
  r.expense = t.expense;
  r.wall_ms = wall;
  r.canceled = t.canceled;
  // The routing decision has its own note at the task's start: not repeated.
  json routing = m.contains("routing") ? std::move(m["routing"]) : json();
  m.erase("routing");
  journal_step(st.deps.journal, {st.deps.session_id, t.id, kPlanner, "note", json{{"metadata", m}}});
  if (!routing.is_null()) m["routing"] = std::move(routing);
  r.metadata = std::move(m);
  journal_task_finish(st.deps.journal, st.deps.session_id, r);
  if (listening(self)) {
    msg::ProgressEvent e;
    e.session_id = st.deps.session_id;
    e.task_id = t.id;
    e.agent = kPlanner;
    e.kind = ok ? "final" : t.canceled ? "canceled" : "error";
    e.text = text;
    e.data = msg::task_totals_json(r);
    e.data["metadata"] = r.metadata;
    e.at_ms = wall_ms();
    st.deps.progress->emit(e);
  }
  if (t.fires->in_flight == 0) {
    t.promise.deliver(std::move(r));
    return;
  }
  t.fires->then = [promise = t.promise, r = std::move(r)]() mutable { promise.deliver(std::move(r)); };
  st.finishing = t.fires;
}

// The exception handler's work (handler_failure.hpp): a finished task's
// answer goes out now, a running task fails with `why`, its workers are
// stopped. Nothing here may throw again, so no progress event.
void fail_after_exception(Self* self, const std::string& why) {
  auto& st = self->state;
  if (st.finishing) {
    if (auto then = std::exchange(st.finishing->then, nullptr)) then();
    st.finishing.reset();
  }
  if (!st.task) return;
  PlanTask t = std::move(*st.task);
  st.task.reset();
  for (auto& w : t.workers)
    if (!w.fired) self->send_exit(w.actor, caf::exit_reason::user_shutdown);
  msg::TaskResult r;
  r.task_id = t.id;
  r.ok = false;
  r.error = why;
  r.tokens_in = t.tokens_in;
  r.tokens_out = t.tokens_out;
  r.expense = t.expense;
  r.wall_ms = steady_ms() - t.started_ms;
  journal_task_finish(st.deps.journal, st.deps.session_id, r);
  t.promise.deliver(std::move(r));
}

// --------------------------------------------------------------- workers

// A worker could not be hired (no node for it, or the ledger said no): the
// task ends with the reason.
void hire_refused(Self* self, const std::string& worker, const std::string& why) {
  step(self, "refusal", json{{"hire", worker}, {"error", why}});
  finish(self, false, "Could not hire a worker: " + why);
}

// Hires workers up to `n`, all at once (the ledger answers in order), then
// calls `then` once every hire is in (or finishes the task with the first
// refusal; hires answered after that are given back).
void hire_workers(Self* self, size_t n, std::function<void()> then) {
  auto& st = self->state;
  auto& t = *st.task;
  if (t.workers.size() >= n) return then();
  const std::string tid = t.id;
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
    // A cluster that has no node for the worker refuses before it is charged.
    if (st.deps.placer) {
      if (Status ok = st.deps.placer->check(spec); !ok.ok()) return hire_refused(self, spec.name, ok.error().message);
    }
    self->request(st.deps.ledger, caf::infinite, hire_atom::value, st.deps.worker_cost, spec.name, tid)
        .then([=](LedgerReply& r) {
          if (!current(self, tid)) {
            // The task ended (canceled, failed, another hire refused) while
            // this hire was charged: give the worker's resource units back.
            if (r.ok) self->send(self->state.deps.ledger, fire_atom::value, self->state.deps.worker_cost, spec.name, tid);
            return;
          }
          auto& s = self->state;
          if (!r.ok) return hire_refused(self, spec.name, r.error);
          s.task->expense += s.deps.worker_cost.create_expense_cost;
          EmployeeDeps d = employee_deps_from(s.deps.config, s.deps.model_client, s.deps.journal, s.deps.progress);
          Result<caf::actor> worker = s.deps.placer ? s.deps.placer->place(self->system(), spec, d)
                                                    : Result<caf::actor>(spawn_employee(self->system(), spec, d));
          if (!worker.ok()) {
            // The node filled up between check and hire: the hire goes back.
            self->send(s.deps.ledger, fire_atom::value, s.deps.worker_cost, spec.name, tid);
            return hire_refused(self, spec.name, worker.error().message);
          }
          s.task->workers.push_back({spec.name, std::move(*worker), false});
          journal_agent_hired(s.deps.journal, s.deps.session_id, spec);
          if (listening(self))
            emit(self, "hire", spec.name + " (" + spec.base_model + ", " + spec.type + ")",
                 json{{"agent", spec.name}, {"budget", r.budget.to_json()}});
          if (--*missing == 0) (*done)();
        });
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
  if (!st.part_optimizer) return t.input;
  if (!t.worker_input) t.worker_input = st.part_optimizer->optimize(t.input, st.worker_tier, prompt::TextRole::user);
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
  const std::string tid = st.task->id;
  if (!step_r.ok()) return finish_job(self, job_id, false, step_r.error().message);
  planning::AuditStep s = std::move(step_r).value();
  switch (s.kind) {
    case planning::AuditStep::Kind::deliver:
      return finish_job(self, job_id, s.report.status == planning::VerdictStatus::success,
                        s.report.status == planning::VerdictStatus::success
                            ? s.report.output
                            : "rejected by the judge: " + s.report.error_information);
    case planning::AuditStep::Kind::retry:
      emit(self, "retry", job_id + ": the judge rejected the result, asking again", json{{"job", job_id}});
      return produce(self, job_id, s.feedback);
    case planning::AuditStep::Kind::ask_judge: {
      Job& job = st.task->jobs.at(job_id);
      ++st.task->judge_calls;
      msg::AuditRequest req{tid, job.worker, job.instruction, s.claimed_result};
      self->request(st.deps.judge, model_call_timeout(st.deps.config), audit_atom::value, std::move(req))
          .then(
              [=](msg::AuditVerdict& v) {
                if (!current(self, tid)) return;
                auto& t = *self->state.task;
                auto it = t.jobs.find(job_id);
                if (it == t.jobs.end()) return;
                if (v.judge_failed) return finish_job(self, job_id, false, v.error_information);
                planning::JudgeVerdict jv;
                jv.status = v.success ? planning::VerdictStatus::success : planning::VerdictStatus::error;
                jv.output = v.output;
                jv.error_information = v.error_information;
                jv.malformed = v.malformed;
                on_audit_step(self, job_id, it->second.audit->on_verdict(jv));
              },
              [=](caf::error& e) {
                if (!current(self, tid)) return;
                finish_job(self, job_id, false, "the judge did not answer: " + self->system().render(e));
              });
      return;
    }
  }
}

// Asks the job's worker (again, with the judge's feedback when given).
void produce(Self* self, const std::string& job_id, const std::string& feedback) {
  auto& st = self->state;
  Job& job = st.task->jobs.at(job_id);
  const std::string tid = st.task->id;
  Worker* w = nullptr;
  for (auto& x : st.task->workers)
    if (x.name == job.worker) w = &x;
  std::string prompt = job.prompt;
  if (!feedback.empty()) prompt += "\n\nA reviewer rejected your previous answer:\n" + feedback;
  ChargedAsk ask;
  ask.ledger = st.deps.ledger;
  ask.employee = w->actor;
  ask.timeout = model_call_timeout(st.deps.config);
  ask.cost = st.deps.worker_cost;
  ask.agent = job.worker;
  ask.ask = msg::AskRequest{st.deps.session_id, tid, prompt, st.deps.config.employee.max_output_tokens, job_id};
  ask.ask.input_token_bound = llm::ask_input_token_bound(st.worker_system, prompt);
  // Only the answer event shows the budget after the call: nobody else waits
  // for the settlement (finish waits for the ledger once, at the end).
  ask.await_settle = listening(self);
  if (listening(self))
    emit(self, "ask", "Planner -> " + job.worker + " [" + job_id + "]: " + utf8::truncate(prompt, 200),
         json{{"agent", job.worker}, {"job", job_id}});
  charged_ask(self, std::move(ask), [=](ChargedAskResult r) {
    if (!current(self, tid)) return;
    auto& t = *self->state.task;
    auto it = t.jobs.find(job_id);
    if (it == t.jobs.end()) return;
    Job& j = it->second;
    if (!r.ok) {
      emit(self, r.refused ? "refusal" : "error", j.worker + ": " + r.error, json{{"job", job_id}});
      if (j.audit) return on_audit_step(self, job_id, j.audit->on_producer_error(r.error));
      return finish_job(self, job_id, false, r.error);
    }
    account(self, r.reply.usage, r.expense);
    // The worker's answer, which subtask it belongs to and what it cost, in
    // one step under the worker's name (the worker journaled only its request:
    // AskRequest::job).
    step(self, "llm_response",
         json{{"job", job_id}, {"text", r.reply.output}, {"usage_estimated", r.reply.usage.estimated},
              {"latency_ms", r.reply.latency_ms}},
         r.reply.usage.input_tokens, r.reply.usage.output_tokens, r.expense, j.worker);
    if (listening(self))
      emit(self, "answer", j.worker + " [" + job_id + "]: " + r.reply.output,
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
  const std::string tid = st.task->id;
  st.task->metadata["routing_strategy"] = "single";
  st.task->metadata["num_subtasks"] = 0;
  st.task->metadata["tree_depth"] = 0;
  emit(self, "plan", "single agent: " + why);
  hire_workers(self, 1, [=] {
    if (!current(self, tid)) return;
    const std::string input = self->state.task->input;
    start_job(self, "task", input, fit_for_worker(self, worker_input(self)), [=](bool ok, std::string text) {
      if (!current(self, tid)) return;
      finish(self, ok, ok ? text : "The worker could not complete the task: " + text);
    });
  });
}

// -------------------------------------------------------------- the plan

void synthesize(Self* self, const std::vector<planning::SubtaskResult>& results) {
  auto& st = self->state;
  const std::string tid = st.task->id;
  auto prompt = st.synthesis->render({{"task", st.task->input}, {"results", planning::render_results(results)}});
  if (!prompt.ok()) return finish(self, false, prompt.error().message);
  // The task's last ledger operation: its settlement is waited for (finish).
  ChargedCall call = planner_call(self, {{llm::Role::user, *prompt, {}, "", ""}}, true);
  emit(self, "synthesis", "synthesising " + std::to_string(results.size()) + " subtask results");
  charged_chat(self, std::move(call), [=](ChargedCallResult r) {
    if (!current(self, tid)) return;
    if (!r.ok) return finish(self, false, "Synthesis failed: " + r.error);
    account(self, r.response.usage, r.expense);
    step(self, "llm_response", json{{"call", "synthesis"}, {"text", r.response.message.content}},
         r.response.usage.input_tokens, r.response.usage.output_tokens, r.expense);
    finish(self, true, r.response.message.content);
  });
}

void on_plan_progress(Self* self);

void pump(Self* self) {
  auto& t = *self->state.task;
  const std::string tid = t.id;
  for (planning::Assignment& a : t.scheduler->start_ready()) {
    std::string context = a.context.empty() ? "" : "\n" + optimize_for_worker(self, planning::render_context(a.context));
    auto prompt = self->state.worker_task->render({{"task", worker_input(self)},
                                                   {"subtask", optimize_for_worker(self, a.description)},
                                                   {"expected_output", optimize_for_worker(self, a.expected_output)},
                                                   {"context", context}});
    const std::string instruction = a.description + (a.expected_output.empty() ? "" : "\nExpected output: " + a.expected_output);
    if (listening(self))
      emit(self, "subtask", a.id + " running (attempt " + std::to_string(a.attempt) + "): " + a.description,
           json{{"subtask", a.id}, {"state", "running"}, {"attempt", a.attempt}});
    const std::string id = a.id;
    start_job(self, id, instruction, fit_for_worker(self, prompt.ok() ? *prompt : instruction), [=](bool ok, std::string text) {
      if (!current(self, tid)) return;
      auto& sch = *self->state.task->scheduler;
      if (ok) {
        (void)sch.complete(id, text);
        if (listening(self)) emit(self, "subtask", id + " completed", json{{"subtask", id}, {"state", "completed"}});
      } else {
        auto again = sch.fail(id, text);
        emit(self, "subtask", id + (again.ok() && *again ? " failed, will retry: " : " failed: ") + text,
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
      fire_workers(self, t);
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
    const int64_t in = sys + llm::estimate_tokens(st.task->input) + llm::estimate_tokens(s.description) +
                       kContextAllowanceTokens;
    usd += economy::Budget::expense_for(st.deps.worker_cost, in, c.employee.max_output_tokens);
  }
  const int64_t synth_in = llm::estimate_tokens(st.task->input) +
                           int64_t(dag.subtasks().size()) * c.employee.max_output_tokens;
  usd += economy::Budget::expense_for(st.deps.planner_cost, synth_in, kPlannerMaxOutputTokens);
  return usd;
}

void run_plan(Self* self, planning::SubtaskDag dag) {
  auto& st = self->state;
  auto& t = *st.task;
  const std::string tid = t.id;
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
  if (listening(self))
    emit(self, "plan", std::to_string(plan.size()) + " subtasks, " + planning::to_string(dag.shape()),
         json{{"subtasks", plan}, {"shape", planning::to_string(dag.shape())}});
  step(self, "note", json{{"plan", std::move(plan)}, {"shape", planning::to_string(dag.shape())}});
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
      step(self, "refusal", json{{"plan_worst_case", worst}, {"remaining", left}});
      emit(self, "refusal", why.str());
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
  const std::string tid = st.task->id;
  // Nothing waits for the settlement: the ledger applies it before the
  // budget query that follows.
  ChargedCall call = planner_call(self, st.task->planning_conversation, false);
  charged_chat(self, std::move(call), [=](ChargedCallResult r) {
    if (!current(self, tid)) return;
    auto& t = *self->state.task;
    if (!r.ok) return finish(self, false, "The planner's model call failed: " + r.error);
    account(self, r.response.usage, r.expense);
    const std::string answer = r.response.message.content;
    step(self, "llm_response", json{{"call", "decomposition"}, {"text", answer}}, r.response.usage.input_tokens,
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
        emit(self, "retry", "the decomposition was not usable: " + next.reason);
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
  self->set_exception_handler([self](std::exception_ptr& e) -> caf::error {
    const std::string why = describe_handler_failure("the planner", e);
    fail_after_exception(self, why);
    return handler_failure_error(why);
  });
  auto& st = self->state;
  st.deps = std::move(deps);
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
        auto& s = self->state;
        if (!s.task || s.task->id != tid) return false;
        s.task->canceled = true;
        step(self, "note", json{{"canceled", why}});
        finish(self, false, why);
        return true;
      },
      [=](task_atom, msg::TaskRequest& req) -> caf::result<msg::TaskResult> {
        auto& s = self->state;
        auto promise = self->make_response_promise<msg::TaskResult>();
        if (s.task) {
          msg::TaskResult busy;
          busy.task_id = req.task_id;
          busy.ok = false;
          busy.error = "the planner is still working on task " + s.task->id;
          promise.deliver(std::move(busy));
          return promise;
        }
        PlanTask t;
        t.id = req.task_id;
        t.input = req.input;
        t.promise = promise;
        t.started_ms = steady_ms();
        s.task = std::move(t);
        emit(self, "task", req.input);
        // Route with zero model calls (effgen.md §23 item 2).
        routing::RoutingDecision d = s.deps.router->route(req.input);
        const json decision = d.to_json();
        s.task->metadata["complexity_score"] = d.score.total;
        s.task->metadata["routing"] = decision;
        step(self, "note", json{{"routing", decision}});
        if (listening(self))
          emit(self, "routing",
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
