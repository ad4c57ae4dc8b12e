#include "actors/strategy_kit/strategy_kit.hpp"

#include <cstdio>
#include <utility>

#include "actors/caf/atoms.hpp"
#include "actors/strategy_kit/handler_failure.hpp"
#include "actors/system/journal_actor.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/store/journal_store.hpp"
#include "runtime/llm/token_bound.hpp"
#include "runtime/telemetry/gen_ai_attributes.hpp"
#include "runtime/telemetry/tracer.hpp"
#include "runtime/messages/ask_usage.hpp"
#include "runtime/messages/task_result_json.hpp"

namespace kaisha::actors {

StrategyKit::StrategyKit(caf::event_based_actor* self, KitDeps deps)
    : self_(self), deps_(std::move(deps)), call_timeout_(model_call_timeout(deps_.config)) {
  // Hired agents are not linked to the strategy actor (firing one must not
  // take it down), so the actor stops them itself when it is told to exit.
  self_->set_exit_handler([this](caf::exit_msg& msg) {
    stop_all(msg.reason);
    self_->quit(msg.reason);
  });
}

// ---------------------------------------------------------------- task scope

bool StrategyKit::start(const msg::TaskRequest& req, caf::typed_response_promise<msg::TaskResult> promise) {
  if (task_) {
    msg::TaskResult busy;
    busy.task_id = req.task_id;
    busy.ok = false;
    busy.error = deps_.who + " is still working on task " + task_->id;
    promise.deliver(std::move(busy));
    return false;
  }
  TaskScope t;
  t.id = req.task_id;
  t.promise = std::move(promise);
  t.started_ms = steady_ms();
  t.span = telemetry::begin_root_span(telemetry::attr::invoke_agent_span_name(deps_.agent), req.task_id);
  if (!t.span.span_id.empty()) {
    t.span.set(telemetry::attr::kGenAiOperationName, telemetry::attr::kOperationInvokeAgent);
    t.span.set(telemetry::attr::kGenAiAgentName, deps_.agent);
    t.span.set(telemetry::attr::kGenAiConversationId, deps_.session_id);
  }
  task_ = std::move(t);
  fires_ = std::make_shared<Fires>();
  emit(msg::EventKind::task, req.input);
  return true;
}

const std::string& StrategyKit::task_id() const {
  static const std::string none;
  return task_ ? task_->id : none;
}

bool StrategyKit::cancel(const std::string& tid, const std::string& why, bool failed) {
  if (!current(tid)) return false;
  task_->canceled = !failed;
  step(msg::EventKind::note, json{{failed ? "stopped_as_failed" : "canceled", why}});
  return true;
}

bool StrategyKit::listening() const { return deps_.progress && deps_.progress->listening(); }

void StrategyKit::emit(msg::EventKind kind, const std::string& text, json data, const std::string& agent) const {
  if (!listening()) return;
  msg::ProgressEvent e;
  e.agent = agent;
  e.kind = kind;
  e.text = text;
  e.data = std::move(data);
  emit(std::move(e));
}

void StrategyKit::emit(msg::ProgressEvent e) const {
  if (!listening()) return;
  e.session_id = deps_.session_id;
  e.task_id = task_id();
  if (e.agent.empty()) e.agent = deps_.agent;
  e.at_ms = wall_ms();
  deps_.progress->emit(e);
}

void StrategyKit::step(msg::EventKind kind, json payload, int64_t in, int64_t out, double usd,
                       const std::string& agent) const {
  journal_step(deps_.journal, {deps_.session_id, task_id(), agent.empty() ? deps_.agent : agent, kind,
                               std::move(payload), in, out, usd});
}

void StrategyKit::account(const std::string& tid, const llm::Usage& u, double usd) {
  if (!current(tid)) return;
  task_->tokens_in += u.input_tokens;
  task_->tokens_out += u.output_tokens;
  task_->expense += usd;
}

msg::TaskResult StrategyKit::result(bool ok, const std::string& text) const {
  const TaskScope& t = *task_;
  msg::TaskResult r;
  r.task_id = t.id;
  r.ok = ok;
  (ok ? r.answer : r.error) = text;
  r.tokens_in = t.tokens_in;
  r.tokens_out = t.tokens_out;
  r.expense = t.expense;
  r.wall_ms = steady_ms() - t.started_ms;
  r.canceled = t.canceled;
  return r;
}

void StrategyKit::finish(driver::Finish f, const std::optional<ClosingNote>& note) {
  if (!task_) return;
  msg::TaskResult r = result(f.ok, f.text);
  json& m = f.metadata;
  if (!m.is_object()) m = json::object();
  m["execution_time_ms"] = r.wall_ms;
  m["total_tokens"] = r.tokens_in + r.tokens_out;
  if (note) {
    json shown = m;
    for (const auto& key : note->omit) shown.erase(key);
    step(msg::EventKind::note, json{{"metadata", std::move(shown)}});
  }
  r.metadata = std::move(m);
  finish(std::move(r));
}

void StrategyKit::finish(msg::TaskResult r) {
  if (!task_) return;
  TaskScope t = std::move(*task_);
  task_.reset();
  std::shared_ptr<Fires> fires = std::exchange(fires_, nullptr);
  journal_finish(r);
  if (!t.span.span_id.empty()) {
    t.span.set(telemetry::attr::kGenAiUsageInputTokens, r.tokens_in);
    t.span.set(telemetry::attr::kGenAiUsageOutputTokens, r.tokens_out);
    t.span.set(telemetry::attr::kKaishaCostUsd, r.expense);
    telemetry::end_span(t.span, r.ok ? telemetry::SpanStatus::ok : telemetry::SpanStatus::error, r.ok ? "" : r.error);
  }
  if (listening()) {
    msg::ProgressEvent e;
    e.session_id = deps_.session_id;
    e.task_id = t.id;
    e.agent = deps_.agent;
    e.kind = r.ok ? msg::EventKind::final : r.canceled ? msg::EventKind::canceled : msg::EventKind::error;
    e.text = r.ok ? r.answer : r.error;
    e.data = msg::task_totals_json(r);
    e.tokens_in = r.tokens_in;
    e.tokens_out = r.tokens_out;
    e.usd = r.expense;
    if (!r.metadata.empty()) e.data["metadata"] = r.metadata;
    e.at_ms = wall_ms();
    deps_.progress->emit(e);
  }
  if (fires->in_flight == 0) {
    t.promise.deliver(std::move(r));
    return;
  }
  fires->then = [promise = t.promise, r = std::move(r)]() mutable { promise.deliver(std::move(r)); };
  finishing_ = std::move(fires);
}

void StrategyKit::fail_on_exception(std::function<void(const std::string& why)> also) {
  self_->set_exception_handler([this, also](std::exception_ptr& e) -> caf::error {
    // Nothing here may throw again, so no progress event: the caller reports the result.
    const std::string why = describe_handler_failure(deps_.who, e);
    if (finishing_) {
      if (auto then = std::exchange(finishing_->then, nullptr)) then();
      finishing_.reset();
    }
    stop_all(caf::exit_reason::user_shutdown);
    if (also) also(why);
    if (task_) {
      msg::TaskResult r = result(false, why);
      auto promise = task_->promise;
      task_.reset();
      journal_finish(r);
      promise.deliver(std::move(r));
    }
    return handler_failure_error(why);
  });
}

// ---------------------------------------------------------------- hire / fire

EmployeeDeps StrategyKit::employee_deps() const {
  return employee_deps_from(deps_.config, deps_.model_client, deps_.journal, deps_.progress);
}

Result<caf::actor> StrategyKit::place(const msg::AgentSpec& spec, const EmployeeDeps& run_as) {
  if (!deps_.placer) return spawn_employee(self_->system(), spec, run_as);
  return deps_.placer->place(self_->system(), spec, run_as);
}

void StrategyKit::hire(msg::AgentSpec spec, economy::ModelCost cost, Tenure tenure, EmployeeDeps run_as,
                       std::function<void(HireResult)> done) {
  // A cluster that has no node for the agent refuses before it is charged.
  if (deps_.placer) {
    if (Status s = deps_.placer->check(spec); !s.ok()) return done(HireResult{false, false, s.error().message, {}});
  }
  // The name is held while the ledger decides, so a second hire of the same
  // name meanwhile is refused (AgentRoster::check_new); dropped if refused.
  roster_.add(spec);
  const std::string tid = task_id();
  self_->request(deps_.ledger, caf::infinite, hire_atom::value, cost, spec.name, tid)
      .then([this, spec, cost, tenure, run_as, done, tid](LedgerReply& r) {
        HireResult h{false, false, "", r.budget};
        if (tenure == Tenure::task && !current(tid)) {
          // The task ended (canceled, failed, another hire refused) while this
          // hire was charged: its resource units go back.
          roster_.remove(spec.name);
          if (r.ok) self_->send(deps_.ledger, fire_atom::value, cost, spec.name, tid);
          h.error = "the task ended";
          return done(h);
        }
        if (!r.ok) {
          roster_.remove(spec.name);
          h.refused = true;
          h.error = r.error;
          return done(h);
        }
        account(tid, {}, cost.create_expense_cost);
        Result<caf::actor> placed = place(spec, run_as);
        if (!placed.ok()) {
          // The node filled up since check(): the hire goes back.
          roster_.remove(spec.name);
          h.error = placed.error().message;
          self_->request(deps_.ledger, caf::infinite, fire_atom::value, cost, spec.name, tid)
              .then([done, h](LedgerReply&) { done(h); });
          return;
        }
        staff_[spec.name] = Hired{std::move(*placed), cost, tenure, false};
        journal_agent_hired(deps_.journal, deps_.session_id, spec);
        h.ok = true;
        done(h);
      });
}

void StrategyKit::rehire(const msg::AgentSpec& spec, const economy::ModelCost& cost, EmployeeDeps run_as) {
  roster_.add(spec);
  (void)start_paid(spec, cost, Tenure::session, run_as);
}

Status StrategyKit::start_paid(const msg::AgentSpec& spec, const economy::ModelCost& cost, Tenure tenure,
                               const EmployeeDeps& run_as) {
  Result<caf::actor> placed = place(spec, run_as);
  if (!placed.ok()) return placed.error();
  staff_[spec.name] = Hired{std::move(*placed), cost, tenure, false};
  return Status::Ok();
}

void StrategyKit::adopt(const msg::AgentSpec& spec, const economy::ModelCost& cost, Tenure tenure,
                        EmployeeDeps run_as) {
  if (staff_.count(spec.name)) return;
  roster_.add(spec);
  account(task_id(), {}, cost.create_expense_cost);
  if (Status s = start_paid(spec, cost, tenure, run_as); !s.ok()) {
    // Paid for and listed, but not running: asking it fails, saying so.
    step(msg::EventKind::error,
         json{{"agent", spec.name},
              {"error", "hired before the process stopped, but cannot be started again: " + s.error().message}});
  }
}

void StrategyKit::dismiss(const std::string& name) {
  auto it = staff_.find(name);
  if (it == staff_.end()) return;
  self_->send_exit(it->second.actor, caf::exit_reason::user_shutdown);
  staff_.erase(it);
  roster_.remove(name);
  journal_agent_fired(deps_.journal, deps_.session_id, name);
}

void StrategyKit::journal_finish(const msg::TaskResult& r) const {
  // Through the ledger: in one commit with the charges the task still holds.
  if (deps_.ledger && deps_.journal)
    self_->send(deps_.ledger, done_atom::value, r.task_id, task_finish_op(r));
  else
    journal_task_finish(deps_.journal, deps_.session_id, r);
}

void StrategyKit::call_tool(company::ToolSource& source, const std::string& tool, const json& args,
                            const company::ToolCallContext& ctx, std::function<void(company::ToolResult)> done) {
  const uint64_t ticket = ++last_tool_ticket_;
  tool_calls_.emplace(ticket, std::move(done));
  caf::actor me = caf::actor_cast<caf::actor>(self_);
  source.call(tool, args, ctx,
              [me, ticket](company::ToolResult r) { caf::anon_send(me, kit_tool_atom::value, ticket, std::move(r)); });
}

void StrategyKit::run_tool(company::ToolSource& source, const driver::RunTool& t,
                           std::function<void(company::ToolResult)> done) {
  json args = json::parse(t.arguments, nullptr, false);
  if (args.is_discarded()) return done(company::ToolResult::error(t.tool + ": the arguments are not JSON"));
  call_tool(source, t.tool, args, company::ToolCallContext{deps_.session_id, task_id(), deps_.agent, t.branch, t.trace},
            std::move(done));
}

void StrategyKit::tool_answered(uint64_t ticket, company::ToolResult r) {
  auto it = tool_calls_.find(ticket);
  if (it == tool_calls_.end()) return;
  auto done = std::move(it->second);
  tool_calls_.erase(it);
  done(std::move(r));
}

void StrategyKit::save_state(const std::string& strategy, const std::string& key, json value,
                             const std::string& change) const {
  if (!deps_.journal) return;
  store::StateRow row{strategy, key, std::move(value), task_id(), change, wall_ms()};
  journal_op(deps_.journal, [row = std::move(row)](store::JournalStore& s) {
    if (Status saved = s.save_state(row); !saved.ok())
      std::fprintf(stderr, "kaisha: %s state '%s' not saved: %s\n", row.strategy.c_str(), row.key.c_str(),
                   saved.error().message.c_str());
  });
}

void StrategyKit::load_state(const std::string& strategy, std::function<void(std::vector<driver::StateValue>)> done) {
  if (!deps_.journal) return done({});
  auto rows = std::make_shared<Result<std::vector<store::StateRow>>>(std::vector<store::StateRow>{});
  JournalOp op = [rows, strategy](store::JournalStore& s) { *rows = s.state(strategy); };
  self_->request(deps_.journal, caf::infinite, sync_atom::value, std::move(op))
      .await(
          [this, rows, strategy, done = std::move(done)](bool) {
            if (!rows->ok()) {
              std::fprintf(stderr, "kaisha: %s state cannot be read (starting without it): %s\n", strategy.c_str(),
                           rows->error().message.c_str());
              return done({});
            }
            std::vector<driver::StateValue> out;
            for (auto& r : rows->value()) out.push_back({std::move(r.strategy), std::move(r.key), std::move(r.value)});
            done(std::move(out));
          },
          [](caf::error&) {});
}

void StrategyKit::keep_outcome(const std::string& tid, int64_t seq, std::shared_ptr<driver::Outcome> outcome) const {
  self_->send(deps_.ledger, outcome_atom::value, tid, seq, std::move(outcome));
}

bool StrategyKit::fire(const std::string& name,
                       std::function<void(bool ok, std::string error, economy::BudgetSummary)> done) {
  auto it = staff_.find(name);
  if (it == staff_.end() || it->second.leaving) return false;
  it->second.leaving = true;
  // Counted with the running task: its answer waits for this fire (finish).
  std::shared_ptr<Fires> fires = fires_ ? fires_ : std::make_shared<Fires>();
  ++fires->in_flight;
  auto answered = [this, name, fires, done](bool ok, std::string error, economy::BudgetSummary budget) {
    if (auto h = staff_.find(name); h != staff_.end()) {
      if (ok || h->second.tenure == Tenure::task)
        dismiss(name);
      else
        h->second.leaving = false;  // still hired: the ledger still counts it
    }
    done(ok, std::move(error), budget);
    if (--fires->in_flight == 0 && fires->then) std::exchange(fires->then, nullptr)();
  };
  self_->request(deps_.ledger, caf::infinite, fire_atom::value, it->second.cost, name, task_id())
      .then([answered](LedgerReply& r) { answered(r.ok, r.error, r.budget); },
            [this, answered](caf::error& e) { answered(false, self_->system().render(e), {}); });
  return true;
}

void StrategyKit::stop_all(const caf::error& reason) {
  for (auto& [_, h] : staff_) self_->send_exit(h.actor, reason);
  staff_.clear();
}

// ------------------------------------------------------- ask / call / audit

void StrategyKit::ask(const std::string& name, const std::string& prompt, const std::string& job, bool await_settle,
                      AskKeeping keeping, std::function<void(ChargedAskResult)> done) {
  const msg::AgentSpec* spec = roster_.find(name);
  const int64_t bound = llm::ask_input_token_bound(spec ? spec->system_prompt : "", prompt);
  msg::AskRequest a{deps_.session_id, task_id(), prompt, deps_.config.employee.max_output_tokens, job};
  a.call = keeping.call;
  a.replay = std::move(keeping.replay);
  send_ask(name, std::move(a), bound, await_settle, KeptWith{keeping.call, -1}, std::move(done));
}

void StrategyKit::ask_turn(const std::string& name, std::vector<llm::ChatMessage> messages,
                           std::vector<llm::ToolSpec> tools, const std::string& job, bool await_settle, KeptWith kept,
                           std::function<void(ChargedAskResult)> done) {
  msg::AskRequest a{deps_.session_id, task_id(), "", deps_.config.employee.max_output_tokens, job};
  a.messages = std::move(messages);
  a.tools = std::move(tools);
  llm::ChatRequest shape;
  shape.messages = a.messages;
  shape.tools = a.tools;
  const int64_t bound = llm::input_token_bound(shape);
  send_ask(name, std::move(a), bound, await_settle, kept, std::move(done));
}

void StrategyKit::send_ask(const std::string& name, msg::AskRequest ask, int64_t input_token_bound, bool await_settle,
                           KeptWith kept, std::function<void(ChargedAskResult)> done) {
  auto h = staff_.find(name);
  if (h == staff_.end()) {
    ChargedAskResult none;
    none.error = name + " is not hired";
    return done(std::move(none));
  }
  const std::string tid = task_id();
  ChargedAsk a;
  a.ledger = deps_.ledger;
  a.employee = h->second.actor;
  a.timeout = call_timeout_;
  a.cost = h->second.cost;
  a.agent = name;
  a.ask = std::move(ask);
  a.ask.input_token_bound = input_token_bound;
  a.await_settle = await_settle;
  a.kept = kept;
  charged_ask(self_, std::move(a), [this, tid, done](ChargedAskResult r) {
    if (r.ok) {
      // An agent with tools charged its further calls and tools itself (extra_*).
      r.expense += r.reply.extra_expense;
      account(tid, msg::ask_usage(r.reply), r.expense);
    }
    done(std::move(r));
  });
}

void StrategyKit::call_model(const ModelRole& role, llm::ChatRequest request, bool await_settle, KeptWith kept,
                             std::function<void(ChargedCallResult)> done) {
  const std::string tid = task_id();
  ChargedCall c;
  c.ledger = deps_.ledger;
  c.model_client = deps_.model_client;
  c.timeout = call_timeout_;
  c.cost = role.cost;
  c.agent = role.agent;
  c.task_id = tid;
  c.model_ref = role.model_ref;
  c.request = std::move(request);
  c.await_settle = await_settle;
  c.kept = kept;
  charged_chat(self_, std::move(c), [this, tid, done](ChargedCallResult r) {
    if (r.ok) account(tid, r.response.usage, r.expense);
    done(std::move(r));
  });
}

void StrategyKit::audit(const std::string& producer, const std::string& instruction, const std::string& claim,
                        int64_t kept_call, std::function<void(AuditOutcome)> done) {
  const std::string tid = task_id();
  self_
      ->request(deps_.judge, call_timeout_, audit_atom::value,
                msg::AuditRequest{tid, producer, instruction, claim, kept_call})
      .then(
          [this, tid, done](msg::AuditVerdict& v) {
            if (!current(tid)) return;
            AuditOutcome o;
            if (v.judge_failed) {
              o.kind = AuditOutcome::Kind::judge_failed;
              o.error = v.error_information;
              return done(std::move(o));
            }
            o.verdict.status = v.success ? planning::VerdictStatus::success : planning::VerdictStatus::error;
            o.verdict.output = v.output;
            o.verdict.error_information = v.error_information;
            o.verdict.malformed = v.malformed;
            done(std::move(o));
          },
          [this, tid, done](caf::error& e) {
            if (!current(tid)) return;
            AuditOutcome o;
            o.kind = AuditOutcome::Kind::no_answer;
            o.error = self_->system().render(e);
            done(std::move(o));
          });
}

}  // namespace kaisha::actors
