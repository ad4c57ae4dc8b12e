#include "actors/ceo_actor.hpp"

#include <map>
#include <set>
#include <utility>

#include "actors/atoms.hpp"
#include "actors/handler_failure.hpp"
#include "actors/provider_tools.hpp"
#include "actors/strategy_kit.hpp"
#include "runtime/company/conversation.hpp"
#include "runtime/company/hashiru_texts.hpp"
#include "runtime/company/reply_call_order.hpp"
#include "runtime/company/tool_registry.hpp"
#include "runtime/core/json_text.hpp"

namespace kaisha::actors {
namespace {

using company::ToolDone;
using company::ToolResult;
namespace texts = company::texts;

struct CeoState {
  CeoDeps deps;
  std::unique_ptr<StrategyKit> kit;  // the task, the employees, the charged calls
  std::unique_ptr<company::Conversation> conversation;
  company::ToolRegistry tools;
  // The HASHIRU six, registered by the CEO itself: no provider can replace
  // them, so a direct call to one needs no provider sync first.
  std::set<std::string> own_tools;
  config::Switches switches;
  // The running task's audit of its final answer, when the judge audits them.
  std::unique_ptr<planning::AuditLoop> audit;
  // The judge's final rejection while the CEO writes its critique memory:
  // the task then ends with this text whatever the reflection turn does.
  std::string rejected;
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

StrategyKit& kit(Self* self) { return *self->state.kit; }

json remaining_budgets(const economy::BudgetSummary& budget) {
  return json{{"remaining_resource_budget", budget.current_remaining_resource_budget},
              {"remaining_expense_budget", budget.current_remaining_expense_budget}};
}

// A rejection the CEO reflected on ends the task with the judge's text
// (unless the task was canceled meanwhile).
void finish(Self* self, bool ok, const std::string& text) {
  auto& st = self->state;
  if (!st.kit->running()) return;
  const bool rejected = !st.rejected.empty();
  const bool canceled = st.kit->task().canceled;
  st.kit->finish(ok && !rejected, rejected && !canceled ? st.rejected : text);
  st.audit.reset();
  st.rejected.clear();
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

ModelRole ceo_role(Self* self) { return {kCeo, self->state.deps.config.ceo.model, ceo_cost(self)}; }

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
    kit(self).step("error", json{{"error", r["error"]}, {"call", "memory_retrieval"}});
    kit(self).emit("error", "memory retrieval failed: " + r["error"].get<std::string>());
    return;
  }
  const json memories = r.value("memories", json::array());
  if (memories.empty()) return;
  st.conversation->add_user(r.value("injection", ""));
  kit(self).step("note", json{{"memories", memories}});
  kit(self).emit("memories", r.value("transcript", ""), json{{"memories", memories}});
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
  if (kit(self).listening())
    kit(self).emit("tool_call", "Invoking `" + call.name + "` with " + call.arguments,
                   json{{"tool", call.name}, {"arguments", call.arguments}, {"call_id", call.id}});
  kit(self).step("tool_call", json{{"tool", call.name}, {"arguments", call.arguments}, {"call_id", call.id}});
  st.tools.invoke(call.name, call.arguments, std::nullopt, [self, i, reply, tid](ToolResult r) {
    auto& s = self->state;
    if (!s.kit->current(tid)) return;  // task already ended
    const llm::ToolCall& c = reply->calls[i];
    json j = r.to_json();
    if (kit(self).listening())
      kit(self).emit("tool_result", "Tool responded with " + dump_text(j),
                     json{{"tool", c.name}, {"result", j}, {"call_id", c.id}});
    kit(self).step("tool_result", json{{"tool", c.name}, {"result", j}, {"call_id", c.id}});
    reply->results[i] = std::move(j);
    for (size_t next : reply->order.finished(i)) start_tool_call(self, reply, next, tid);
    if (--reply->remaining > 0) return;
    for (size_t k = 0; k < reply->calls.size(); ++k) s.conversation->add_tool_result(reply->calls[k], reply->results[k]);
    call_model(self);
  });
}

void run_tools(Self* self, std::vector<llm::ToolCall> calls) {
  auto reply = std::make_shared<ReplyInFlight>(std::move(calls));
  const std::string tid = kit(self).task_id();
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
  st.rejected = "The judge rejected the final answer: " + report.error_information;
  kit(self).step("note", memory::ErrorReflection::verdict_note(why, "judge"));
  kit(self).emit("reflection", "the judge rejected the answer; the CEO writes a critique into memory",
                 json{{"why", why}});
  st.conversation->add_user(st.deps.error_reflection->prompt(st.kit->task().input, report.claimed_result, why));
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
  switch (s.kind) {
    case planning::AuditStep::Kind::deliver:
      if (s.report.status == planning::VerdictStatus::success) return finish(self, true, s.report.output);
      if (reflect_on_rejection(self, s.report)) return;
      return finish(self, false, "The judge rejected the final answer: " + s.report.error_information);
    case planning::AuditStep::Kind::retry:
      kit(self).emit("retry", "the judge rejected the answer; answering again");
      st.conversation->add_user(s.feedback);
      return call_model(self);
    case planning::AuditStep::Kind::ask_judge:
      st.kit->audit(kCeo, st.kit->task().input, s.claimed_result, [self](AuditOutcome o) {
        if (o.kind == AuditOutcome::Kind::judge_failed)
          return finish(self, false, "The judge could not audit the answer: " + o.error);
        if (o.kind == AuditOutcome::Kind::no_answer) return finish(self, false, "The judge did not answer: " + o.error);
        audit_answer(self, self->state.audit->on_verdict(o.verdict));
      });
      return;
  }
}

void on_model_answer(Self* self, const llm::ChatResponse& response) {
  auto& st = self->state;
  company::NextStep next = st.conversation->on_response(response);
  json tool_calls = json::array();
  for (const auto& c : response.message.tool_calls)
    tool_calls.push_back({{"id", c.id}, {"name", c.name}, {"arguments", c.arguments}});
  kit(self).step("llm_response",
                 json{{"text", response.message.content},
                      {"tool_calls", std::move(tool_calls)},
                      {"usage_estimated", response.usage.estimated}},
                 response.usage.input_tokens, response.usage.output_tokens);
  switch (next.kind) {
    case company::NextStep::Kind::answer:
      if (!st.rejected.empty()) return finish(self, false, next.text);  // the critique is written
      if (st.audit) return audit_answer(self, st.audit->on_claim(next.text));
      finish(self, true, next.text);
      return;
    case company::NextStep::Kind::fail:
      kit(self).step("error", json{{"error", next.text}});
      finish(self, false, "CEO stopped: " + next.text);
      return;
    case company::NextStep::Kind::run_tools:
      if (!next.text.empty()) kit(self).emit("thinking", next.text);
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
  const std::string tid = st.kit->task_id();
  llm::ChatRequest request;
  request.messages = {{llm::Role::user, plan->prompt, {}, "", ""}};
  request.temperature = st.deps.config.ceo.temperature;
  request.max_tokens = kSummaryMaxOutputTokens;
  st.kit->call_model(ceo_role(self), std::move(request), true, [self, tid, p = *plan](ChargedCallResult r) {
    auto& s = self->state;
    if (!s.kit->current(tid)) return;
    s.summary_checked = true;
    const llm::Usage u = r.response.usage;
    std::string failed = r.ok ? "" : r.error;
    if (r.ok && r.response.message.content.find_first_not_of(" \t\r\n") == std::string::npos)
      failed = "the model returned an empty summary";
    Result<memory::SummaryEvent> ev = failed.empty()
        ? s.deps.summarizer->apply(*s.conversation, p, r.response.message.content)
        : Result<memory::SummaryEvent>(Error{"memory", failed});
    if (!ev.ok()) {
      kit(self).step("error", json{{"error", ev.error().message}, {"call", "summary"}}, u.input_tokens,
                     u.output_tokens, r.expense);
      kit(self).emit("error", "could not summarise the conversation: " + ev.error().message);
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
    kit(self).step("note", event, u.input_tokens, u.output_tokens, r.expense);
    kit(self).emit("summary",
                   "conversation summarised: " + std::to_string(ev->messages_replaced) + " messages, " +
                       std::to_string(p.conversation_tokens) + " -> " + std::to_string(after) + " tokens",
                   event);
    call_model(self);
  });
  return true;
}

void call_model(Self* self) {
  auto& st = self->state;
  if (!st.kit->running()) return;
  if (summarize_first(self)) return;
  sync_providers(self);
  const std::string tid = st.kit->task_id();
  const ModelRole role = ceo_role(self);
  llm::ChatRequest request =
      st.conversation->request(st.tools.specs(), st.deps.config.ceo.temperature, kCeoMaxOutputTokens);
  request.stream = st.deps.config.ceo.stream;
  st.kit->step("llm_request", json{{"model_ref", role.model_ref},
                                   {"messages", request.messages.size()},
                                   {"last_message", request.messages.back().content},
                                   {"tools", request.tools.size()}});
  st.kit->call_model(role, std::move(request), true, [self, tid](ChargedCallResult r) {
    if (!kit(self).current(tid)) return;
    if (r.refused) {
      kit(self).step("refusal", json{{"error", r.error}, {"call", "ceo_model"}});
      kit(self).emit("refusal", r.error);
      return finish(self, false,
                    "The CEO's own model call was refused: " + r.error +
                        ". Authorise an increase (kaisha budget --raise-expense USD) and retry.");
    }
    if (!r.ok) {
      kit(self).step("error", json{{"error", r.error}, {"call", "ceo_model"}});
      return finish(self, false, "The CEO's model call failed: " + r.error);
    }
    const llm::Usage u = r.response.usage;
    kit(self).emit("usage",
                   "CEO model call: " + std::to_string(u.input_tokens) + " in / " + std::to_string(u.output_tokens) +
                       " out tokens",
                   json{{"input_tokens", u.input_tokens}, {"output_tokens", u.output_tokens},
                        {"estimated", u.estimated}, {"expense", r.expense}, {"budget", r.budget.to_json()}});
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
  EmployeeDeps d = st.kit->employee_deps();
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
  json agents = kit(self).roster().to_json();
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
  if (Status s = st.kit->roster().check_new(spec.name); !s.ok()) return done(ToolResult::error(s.error().message));
  const economy::ModelCost* cost = st.deps.cost_table->find(spec.base_model);
  if (!cost) return done(ToolResult::error(texts::model_not_found(spec.base_model)));
  spec.base_model = cost->name;
  spec.model_ref = cost->model_ref;
  spec.type = cost->type;
  spec.costs = economy::spec_costs_json(*cost);
  if (std::string no = switch_refusal(self, spec); !no.empty()) return done(ToolResult::error(no));
  if (Status s = st.deps.backend->check_model(spec.model_ref); !s.ok())
    return done(ToolResult::error("Model " + spec.base_model + " cannot be used: " + s.error().message));
  // Tools run where their providers are, in this process; an employee the
  // cluster may place on another node cannot have them (yet).
  if (st.deps.placer) {
    if (auto g = company::grant_for(st.deps.config.employee.tools, spec.name, spec.base_model); !g.empty())
      return done(ToolResult::error("Agent " + spec.name + " cannot be created: employee.tools grants it tools (" +
                                    json(g.entries()).dump() + "), and employees with tools cannot run on cluster "
                                    "nodes yet. Remove the grant or run without a cluster."));
  }
  // *cost, not the table's row: the table may change while the ledger decides.
  st.kit->hire(spec, *cost, Tenure::session, employee_deps(self, spec), [self, spec, done](HireResult h) {
    if (h.refused) {
      kit(self).step("refusal", json{{"tool", "AgentCreator"}, {"agent", spec.name}, {"error", h.error}});
      kit(self).emit("refusal", h.error, json{{"agent", spec.name}});
    }
    if (!h.ok) return done(ToolResult::error(h.error));
    kit(self).step("hire", json{{"agent", spec.name}, {"base_model", spec.base_model}, {"model_ref", spec.model_ref},
                                {"type", spec.type}, {"costs", spec.costs}});
    kit(self).emit("hire", spec.name + " (" + spec.base_model + ", " + spec.type + ")",
                   json{{"agent", spec.name}, {"base_model", spec.base_model}, {"type", spec.type},
                        {"budget", h.budget.to_json()}});
    ToolResult res = ToolResult::success("Agent " + spec.name + " created");
    res.extra = remaining_budgets(h.budget);
    done(std::move(res));
  });
}

void tool_ask_agent(Self* self, const json& args, ToolDone done) {
  auto& st = self->state;
  const std::string name = args.value("agent_name", "");
  const std::string prompt = args.value("prompt", "");
  const msg::AgentSpec* found = st.kit->roster().find(name);
  if (!found || !st.kit->hired(name)) return done(ToolResult::error(texts::agent_not_found(name)));
  if (std::string no = switch_refusal(self, *found); !no.empty()) return done(ToolResult::error(no));
  if (st.kit->listening())
    st.kit->emit("ask", "CEO -> " + name + ": " + prompt, json{{"agent", name}, {"prompt", prompt}});
  // No "ask" step: the tool_call step journaled just before holds the agent
  // and the prompt (one SQLite row less per ask).
  st.kit->ask(name, prompt, "", true, [=](ChargedAskResult r) {
    if (r.refused) {
      kit(self).step("refusal", json{{"tool", "AskAgent"}, {"agent", name}, {"error", r.error}});
      kit(self).emit("refusal", r.error, json{{"agent", name}});
      return done(ToolResult::error(r.error));
    }
    if (!r.ok) {
      kit(self).emit("error", name + " failed: " + r.error, json{{"agent", name}});
      return done(ToolResult::error("Agent " + name + " failed to answer: " + r.error));
    }
    const llm::Usage u = ask_usage(r.reply);
    // The text itself is in the tool_result step that follows (and in the
    // employee's llm_response): this row carries what the call cost.
    kit(self).step("answer", json{{"agent", name}, {"chars", r.reply.output.size()}}, u.input_tokens,
                   u.output_tokens, r.expense, name);
    if (kit(self).listening())
      kit(self).emit("answer", name + ": " + r.reply.output,
                     json{{"agent", name}, {"input_tokens", u.input_tokens}, {"output_tokens", u.output_tokens},
                          {"expense", r.expense}, {"latency_ms", r.reply.latency_ms}, {"budget", r.budget.to_json()}},
                     name);
    ToolResult res = ToolResult::success("Agent " + name + " answered", r.reply.output);
    res.extra = remaining_budgets(r.budget);
    done(std::move(res));
  });
}

void tool_fire_agent(Self* self, const json& args, ToolDone done) {
  const std::string name = args.value("agent_name", "");
  const bool firing = kit(self).roster().find(name) &&
                      kit(self).fire(name, [=](bool ok, std::string error, economy::BudgetSummary budget) {
                        if (!ok) return done(ToolResult::error(error));
                        kit(self).step("fire", json{{"agent", name}});
                        kit(self).emit("fire", name, json{{"agent", name}, {"budget", budget.to_json()}});
                        ToolResult res = ToolResult::success("Agent " + name + " fired");
                        res.extra = remaining_budgets(budget);
                        done(std::move(res));
                      });
  if (!firing) done(ToolResult::error(texts::agent_not_found(name)));
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
  st.kit = std::make_unique<StrategyKit>(self, kit_deps_of(st.deps, kCeo, "the CEO"));
  st.switches = st.deps.config.switches;
  company::ConversationLimits limits{st.deps.config.ceo.max_turns, st.deps.config.ceo.max_malformed_tool_calls};
  st.conversation = std::make_unique<company::Conversation>(st.deps.system_prompt, limits);
  register_tools(self);
  st.provider_tools = std::make_unique<ProviderTools>(
      st.deps.tool_providers, st.deps.ledger, st.deps.config.tools.costs, [self] {
        auto& s = self->state;
        const std::string tid = s.kit->task_id();
        return ProviderTools::CallSite{company::ToolCallContext{s.deps.session_id, tid, kCeo},
                                       [self, tid](double usd) { kit(self).account(tid, {}, usd); }};
      });
  for (const auto& spec : st.deps.restored_agents) st.kit->rehire(spec, cost_of(spec), employee_deps(self, spec));
  // Employees are not linked to the CEO (firing one must not take the CEO
  // down), so the CEO stops them itself when it is told to exit.
  self->set_exit_handler([self](caf::exit_msg& msg) {
    kit(self).stop_all(msg.reason);
    self->quit(msg.reason);
  });
  st.kit->fail_on_exception([self](const std::string& why) { self->state.direct_calls.fail_all(why); });
  return {
      [=](task_atom, msg::TaskRequest& req) -> caf::result<msg::TaskResult> {
        auto& s = self->state;
        auto promise = self->make_response_promise<msg::TaskResult>();
        if (!s.kit->start(req, promise)) return promise;
        s.audit = s.deps.judge ? std::make_unique<planning::AuditLoop>(
                                     req.input, planning::AuditLimits{s.deps.config.effgen.max_judge_retries})
                               : nullptr;
        s.rejected.clear();
        s.conversation->add_user(req.input);
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
        if (!kit(self).current(tid)) return;
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
        kit(self).step("tool_call", json{{"tool", name}, {"arguments", arguments}, {"direct", true}});
        self->state.tools.invoke(name, arguments, std::nullopt, [=](ToolResult r) mutable {
          json j = r.to_json();
          kit(self).step("tool_result", json{{"tool", name}, {"result", j}, {"direct", true}});
          self->state.direct_calls.done(ticket);
          promise.deliver(std::move(j));
        });
        return promise;
      },
      [=](cancel_atom, const std::string& tid, const std::string& why) {
        // In-flight calls are abandoned: their results find no task and are
        // dropped, while the ledger still settles what they cost.
        if (!kit(self).cancel(tid, why)) return false;
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
