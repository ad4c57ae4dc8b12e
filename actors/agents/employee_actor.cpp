#include "actors/agents/employee_actor.hpp"

#include "actors/caf/atoms.hpp"
#include "actors/strategy_kit/charged_call.hpp"
#include "actors/agents/employee_tool_loop.hpp"
#include "actors/strategy_kit/handler_failure.hpp"
#include "actors/system/journal_actor.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/messages/ask_usage.hpp"
#include "runtime/telemetry/gen_ai_attributes.hpp"
#include "runtime/telemetry/tracer.hpp"

namespace kaisha::actors {
namespace {

struct EmployeeState {
  msg::AgentSpec spec;
  EmployeeDeps deps;
  std::unique_ptr<EmployeeToolLoop> tools;  // set when the employee has a tool grant
  PendingReplies asks;                      // asks not answered yet (see handler_failure.hpp)
  static inline const char* name = "employee";
};

using EmployeeSelf = caf::stateful_actor<EmployeeState>;

// The ask's promise, forgotten by the state's PendingReplies when answered,
// and the turn's span, ended with the answer.
struct AskAnswer {
  EmployeeSelf* self;
  uint64_t ticket;
  caf::typed_response_promise<msg::AskReply> promise;
  std::shared_ptr<telemetry::Span> span;  // null when tracing is off
  void deliver(msg::AskReply r) {
    if (span) {
      namespace attr = telemetry::attr;
      const llm::Usage u = msg::ask_usage(r);
      span->set(attr::kGenAiUsageInputTokens, u.input_tokens);
      span->set(attr::kGenAiUsageOutputTokens, u.output_tokens);
      if (r.tool_calls > 0) span->set("kaisha.tool_calls", r.tool_calls);
      telemetry::end_span(*span, r.ok ? telemetry::SpanStatus::ok : telemetry::SpanStatus::error, r.ok ? "" : r.error);
    }
    self->state.asks.done(ticket);
    promise.deliver(std::move(r));
  }
};

// The employee's turn: "invoke_agent {name}", under the asker's span (or
// the task's root).
std::shared_ptr<telemetry::Span> turn_span(const msg::AgentSpec& spec, const msg::AskRequest& ask) {
  namespace attr = telemetry::attr;
  if (!telemetry::tracer()) return nullptr;
  auto s = std::make_shared<telemetry::Span>(telemetry::begin_span(
      attr::invoke_agent_span_name(spec.name), telemetry::SpanKind::internal, ask.trace, ask.task_id));
  if (s->span_id.empty()) return nullptr;
  s->set(attr::kGenAiOperationName, attr::kOperationInvokeAgent);
  s->set(attr::kGenAiAgentName, spec.name);
  s->set(attr::kGenAiRequestModel, spec.model_ref);
  if (telemetry::tracer()->include_text() && ask.messages.empty()) s->set(attr::kGenAiInputMessages, ask.prompt);
  return s;
}

caf::behavior employee(EmployeeSelf* self, msg::AgentSpec spec, EmployeeDeps deps) {
  self->state.spec = std::move(spec);
  self->state.deps = std::move(deps);
  // The hirer's sampling wins over the employee defaults (a strategy's own
  // temperature and seed); a spec without it keeps them.
  if (self->state.spec.temperature) self->state.deps.temperature = *self->state.spec.temperature;
  if (self->state.spec.seed) self->state.deps.seed = self->state.spec.seed;
  if (!self->state.deps.grant.empty() && !self->state.deps.tool_sources.empty())
    self->state.tools = std::make_unique<EmployeeToolLoop>(self, self->state.spec, self->state.deps);
  // The asks in flight come back as failed answers, as when a model call fails.
  self->set_exception_handler([self](std::exception_ptr& e) -> caf::error {
    const std::string why = describe_handler_failure("employee " + self->state.spec.name, e);
    self->state.asks.fail_all(why);
    return handler_failure_error(why);
  });
  return {
      [=](ask_atom, msg::AskRequest& ask) -> caf::result<msg::AskReply> {
        auto& st = self->state;
        auto taken = self->make_response_promise<msg::AskReply>();
        const uint64_t ticket = st.asks.add([taken, agent = st.spec.name](const std::string& why) mutable {
          msg::AskReply r;
          r.agent = agent;
          r.ok = false;
          r.error = why;
          taken.deliver(std::move(r));
        });
        auto promise = AskAnswer{self, ticket, taken, turn_span(st.spec, ask)};
        // What this turn does (its model calls, its tools) goes under its span.
        if (promise.span) ask.trace = telemetry::traceparent_of(*promise.span);
        const bool turn = !ask.messages.empty();
        if (st.tools && !turn) {
          st.tools->ask(std::move(ask), [promise](msg::AskReply r) mutable { promise.deliver(std::move(r)); });
          return taken;
        }
        msg::LlmCall call;
        call.model_ref = st.spec.model_ref;
        call.trace = ask.trace;
        call.agent = st.spec.name;
        json asked;
        if (turn) {
          // The asker's context as it is, and its tools: one model call.
          call.request.messages = std::move(ask.messages);
          call.request.tools = std::move(ask.tools);
          asked = json{{"model_ref", call.model_ref},
                       {"messages", call.request.messages.size()},
                       {"tools", call.request.tools.size()},
                       {"prompt", call.request.messages.back().content}};
        } else {
          call.request.messages.push_back({llm::Role::system, st.spec.system_prompt, {}, "", ""});
          call.request.messages.push_back({llm::Role::user, ask.prompt, {}, "", ""});
          asked = json{{"model_ref", call.model_ref}, {"prompt", ask.prompt}};
        }
        call.request.temperature = st.deps.temperature;
        call.request.seed = st.deps.seed;
        call.request.stream = st.deps.stream;
        call.request.max_tokens = ask.max_output_tokens > 0 ? ask.max_output_tokens : st.deps.max_output_tokens;
        journal_step(st.deps.journal,
                     {ask.session_id, ask.task_id, st.spec.name, msg::EventKind::llm_request, std::move(asked)});
        const int64_t started = steady_ms();
        self->request(st.deps.model_client, st.deps.call_timeout, chat_atom::value, std::move(call))
            .then(
                [=](msg::LlmResult& r) mutable {
                  auto& s = self->state;
                  msg::AskReply reply;
                  reply.agent = s.spec.name;
                  reply.latency_ms = steady_ms() - started;
                  reply.ok = r.ok;
                  if (r.ok) {
                    reply.output = r.response.message.content;
                    reply.tool_requests = std::move(r.response.message.tool_calls);
                    reply.usage = r.response.usage;
                  } else {
                    reply.error = r.error;
                  }
                  // An asker with a job journals the answer itself (AskRequest::job).
                  if (!r.ok || ask.job.empty())
                    journal_step(s.deps.journal, {ask.session_id, ask.task_id, s.spec.name,
                                                  r.ok ? msg::EventKind::llm_response : msg::EventKind::error,
                                                  r.ok ? json{{"text", reply.output},
                                                              {"tool_calls", reply.tool_requests.size()},
                                                              {"usage_estimated", reply.usage.estimated},
                                                              {"latency_ms", reply.latency_ms}}
                                                       : json{{"error", reply.error}},
                                                  reply.usage.input_tokens, reply.usage.output_tokens});
                  promise.deliver(std::move(reply));
                },
                [=](caf::error& err) mutable {
                  auto& s = self->state;
                  msg::AskReply reply;
                  reply.agent = s.spec.name;
                  reply.ok = false;
                  reply.error = "model call failed: " + self->system().render(err);
                  reply.latency_ms = steady_ms() - started;
                  journal_step(s.deps.journal, {ask.session_id, ask.task_id, s.spec.name, msg::EventKind::error,
                                                json{{"error", reply.error}}});
                  promise.deliver(std::move(reply));
                });
        return taken;
      },
      [=](tool_done_atom, uint64_t id, company::ToolResult& r) {
        if (self->state.tools) self->state.tools->on_tool_done(id, std::move(r));
      },
      // A tool call's backoff is over (EmployeeToolLoop's delayed_send).
      [=](tool_atom, uint64_t wait) {
        if (self->state.tools) self->state.tools->on_wait_over(wait);
      },
  };
}

}  // namespace

EmployeeDeps employee_deps_from(const config::Config& c, caf::actor model_client, caf::actor journal,
                                std::shared_ptr<company::ProgressSink> progress) {
  EmployeeDeps d;
  d.model_client = std::move(model_client);
  d.journal = std::move(journal);
  d.progress = std::move(progress);
  d.max_output_tokens = c.employee.max_output_tokens;
  d.temperature = c.employee.temperature;
  d.stream = c.employee.stream;
  d.call_timeout = model_call_timeout(c);
  d.tool_failures = c.tools.failures;
  d.tool_repeatable = c.tools.repeatable;
  return d;
}

caf::actor spawn_employee(caf::actor_system& sys, msg::AgentSpec spec, EmployeeDeps deps) {
  return sys.spawn(employee, std::move(spec), std::move(deps));
}

}  // namespace kaisha::actors
