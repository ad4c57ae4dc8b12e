#include "actors/agents/employee_tool_loop.hpp"

#include <deque>

#include "actors/caf/atoms.hpp"
#include "actors/strategy_kit/charged_call.hpp"
#include "actors/system/journal_actor.hpp"
#include "actors/system/ledger_actor.hpp"
#include "runtime/driver/ask_step.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/company/conversation.hpp"
#include "runtime/core/json_text.hpp"
#include "runtime/llm/token_bound.hpp"
#include "runtime/telemetry/tool_span.hpp"
#include "runtime/telemetry/tracer.hpp"

namespace kaisha::actors {

using company::ToolResult;

struct EmployeeToolLoop::Run {
  msg::AskRequest ask;
  std::function<void(msg::AskReply)> reply;
  std::unique_ptr<company::Conversation> conversation;
  int64_t started_ms = 0;   // steady_ms(): durations only
  bool first_done = false;  // the asker's hold is used: every further call reserves its own
  llm::Usage first_usage;
  llm::Usage extra_usage;
  double extra_expense = 0;
  int tool_calls = 0;
  std::vector<llm::ToolCall> calls;  // of the answer being worked on
  bool delivered = false;
  // Resuming (driver/ask_step.hpp): the kept steps still to feed, whether
  // they are being fed (nothing is journaled or reported again meanwhile),
  // and the number the next step is kept under.
  std::deque<driver::AskStep> replay;
  bool replaying = false;
  int64_t steps = 0;
  double tool_usd = 0;  // what the tool call being run was charged
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

json calls_json(const std::vector<llm::ToolCall>& calls) {
  json a = json::array();
  for (const auto& c : calls) a.push_back({{"id", c.id}, {"name", c.name}, {"arguments", c.arguments}});
  return a;
}

}  // namespace

EmployeeToolLoop::EmployeeToolLoop(caf::event_based_actor* self, msg::AgentSpec spec, EmployeeDeps deps)
    : self_(self), spec_(std::move(spec)), deps_(std::move(deps)), cost_(further_call_cost(spec_)) {
  const company::GrantedTools grant = deps_.grant;
  sourced_tools_ = std::make_unique<SourcedTools>(
      deps_.tool_sources, deps_.ledger, deps_.tool_costs, [this] { return site_; },
      [grant](const std::string& name, const std::string& origin) { return grant.allows(name, origin); });
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
  // max_turns counts model answers: the loop's bound on model calls.
  run->conversation = std::make_unique<company::Conversation>(
      spec_.system_prompt, company::ConversationLimits{deps_.max_tool_iterations, deps_.max_malformed_tool_calls});
  run->conversation->add_user(run->ask.prompt);
  for (const std::string& text : run->ask.replay) {
    auto step = driver::decode_ask_step(text);
    if (!step.ok()) break;  // checked when the journal was read: a peer's slip runs the rest again
    run->replay.push_back(std::move(step).value());
  }
  run->replaying = !run->replay.empty();
  call_model(run);
}

void EmployeeToolLoop::keep(const std::shared_ptr<Run>& run, driver::AskStep step) {
  const int64_t n = run->steps++;
  if (run->ask.call == 0 || run->ask.task_id.empty()) return;
  // Through the ledger, behind the charges this employee sent for the step.
  if (deps_.ledger)
    self_->send(deps_.ledger, ask_step_atom::value, run->ask.task_id, run->ask.call, n,
                std::make_shared<driver::AskStep>(std::move(step)));
}

void EmployeeToolLoop::after_kept(const std::shared_ptr<Run>& run, std::function<void()> then) {
  if (run->ask.call == 0 || run->ask.task_id.empty()) return then();
  after_ledger_synced(self_, deps_.ledger, std::move(then));
}

// The kept steps end here: what comes next was in flight when the process
// running the task died, or had not started.
void EmployeeToolLoop::resume_live(const std::shared_ptr<Run>& run, json note) {
  run->replaying = false;
  run->replay.clear();
  note["call"] = run->ask.call;
  note["step"] = run->steps;
  journal(run, msg::EventKind::note, std::move(note));
}

void EmployeeToolLoop::call_model(const std::shared_ptr<Run>& run) {
  if (!run->replay.empty() && run->replay.front().kind == driver::AskStep::Kind::model) {
    driver::AskStep kept = std::move(run->replay.front());
    run->replay.pop_front();
    ++run->steps;
    // Paid before the process died: accounted as it was, not charged again.
    run->first_done = true;
    if (kept.paid_by_employee) {
      run->extra_usage.input_tokens += kept.response.usage.input_tokens;
      run->extra_usage.output_tokens += kept.response.usage.output_tokens;
      run->extra_expense += kept.expense;
    } else {
      run->first_usage = kept.response.usage;
    }
    return on_answer(run, kept.response);
  }
  if (run->replaying) resume_live(run, json{{"rerun", "model call of " + spec_.name}});
  sync();  // tools created or withdrawn meanwhile are seen on this call
  const int64_t max_out = run->ask.max_output_tokens > 0 ? run->ask.max_output_tokens : deps_.max_output_tokens;
  llm::ChatRequest request = run->conversation->request(registry_.specs(), deps_.temperature, max_out);
  request.stream = deps_.stream;
  request.seed = deps_.seed;
  journal(run, msg::EventKind::llm_request,
          json{{"model_ref", spec_.model_ref},
               {"prompt", run->ask.prompt},
               {"messages", request.messages.size()},
               {"tools", request.tools.size()},
               {"iteration", run->conversation->turns() + 1}});
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
                  msg::LlmCall{spec_.model_ref, request, run->ask.trace, spec_.name})
        .then(
            [this, run](msg::LlmResult& r) {
              if (!r.ok) {
                if (!run->first_done) {
                  msg::AskReply reply;
                  reply.ok = false;
                  reply.error = r.error;
                  journal(run, msg::EventKind::error, json{{"error", r.error}});
                  return deliver(run, std::move(reply));
                }
                return stop(run, "the model call failed: " + r.error);
              }
              if (!run->first_done) {
                run->first_done = true;
                run->first_usage = r.response.usage;
              } else {
                run->extra_usage.input_tokens += r.response.usage.input_tokens;
                run->extra_usage.output_tokens += r.response.usage.output_tokens;
              }
              keep(run, driver::AskStep{driver::AskStep::Kind::model, r.response, false, "", "", {}, 0});
              on_answer(run, r.response);
            },
            [this, run](caf::error& err) {
              const std::string why = "model call failed: " + self_->system().render(err);
              if (run->first_done) return stop(run, why);
              msg::AskReply reply;
              reply.ok = false;
              reply.error = why;
              journal(run, msg::EventKind::error, json{{"error", why}});
              deliver(run, std::move(reply));
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
  // Its answer is kept as the loop's next step (keep(): the steps run one at a time).
  if (run->ask.call != 0 && !run->ask.task_id.empty()) call.kept = KeptWith{run->ask.call, run->steps};
  charged_chat(self_, std::move(call), [this, run](ChargedCallResult r) {
    if (r.refused) {
      journal(run, msg::EventKind::refusal, json{{"error", r.error}, {"call", "employee_model"}});
      emit(run, msg::EventKind::refusal, r.error, json{{"agent", spec_.name}});
      return stop(run, r.error);
    }
    if (!r.ok && run->conversation->turns() == 0) {
      // The ask's first call failed: the ask fails, as for an employee without tools.
      msg::AskReply reply;
      reply.ok = false;
      reply.error = r.error;
      journal(run, msg::EventKind::error, json{{"error", r.error}});
      return deliver(run, std::move(reply));
    }
    if (!r.ok) return stop(run, "the model call failed: " + r.error);
    run->extra_usage.input_tokens += r.response.usage.input_tokens;
    run->extra_usage.output_tokens += r.response.usage.output_tokens;
    run->extra_expense += r.expense;
    keep(run, driver::AskStep{driver::AskStep::Kind::model, r.response, true, "", "", {}, r.expense});
    on_answer(run, r.response);
  });
}

void EmployeeToolLoop::on_answer(const std::shared_ptr<Run>& run, const llm::ChatResponse& response) {
  if (!run->replaying)
    journal(run, msg::EventKind::llm_response,
            json{{"text", response.message.content},
                 {"tool_calls", calls_json(response.message.tool_calls)},
                 {"usage_estimated", response.usage.estimated}},
            response.usage.input_tokens, response.usage.output_tokens);
  company::NextStep next = run->conversation->on_response(response);
  switch (next.kind) {
    case company::NextStep::Kind::answer: {
      msg::AskReply reply;
      reply.output = next.text;
      return deliver(run, std::move(reply));
    }
    case company::NextStep::Kind::fail:
      if (run->conversation->turns() >= deps_.max_tool_iterations && !response.message.tool_calls.empty())
        return stop(run, "no final answer after " + std::to_string(run->conversation->turns()) +
                             " model calls (employee.max_tool_iterations)");
      return stop(run, next.text);
    case company::NextStep::Kind::run_tools:
      run->calls = std::move(next.calls);
      return run_calls(run, 0);
  }
}

// The model's tool calls, one after the other in its order (hashiru.md §9
// item 7); then the next model call.
void EmployeeToolLoop::run_calls(const std::shared_ptr<Run>& run, size_t i) {
  if (run->delivered) return;
  if (i == run->calls.size()) return call_model(run);
  const llm::ToolCall call = run->calls[i];
  ++run->tool_calls;
  if (!run->replay.empty()) {
    driver::AskStep& kept = run->replay.front();
    if (kept.kind == driver::AskStep::Kind::tool && kept.call_id == call.id && kept.tool == call.name) {
      ++run->steps;
      run->extra_expense += kept.expense;
      run->conversation->add_tool_result(call, kept.result);
      run->replay.pop_front();
      return run_calls(run, i + 1);
    }
  }
  if (run->replaying) {
    sync();  // the replayed model calls did not: the tools as they are now
    if (!sourced_tools_->repeatable(call.name)) {
      // In flight when the process died, and not safe to run twice: the
      // model hears so instead of the tool running again behind its back.
      resume_live(run, json{{"not_repeated", call.name}, {"agent", spec_.name}});
      json j = ToolResult::error("`" + call.name + "` was running when the process running this task stopped, " +
                                 "and it is not marked safe to repeat, so it was not run again: check whether " +
                                 "it took effect before calling it again")
                   .to_json();
      journal(run, msg::EventKind::tool_result, json{{"tool", call.name}, {"result", j}, {"call_id", call.id}});
      keep(run, driver::AskStep{driver::AskStep::Kind::tool, {}, false, call.id, call.name, j, 0});
      run->conversation->add_tool_result(call, j);
      return run_calls(run, i + 1);
    }
    resume_live(run, json{{"rerun", "tool " + call.name + " of " + spec_.name}});
  }
  journal(run, msg::EventKind::tool_call,
          json{{"tool", call.name}, {"arguments", call.arguments}, {"call_id", call.id}});
  after_kept(run, [this, run, call, i] {
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
    registry_.invoke(call.name, call.arguments, visible_, [this, run, call, i, span](ToolResult r) {
      if (span) telemetry::end_tool_span(*span, r);
      json j = r.to_json();
      journal(run, msg::EventKind::tool_result, json{{"tool", call.name}, {"result", j}, {"call_id", call.id}});
      keep(run, driver::AskStep{driver::AskStep::Kind::tool, {}, false, call.id, call.name, j, run->tool_usd});
      emit(run, msg::EventKind::tool_result, "Tool responded with " + dump_text(j),
           json{{"tool", call.name}, {"result", j}, {"call_id", call.id}, {"agent", spec_.name}});
      run->conversation->add_tool_result(call, j);
      run_calls(run, i + 1);
    });
    site_ = {};
  });
}

void EmployeeToolLoop::on_tool_done(uint64_t id, ToolResult result) { sourced_tools_->on_done(id, std::move(result)); }

// The loop cannot go on after its first call: the employee still answers —
// with what stopped it — so that the asker settles the first call it paid for.
void EmployeeToolLoop::stop(const std::shared_ptr<Run>& run, const std::string& why) {
  if (!run->replaying) journal(run, msg::EventKind::error, json{{"error", why}, {"call", "employee_tool_loop"}});
  msg::AskReply reply;
  reply.output = spec_.name + " stopped before a final answer: " + why;
  deliver(run, std::move(reply));
}

void EmployeeToolLoop::deliver(const std::shared_ptr<Run>& run, msg::AskReply reply) {
  if (run->delivered) return;
  run->delivered = true;
  reply.agent = spec_.name;
  reply.usage = run->first_usage;
  reply.extra_usage = run->extra_usage;
  reply.extra_expense = run->extra_expense;
  reply.tool_calls = run->tool_calls;
  reply.latency_ms = steady_ms() - run->started_ms;
  run->reply(std::move(reply));
}

}  // namespace kaisha::actors
