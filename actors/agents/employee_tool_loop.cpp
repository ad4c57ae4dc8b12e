#include "actors/agents/employee_tool_loop.hpp"

#include <chrono>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "actors/caf/atoms.hpp"
#include "actors/strategy_kit/charged_call.hpp"
#include "actors/system/journal_actor.hpp"
#include "actors/system/ledger_actor.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/driver/pending_calls.hpp"
#include "runtime/driver/resume_policy.hpp"
#include "runtime/employee/kept_steps.hpp"
#include "runtime/employee/tool_loop_driver.hpp"
#include "runtime/llm/token_bound.hpp"
#include "runtime/telemetry/tool_span.hpp"
#include "runtime/telemetry/tracer.hpp"

namespace kaisha::actors {

using company::ToolResult;
using driver::AskStep;

struct EmployeeToolLoop::Run {
  msg::AskRequest ask;
  std::function<void(msg::AskReply)> reply;
  std::unique_ptr<employee::ToolLoopDriver> driver;
  int64_t started_ms = 0;   // steady_ms(): durations only
  bool first_done = false;  // the asker's hold is used: every further call reserves its own
  llm::Usage first_usage;
  llm::Usage extra_usage;
  double extra_expense = 0;
  int model_calls = 0;  // asked for by the driver, kept ones too: the request's iteration
  bool delivered = false;
  double tool_usd = 0;  // what the tool call being run was charged
  // The step just answered and its number, kept once the rows it made are
  // journaled, before the next call goes out.
  std::optional<std::pair<int64_t, AskStep>> to_keep;
  // Resuming: the kept steps (step n answers effect n + 1), the policy
  // deciding what the new driver's effects do, whether the kept steps are
  // being fed, and the answers made up meanwhile (a tool not run again).
  std::vector<AskStep> kept;
  std::unique_ptr<driver::ResumePolicy> policy;
  bool replaying = false;
  std::vector<driver::Outcome> deferred;
};

namespace {

economy::ModelCost further_call_cost(const msg::AgentSpec& spec) {
  economy::ModelCost c;
  c.name = spec.base_model;
  c.model_ref = spec.model_ref;
  c.type = spec.type;
  c.invoke_expense_cost = spec.costs.value("invoke_expense_cost", 0.0);
  c.output_expense_cost = spec.costs.value("output_expense_cost", 0.0);
  c.invoke_resource_cost = 0;  // the ask holds the employee's resource for the whole loop
  return c;
}

// The id an effect's answer carries (0: it has none).
driver::CallId tool_effect_id(const driver::Effect& e) {
  if (const auto* c = std::get_if<driver::CallModel>(&e)) return c->id;
  if (const auto* t = std::get_if<driver::RunTool>(&e)) return t->id;
  return 0;
}

driver::ModelAnswered failed_call(driver::CallId id, std::string error, bool refused = false) {
  driver::ModelAnswered a;
  a.id = id;
  a.refused = refused;
  a.error = std::move(error);
  return a;
}

}  // namespace

EmployeeToolLoop::EmployeeToolLoop(caf::event_based_actor* self, msg::AgentSpec spec, EmployeeDeps deps)
    : self_(self), spec_(std::move(spec)), deps_(std::move(deps)), cost_(further_call_cost(spec_)) {
  const company::GrantedTools grant = deps_.grant;
  sourced_tools_ = std::make_unique<SourcedTools>(
      deps_.tool_sources, deps_.ledger, deps_.tool_costs, [this] { return site_; },
      [grant](const std::string& name, const std::string& origin) { return grant.allows(name, origin); });
  auto health = deps_.tool_health;
  if (!health) {
    // Not given the company's (an employee placed on another node): its own.
    const config::ToolFailureConfig& f = deps_.tool_failures;
    company::ToolBreakerSettings b;
    b.failures_to_open = f.breaker_failures;
    b.cooldown_ms = f.breaker_cooldown_ms;
    b.half_open_calls = f.breaker_half_open_calls;
    health = std::make_shared<company::ToolHealth>(b);
  }
  sourced_tools_->handle_failures(SourcedTools::FailureHandling{
      std::move(health), std::set<std::string>(deps_.tool_repeatable.begin(), deps_.tool_repeatable.end()),
      SourcedTools::report_breakers(deps_.journal, deps_.progress, spec_.name)});
}

void EmployeeToolLoop::sync() {
  sourced_tools_->sync(self_, registry_);
  std::set<std::string> names;
  for (const auto& s : registry_.specs()) names.insert(s.name);
  visible_ = std::move(names);
}

void EmployeeToolLoop::journal(const std::shared_ptr<Run>& run, msg::EventKind kind, json payload, int64_t in,
                               int64_t out, double usd) {
  journal_step(deps_.journal,
               {run->ask.session_id, run->ask.task_id, spec_.name, kind, std::move(payload), in, out, usd});
}

void EmployeeToolLoop::emit(const std::shared_ptr<Run>& run, msg::EventKind kind, const std::string& text, json data) {
  if (!deps_.progress || !deps_.progress->listening()) return;
  msg::ProgressEvent e;
  e.session_id = run->ask.session_id;
  e.task_id = run->ask.task_id;
  e.agent = spec_.name;
  e.kind = kind;
  e.text = text;
  e.data = std::move(data);
  e.at_ms = wall_ms();
  deps_.progress->emit(e);
}

void EmployeeToolLoop::ask(msg::AskRequest ask, std::function<void(msg::AskReply)> reply) {
  auto run = std::make_shared<Run>();
  run->ask = std::move(ask);
  run->reply = std::move(reply);
  run->started_ms = steady_ms();
  employee::ToolLoopSettings s;
  s.agent = spec_.name;
  s.system_prompt = spec_.system_prompt;
  s.prompt = run->ask.prompt;
  s.max_tool_iterations = deps_.max_tool_iterations;
  s.max_malformed_tool_calls = deps_.max_malformed_tool_calls;
  s.temperature = deps_.temperature;
  s.max_output_tokens = run->ask.max_output_tokens > 0 ? run->ask.max_output_tokens : deps_.max_output_tokens;
  s.listening = [progress = deps_.progress] { return progress && progress->listening(); };
  const config::ToolFailureConfig& f = deps_.tool_failures;
  s.task_id = run->ask.task_id;
  s.retry = company::ToolRetryPolicy{f.max_attempts, f.backoff_ms, f.max_backoff_ms, f.backoff_jitter};
  // The tools as they are now: a resumed loop's replayed model calls did not
  // sync, and it must decide as the first run did.
  s.repeatable = [this](const std::string& tool) {
    sync();
    return sourced_tools_->repeatable(tool);
  };
  run->driver = std::make_unique<employee::ToolLoopDriver>(std::move(s));
  run->kept = employee::read_kept_steps(run->ask.replay);
  if (run->kept.empty()) return execute(run, run->driver->start());

  // A resume: the kept steps are fed to the new driver, as a strategy's
  // runner feeds a resumed task's kept outcomes (DriverRunner::resume).
  auto log = employee::kept_log(run->kept);
  if (!log.ok()) throw std::runtime_error(spec_.name + "'s kept steps: " + log.error().message);
  run->policy = std::make_unique<driver::ResumePolicy>(
      std::make_shared<driver::ReplayLog>(std::move(log).value()), [this](const std::string& tool) {
        sync();  // the replayed model calls did not: the tools as they are now
        return sourced_tools_->repeatable(tool);
      });
  run->replaying = true;
  execute(run, run->driver->start());
  for (size_t n = 0; n < run->kept.size() && !run->delivered; ++n) {
    // Paid before the process died: accounted as it was, not charged again.
    const AskStep& kept = run->kept[n];
    if (kept.kind == AskStep::Kind::model) {
      run->first_done = true;
      if (kept.paid_by_employee) {
        run->extra_usage.input_tokens += kept.response.usage.input_tokens;
        run->extra_usage.output_tokens += kept.response.usage.output_tokens;
        run->extra_expense += kept.expense;
      } else {
        run->first_usage = kept.response.usage;
      }
    } else {
      run->extra_expense += kept.expense;
    }
    execute(run, run->driver->on(employee::kept_outcome(kept, n)));
  }
  run->replaying = false;
  run->policy.reset();
  for (driver::Outcome& o : std::exchange(run->deferred, {})) {
    if (run->delivered) break;
    // A tool not run again: its error is the step kept in its place.
    const auto& t = std::get<driver::ToolRan>(o);
    const llm::ToolCall* call = run->driver->tool_call(t.id);
    AskStep step{AskStep::Kind::tool, {}, false, call ? call->id : "", call ? call->name : "", t.result.to_json(), 0};
    feed(run, o, std::move(step));
  }
}

void EmployeeToolLoop::feed(const std::shared_ptr<Run>& run, const driver::Outcome& o, std::optional<AskStep> step) {
  // Step n answers the driver's effect n + 1: the same number in every run.
  if (step) run->to_keep.emplace(static_cast<int64_t>(driver::id_of(o)) - 1, std::move(*step));
  execute(run, run->driver->on(o));
  keep_pending(run);
}

void EmployeeToolLoop::keep_pending(const std::shared_ptr<Run>& run) {
  if (!run->to_keep) return;
  auto [n, step] = std::move(*run->to_keep);
  run->to_keep.reset();
  if (run->ask.call == 0 || run->ask.task_id.empty()) return;
  // Through the ledger, behind the charges this employee sent for the step.
  if (deps_.ledger)
    self_->send(deps_.ledger, ask_step_atom::value, run->ask.task_id, run->ask.call, n,
                std::make_shared<AskStep>(std::move(step)));
}

void EmployeeToolLoop::after_kept(const std::shared_ptr<Run>& run, std::function<void()> then) {
  if (run->ask.call == 0 || run->ask.task_id.empty()) return then();
  after_ledger_synced(self_, deps_.ledger, std::move(then));
}

void EmployeeToolLoop::execute(const std::shared_ptr<Run>& run, driver::Effects effects) {
  for (driver::Effect& e : effects) {
    if (run->delivered) return;
    const bool call = !std::holds_alternative<driver::Journal>(e) && !std::holds_alternative<driver::Report>(e);
    if (call) keep_pending(run);
    if (std::holds_alternative<driver::CallModel>(e)) ++run->model_calls;
    if (replayed(run, e)) continue;
    std::visit(
        [&](auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, driver::CallModel>) {
            call_model(run, std::move(x));
          } else if constexpr (std::is_same_v<T, driver::RunTool>) {
            run_tool(run, x);
          } else if constexpr (std::is_same_v<T, driver::Journal>) {
            journal(run, x.kind, std::move(x.payload), x.tokens_in, x.tokens_out, x.usd);
          } else if constexpr (std::is_same_v<T, driver::Report>) {
            emit(run, x.kind, x.text, std::move(x.data));
          } else if constexpr (std::is_same_v<T, driver::Finish>) {
            finish(run, x);
          } else {
            throw std::logic_error(spec_.name + "'s tool loop asked for an effect an employee does not run");
          }
        },
        e);
  }
}

