#include "runtime/effgen/effgen_driver.hpp"

#include <algorithm>
#include <sstream>
#include <type_traits>
#include <utility>

#include "runtime/core/utf8.hpp"
#include "runtime/driver/recalled_memories.hpp"
#include "runtime/economy/budget.hpp"
#include "runtime/llm/usage_estimate.hpp"
#include "runtime/effgen/decomposition/decomposition_metrics.hpp"
#include "runtime/effgen/routing/router.hpp"

namespace kaisha::effgen {

using namespace driver;

namespace {

constexpr int64_t kPlannerMaxOutputTokens = 2048;
// Room for predecessors' outputs in a worker's prompt when a plan is priced
// before any subtask has run.
constexpr int64_t kContextAllowanceTokens = 512;

}  // namespace

EffgenPlaybook::EffgenPlaybook(EffgenSetup setup)
    : setup_(std::move(setup)),
      worker_task_(planning::PromptTemplate::from_text(setup_.worker_task, "prompts/effgen/worker_task.md")),
      synthesis_(planning::PromptTemplate::from_text(setup_.synthesis, "prompts/effgen/synthesize.md")) {
  llm::TierQuery tq;
  tq.model_name = setup_.worker_cost.model_ref;
  worker_tier_ = llm::resolve_tier(tq);
  if (setup_.optimizer) {
    // In the template every part sits under a heading line ending in ':',
    // which keeps τ4 from turning it into bullets; optimized on its own a
    // part would lose that, so the parts are rewritten without τ4.
    prompt::OptimizerOptions o = setup_.optimizer->options();
    o.enable_bullets = false;
    part_optimizer_.emplace(setup_.optimizer->patterns(), o);
  }
}

EffgenDriver::EffgenDriver(const EffgenPlaybook& playbook, std::string input)
    : book_(playbook), setup_(playbook.setup()), input_(std::move(input)) {}

bool EffgenDriver::listening() const { return setup_.listening && setup_.listening(); }

Report& EffgenDriver::report(Effects& out, msg::EventKind kind, std::string text, json data, std::string agent) const {
  out.push_back(Report{kind, std::move(text), std::move(data), std::move(agent)});
  return std::get<Report>(out.back());
}

// What a task's memory keeps of it (bytes, cut at a code point).
constexpr size_t kMemoryTaskBytes = 500;
constexpr size_t kMemoryAnswerBytes = 1000;
constexpr size_t kMemorySubtaskBytes = 160;
constexpr size_t kMemoryKeyBytes = 80;
constexpr const char* kMemoryTool = "MemoryManager";

// ------------------------------------------------------------------ start

Effects EffgenDriver::start() {
  Effects out;
  metadata_["retrieved_memories"] = 0;
  if (!setup_.recall) {
    route(out);
    return out;
  }
  // Memories first: retrieval may wait for an embedding model.
  const CallId id = pending_.expect<Recalled>([this](const Recalled& r, Effects& o) {
    recalled(o, r.memories);
    route(o);
  });
  out.push_back(Recall{id, input_});
  return out;
}

void EffgenDriver::recalled(Effects& out, const json& found) {
  const RecalledMemories r = read_recalled(found);
  if (!r.error.empty()) {
    out.push_back(journal_step(msg::EventKind::error, json{{"error", r.error}, {"call", "memory_retrieval"}}));
    report(out, msg::EventKind::error, "memory retrieval failed: " + r.error);
    return;
  }
  if (r.memories.empty()) return;
  memories_ = r.injection;
  metadata_["retrieved_memories"] = r.memories.size();
  out.push_back(journal_step(msg::EventKind::note, json{{"memories", r.memories}}));
  report(out, msg::EventKind::memories, r.transcript, json{{"memories", r.memories}});
}

std::string EffgenDriver::with_memories(const std::string& text) const {
  return memories_.empty() ? text : memories_ + "\n\n" + text;
}

void EffgenDriver::route(Effects& out) {
  // Route with zero model calls (effgen.md §23 item 2).
  routing::RoutingDecision d = setup_.router->route(input_);
  const json decision = d.to_json();
  metadata_["complexity_score"] = d.score.total;
  metadata_["routing"] = decision;
  out.push_back(journal_step(msg::EventKind::note, json{{"routing", decision}}));
  if (listening())
    report(out, msg::EventKind::routing,
           "complexity " + std::to_string(d.score.total).substr(0, 4) + " -> " +
               std::string(routing::to_string(d.kind)) + " (" + d.reason + ")",
           decision);
  if (d.kind == routing::RouteKind::single) return run_single(out, d.reason);
  strategy_ = d.kind == routing::RouteKind::hierarchical ? routing::Strategy::hierarchical : routing::Strategy::hybrid;
  round_.emplace(strategy_);
  auto found = setup_.decompose.find(strategy_);
  if (found == setup_.decompose.end())
    return finish(out, false,
                  "No decomposition prompt for the " + std::string(routing::to_string(strategy_)) + " strategy");
  const auto& decompose = found->second;
  auto prompt = decompose.ok() ? decompose->render({{"task", input_}}) : Result<std::string>(decompose.error());
  if (!prompt.ok()) return finish(out, false, prompt.error().message);
  planning_conversation_ = {{llm::Role::user, with_memories(*prompt), {}, "", ""}};
  ask_for_plan(out);
}

Effects EffgenDriver::on(const Outcome& o) {
  Effects out;
  if (!finished_) pending_.deliver(o, out);  // once finished, late outcomes are ignored
  return out;
}

Effects EffgenDriver::cancel(const std::string& why) {
  Effects out;
  finish(out, false, why);
  return out;
}

llm::ChatRequest EffgenDriver::planner_request(std::vector<llm::ChatMessage> messages) const {
  llm::ChatRequest request;
  request.messages = std::move(messages);
  request.temperature = setup_.temperature;
  request.max_tokens = kPlannerMaxOutputTokens;
  return request;
}

void EffgenDriver::ask_for_plan(Effects& out) {
  const CallId id = pending_.expect<ModelAnswered>([this](const ModelAnswered& a, Effects& o) { on_plan(o, a); });
  // Nothing waits for the settlement: the ledger applies it before the
  // budget query that follows.
  out.push_back(CallModel{id, "decomposition", planner_request(planning_conversation_), false});
}

// ----------------------------------------------------------- model answers

void EffgenDriver::on_plan(Effects& out, const ModelAnswered& a) {
  const std::string& answer = a.response.message.content;
  if (!a.ok) return finish(out, false, "The planner's model call failed: " + a.error);
  out.push_back(journal_step(msg::EventKind::llm_response, json{{"call", "decomposition"}, {"text", answer}},
                             a.response.usage.input_tokens, a.response.usage.output_tokens, a.expense));
  planning::RoundStep next = round_->on_answer(answer);
  switch (next.kind) {
    case planning::RoundStep::Kind::accept: {
      auto dag = planning::SubtaskDag::build(next.plan->subtasks);
      if (!dag.ok()) {
        fallback_ = true;
        return run_single(out, "the plan is not a valid DAG: " + dag.error().message);
      }
      return run_plan(out, std::move(dag).value());
    }
    case planning::RoundStep::Kind::retry:
      report(out, msg::EventKind::retry, "the decomposition was not usable: " + next.reason);
      planning_conversation_.push_back({llm::Role::assistant, answer, {}, "", ""});
      planning_conversation_.push_back({llm::Role::user, next.feedback, {}, "", ""});
      return ask_for_plan(out);
    case planning::RoundStep::Kind::fall_back:
      fallback_ = true;
      return run_single(out, "no usable decomposition: " + next.reason);
  }
}

// ------------------------------------------------------------ single agent

void EffgenDriver::run_single(Effects& out, const std::string& why) {
  metadata_["routing_strategy"] = "single";
  metadata_["num_subtasks"] = 0;
  metadata_["tree_depth"] = 0;
  report(out, msg::EventKind::plan, "single agent: " + why);
  hire_workers(out, 1, AfterHires::run_single);
}

// ---------------------------------------------------------------- the plan

void EffgenDriver::run_plan(Effects& out, planning::SubtaskDag dag) {
  how_ = "a plan of " + std::to_string(dag.size()) + " subtasks:";
  for (const auto& t : dag.subtasks()) how_ += "\n- " + utf8::shorten(t.description, kMemorySubtaskBytes);
  const auto metrics = planning::measure(dag);
  const bool hierarchical = strategy_ == routing::Strategy::hierarchical;
  metadata_["routing_strategy"] = std::string(
      routing::to_string(hierarchical ? routing::Strategy::hierarchical : routing::strategy_for_shape(dag.shape())));
  metadata_["num_subtasks"] = dag.subtasks().size();
  metadata_["tree_depth"] = 1;
  metadata_["parallelism"] = metrics.parallelism;
  metadata_["granularity"] = metrics.granularity;
  json plan = json::array();
  for (const auto& s : dag.subtasks())
    plan.push_back({{"id", s.id}, {"description", s.description}, {"depends_on", s.depends_on}});
  if (listening())
    report(out, msg::EventKind::plan, std::to_string(plan.size()) + " subtasks, " + planning::to_string(dag.shape()),
           json{{"subtasks", plan}, {"shape", planning::to_string(dag.shape())}});
  out.push_back(
      journal_step(msg::EventKind::note, json{{"plan", std::move(plan)}, {"shape", planning::to_string(dag.shape())}}));
  // How many workers the resource budget allows to run at once.
  pending_dag_ = std::move(dag);
  out.push_back(ReadBudget{pending_.expect<BudgetRead>([this](const BudgetRead& a, Effects& o) { on_budget(o, a); })});
}

// Worst-case USD of running `dag`: every subtask once on a worker (plus its
// audit), the workers' hire costs and the synthesis call. Retries are not
// priced in: each one is still reserved before it runs.
double EffgenDriver::plan_worst_case(const planning::SubtaskDag& dag, size_t workers) const {
  double usd = double(workers) * setup_.worker_cost.create_expense_cost;
  const int64_t sys = llm::estimate_tokens(setup_.worker_system);
  for (const auto& s : dag.subtasks()) {
    const int64_t in =
        sys + llm::estimate_tokens(input_) + llm::estimate_tokens(s.description) + kContextAllowanceTokens;
    usd += economy::Budget::expense_for(setup_.worker_cost, in, setup_.worker_max_output_tokens);
  }
  const int64_t synth_in =
      llm::estimate_tokens(input_) + int64_t(dag.subtasks().size()) * setup_.worker_max_output_tokens;
  usd += economy::Budget::expense_for(setup_.planner_cost, synth_in, kPlannerMaxOutputTokens);
  return usd;
}

void EffgenDriver::on_budget(Effects& out, const BudgetRead& a) {
  if (!pending_dag_) return;
  const planning::SubtaskDag& dag = *pending_dag_;
  const auto& wc = setup_.worker_cost;
  // No more workers than subtasks can ever run side by side (the widest
  // topological level), nor than effgen.max_concurrent.
  size_t widest = 1;
  for (const auto& level : dag.levels()) widest = std::max(widest, level.size());
  size_t workers = std::min<size_t>(size_t(std::max(0, setup_.max_concurrent)), widest);
  const double per_worker = wc.create_resource_cost + wc.invoke_resource_cost;
  if (a.view.value("resource_budget_enabled", true) && per_worker > 0) {
    const double room = a.view.value("current_remaining_resource_budget", 0.0);
    workers = std::min(workers, size_t(std::max(0.0, room / per_worker)));
  }
  if (workers == 0)
    return finish(out, false,
                  "The plan cannot be afforded: one worker on " + wc.name + " needs " + std::to_string(per_worker) +
                      " resource units");
  const double worst = plan_worst_case(dag, workers);
  const double left = a.view.value("current_remaining_expense_budget", 0.0);
  if (a.view.value("expense_budget_enabled", true) && worst > left) {
    std::ostringstream why;
    why << "The plan cannot be afforded: its " << dag.subtasks().size() << " subtasks need up to $" << worst
        << " (worst case) but only $" << left << " of the expense budget is remaining";
    out.push_back(journal_step(msg::EventKind::refusal, json{{"plan_worst_case", worst}, {"remaining", left}}));
    report(out, msg::EventKind::refusal, why.str());
    return finish(out, false, why.str() + ". Authorise an increase (kaisha budget --raise-expense USD).");
  }
  metadata_["plan_worst_case_expense"] = worst;
  hire_workers(out, workers, AfterHires::run_plan);
}

// ----------------------------------------------------------------- workers

// Hires workers up to `n`, all at once (the ledger answers in order); once
// every hire is in, `then` runs. The first refusal ends the task (hires
// answered after that are given back by the kit).
void EffgenDriver::hire_workers(Effects& out, size_t n, AfterHires then) {
  after_hires_ = then;
  if (workers_.size() >= n) return after_hires(out);
  for (size_t i = workers_.size(); i < n; ++i) {
    msg::AgentSpec spec;
    spec.name = "Worker" + std::to_string(i + 1);
    spec.base_model = setup_.worker_cost.name;
    spec.model_ref = setup_.worker_cost.model_ref;
    spec.type = setup_.worker_cost.type;
    spec.system_prompt = setup_.worker_system;
    spec.description = "effgen worker";
    spec.costs = economy::spec_costs_json(setup_.worker_cost);
    const CallId id = pending_.expect<HireAnswered>(
        [this, name = spec.name](const HireAnswered& a, Effects& o) { on_hired(o, name, a); });
    out.push_back(Hire{id, std::move(spec), setup_.worker_cost});
  }
}

void EffgenDriver::on_hired(Effects& out, const std::string& name, const HireAnswered& a) {
  if (!a.ok) {
    // No node for it, or the ledger said no: the task ends with the reason.
    out.push_back(journal_step(msg::EventKind::refusal, json{{"hire", name}, {"error", a.error}}));
    return finish(out, false, "Could not hire a worker: " + a.error);
  }
  workers_.push_back({name, false, false});
  if (listening())
    report(out, msg::EventKind::hire, name + " (" + setup_.worker_cost.name + ", " + setup_.worker_cost.type + ")",
           json{{"agent", name}, {"budget", a.budget}});
  if (pending_.waiting_for<HireAnswered>() == 0) after_hires(out);
}

void EffgenDriver::after_hires(Effects& out) {
  if (after_hires_ == AfterHires::run_single)
    return start_job(out, "task", true, input_, fit_for_worker(with_memories(worker_input())));
  planning::SchedulerOptions o;
  o.max_concurrent = workers_.size();
  o.max_retries = setup_.max_subtask_retries;
  o.always_synthesize = strategy_ == routing::Strategy::hierarchical;
  scheduler_ = std::make_unique<planning::DagScheduler>(std::move(*pending_dag_), o);
  pending_dag_.reset();
  dag_started_ms_ = setup_.now_ms();
  pump(out);
}

void EffgenDriver::fire_workers(Effects& out) {
  for (auto& w : workers_) {
    if (w.fired) continue;
    w.fired = true;
    out.push_back(Fire{w.name, 0});
  }
}

// ------------------------------------------------------------ worker prompts

// Optimizes one part of a worker prompt for the worker model's size and
// counts its tokens.
std::string EffgenDriver::optimize_for_worker(const std::string& text) {
  const prompt::PromptOptimizer* opt = book_.part_optimizer();
  if (!opt || text.empty()) return text;
  prompt::TextOptimization o = opt->optimize(text, book_.worker_tier(), prompt::TextRole::user);
  prompt_tokens_original_ += o.report.original_tokens;
  prompt_tokens_optimized_ += o.report.optimized_tokens;
  return std::move(o.text);
}

// The task text optimized for the worker model: once per task, since every
// subtask's prompt repeats it (its tokens still count in each prompt).
std::string EffgenDriver::worker_input() {
  const prompt::PromptOptimizer* opt = book_.part_optimizer();
  if (!opt) return input_;
  if (!worker_input_) worker_input_ = opt->optimize(input_, book_.worker_tier(), prompt::TextRole::user);
  prompt_tokens_original_ += worker_input_->report.original_tokens;
  prompt_tokens_optimized_ += worker_input_->report.optimized_tokens;
  return worker_input_->text;
}

// The parts of a worker prompt are optimized one by one; the tier's hard
// limit (tau_prompt, effgen.md §21.1) is on the whole, so a prompt still above
// it goes through the optimizer again, which cuts it.
std::string EffgenDriver::fit_for_worker(std::string prompt) const {
  const auto& opt = setup_.optimizer;
  const llm::ModelTier tier = book_.worker_tier();
  if (!opt || !opt->stages_for(tier).truncation ||
      prompt::estimate_tokens(prompt, opt->options().estimate_mode) <= double(opt->max_prompt_tokens(tier)))
    return prompt;
  return opt->optimize(prompt, tier, prompt::TextRole::user).text;
}

// -------------------------------------------------------------------- jobs

// Starts a job on an idle worker; `prompt` is already optimized for it.
void EffgenDriver::start_job(Effects& out, std::string id, bool whole_task, std::string instruction,
                             std::string prompt) {
  auto w = std::find_if(workers_.begin(), workers_.end(), [](const Worker& x) { return !x.busy; });
  w->busy = true;
  Job job;
  job.id = id;
  job.whole_task = whole_task;
  job.instruction = std::move(instruction);
  job.prompt = std::move(prompt);
  job.worker = w->name;
  job.started_ms = setup_.now_ms();
  if (setup_.audit)
    job.audit = std::make_unique<planning::AuditLoop>(job.instruction, planning::AuditLimits{setup_.max_judge_retries});
  jobs_.emplace(id, std::move(job));
  produce(out, id, "");
}

// Asks the job's worker (again, with the judge's feedback when given).
void EffgenDriver::produce(Effects& out, const std::string& job_id, const std::string& feedback) {
  const Job& job = jobs_.at(job_id);
  std::string prompt = job.prompt;
  if (!feedback.empty()) prompt += "\n\nA reviewer rejected your previous answer:\n" + feedback;
  const bool chatty = listening();
  if (chatty)
    report(out, msg::EventKind::ask, "Planner -> " + job.worker + " [" + job_id + "]: " + utf8::truncate(prompt, 200),
           json{{"agent", job.worker}, {"job", job_id}});
  const CallId id =
      pending_.expect<AskAnswered>([this, job_id](const AskAnswered& a, Effects& o) { on_answer(o, job_id, a); });
  // Only the answer event shows the budget after the call: nobody else waits
  // for the settlement (the kit's finish waits for the ledger once, at the end).
  out.push_back(Ask{id, job.worker, std::move(prompt), job_id, chatty, {}, {}});
}

void EffgenDriver::on_answer(Effects& out, const std::string& job_id, const AskAnswered& a) {
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return;
  Job& j = it->second;
  if (!a.ok) {
    report(out, a.refused ? msg::EventKind::refusal : msg::EventKind::error, j.worker + ": " + a.error,
           json{{"job", job_id}});
    if (j.audit) return on_audit_step(out, job_id, j.audit->on_producer_error(a.error));
    return finish_job(out, job_id, false, a.error);
  }
  const msg::AskReply& r = a.reply;
  // The worker's answer, which subtask it belongs to and what it cost, in one
  // step under the worker's name (the worker journaled only its request).
  out.push_back(journal_step(
      msg::EventKind::llm_response,
      json{{"job", job_id}, {"text", r.output}, {"usage_estimated", r.usage.estimated}, {"latency_ms", r.latency_ms}},
      r.usage.input_tokens, r.usage.output_tokens, a.expense, j.worker));
  if (listening())
    report(out, msg::EventKind::answer, j.worker + " [" + job_id + "]: " + r.output,
           json{{"agent", j.worker},
                {"job", job_id},
                {"input_tokens", r.usage.input_tokens},
                {"output_tokens", r.usage.output_tokens},
                {"expense", a.expense},
                {"latency_ms", r.latency_ms},
                {"budget", a.budget}},
           j.worker)
        .costing(r.usage.input_tokens, r.usage.output_tokens, a.expense);
  if (j.audit) return on_audit_step(out, job_id, j.audit->on_claim(r.output));
  finish_job(out, job_id, true, r.output);
}

// Feeds an audit step back into the job: ask the judge, retry, or deliver.
void EffgenDriver::on_audit_step(Effects& out, const std::string& job_id, Result<planning::AuditStep> step_r) {
  if (!step_r.ok()) return finish_job(out, job_id, false, step_r.error().message);
  planning::AuditStep s = std::move(step_r).value();
  switch (s.kind) {
    case planning::AuditStep::Kind::deliver: {
      const bool ok = s.report.status == planning::VerdictStatus::success;
      return finish_job(out, job_id, ok, ok ? s.report.output : "rejected by the judge: " + s.report.error_information);
    }
    case planning::AuditStep::Kind::retry:
      report(out, msg::EventKind::retry, job_id + ": the judge rejected the result, asking again",
             json{{"job", job_id}});
      return produce(out, job_id, s.feedback);
    case planning::AuditStep::Kind::ask_judge: {
      const Job& job = jobs_.at(job_id);
      ++judge_calls_;
      const CallId id =
          pending_.expect<JudgeRuled>([this, job_id](const JudgeRuled& a, Effects& o) { on_ruling(o, job_id, a); });
      out.push_back(Audit{id, job.worker, job.instruction, s.claimed_result});
      return;
    }
  }
}

void EffgenDriver::on_ruling(Effects& out, const std::string& job_id, const JudgeRuled& a) {
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return;
  if (a.kind == JudgeRuled::Kind::judge_failed) return finish_job(out, job_id, false, a.error);
  if (a.kind == JudgeRuled::Kind::no_answer)
    return finish_job(out, job_id, false, "the judge did not answer: " + a.error);
  on_audit_step(out, job_id, it->second.audit->on_verdict(a.verdict));
}

void EffgenDriver::finish_job(Effects& out, const std::string& job_id, bool ok, std::string text) {
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return;
  Job job = std::move(it->second);
  jobs_.erase(it);
  for (auto& w : workers_)
    if (w.name == job.worker) w.busy = false;
  subtask_ms_ += setup_.now_ms() - job.started_ms;
  if (job.whole_task) return finish(out, ok, ok ? text : "The worker could not complete the task: " + text);
  if (ok) {
    (void)scheduler_->complete(job_id, text);
    if (listening())
      report(out, msg::EventKind::subtask, job_id + " completed", json{{"subtask", job_id}, {"state", "completed"}});
  } else {
    auto again = scheduler_->fail(job_id, text);
    report(out, msg::EventKind::subtask, job_id + (again.ok() && *again ? " failed, will retry: " : " failed: ") + text,
           json{{"subtask", job_id}, {"state", "failed"}});
  }
  on_plan_progress(out);
}

// --------------------------------------------------------- the DAG running

void EffgenDriver::pump(Effects& out) {
  for (planning::Assignment& a : scheduler_->start_ready()) {
    std::string context = a.context.empty() ? "" : "\n" + optimize_for_worker(planning::render_context(a.context));
    auto prompt = book_.worker_task().render({{"task", worker_input()},
                                              {"subtask", optimize_for_worker(a.description)},
                                              {"expected_output", optimize_for_worker(a.expected_output)},
                                              {"context", context}});
    const std::string instruction =
        a.description + (a.expected_output.empty() ? "" : "\nExpected output: " + a.expected_output);
    if (listening())
      report(out, msg::EventKind::subtask,
             a.id + " running (attempt " + std::to_string(a.attempt) + "): " + a.description,
             json{{"subtask", a.id}, {"state", "running"}, {"attempt", a.attempt}});
    start_job(out, a.id, false, instruction, fit_for_worker(prompt.ok() ? *prompt : instruction));
  }
}

void EffgenDriver::on_plan_progress(Effects& out) {
  if (!scheduler_->finished()) return pump(out);
  auto outcome = scheduler_->outcome();
  if (!outcome.ok()) return finish(out, false, outcome.error().message);
  json states = json::array();
  for (const auto& r : outcome->results)
    states.push_back({{"id", r.id}, {"state", planning::to_string(r.state)}, {"attempts", r.attempts}});
  metadata_["subtasks"] = states;
  switch (outcome->kind) {
    case planning::PlanOutcome::Kind::answer:
      return finish(out, true, outcome->answer);
    case planning::PlanOutcome::Kind::synthesize:
      // The workers are done: they are fired while the synthesis runs.
      fire_workers(out);
      return synthesize(out, outcome->results);
    case planning::PlanOutcome::Kind::all_failed:
      fallback_ = true;
      scheduler_.reset();
      dag_started_ms_ = 0;
      return run_single(out, "every subtask failed");
  }
}

void EffgenDriver::synthesize(Effects& out, const std::vector<planning::SubtaskResult>& results) {
  auto prompt = book_.synthesis().render({{"task", input_}, {"results", planning::render_results(results)}});
  if (!prompt.ok()) return finish(out, false, prompt.error().message);
  report(out, msg::EventKind::synthesis, "synthesising " + std::to_string(results.size()) + " subtask results");
  const CallId id = pending_.expect<ModelAnswered>([this](const ModelAnswered& a, Effects& o) { on_synthesis(o, a); });
  // The task's last ledger operation: its settlement is waited for.
  out.push_back(CallModel{id, "synthesis", planner_request({{llm::Role::user, *prompt, {}, "", ""}}), true});
}

void EffgenDriver::on_synthesis(Effects& out, const ModelAnswered& a) {
  if (!a.ok) return finish(out, false, "Synthesis failed: " + a.error);
  const std::string& answer = a.response.message.content;
  out.push_back(journal_step(msg::EventKind::llm_response, json{{"call", "synthesis"}, {"text", answer}},
                             a.response.usage.input_tokens, a.response.usage.output_tokens, a.expense));
  finish(out, true, answer);
}

// ------------------------------------------------------------------ finish

// A task that succeeded is kept as a memory before it finishes; a memory
// that could not be stored (one of the same key exists: the same task) is
// noted, and the task finishes all the same.
void EffgenDriver::remember(Effects& out, const std::string& answer) {
  remembering_ = true;
  const CallId id = pending_.expect<ToolRan>([this, answer](const ToolRan& r, Effects& o) {
    if (r.result.ok)
      metadata_["stored_memory"] = true;
    else
      o.push_back(journal_step(msg::EventKind::note, json{{"memory_not_stored", r.result.message}}));
    finish(o, true, answer);
  });
  const std::map<std::string, std::string> values{{"task", utf8::shorten(input_, kMemoryTaskBytes)},
                                                  {"how", how_.empty() ? "one worker" : how_},
                                                  {"answer", utf8::shorten(answer, kMemoryAnswerBytes)}};
  auto note = planning::PromptTemplate::from_text(setup_.memory_note, "prompts/effgen/memory.md").render(values);
  const std::string memory = note.ok() ? *note : values.at("task") + "\n" + values.at("answer");
  const json args{
      {"action", "add_memory"}, {"key", "effgen: " + utf8::shorten(input_, kMemoryKeyBytes)}, {"memory", memory}};
  out.push_back(RunTool{id, kMemoryTool, args.dump(), ""});
}

void EffgenDriver::finish(Effects& out, bool ok, const std::string& text) {
  if (finished_) return;
  if (ok && setup_.remember && !remembering_) return remember(out, text);
  finished_ = true;
  pending_.clear();  // outcomes that still come are ignored
  fire_workers(out);
  json m = std::move(metadata_);
  m["strategy"] = "effgen";
  m["num_sub_agents"] = workers_.size();
  m["prompt_tokens_original"] = prompt_tokens_original_;
  m["prompt_tokens_optimized"] = prompt_tokens_optimized_;
  m["compression_ratio"] = prompt_tokens_original_ > 0 ? prompt_tokens_optimized_ / prompt_tokens_original_ : 1.0;
  m["judge_calls"] = judge_calls_;
  m["fallback"] = fallback_;
  m["backend"] = setup_.worker_cost.model_ref;
  if (dag_started_ms_ > 0) {
    const int64_t dag_wall = std::max<int64_t>(1, setup_.now_ms() - dag_started_ms_);
    m["speedup"] = double(subtask_ms_) / double(dag_wall);
  }
  out.push_back(Finish{ok, text, std::move(m)});
}

}  // namespace kaisha::effgen
