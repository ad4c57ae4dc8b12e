#include "actors/ceo_actor.hpp"

#include <map>
#include <set>
#include <utility>

#include "actors/atoms.hpp"
#include "actors/charged_call.hpp"
#include "actors/employee_actor.hpp"
#include "actors/handler_failure.hpp"
#include "actors/journal_actor.hpp"
#include "runtime/core/clock.hpp"
#include "actors/provider_tools.hpp"
#include "runtime/company/agent_roster.hpp"
#include "runtime/company/conversation.hpp"
#include "runtime/company/hashiru_texts.hpp"
#include "runtime/company/reply_call_order.hpp"
#include "runtime/company/tool_registry.hpp"
#include "runtime/core/json_text.hpp"
#include "runtime/llm/usage_estimate.hpp"
#include "runtime/llm/token_bound.hpp"
#include "runtime/messages/task_result_json.hpp"
#include "runtime/planning/audit_loop.hpp"

namespace kaisha::actors {
namespace {

using company::ToolDone;
using company::ToolResult;
namespace texts = company::texts;

// The task being worked on. One at a time: a session is one conversation.
struct CurrentTask {
  std::string id;
  caf::typed_response_promise<msg::TaskResult> promise;
  int64_t started_ms = 0;  // steady_ms(): durations only
  int64_t tokens_in = 0;
  int64_t tokens_out = 0;
  double expense = 0;  // USD: this task's model calls and hires
  std::string input;
  std::unique_ptr<planning::AuditLoop> audit;  // when the judge audits final answers
  bool canceled = false;
  // The judge's final rejection while the CEO writes its critique memory:
  // the task then ends with this text whatever the reflection turn does.
  std::string rejected;
};

struct CeoState {
  CeoDeps deps;
  std::unique_ptr<company::Conversation> conversation;
  company::AgentRoster roster;
  std::map<std::string, caf::actor> employees;
  company::ToolRegistry tools;
  // The HASHIRU six, registered by the CEO itself: no provider can replace
  // them, so a direct call to one needs no provider sync first.
  std::set<std::string> own_tools;
  config::Switches switches;
  std::optional<CurrentTask> task;
  // The ToolProviders' tools in `tools`, their calls and declared costs.
  std::unique_ptr<ProviderTools> provider_tools;
  // The next model call goes out without another summary check (one was just made).
  bool summary_checked = false;
  // Direct tool calls (tool_atom) not answered yet (see handler_failure.hpp).
  PendingReplies direct_calls;
  static inline const char* name = "ceo";
};

using Self = caf::stateful_actor<CeoState>;
using recall_atom = caf::atom_constant<caf::atom("recall")>;

constexpr const char* kCeo = "CEO";
constexpr int64_t kCeoMaxOutputTokens = 4096;
constexpr int64_t kSummaryMaxOutputTokens = 1024;

// Whether anybody watches progress: the hot paths skip building events otherwise.
bool listening(Self* self) { return self->state.deps.progress && self->state.deps.progress->listening(); }

void emit(Self* self, const std::string& kind, const std::string& text, json data = json::object(),
          const std::string& agent = kCeo) {
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

void step(Self* self, const std::string& kind, json payload, int64_t in = 0, int64_t out = 0,
          double usd = 0, const std::string& agent = kCeo) {
  auto& st = self->state;
  journal_step(st.deps.journal, {st.deps.session_id, st.task ? st.task->id : "", agent, kind,
                                 std::move(payload), in, out, usd});
}

// Adds what a call or hire cost to the task it was made for.
void add_expense(Self* self, const std::string& tid, double usd) {
  auto& st = self->state;
  if (st.task && st.task->id == tid) st.task->expense += usd;
}

json remaining_budgets(const economy::BudgetSummary& budget) {
  return json{{"remaining_resource_budget", budget.current_remaining_resource_budget},
              {"remaining_expense_budget", budget.current_remaining_expense_budget}};
}

std::string task_id(Self* self) { return self->state.task ? self->state.task->id : ""; }

void finish(Self* self, bool ok, const std::string& text) {
  auto& st = self->state;
  if (!st.task) return;
  CurrentTask t = std::move(*st.task);
  st.task.reset();
  msg::TaskResult r;
  r.task_id = t.id;
  r.ok = ok && t.rejected.empty();
  (r.ok ? r.answer : r.error) = t.rejected.empty() || t.canceled ? text : t.rejected;
  r.tokens_in = t.tokens_in;
  r.tokens_out = t.tokens_out;
  r.expense = t.expense;
  r.wall_ms = steady_ms() - t.started_ms;
  r.canceled = t.canceled;
  journal_task_finish(st.deps.journal, st.deps.session_id, r);
  msg::ProgressEvent e;
  if (st.deps.progress) {
    e.session_id = st.deps.session_id;
    e.task_id = t.id;
    e.agent = kCeo;
    e.kind = r.ok ? "final" : t.canceled ? "canceled" : "error";
    e.text = r.ok ? r.answer : r.error;
    e.data = msg::task_totals_json(r);
    e.at_ms = wall_ms();
    st.deps.progress->emit(e);
  }
  t.promise.deliver(std::move(r));
}

// The exception handler's work (handler_failure.hpp): the task and the
// direct calls get the failure, the employees are stopped. Nothing here may
// throw again, so no progress event: the caller reports the result.
void fail_after_exception(Self* self, const std::string& why) {
  auto& st = self->state;
  for (auto& [_, e] : st.employees) self->send_exit(e, caf::exit_reason::user_shutdown);
  st.employees.clear();
  st.direct_calls.fail_all(why);
  if (!st.task) return;
  CurrentTask t = std::move(*st.task);
  st.task.reset();
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

// The CEO's own model: priced from the cost table when it is listed there.
// Its resource is not held per call: the CEO's model is not an employee.
economy::ModelCost ceo_cost(Self* self) {
  auto& st = self->state;
  economy::ModelCost c;
  if (const economy::ModelCost* found = st.deps.cost_table->find(st.deps.config.ceo.model)) c = *found;
  c.name = c.name.empty() ? st.deps.config.ceo.model : c.name;
  c.model_ref = st.deps.config.ceo.model;
  c.invoke_resource_cost = 0;
  return c;
}

// A model call of the CEO's for task `tid`, charged to the CEO; the caller
// fills in the request.
ChargedCall ceo_call(Self* self, const std::string& tid) {
  auto& st = self->state;
  ChargedCall call;
  call.ledger = st.deps.ledger;
  call.model_client = st.deps.model_client;
  call.timeout = model_call_timeout(st.deps.config);
  call.cost = ceo_cost(self);
  call.agent = kCeo;
  call.task_id = tid;
  call.model_ref = st.deps.config.ceo.model;
  return call;
}

void call_model(Self* self);

// Brings the registry up to date with every ToolProvider, so a tool created,
// deleted or listed anew by an MCP server is seen on the very next model
// call. A provider's tool never replaces one of the HASHIRU six.
void sync_providers(Self* self) { self->state.provider_tools->sync(self, self->state.tools); }

// Retrieved memories go into the context as a user message, into the
// journal and into the transcript ("Memories: [...]"); a retrieval error is
// reported and the turn goes on without memories.
void inject_memories(Self* self, const json& r) {
  auto& st = self->state;
  if (r.contains("error")) {
    step(self, "error", json{{"error", r["error"]}, {"call", "memory_retrieval"}});
    emit(self, "error", "memory retrieval failed: " + r["error"].get<std::string>());
    return;
  }
  const json memories = r.value("memories", json::array());
  if (memories.empty()) return;
  st.conversation->add_user(r.value("injection", ""));
  step(self, "note", json{{"memories", memories}});
  emit(self, "memories", r.value("transcript", ""), json{{"memories", memories}});
}

// The calls of one reply run as ReplyCallOrder says (same agent: in reply
// order; the rest concurrently); their results go back in call order once
// the last one is in.
struct ReplyInFlight {
  std::vector<llm::ToolCall> calls;
  std::vector<json> results;
  size_t remaining;
  company::ReplyCallOrder order;
  explicit ReplyInFlight(std::vector<llm::ToolCall> c)
      : calls(std::move(c)), results(calls.size()), remaining(calls.size()), order(calls) {}
};

void start_tool_call(Self* self, std::shared_ptr<ReplyInFlight> reply, size_t i, const std::string& tid) {
  auto& st = self->state;
  const llm::ToolCall& call = reply->calls[i];
  if (listening(self))
    emit(self, "tool_call", "Invoking `" + call.name + "` with " + call.arguments,
         json{{"tool", call.name}, {"arguments", call.arguments}, {"call_id", call.id}});
  step(self, "tool_call", json{{"tool", call.name}, {"arguments", call.arguments}, {"call_id", call.id}});
  st.tools.invoke(call.name, call.arguments, std::nullopt, [self, i, reply, tid](ToolResult r) {
    auto& s = self->state;
    if (!s.task || s.task->id != tid) return;  // task already ended
    const llm::ToolCall& c = reply->calls[i];
    json j = r.to_json();
    if (listening(self))
      emit(self, "tool_result", "Tool responded with " + dump_text(j),
           json{{"tool", c.name}, {"result", j}, {"call_id", c.id}});
    step(self, "tool_result", json{{"tool", c.name}, {"result", j}, {"call_id", c.id}});
    reply->results[i] = std::move(j);
    for (size_t next : reply->order.finished(i)) start_tool_call(self, reply, next, tid);
    if (--reply->remaining > 0) return;
    for (size_t k = 0; k < reply->calls.size(); ++k) s.conversation->add_tool_result(reply->calls[k], reply->results[k]);
    call_model(self);
  });
}

void run_tools(Self* self, std::vector<llm::ToolCall> calls) {
  auto reply = std::make_shared<ReplyInFlight>(std::move(calls));
  const std::string tid = task_id(self);
  for (size_t i : reply->order.initial()) start_tool_call(self, reply, i, tid);
}

// The judge rejected the final answer for good: the answer is marked wrong
// (journaled like `kaisha feedback --wrong`) and the CEO gets one more turn
// to write a critique memory (HASHIRU Case Study 4); whatever that turn
// does, the task then ends with the rejection. False when there is no
// reflection to do (not configured, memory switched off, no claimed answer).
bool reflect_on_rejection(Self* self, const planning::AuditReport& report) {
  auto& st = self->state;
  if (!st.deps.error_reflection || !st.switches.memory || report.claimed_result.empty()) return false;
  const std::string why = report.error_information.empty() ? report.output : report.error_information;
  st.task->rejected = "The judge rejected the final answer: " + report.error_information;
  step(self, "note", memory::ErrorReflection::verdict_note(why, "judge"));
  emit(self, "reflection", "the judge rejected the answer; the CEO writes a critique into memory",
       json{{"why", why}});
  st.conversation->add_user(st.deps.error_reflection->prompt(st.task->input, report.claimed_result, why));
  call_model(self);
  return true;
}

// The judge audits the final answer (infiagent.md §10 items 23–27): a
// rejection goes back to the CEO as a user message and it answers again, up
// to the retry limit; then the task ends with the judge's last report.
void audit_answer(Self* self, Result<planning::AuditStep> step_r) {
  auto& st = self->state;
  if (!step_r.ok()) return finish(self, false, step_r.error().message);
  planning::AuditStep s = std::move(step_r).value();
  const std::string tid = st.task->id;
  switch (s.kind) {
    case planning::AuditStep::Kind::deliver:
      if (s.report.status == planning::VerdictStatus::success) return finish(self, true, s.report.output);
      if (reflect_on_rejection(self, s.report)) return;
      return finish(self, false, "The judge rejected the final answer: " + s.report.error_information);
    case planning::AuditStep::Kind::retry:
      emit(self, "retry", "the judge rejected the answer; answering again");
      st.conversation->add_user(s.feedback);
      return call_model(self);
    case planning::AuditStep::Kind::ask_judge:
      self->request(st.deps.judge, model_call_timeout(st.deps.config), audit_atom::value,
                    msg::AuditRequest{tid, kCeo, st.task->input, s.claimed_result})
          .then(
              [=](msg::AuditVerdict& v) {
                auto& s2 = self->state;
                if (!s2.task || s2.task->id != tid) return;
                if (v.judge_failed) return finish(self, false, "The judge could not audit the answer: " + v.error_information);
                planning::JudgeVerdict jv;
                jv.status = v.success ? planning::VerdictStatus::success : planning::VerdictStatus::error;
                jv.output = v.output;
                jv.error_information = v.error_information;
                jv.malformed = v.malformed;
                audit_answer(self, s2.task->audit->on_verdict(jv));
              },
              [=](caf::error& e) {
                if (!self->state.task || self->state.task->id != tid) return;
                finish(self, false, "The judge did not answer: " + self->system().render(e));
              });
      return;
  }
}

void on_model_answer(Self* self, const llm::ChatResponse& response) {
  auto& st = self->state;
  company::NextStep next = st.conversation->on_response(response);
  step(self, "llm_response",
       json{{"text", response.message.content},
            {"tool_calls", [&] {
               json a = json::array();
               for (const auto& c : response.message.tool_calls)
                 a.push_back({{"id", c.id}, {"name", c.name}, {"arguments", c.arguments}});
               return a;
             }()},
            {"usage_estimated", response.usage.estimated}},
       response.usage.input_tokens, response.usage.output_tokens);
  switch (next.kind) {
    case company::NextStep::Kind::answer:
      if (!st.task->rejected.empty()) return finish(self, false, next.text);  // the critique is written
      if (st.task->audit) return audit_answer(self, st.task->audit->on_claim(next.text));
      finish(self, true, next.text);
      return;
    case company::NextStep::Kind::fail:
      step(self, "error", json{{"error", next.text}});
      finish(self, false, "CEO stopped: " + next.text);
      return;
    case company::NextStep::Kind::run_tools:
      if (!next.text.empty()) emit(self, "thinking", next.text);
      run_tools(self, std::move(next.calls));
      return;
  }
}

// Short-term memory (effgen.md §8.1): a conversation that reached the
// threshold is summarised by the CEO's model before the next call — charged
// and journaled like any CEO call — which then goes out with the summary and
// the last messages. A summary that fails is reported and the call goes out
// unsummarised. True when a summary call was started.
bool summarize_first(Self* self) {
  auto& st = self->state;
  if (!st.deps.summarizer || std::exchange(st.summary_checked, false)) return false;
  auto plan = st.deps.summarizer->plan(*st.conversation);
  if (!plan) return false;
  const std::string tid = st.task->id;
  ChargedCall call = ceo_call(self, tid);
  call.request.messages = {{llm::Role::user, plan->prompt, {}, "", ""}};
  call.request.temperature = st.deps.config.ceo.temperature;
  call.request.max_tokens = kSummaryMaxOutputTokens;
  charged_chat(self, std::move(call), [self, tid, p = *plan](ChargedCallResult r) {
    auto& s = self->state;
    if (!s.task || s.task->id != tid) return;
    s.summary_checked = true;
    const llm::Usage u = r.response.usage;
    std::string failed = r.ok ? "" : r.error;
    if (r.ok) {
      s.task->expense += r.expense;
      s.task->tokens_in += u.input_tokens;
      s.task->tokens_out += u.output_tokens;
      if (r.response.message.content.find_first_not_of(" \t\r\n") == std::string::npos)
        failed = "the model returned an empty summary";
    }
    Result<memory::SummaryEvent> ev = failed.empty()
        ? s.deps.summarizer->apply(*s.conversation, p, r.response.message.content)
        : Result<memory::SummaryEvent>(Error{"memory", failed});
    if (!ev.ok()) {
      step(self, "error", json{{"error", ev.error().message}, {"call", "summary"}}, u.input_tokens,
           u.output_tokens, r.expense);
      emit(self, "error", "could not summarise the conversation: " + ev.error().message);
      return call_model(self);
    }
    const int64_t after = s.deps.summarizer->tokens(*s.conversation);
    json event{{"event", "SUMMARIZATION_TRIGGER"},
               {"original_tokens", ev->original_tokens},
               {"summarized_tokens", ev->summarized_tokens},
               {"reduction_ratio", ev->reduction_ratio},
               {"messages_replaced", ev->messages_replaced},
               {"conversation_tokens_before", p.conversation_tokens},
               {"conversation_tokens_after", after},
               {"context_tokens", s.deps.summarizer->config().context_tokens}};
    step(self, "note", event, u.input_tokens, u.output_tokens, r.expense);
    emit(self, "summary",
         "conversation summarised: " + std::to_string(ev->messages_replaced) + " messages, " +
             std::to_string(p.conversation_tokens) + " -> " + std::to_string(after) + " tokens",
         event);
    call_model(self);
  });
  return true;
}

void call_model(Self* self) {
  auto& st = self->state;
  if (!st.task) return;
  if (summarize_first(self)) return;
  sync_providers(self);
  const std::string tid = st.task->id;
  ChargedCall call = ceo_call(self, tid);
  call.request = st.conversation->request(st.tools.specs(), st.deps.config.ceo.temperature, kCeoMaxOutputTokens);
  call.request.stream = st.deps.config.ceo.stream;
  step(self, "llm_request", json{{"model_ref", call.model_ref},
                                 {"messages", call.request.messages.size()},
                                 {"last_message", call.request.messages.back().content},
                                 {"tools", call.request.tools.size()}});
  charged_chat(self, std::move(call), [self, tid](ChargedCallResult r) {
    auto& s = self->state;
    if (!s.task || s.task->id != tid) return;
    if (r.refused) {
      step(self, "refusal", json{{"error", r.error}, {"call", "ceo_model"}});
      emit(self, "refusal", r.error);
      return finish(self, false,
                    "The CEO's own model call was refused: " + r.error +
                        ". Authorise an increase (kaisha budget --raise-expense USD) and retry.");
    }
    if (!r.ok) {
      step(self, "error", json{{"error", r.error}, {"call", "ceo_model"}});
      return finish(self, false, "The CEO's model call failed: " + r.error);
    }
    const llm::Usage u = r.response.usage;
    s.task->expense += r.expense;
    s.task->tokens_in += u.input_tokens;
    s.task->tokens_out += u.output_tokens;
    emit(self, "usage",
         "CEO model call: " + std::to_string(u.input_tokens) + " in / " + std::to_string(u.output_tokens) +
             " out tokens",
         json{{"input_tokens", u.input_tokens}, {"output_tokens", u.output_tokens}, {"estimated", u.estimated},
              {"expense", r.expense}, {"budget", r.budget.to_json()}});
    on_model_answer(self, r.response);
  });
}

// ---------------------------------------------------------------- CEO tools

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

EmployeeDeps employee_deps(Self* self, const msg::AgentSpec& spec) {
  auto& st = self->state;
  EmployeeDeps d = employee_deps_from(st.deps.config, st.deps.model_client, st.deps.journal, st.deps.progress);
  // Tools only for an employee granted some (employee.tools); the others
  // keep the single-call path.
  d.grant = company::grant_for(st.deps.config.employee.tools, spec.name, spec.base_model);
  if (!d.grant.empty()) {
    d.tool_providers = st.deps.tool_providers;
    d.tool_costs = st.deps.config.tools.costs;
    d.ledger = st.deps.ledger;
    d.max_tool_iterations = st.deps.config.employee.max_tool_iterations;
    d.max_malformed_tool_calls = st.deps.config.employee.max_malformed_tool_calls;
  }
  return d;
}

// Starts a hired employee: in this process, or where the placer puts it.
Result<caf::actor> start_employee(Self* self, const msg::AgentSpec& spec) {
  auto& st = self->state;
  if (!st.deps.placer) return spawn_employee(self->system(), spec, employee_deps(self, spec));
  return st.deps.placer->place(self->system(), spec, employee_deps(self, spec));
}

std::string switch_refusal(Self* self, const msg::AgentSpec& spec) {
  const auto& sw = self->state.switches;
  if (spec.type == "local" && !sw.local_agents) return texts::kLocalInvocationDisabled;
  if (spec.type != "local" && !sw.cloud_agents) return texts::kCloudInvocationDisabled;
  return {};
}

void tool_get_budget(Self* self, const json&, ToolDone done) {
  self->request(self->state.deps.ledger, caf::infinite, budget_atom::value)
      .then([=](LedgerReply& r) {
        ToolResult res = ToolResult::success("Budget retrieved", r.view);
        res.extra = r.view;
        done(std::move(res));
      });
}

void tool_get_agents(Self* self, const json&, ToolDone done) {
  json agents = self->state.roster.to_json();
  ToolResult r = ToolResult::success(agents.empty() ? "No agents are hired" : "Agents retrieved", agents);
  r.extra = json{{"agents", agents}};
  done(std::move(r));
}

void tool_cost_manager(Self* self, const json&, ToolDone done) {
  done(ToolResult::success("Costs retrieved", self->state.deps.cost_table->to_json()));
}

void tool_agent_creator(Self* self, const json& args, ToolDone done) {
  auto& st = self->state;
  if (!st.switches.agent_creation) return done(ToolResult::error(texts::kAgentCreationDisabled));
  msg::AgentSpec spec;
  spec.name = args.value("agent_name", "");
  spec.base_model = args.value("base_model", "");
  spec.system_prompt = args.value("system_prompt", "");
  spec.description = args.value("description", "");
  if (Status s = st.roster.check_new(spec.name); !s.ok()) return done(ToolResult::error(s.error().message));
  const economy::ModelCost* cost = st.deps.cost_table->find(spec.base_model);
  if (!cost) return done(ToolResult::error(texts::model_not_found(spec.base_model)));
  spec.base_model = cost->name;
  spec.model_ref = cost->model_ref;
  spec.type = cost->type;
  spec.costs = economy::spec_costs_json(*cost);
  if (std::string no = switch_refusal(self, spec); !no.empty()) return done(ToolResult::error(no));
  if (Status s = st.deps.backend->check_model(spec.model_ref); !s.ok())
    return done(ToolResult::error("Model " + spec.base_model + " cannot be used: " + s.error().message));
  if (st.deps.placer) {
    // Tools run where their providers are, in this process; an employee the
    // cluster may place on another node cannot have them (yet).
    if (auto g = company::grant_for(st.deps.config.employee.tools, spec.name, spec.base_model); !g.empty())
      return done(ToolResult::error("Agent " + spec.name + " cannot be created: employee.tools grants it tools (" +
                                    json(g.entries()).dump() + "), and employees with tools cannot run on cluster "
                                    "nodes yet. Remove the grant or run without a cluster."));
    if (Status s = st.deps.placer->check(spec); !s.ok()) return done(ToolResult::error(s.error().message));
  }
  // Hold the name while the ledger decides, so a second AgentCreator with
  // the same name in the same turn is refused; drop it if the hire is refused.
  st.roster.add(spec);
  const std::string tid = task_id(self);
  const economy::ModelCost hired = *cost;  // the table may change while the ledger decides
  self->request(st.deps.ledger, caf::infinite, hire_atom::value, hired, spec.name, tid)
      .then([=](LedgerReply& r) {
        auto& s = self->state;
        if (!r.ok) {
          s.roster.remove(spec.name);
          step(self, "refusal", json{{"tool", "AgentCreator"}, {"agent", spec.name}, {"error", r.error}});
          emit(self, "refusal", r.error, json{{"agent", spec.name}});
          return done(ToolResult::error(r.error));
        }
        add_expense(self, tid, hired.create_expense_cost);
        auto started = start_employee(self, spec);
        if (!started.ok()) {
          // Placement changed since check(): give the resources back.
          s.roster.remove(spec.name);
          const std::string why = started.error().message;
          self->request(s.deps.ledger, caf::infinite, fire_atom::value, hired, spec.name, tid)
              .then([=](LedgerReply&) { done(ToolResult::error(why)); });
          return;
        }
        s.employees[spec.name] = *started;
        journal_agent_hired(s.deps.journal, s.deps.session_id, spec);
        step(self, "hire", json{{"agent", spec.name}, {"base_model", spec.base_model},
                                {"model_ref", spec.model_ref}, {"type", spec.type}, {"costs", spec.costs}});
        emit(self, "hire", spec.name + " (" + spec.base_model + ", " + spec.type + ")",
             json{{"agent", spec.name}, {"base_model", spec.base_model}, {"type", spec.type},
                  {"budget", r.budget.to_json()}});
        ToolResult res = ToolResult::success("Agent " + spec.name + " created");
        res.extra = remaining_budgets(r.budget);
        done(std::move(res));
      });
}

void tool_ask_agent(Self* self, const json& args, ToolDone done) {
  auto& st = self->state;
  const std::string name = args.value("agent_name", "");
  const std::string prompt = args.value("prompt", "");
  const msg::AgentSpec* found = st.roster.find(name);
  auto emp = st.employees.find(name);
  if (!found || emp == st.employees.end()) return done(ToolResult::error(texts::agent_not_found(name)));
  const msg::AgentSpec& spec = *found;  // read only here, not in the continuation: no copy
  if (std::string no = switch_refusal(self, spec); !no.empty()) return done(ToolResult::error(no));
  const economy::ModelCost cost = cost_of(spec);
  const std::string tid = task_id(self);
  ChargedAsk ask;
  ask.ledger = st.deps.ledger;
  ask.employee = emp->second;
  ask.timeout = model_call_timeout(st.deps.config);
  ask.cost = cost;
  ask.agent = name;
  ask.ask = msg::AskRequest{st.deps.session_id, tid, prompt, st.deps.config.employee.max_output_tokens, ""};
  ask.ask.input_token_bound = llm::ask_input_token_bound(spec.system_prompt, prompt);
  if (listening(self)) emit(self, "ask", "CEO -> " + name + ": " + prompt, json{{"agent", name}, {"prompt", prompt}});
  // No "ask" step: the tool_call step journaled just before holds the agent
  // and the prompt (one SQLite row less per ask).
  charged_ask(self, std::move(ask), [=](ChargedAskResult r) {
    auto& s = self->state;
    if (r.refused) {
      step(self, "refusal", json{{"tool", "AskAgent"}, {"agent", name}, {"error", r.error}});
      emit(self, "refusal", r.error, json{{"agent", name}});
      return done(ToolResult::error(r.error));
    }
    if (!r.ok) {
      emit(self, "error", name + " failed: " + r.error, json{{"agent", name}});
      return done(ToolResult::error("Agent " + name + " failed to answer: " + r.error));
    }
    // An employee with tools charged its further calls and tools itself (extra_*).
    llm::Usage u = r.reply.usage;
    u.input_tokens += r.reply.extra_usage.input_tokens;
    u.output_tokens += r.reply.extra_usage.output_tokens;
    r.expense += r.reply.extra_expense;
    add_expense(self, tid, r.expense);
    if (s.task && s.task->id == tid) {
      s.task->tokens_in += u.input_tokens;
      s.task->tokens_out += u.output_tokens;
    }
    // The text itself is in the tool_result step that follows (and in the
    // employee's llm_response): this row carries what the call cost.
    step(self, "answer", json{{"agent", name}, {"chars", r.reply.output.size()}}, u.input_tokens, u.output_tokens,
         r.expense, name);
    if (listening(self))
      emit(self, "answer", name + ": " + r.reply.output,
         json{{"agent", name}, {"input_tokens", u.input_tokens}, {"output_tokens", u.output_tokens},
              {"expense", r.expense}, {"latency_ms", r.reply.latency_ms}, {"budget", r.budget.to_json()}},
         name);
    ToolResult res = ToolResult::success("Agent " + name + " answered", r.reply.output);
    res.extra = remaining_budgets(r.budget);
    done(std::move(res));
  });
}

void tool_fire_agent(Self* self, const json& args, ToolDone done) {
  auto& st = self->state;
  const std::string name = args.value("agent_name", "");
  const msg::AgentSpec* found = st.roster.find(name);
  if (!found || !st.employees.count(name)) return done(ToolResult::error(texts::agent_not_found(name)));
  const msg::AgentSpec spec = *found;
  const std::string tid = task_id(self);
  self->request(st.deps.ledger, caf::infinite, fire_atom::value, cost_of(spec), name, tid)
      .then([=](LedgerReply& r) {
        auto& s = self->state;
        if (!r.ok) return done(ToolResult::error(r.error));
        if (auto it = s.employees.find(name); it != s.employees.end()) {
          self->send_exit(it->second, caf::exit_reason::user_shutdown);
          s.employees.erase(it);
        }
        s.roster.remove(name);
        journal_agent_fired(s.deps.journal, s.deps.session_id, name);
        step(self, "fire", json{{"agent", name}});
        emit(self, "fire", name, json{{"agent", name}, {"budget", r.budget.to_json()}});
        ToolResult res = ToolResult::success("Agent " + name + " fired");
        res.extra = remaining_budgets(r.budget);
        done(std::move(res));
      });
}

void register_tools(Self* self) {
  auto& st = self->state;
  std::map<std::string, void (*)(Self*, const json&, ToolDone)> handlers = {
      {"AgentCreator", tool_agent_creator}, {"AskAgent", tool_ask_agent},
      {"FireAgent", tool_fire_agent},       {"GetAgents", tool_get_agents},
      {"AgentCostManager", tool_cost_manager}, {"GetBudget", tool_get_budget},
  };
  for (const auto& spec : st.deps.tool_specs) {
    auto h = handlers.find(spec.name);
    if (h == handlers.end()) continue;
    auto fn = h->second;
    st.own_tools.insert(spec.name);
    st.tools.add({spec, [self, fn](const json& args, ToolDone done) { fn(self, args, std::move(done)); }, "builtin", {}});
  }
}

bool set_switch(config::Switches& sw, const std::string& name, bool on) {
  std::map<std::string, bool*> by_name = {
      {"agent_creation", &sw.agent_creation}, {"local_agents", &sw.local_agents},
      {"cloud_agents", &sw.cloud_agents},     {"tool_creation", &sw.tool_creation},
      {"tool_invocation", &sw.tool_invocation}, {"resource_budget", &sw.resource_budget},
      {"economy_budget", &sw.economy_budget}, {"memory", &sw.memory}};
  auto it = by_name.find(name);
  if (it == by_name.end()) return false;
  *it->second = on;
  return true;
}

caf::behavior ceo(Self* self, CeoDeps deps) {
  auto& st = self->state;
  st.deps = std::move(deps);
  st.switches = st.deps.config.switches;
  company::ConversationLimits limits{st.deps.config.ceo.max_turns, st.deps.config.ceo.max_malformed_tool_calls};
  st.conversation = std::make_unique<company::Conversation>(st.deps.system_prompt, limits);
  register_tools(self);
  st.provider_tools = std::make_unique<ProviderTools>(
      st.deps.tool_providers, st.deps.ledger, st.deps.config.tools.costs, [self] {
        auto& s = self->state;
        const std::string tid = s.task ? s.task->id : "";
        return ProviderTools::CallSite{company::ToolCallContext{s.deps.session_id, tid, kCeo},
                                       [self, tid](double usd) { add_expense(self, tid, usd); }};
      });
  for (const auto& spec : st.deps.restored_agents) {
    st.roster.add(spec);
    auto started = start_employee(self, spec);
    if (started.ok()) st.employees[spec.name] = *started;
  }
  // Employees are not linked to the CEO (firing one must not take the CEO
  // down), so the CEO stops them itself when it is told to exit.
  self->set_exit_handler([self](caf::exit_msg& msg) {
    for (auto& [_, e] : self->state.employees) self->send_exit(e, msg.reason);
    self->state.employees.clear();
    self->quit(msg.reason);
  });
  self->set_exception_handler([self](std::exception_ptr& e) -> caf::error {
    const std::string why = describe_handler_failure("the CEO", e);
    fail_after_exception(self, why);
    return handler_failure_error(why);
  });
  return {
      [=](task_atom, msg::TaskRequest& req) -> caf::result<msg::TaskResult> {
        auto& s = self->state;
        auto promise = self->make_response_promise<msg::TaskResult>();
        if (s.task) {
          msg::TaskResult busy;
          busy.task_id = req.task_id;
          busy.ok = false;
          busy.error = "the CEO is still working on task " + s.task->id;
          promise.deliver(std::move(busy));
          return promise;
        }
        CurrentTask t;
        t.id = req.task_id;
        t.started_ms = steady_ms();
        t.promise = promise;
        t.input = req.input;
        if (s.deps.judge)
          t.audit = std::make_unique<planning::AuditLoop>(
              req.input, planning::AuditLimits{s.deps.config.effgen.max_judge_retries});
        s.task = std::move(t);
        s.conversation->add_user(req.input);
        emit(self, "task", req.input);
        if (!s.deps.recall || !s.switches.memory) {
          call_model(self);
          return promise;
        }
        // Memories first: retrieval may wait for an embedding model, so its
        // answer comes back as a message.
        caf::actor me = caf::actor_cast<caf::actor>(self);
        const std::string tid = req.task_id;
        s.deps.recall(req.input, [me, tid](json r) { caf::anon_send(me, recall_atom::value, tid, std::move(r)); });
        return promise;
      },
      [=](recall_atom, const std::string& tid, json& r) {
        auto& s = self->state;
        if (!s.task || s.task->id != tid) return;
        inject_memories(self, r);
        call_model(self);
      },
      [=](tool_atom, const std::string& name, const std::string& arguments) -> caf::result<json> {
        // One CEO tool called directly (protocol adapters, benchmarks, ops):
        // the same registry, checks and ledgers as a model's tool call.
        auto promise = self->make_response_promise<json>();
        const uint64_t ticket = self->state.direct_calls.add(
            [promise](const std::string& why) mutable { promise.deliver(ToolResult::error(why).to_json()); });
        // Asking every provider for its specs costs more than an AskAgent's
        // own work on the CEO; only a provider's tool can have changed.
        if (!self->state.own_tools.count(name)) sync_providers(self);
        step(self, "tool_call", json{{"tool", name}, {"arguments", arguments}, {"direct", true}});
        self->state.tools.invoke(name, arguments, std::nullopt, [=](ToolResult r) mutable {
          json j = r.to_json();
          step(self, "tool_result", json{{"tool", name}, {"result", j}, {"direct", true}});
          self->state.direct_calls.done(ticket);
          promise.deliver(std::move(j));
        });
        return promise;
      },
      [=](cancel_atom, const std::string& tid, const std::string& why) {
        // In-flight calls are abandoned: their results find no task and are
        // dropped, while the ledger still settles what they cost.
        auto& s = self->state;
        if (!s.task || s.task->id != tid) return false;
        s.task->canceled = true;
        step(self, "note", json{{"canceled", why}});
        finish(self, false, why);
        return true;
      },
      [=](tool_done_atom, uint64_t id, company::ToolResult& r) {
        self->state.provider_tools->on_done(id, std::move(r));
      },
      [=](switch_atom, const std::string& name, bool on) {
        auto& s = self->state;
        const bool known = set_switch(s.switches, name, on);
        if (name == "resource_budget") self->send(s.deps.ledger, switch_atom::value, std::string("resource"), on);
        if (name == "economy_budget") self->send(s.deps.ledger, switch_atom::value, std::string("expense"), on);
        return known;
      },
  };
}

}  // namespace

caf::actor spawn_ceo(caf::actor_system& sys, CeoDeps deps) { return sys.spawn(ceo, std::move(deps)); }

}  // namespace kaisha::actors