bool EmployeeToolLoop::replayed(const std::shared_ptr<Run>& run, const driver::Effect& e) {
  if (!run->policy) return false;
  const driver::CallId id = tool_effect_id(e);
  auto step = run->policy->step(e, id, run->replaying);
  if (!step.ok()) throw std::runtime_error(spec_.name + "'s tool loop: " + step.error().message);
  if (!step->note.is_null()) {
    // Named as the employee's notes always were: what, whose, which ask and step.
    json note = json::object();
    if (const auto* t = std::get_if<driver::RunTool>(&e); t && step->note.contains("not_repeated")) {
      note["not_repeated"] = t->tool;
      note["agent"] = spec_.name;
    } else if (t) {
      note["rerun"] = "tool " + t->tool + " of " + spec_.name;
    } else {
      note["rerun"] = "model call of " + spec_.name;
    }
    note["call"] = run->ask.call;
    note["step"] = static_cast<int64_t>(id) - 1;
    journal(run, msg::EventKind::note, std::move(note));
  }
  if (step->deferred) run->deferred.push_back(std::move(*step->deferred));
  return step->handled;
}

void EmployeeToolLoop::call_model(const std::shared_ptr<Run>& run, driver::CallModel c) {
  sync();  // tools created or withdrawn meanwhile are seen on this call
  llm::ChatRequest request = std::move(c.request);
  request.tools = registry_.specs();
  request.stream = deps_.stream;
  request.seed = deps_.seed;
  journal(run, msg::EventKind::llm_request,
          json{{"model_ref", spec_.model_ref},
               {"prompt", run->ask.prompt},
               {"messages", request.messages.size()},
               {"tools", request.tools.size()},
               {"iteration", run->model_calls}});
  const driver::CallId id = c.id;
  // The asker's reservation covers the first call when it held at least this
  // request's bound; the tool schemas usually make it bigger, and then the
  // first call is reserved here like the further ones (the asker settles 0).
  if (deps_.ledger && !run->first_done && llm::input_token_bound(request) > run->ask.input_token_bound)
    run->first_done = true;
  if (!run->first_done || !deps_.ledger) {
    // The first call: the asker's reservation covers it. (Without a ledger
    // nothing is charged at all, as for a single-call employee.)
    self_
        ->request(deps_.model_client, deps_.call_timeout, chat_atom::value,
                  msg::LlmCall{spec_.model_ref, std::move(request), run->ask.trace, spec_.name})
        .then(
            [this, run, id](msg::LlmResult& r) {
              if (!r.ok) return feed(run, failed_call(id, r.error), std::nullopt);
              if (!run->first_done) {
                run->first_done = true;
                run->first_usage = r.response.usage;
              } else {
                run->extra_usage.input_tokens += r.response.usage.input_tokens;
                run->extra_usage.output_tokens += r.response.usage.output_tokens;
              }
              driver::ModelAnswered a;
              a.id = id;
              a.ok = true;
              a.response = std::move(r.response);
              AskStep step{AskStep::Kind::model, a.response, false, "", "", {}, 0};
              feed(run, a, std::move(step));
            },
            [this, run, id](caf::error& err) {
              feed(run, failed_call(id, "model call failed: " + self_->system().render(err)), std::nullopt);
            });
    return;
  }
  ChargedCall call;
  call.ledger = deps_.ledger;
  call.model_client = deps_.model_client;
  call.timeout = deps_.call_timeout;
  call.cost = cost_;
  call.agent = spec_.name;
  call.task_id = run->ask.task_id;
  call.model_ref = spec_.model_ref;
  call.request = std::move(request);
  call.trace = run->ask.trace;
  // Its answer is kept as step id - 1 of the loop, in one commit with its charge.
  if (run->ask.call != 0 && !run->ask.task_id.empty())
    call.kept = KeptWith{run->ask.call, static_cast<int64_t>(id) - 1};
  charged_chat(self_, std::move(call), [this, run, id](ChargedCallResult r) {
    if (r.refused) return feed(run, failed_call(id, r.error, true), std::nullopt);
    if (!r.ok) return feed(run, failed_call(id, r.error), std::nullopt);
    run->extra_usage.input_tokens += r.response.usage.input_tokens;
    run->extra_usage.output_tokens += r.response.usage.output_tokens;
    run->extra_expense += r.expense;
    driver::ModelAnswered a;
    a.id = id;
    a.ok = true;
    a.response = std::move(r.response);
    a.expense = r.expense;
    AskStep step{AskStep::Kind::model, a.response, true, "", "", {}, r.expense};
    feed(run, a, std::move(step));
  });
}

