#include "runtime/hashiru/hashiru_driver.hpp"

#include <utility>

#include "runtime/hashiru/hashiru_texts.hpp"
#include "runtime/company/reply_call_order.hpp"
#include "runtime/company/tool_error_class.hpp"
#include "runtime/company/tool_grants.hpp"
#include "runtime/core/json_text.hpp"
#include "runtime/driver/recalled_memories.hpp"
#include "runtime/messages/ask_usage.hpp"

namespace kaisha::hashiru {
namespace {

using company::ToolDone;
using company::ToolResult;
namespace texts = company::texts;

constexpr const char* kCeo = "CEO";  // the producer the judge audits
constexpr int64_t kCeoMaxOutputTokens = 4096;
constexpr int64_t kSummaryMaxOutputTokens = 1024;

// The remaining budgets a hire, an ask or a fire returns with its result,
// out of the six GetBudget numbers.
json remaining_budgets(const json& budget) {
  return json{{"remaining_resource_budget", budget.value("current_remaining_resource_budget", 0.0)},
              {"remaining_expense_budget", budget.value("current_remaining_expense_budget", 0.0)}};
}

}  // namespace

struct HashiruDriver::ReplyRun {
  std::vector<llm::ToolCall> calls;
  std::vector<json> results;
  size_t remaining;
  company::ReplyCallOrder order;
  explicit ReplyRun(std::vector<llm::ToolCall> c)
      : calls(std::move(c)), results(calls.size()), remaining(calls.size()), order(calls) {}
};

HashiruDriver::HashiruDriver(HashiruSetup setup)
    : setup_(std::move(setup)), switches_(setup_.switches), conversation_(setup_.system_prompt, setup_.limits) {
  register_own_tools();
}

template <class T>
driver::CallId HashiruDriver::expect(std::function<void(const T&)> then) {
  return pending_.expect<T>(std::move(then), scope_);
}

void HashiruDriver::step(msg::EventKind kind, json payload, int64_t in, int64_t out, double usd, std::string agent) {
  out_.push_back(driver::Journal{kind, std::move(payload), in, out, usd, std::move(agent)});
}

driver::Report& HashiruDriver::report(msg::EventKind kind, std::string text, json data, std::string agent) {
  out_.push_back(driver::Report{kind, std::move(text), std::move(data), std::move(agent)});
  return std::get<driver::Report>(out_.back());
}

// ------------------------------------------------------------------- tasks

driver::Effects HashiruDriver::start(const std::string& input) {
  drop_task_effects();  // of a task that failed without finishing here
  running_ = true;
  scope_ = ++task_;
  input_ = input;
  audit_ = setup_.audit ? std::make_unique<planning::AuditLoop>(input, planning::AuditLimits{setup_.max_judge_retries})
                        : nullptr;
  rejected_.clear();
  conversation_.add_user(input);
  if (setup_.recall && switches_.memory) {
    // Memories first: retrieval may wait for an embedding model.
    const driver::CallId id = expect<driver::Recalled>([this](const driver::Recalled& r) {
      recalled(r.memories);
      turn();
    });
    out_.push_back(driver::Recall{id, input});
  } else {
    turn();
  }
  return take();
}

driver::Effects HashiruDriver::on(const driver::Outcome& o) {
  // scope_ becomes the answered call's before its continuation makes effects.
  if (!pending_.deliver(o, &scope_)) return {};
  return take();
}

driver::Effects HashiruDriver::cancel(const std::string& why) {
  if (!running_) return {};
  scope_ = task_;
  rejected_.clear();  // a canceled task ends with why it was canceled
  finish(false, why);
  return take();
}

// A rejection the CEO reflected on ends the task with the judge's text.
void HashiruDriver::finish(bool ok, const std::string& text) {
  if (!running_) return;
  const bool rejected = !rejected_.empty();
  out_.push_back(driver::Finish{ok && !rejected, rejected ? rejected_ : text, json::object()});
  running_ = false;
  audit_.reset();
  rejected_.clear();
  drop_task_effects();
}

// What a task still waits for is forgotten once it has ended; direct calls go on.
void HashiruDriver::drop_task_effects() { pending_.drop_scoped(); }

// Retrieved memories go into the context as a user message, into the
// journal and into the transcript ("Memories: [...]"); a retrieval error is
// reported and the turn goes on without memories.
void HashiruDriver::recalled(const json& payload) {
  const driver::RecalledMemories r = driver::read_recalled(payload);
  if (!r.error.empty()) {
    step(msg::EventKind::error, json{{"error", r.error}, {"call", "memory_retrieval"}});
    report(msg::EventKind::error, "memory retrieval failed: " + r.error);
    return;
  }
  if (r.memories.empty()) return;
  conversation_.add_user(r.injection);
  step(msg::EventKind::note, json{{"memories", r.memories}});
  report(msg::EventKind::memories, r.transcript, json{{"memories", r.memories}});
}

// One call of the CEO's model with the conversation and every tool it may call.
void HashiruDriver::turn() {
  if (!running_) return;
  if (summarize_first()) return;
  std::vector<llm::ToolSpec> tools = own_tools_.specs();
  if (setup_.other_tools)
    for (llm::ToolSpec& t : setup_.other_tools()) tools.push_back(std::move(t));
  llm::ChatRequest request = conversation_.request({}, setup_.temperature, kCeoMaxOutputTokens);
  request.tools = std::move(tools);  // not copied: their schemas are JSON trees
  request.stream = setup_.stream;
  step(msg::EventKind::llm_request, json{{"model_ref", setup_.model_ref},
                                         {"messages", request.messages.size()},
                                         {"last_message", request.messages.back().content},
                                         {"tools", request.tools.size()}});
  const driver::CallId id = expect<driver::ModelAnswered>([this](const driver::ModelAnswered& a) { answered(a); });
  out_.push_back(driver::CallModel{id, "ceo_model", std::move(request), true});
}

// Short-term memory (effgen.md §8.1): a conversation that reached the
// threshold is summarised by the CEO's model before the next call — charged
// and journaled like any CEO call — which then goes out with the summary and
// the last messages. A summary that fails is reported and the call goes out
// unsummarised. True when a summary call was made.
bool HashiruDriver::summarize_first() {
  if (!setup_.summarizer || std::exchange(summary_checked_, false)) return false;
  auto plan = setup_.summarizer->plan(conversation_);
  if (!plan) return false;
  llm::ChatRequest request;
  request.messages = {{llm::Role::user, plan->prompt, {}, "", ""}};
  request.temperature = setup_.temperature;
  request.max_tokens = kSummaryMaxOutputTokens;
  const driver::CallId id =
      expect<driver::ModelAnswered>([this, p = *plan](const driver::ModelAnswered& a) { summarized(p, a); });
  out_.push_back(driver::CallModel{id, "summary", std::move(request), true});
  return true;
}

void HashiruDriver::summarized(const memory::ConversationSummaryPlan& p, const driver::ModelAnswered& a) {
  summary_checked_ = true;
  const llm::Usage u = a.response.usage;
  std::string failed = a.ok ? "" : a.error;
  if (a.ok && a.response.message.content.find_first_not_of(" \t\r\n") == std::string::npos)
    failed = "the model returned an empty summary";
  Result<memory::SummaryEvent> ev = failed.empty()
                                        ? setup_.summarizer->apply(conversation_, p, a.response.message.content)
                                        : Result<memory::SummaryEvent>(Error{"memory", failed});
  if (!ev.ok()) {
    step(msg::EventKind::error, json{{"error", ev.error().message}, {"call", "summary"}}, u.input_tokens,
         u.output_tokens, a.expense);
    report(msg::EventKind::error, "could not summarise the conversation: " + ev.error().message);
    return turn();
  }
  const int64_t after = setup_.summarizer->tokens(conversation_);
  json event{
      {"event", "SUMMARIZATION_TRIGGER"},           {"original_tokens", ev->original_tokens},
      {"summarized_tokens", ev->summarized_tokens}, {"reduction_ratio", ev->reduction_ratio},
      {"messages_replaced", ev->messages_replaced}, {"conversation_tokens_before", p.conversation_tokens},
      {"conversation_tokens_after", after},         {"context_tokens", setup_.summarizer->config().context_tokens}};
  step(msg::EventKind::note, event, u.input_tokens, u.output_tokens, a.expense);
  report(msg::EventKind::summary,
         "conversation summarised: " + std::to_string(ev->messages_replaced) + " messages, " +
             std::to_string(p.conversation_tokens) + " -> " + std::to_string(after) + " tokens",
         event);
  turn();
}

void HashiruDriver::answered(const driver::ModelAnswered& a) {
  if (a.refused) {
    step(msg::EventKind::refusal, json{{"error", a.error}, {"call", "ceo_model"}});
    report(msg::EventKind::refusal, a.error);
    return finish(false, "The CEO's own model call was refused: " + a.error +
                             ". Authorise an increase (kaisha budget --raise-expense USD) and retry.");
  }
  if (!a.ok) {
    step(msg::EventKind::error, json{{"error", a.error}, {"call", "ceo_model"}});
    return finish(false, "The CEO's model call failed: " + a.error);
  }
  const llm::Usage u = a.response.usage;
  report(
      msg::EventKind::usage,
      "CEO model call: " + std::to_string(u.input_tokens) + " in / " + std::to_string(u.output_tokens) + " out tokens",
      json{{"input_tokens", u.input_tokens},
           {"output_tokens", u.output_tokens},
           {"estimated", u.estimated},
           {"finish_reason", a.response.finish_reason},
           {"expense", a.expense},
           {"budget", a.budget}})
      .costing(u.input_tokens, u.output_tokens, a.expense);
  on_response(a.response);
}

void HashiruDriver::on_response(const llm::ChatResponse& response) {
  company::NextStep next = conversation_.on_response(response);
  json tool_calls = json::array();
  for (const auto& c : response.message.tool_calls)
    tool_calls.push_back({{"id", c.id}, {"name", c.name}, {"arguments", c.arguments}});
  step(msg::EventKind::llm_response,
       json{{"text", response.message.content},
            {"tool_calls", std::move(tool_calls)},
            {"usage_estimated", response.usage.estimated}},
       response.usage.input_tokens, response.usage.output_tokens);
  switch (next.kind) {
    case company::NextStep::Kind::answer:
      if (!rejected_.empty()) return finish(false, next.text);  // the critique is written
      if (audit_) return on_audit_step(audit_->on_claim(next.text));
      return finish(true, next.text);
    case company::NextStep::Kind::fail:
      step(msg::EventKind::error, json{{"error", next.text}});
      return finish(false, "CEO stopped: " + next.text);
    case company::NextStep::Kind::run_tools:
      if (!next.text.empty()) report(msg::EventKind::thinking, next.text);
      return run_tools(std::move(next.calls));
  }
}

// The judge audits the final answer (infiagent.md §10 items 23–27): a
// rejection goes back to the CEO as a user message and it answers again, up
// to the retry limit; then the task ends with the judge's last report.
void HashiruDriver::on_audit_step(Result<planning::AuditStep> step_r) {
  if (!step_r.ok()) return finish(false, step_r.error().message);
  planning::AuditStep s = std::move(step_r).value();
  switch (s.kind) {
    case planning::AuditStep::Kind::deliver:
      if (s.report.status == planning::VerdictStatus::success) return finish(true, s.report.output);
      if (reflect_on_rejection(s.report)) return;
      return finish(false, "The judge rejected the final answer: " + s.report.error_information);
    case planning::AuditStep::Kind::retry:
      report(msg::EventKind::retry, "the judge rejected the answer; answering again");
      conversation_.add_user(s.feedback);
      return turn();
    case planning::AuditStep::Kind::ask_judge: {
      const driver::CallId id = expect<driver::JudgeRuled>([this](const driver::JudgeRuled& o) {
        if (o.kind == driver::JudgeRuled::Kind::judge_failed)
          return finish(false, "The judge could not audit the answer: " + o.error);
        if (o.kind == driver::JudgeRuled::Kind::no_answer) return finish(false, "The judge did not answer: " + o.error);
        on_audit_step(audit_->on_verdict(o.verdict));
      });
      out_.push_back(driver::Audit{id, kCeo, input_, s.claimed_result});
      return;
    }
  }
}

// The judge rejected the final answer for good: the answer is marked wrong
// (journaled like `kaisha feedback --wrong`) and the CEO gets one more turn
// to write a critique memory (HASHIRU Case Study 4); whatever that turn
// does, the task then ends with the rejection. False when there is no
// reflection to do (not configured, memory switched off, no claimed answer).
bool HashiruDriver::reflect_on_rejection(const planning::AuditReport& report) {
  if (!setup_.error_reflection || !switches_.memory || report.claimed_result.empty()) return false;
  const std::string why = report.error_information.empty() ? report.output : report.error_information;
  rejected_ = "The judge rejected the final answer: " + report.error_information;
  step(msg::EventKind::note, memory::ErrorReflection::verdict_note(why, "judge"));
  this->report(msg::EventKind::reflection, "the judge rejected the answer; the CEO writes a critique into memory",
               json{{"why", why}});
  conversation_.add_user(setup_.error_reflection->prompt(input_, report.claimed_result, why));
  turn();
  return true;
}

// -------------------------------------------------------------- tool calls

// The calls of one answer start as ReplyCallOrder says (same agent: in
// answer order; the rest at once); their results go back in call order once
// the last one is in.
void HashiruDriver::run_tools(std::vector<llm::ToolCall> calls) {
  auto reply = std::make_shared<ReplyRun>(std::move(calls));
  for (size_t i : reply->order.initial()) start_call(reply, i);
}

void HashiruDriver::start_call(const std::shared_ptr<ReplyRun>& reply, size_t i) {
  const llm::ToolCall& call = reply->calls[i];
  if (listening())
    report(msg::EventKind::tool_call, "Invoking `" + call.name + "` with " + call.arguments,
           json{{"tool", call.name}, {"arguments", call.arguments}, {"call_id", call.id}});
  step(msg::EventKind::tool_call, json{{"tool", call.name}, {"arguments", call.arguments}, {"call_id", call.id}});
  invoke(
      call.name, call.arguments, [this, reply, i](ToolResult r) { call_done(reply, i, r); }, call.id);
}

void HashiruDriver::call_done(const std::shared_ptr<ReplyRun>& reply, size_t i, const ToolResult& r) {
  if (!running_) return;
  const llm::ToolCall& c = reply->calls[i];
  json j = r.to_json();
  if (listening())
    report(msg::EventKind::tool_result, "Tool responded with " + dump_text(j),
           json{{"tool", c.name}, {"result", j}, {"call_id", c.id}});
  step(msg::EventKind::tool_result, json{{"tool", c.name}, {"result", j}, {"call_id", c.id}});
  reply->results[i] = std::move(j);
  for (size_t next : reply->order.finished(i)) start_call(reply, next);
  if (--reply->remaining > 0) return;
  for (size_t k = 0; k < reply->calls.size(); ++k) conversation_.add_tool_result(reply->calls[k], reply->results[k]);
  turn();
}

driver::Effects HashiruDriver::call_directly(uint64_t request, const std::string& tool, const std::string& arguments) {
  scope_ = 0;
  step(msg::EventKind::tool_call, json{{"tool", tool}, {"arguments", arguments}, {"direct", true}});
  invoke(tool, arguments, [this, request, tool](ToolResult r) {
    json j = r.to_json();
    step(msg::EventKind::tool_result, json{{"tool", tool}, {"result", j}, {"direct", true}});
    out_.push_back(driver::Reply{request, std::move(j)});
  });
  return take();
}

// One call of a tool the actor runs, over its attempts.
struct HashiruDriver::ToolAttempt {
  std::string tool, arguments, call_id;
  int attempt = 1;
  ToolDone done;
};

// The HASHIRU six run here (their arguments checked against their specs as
// the registry does); any other tool is the actor's.
void HashiruDriver::invoke(const std::string& tool, const std::string& arguments, ToolDone done,
                           const std::string& call_id) {
  if (owns(tool)) return own_tools_.invoke(tool, arguments, std::nullopt, std::move(done));
  run_attempt(std::make_shared<ToolAttempt>(ToolAttempt{tool, arguments, call_id, 1, std::move(done)}), 0);
}

// Each attempt is its own RunTool (and so its own kept outcome): a failed
// one is journaled as a tool_result with a tool_retry note, like an
// employee's, and the model is given the last one only.
void HashiruDriver::run_attempt(const std::shared_ptr<ToolAttempt>& a, int64_t delay_ms) {
  const driver::CallId id = expect<driver::ToolRan>([this, a](const driver::ToolRan& r) {
    const auto delay = r.result.ok ? std::nullopt : retry_delay(*a, r.result);
    if (!delay) return a->done(r.result);
    json failed{{"tool", a->tool}, {"result", r.result.to_json()}};
    if (!a->call_id.empty()) failed["call_id"] = a->call_id;
    step(msg::EventKind::tool_result, std::move(failed));
    ++a->attempt;
    const std::string error_class(company::tool_error_class_name(*company::classify_tool_error(r.result)));
    json note{{"tool_retry", a->tool},      {"call_id", a->call_id}, {"attempt", a->attempt},
              {"error_class", error_class}, {"delay_ms", *delay},    {"error", r.result.message}};
    step(msg::EventKind::note, note);
    if (listening()) {
      note["tool"] = a->tool;
      note["agent"] = std::string(kCeo);
      report(msg::EventKind::retry,
             "Retrying `" + a->tool + "` in " + std::to_string(*delay) + " ms (attempt " + std::to_string(a->attempt) +
                 " of " + std::to_string(setup_.tool_retry.max_attempts) + ", " + error_class +
                 "): " + r.result.message,
             std::move(note));
    }
    json again{{"tool", a->tool}, {"arguments", a->arguments}, {"attempt", a->attempt}};
    if (!a->call_id.empty()) again["call_id"] = a->call_id;
    step(msg::EventKind::tool_call, std::move(again));
    run_attempt(a, *delay);
  });
  driver::RunTool run;
  run.id = id;
  run.tool = a->tool;
  run.arguments = a->arguments;
  run.delay_ms = delay_ms;
  out_.push_back(std::move(run));
}

std::optional<int64_t> HashiruDriver::retry_delay(const ToolAttempt& a, const ToolResult& r) const {
  const auto kind = company::classify_tool_error(r);
  if (!kind) return std::nullopt;
  const bool repeatable = setup_.repeatable && setup_.repeatable(a.tool);
  const std::string task = setup_.task_id ? setup_.task_id() : input_;
  return setup_.tool_retry.retry_after(*kind, repeatable, a.attempt,
                                       task + "/CEO/" + (a.call_id.empty() ? a.tool : a.call_id));
}

// ------------------------------------------------------------ the HASHIRU six

void HashiruDriver::register_own_tools() {
  std::map<std::string, company::ToolHandler> handlers = {
      {"AgentCreator", [this](const json& a, ToolDone d) { agent_creator(a, std::move(d)); }},
      {"AskAgent", [this](const json& a, ToolDone d) { ask_agent(a, std::move(d)); }},
      {"FireAgent", [this](const json& a, ToolDone d) { fire_agent(a, std::move(d)); }},
      {"GetAgents", [this](const json&, ToolDone d) { get_agents(std::move(d)); }},
      {"AgentCostManager", [this](const json&, ToolDone d) { cost_manager(std::move(d)); }},
      {"GetBudget", [this](const json&, ToolDone d) { get_budget(std::move(d)); }},
  };
  for (const auto& spec : setup_.tool_specs) {
    auto h = handlers.find(spec.name);
    if (h != handlers.end()) own_tools_.add({spec, h->second, "builtin", {}});
  }
}

bool HashiruDriver::set_switch(const std::string& name, bool on) {
  std::map<std::string, bool*> by_name = {
      {"agent_creation", &switches_.agent_creation},   {"local_agents", &switches_.local_agents},
      {"cloud_agents", &switches_.cloud_agents},       {"tool_creation", &switches_.tool_creation},
      {"tool_invocation", &switches_.tool_invocation}, {"resource_budget", &switches_.resource_budget},
      {"economy_budget", &switches_.economy_budget},   {"memory", &switches_.memory}};
  auto it = by_name.find(name);
  if (it == by_name.end()) return false;
  *it->second = on;
  return true;
}

std::string HashiruDriver::switch_refusal(const msg::AgentSpec& spec) const {
  if (spec.type == "local" && !switches_.local_agents) return texts::kLocalInvocationDisabled;
  if (spec.type != "local" && !switches_.cloud_agents) return texts::kCloudInvocationDisabled;
  return {};
}

void HashiruDriver::get_budget(ToolDone done) {
  const driver::CallId id = expect<driver::BudgetRead>([done](const driver::BudgetRead& b) {
    ToolResult res = ToolResult::success("Budget retrieved", b.view);
    res.extra = b.view;
    done(std::move(res));
  });
  out_.push_back(driver::ReadBudget{id});
}

void HashiruDriver::get_agents(ToolDone done) {
  json agents = setup_.roster().to_json();
  ToolResult r = ToolResult::success(agents.empty() ? "No agents are hired" : "Agents retrieved", agents);
  r.extra = json{{"agents", agents}};
  done(std::move(r));
}

void HashiruDriver::cost_manager(ToolDone done) {
  done(ToolResult::success("Costs retrieved", setup_.cost_table->to_json()));
}

void HashiruDriver::agent_creator(const json& args, ToolDone done) {
  if (!switches_.agent_creation) return done(ToolResult::error(texts::kAgentCreationDisabled));
  msg::AgentSpec spec;
  spec.name = args.value("agent_name", "");
  spec.base_model = args.value("base_model", "");
  spec.system_prompt = args.value("system_prompt", "");
  spec.description = args.value("description", "");
  if (Status s = setup_.roster().check_new(spec.name); !s.ok()) return done(ToolResult::error(s.error().message));
  const economy::ModelCost* cost = setup_.cost_table->find(spec.base_model);
  if (!cost) return done(ToolResult::error(texts::model_not_found(spec.base_model)));
  spec.base_model = cost->name;
  spec.model_ref = cost->model_ref;
  spec.type = cost->type;
  spec.costs = economy::spec_costs_json(*cost);
  if (std::string no = switch_refusal(spec); !no.empty()) return done(ToolResult::error(no));
  if (Status s = setup_.check_model(spec.model_ref); !s.ok())
    return done(ToolResult::error("Model " + spec.base_model + " cannot be used: " + s.error().message));
  // Tools run where their providers are, in this process; an employee the
  // cluster may place on another node cannot have them (yet).
  if (setup_.cluster) {
    if (auto g = company::grant_for(setup_.grants, spec.name, spec.base_model); !g.empty())
      return done(ToolResult::error("Agent " + spec.name + " cannot be created: employee.tools grants it tools (" +
                                    json(g.entries()).dump() +
                                    "), and employees with tools cannot run on cluster "
                                    "nodes yet. Remove the grant or run without a cluster."));
  }
  const driver::CallId id = expect<driver::HireAnswered>([this, spec, done](const driver::HireAnswered& h) {
    if (h.refused) {
      step(msg::EventKind::refusal, json{{"tool", "AgentCreator"}, {"agent", spec.name}, {"error", h.error}});
      report(msg::EventKind::refusal, h.error, json{{"agent", spec.name}});
    }
    if (!h.ok) return done(ToolResult::error(h.error));
    step(msg::EventKind::hire, json{{"agent", spec.name},
                                    {"base_model", spec.base_model},
                                    {"model_ref", spec.model_ref},
                                    {"type", spec.type},
                                    {"costs", spec.costs}});
    report(msg::EventKind::hire, spec.name + " (" + spec.base_model + ", " + spec.type + ")",
           json{{"agent", spec.name}, {"base_model", spec.base_model}, {"type", spec.type}, {"budget", h.budget}});
    ToolResult res = ToolResult::success("Agent " + spec.name + " created");
    res.extra = remaining_budgets(h.budget);
    done(std::move(res));
  });
  // *cost, not the table's row: the table may change while the ledger decides.
  out_.push_back(driver::Hire{id, spec, *cost});
}

void HashiruDriver::ask_agent(const json& args, ToolDone done) {
  const std::string name = args.value("agent_name", "");
  const std::string prompt = args.value("prompt", "");
  const msg::AgentSpec* found = setup_.roster().find(name);
  if (!found || !setup_.hired(name)) return done(ToolResult::error(texts::agent_not_found(name)));
  if (std::string no = switch_refusal(*found); !no.empty()) return done(ToolResult::error(no));
  if (listening())
    report(msg::EventKind::ask, "CEO -> " + name + ": " + prompt, json{{"agent", name}, {"prompt", prompt}});
  // No "ask" step: the tool_call step journaled just before holds the agent
  // and the prompt (one SQLite row less per ask).
  const driver::CallId id = expect<driver::AskAnswered>([this, name, done](const driver::AskAnswered& r) {
    if (r.refused) {
      step(msg::EventKind::refusal, json{{"tool", "AskAgent"}, {"agent", name}, {"error", r.error}});
      report(msg::EventKind::refusal, r.error, json{{"agent", name}});
      return done(ToolResult::error(r.error));
    }
    if (!r.ok) {
      report(msg::EventKind::error, name + " failed: " + r.error, json{{"agent", name}});
      return done(ToolResult::error("Agent " + name + " failed to answer: " + r.error));
    }
    const llm::Usage u = msg::ask_usage(r.reply);
    // The text itself is in the tool_result step that follows (and in the
    // employee's llm_response): this row carries what the call cost.
    step(msg::EventKind::answer, json{{"agent", name}, {"chars", r.reply.output.size()}}, u.input_tokens,
         u.output_tokens, r.expense, name);
    if (listening())
      report(msg::EventKind::answer, name + ": " + r.reply.output,
             json{{"agent", name},
                  {"input_tokens", u.input_tokens},
                  {"output_tokens", u.output_tokens},
                  {"expense", r.expense},
                  {"latency_ms", r.reply.latency_ms},
                  {"budget", r.budget}},
             name)
          .costing(u.input_tokens, u.output_tokens, r.expense);
    ToolResult res = ToolResult::success("Agent " + name + " answered", r.reply.output);
    res.extra = remaining_budgets(r.budget);
    done(std::move(res));
  });
  out_.push_back(driver::Ask{id, name, prompt, "", true, {}, {}});
}

void HashiruDriver::fire_agent(const json& args, ToolDone done) {
  const std::string name = args.value("agent_name", "");
  // An agent still being hired is listed but cannot be fired yet.
  if (!setup_.roster().find(name) || !setup_.hired(name)) return done(ToolResult::error(texts::agent_not_found(name)));
  const driver::CallId id = expect<driver::FireAnswered>([this, name, done](const driver::FireAnswered& f) {
    if (!f.ok) return done(ToolResult::error(f.not_hired ? texts::agent_not_found(name) : f.error));
    step(msg::EventKind::fire, json{{"agent", name}});
    report(msg::EventKind::fire, name, json{{"agent", name}, {"budget", f.budget}});
    ToolResult res = ToolResult::success("Agent " + name + " fired");
    res.extra = remaining_budgets(f.budget);
    done(std::move(res));
  });
  out_.push_back(driver::Fire{name, id});
}

}  // namespace kaisha::hashiru