// The tool the driver names runs here, through the employee's registry (its
// grant and its sources); where a source runs it is the source's business.
void EmployeeToolLoop::run_tool(const std::shared_ptr<Run>& run, const driver::RunTool& t) {
  if (t.delay_ms <= 0) return start_tool(run, t);
  // A retry's backoff: waited on the actor's clock, the thread free meanwhile.
  const uint64_t wait = ++next_wait_;
  waits_[wait] = [this, run, t] {
    if (!run->delivered) start_tool(run, t);
  };
  self_->delayed_send(self_, std::chrono::milliseconds(t.delay_ms), tool_atom::value, wait);
}

void EmployeeToolLoop::on_wait_over(uint64_t wait) {
  auto it = waits_.find(wait);
  if (it == waits_.end()) return;
  auto then = std::move(it->second);
  waits_.erase(it);
  then();
}

void EmployeeToolLoop::start_tool(const std::shared_ptr<Run>& run, const driver::RunTool& t) {
  const llm::ToolCall* asked = run->driver->tool_call(t.id);
  const llm::ToolCall call = asked ? *asked : llm::ToolCall{"", t.tool, t.arguments};
  const driver::CallId id = t.id;
  json asked_json{{"tool", call.name}, {"arguments", call.arguments}, {"call_id", call.id}};
  if (const company::Tool* tool = registry_.find(call.name)) asked_json["metadata"] = tool->meta.to_json();
  journal(run, msg::EventKind::tool_call, std::move(asked_json));
  after_kept(run, [this, run, call, id] {
    emit(run, msg::EventKind::tool_call, "Invoking `" + call.name + "` with " + call.arguments,
         json{{"tool", call.name}, {"arguments", call.arguments}, {"call_id", call.id}, {"agent", spec_.name}});
    auto span = telemetry::tool_span(call.name, call.id, run->ask.trace, run->ask.task_id);
    site_.ctx = company::ToolCallContext{run->ask.session_id, run->ask.task_id, spec_.name, "",
                                         span ? telemetry::traceparent_of(*span) : ""};
    run->tool_usd = 0;
    site_.charged = [run](double usd) {
      run->extra_expense += usd;
      run->tool_usd += usd;
    };
    registry_.invoke(call.name, call.arguments, visible_, [this, run, call, id, span](ToolResult r) {
      if (span) telemetry::end_tool_span(*span, r);
      if (!r.ok && r.output.is_object() && r.output.contains("breaker")) {
        // Refused at once by the tool's circuit breaker: nothing ran.
        json refused{{"tool", call.name},
                     {"call_id", call.id},
                     {"breaker", r.output["breaker"]},
                     {"retry_in_ms", r.output.value("retry_in_ms", int64_t{0})}};
        journal(run, msg::EventKind::refusal, refused);
        refused["agent"] = spec_.name;
        emit(run, msg::EventKind::refusal, r.message, std::move(refused));
      }
      AskStep step{AskStep::Kind::tool, {}, false, call.id, call.name, r.to_json(), run->tool_usd};
      feed(run, driver::ToolRan{id, std::move(r)}, std::move(step));
    });
    site_ = {};
  });
}

void EmployeeToolLoop::on_tool_done(uint64_t id, ToolResult result) { sourced_tools_->on_done(id, std::move(result)); }

// The loop's end: a stopped loop still answers (with what stopped it) so that
// the asker settles the first call it paid for; a failed first call fails the ask.
void EmployeeToolLoop::finish(const std::shared_ptr<Run>& run, const driver::Finish& f) {
  if (run->delivered) return;
  run->delivered = true;
  msg::AskReply reply;
  if (f.ok) {
    reply.output = f.text;
  } else {
    reply.ok = false;
    reply.error = f.text;
  }
  reply.agent = spec_.name;
  reply.usage = run->first_usage;
  reply.extra_usage = run->extra_usage;
  reply.extra_expense = run->extra_expense;
  reply.tool_calls = run->driver->tool_calls();
  reply.latency_ms = steady_ms() - run->started_ms;
  run->reply(std::move(reply));
}

}  // namespace kaisha::actors
