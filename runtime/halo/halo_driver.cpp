#include "runtime/halo/halo_driver.hpp"

#include <sstream>
#include <stdexcept>
#include <utility>

#include "runtime/answers/consistency.hpp"
#include "runtime/core/utf8.hpp"
#include "runtime/economy/budget.hpp"
#include "runtime/llm/usage_estimate.hpp"
#include "runtime/halo/entry/halo_events.hpp"
#include "runtime/halo/replies/agent_roles.hpp"
#include "runtime/halo/replies/answer_parse.hpp"
#include "runtime/halo/replies/judge_label.hpp"
#include "runtime/halo/replies/next_subtask.hpp"
#include "runtime/halo/replies/prompt_reply.hpp"
#include "runtime/halo/replies/score_reply.hpp"

namespace kaisha::halo {

using namespace driver;

namespace {

// The three steps of each prompt chain: stage 1's P2-P4 and the role
// builders, in order.
struct ChainStep {
  HaloPrompt prompt;
  PromptReply reply;
  const char* purpose;
  const char* input;  // the placeholder the previous step's output fills ("" for the first)
};
constexpr ChainStep kRefine[] = {
    {HaloPrompt::prompt_template, PromptReply::generated_template, "halo.prompt_template", ""},
    {HaloPrompt::prompt_optimizer, PromptReply::optimized_template, "halo.prompt_optimizer", "prompt_template"},
    {HaloPrompt::final_prompt, PromptReply::final_prompt, "halo.final_prompt", "optimized_template"},
};
constexpr ChainStep kBuild[] = {
    {HaloPrompt::agent_prompt_template, PromptReply::agent_template, "halo.agent_prompt_template", ""},
    {HaloPrompt::agent_prompt_optimizer, PromptReply::agent_optimized, "halo.agent_prompt_optimizer",
     "prompt_template"},
    {HaloPrompt::agent_final_prompt, PromptReply::agent_final, "halo.agent_final_prompt", "optimized_template"},
};

json path_json(const std::vector<int>& path) { return json(path); }

}  // namespace

std::string HaloDriver::agent_name(const std::string& role, int n) {
  std::string slug;
  for (char c : role) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z');
    if (alnum)
      slug += (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c;
    else if (!slug.empty() && slug.back() != '-')
      slug += '-';
    if (slug.size() >= 32) break;
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  if (slug.empty()) slug = "role";
  return "halo-" + slug + "-" + std::to_string(n);
}

HaloDriver::HaloDriver(HaloSetup setup, msg::TaskRequest task)
    : setup_(std::move(setup)), prompts_(setup_.prompts.get()), task_(std::move(task)) {}

bool HaloDriver::listening() const { return setup_.listening && setup_.listening(); }

HaloDriver::Values HaloDriver::context(const std::string& subtask) const {
  Values v{{"query", query_},
           {"task_type", parse_.task_type},
           {"core_intent", parse_.core_intent},
           {"key_details", parse_.key_details}};
  if (!subtask.empty()) v["subtask"] = subtask;
  return v;
}

// ------------------------------------------------------------------ start

Effects HaloDriver::start() {
  Effects out;
  if (!prompts_) {
    finish(out, false, "HALO was given no prompts", "error");
    return out;
  }
  if (const std::string missing = missing_prompts(*prompts_); !missing.empty()) {
    finish(out, false, "HALO's prompts are missing: " + missing, "error");
    return out;
  }
  const HaloSettings& s = setup_.settings;
  std::string bad;
  if (s.max_subtasks < 1) bad = "max_subtasks must be >= 1, got " + std::to_string(s.max_subtasks);
  if (s.max_roles < 1) bad = "max_roles must be >= 1, got " + std::to_string(s.max_roles);
  try {
    validate(s.search);
  } catch (const std::invalid_argument& e) {
    bad = e.what();
  }
  if (!bad.empty()) {
    finish(out, false, "HALO's settings: " + bad, "error");
    return out;
  }
  // What the budget has left decides whether a search can start at all.
  out.push_back(ReadBudget{pending_.expect<BudgetRead>([this](const BudgetRead& b, Effects& o) { on_budget(o, b); })});
  return out;
}

Effects HaloDriver::on(const Outcome& o) {
  Effects out;
  if (!finished_) pending_.deliver(o, out);  // once finished, late outcomes are ignored
  return out;
}

Effects HaloDriver::cancel(const std::string& why) {
  Effects out;
  if (finished_) return out;
  if (search_ && !search_->done()) {
    search_->stop();
    report_search_events(out);
  }
  finish(out, false, why, "canceled");
  return out;
}

// ------------------------------------------------------------------ calls

bool HaloDriver::may_call(Effects& out) {
  if (finished_) return false;
  const HaloSettings& s = setup_.settings;
  if (s.max_model_calls > 0 && model_calls_ >= s.max_model_calls) {
    end_at_cap(out, "max_model_calls", double(s.max_model_calls));
    return false;
  }
  if (s.max_usd > 0 && usd_ >= s.max_usd) {
    end_at_cap(out, "max_usd", s.max_usd);
    return false;
  }
  return true;
}

void HaloDriver::call_model(Effects& out, const std::string& purpose, HaloPrompt prompt, const Values& values,
                            Then then) {
  if (!may_call(out)) return;
  Result<std::string> text = prompts_->templates.at(prompt).render(values);
  if (!text) return finish(out, false, "HALO's " + purpose + " prompt: " + text.error().message, "error");
  llm::ChatRequest request;
  request.messages = {{llm::Role::user, std::move(text).value(), {}, "", ""}};
  request.temperature = setup_.settings.temperature;
  request.max_tokens = setup_.settings.max_tokens;
  request.seed = static_cast<int64_t>(setup_.settings.seed);
  ++model_calls_;
  const CallId id = pending_.expect<ModelAnswered>(
      [this, purpose, then = std::move(then)](const ModelAnswered& a, Effects& o) { on_model(o, purpose, a, then); });
  out.push_back(CallModel{id, purpose, std::move(request), false});
}

void HaloDriver::on_model(Effects& out, const std::string& purpose, const ModelAnswered& a, const Then& then) {
  usd_ += a.expense;
  Reply r{a.ok, a.ok ? a.response.message.content : "", a.ok ? "" : (a.error.empty() ? "no answer" : a.error)};
  if (a.ok)
    out.push_back(journal_step(msg::EventKind::llm_response, json{{"call", purpose}, {"text", r.text}},
                               a.response.usage.input_tokens, a.response.usage.output_tokens, a.expense));
  then(out, r);
}

// Journals what was wrong with a reply (a failed call is read as an empty
// one): the parsers' defaults were used.
void HaloDriver::problem(Effects& out, const std::string& call, const std::optional<std::string>& found,
                         const Reply& reply) {
  if (!found && reply.ok) return;
  ++problems_;
  std::string text = call + ": ";
  if (!reply.ok) text += "the call failed (" + reply.error + "); ";
  text += found.value_or("the default was used");
  json data{{"call", call}, {"problem", text}};
  if (k_ > 0) data["subtask"] = k_;
  add_strategy_event(out, kHaloStrategy, event::problem, text, std::move(data), true);
}

// ---------------------------------------------------------------- stage 1

// The least a task must be able to pay before its first call: stage 1, the
// first planner call, the role designer, one role's three prompt builders,
// that role's hire and one search node (its answer, judge and score), each
// call with the query plus a prompt allowance in and settings.max_tokens out.
double HaloDriver::first_search_worst_case() const {
  constexpr int64_t kPromptAllowanceTokens = 1500;  // the longest prompt file with its context, roughly
  const HaloSettings& s = setup_.settings;
  const int calls = (s.use_prompt_refinement ? 4 : 1) + (s.use_planner ? 1 : 0) + 1 + 3 + 3;
  const int64_t in = llm::estimate_tokens(task_.input) + kPromptAllowanceTokens;
  return calls * economy::Budget::expense_for(setup_.agent_cost, in, s.max_tokens) +
         setup_.agent_cost.create_expense_cost;
}

void HaloDriver::on_budget(Effects& out, const BudgetRead& b) {
  const economy::ModelCost& c = setup_.agent_cost;
  const double units = c.create_resource_cost + c.invoke_resource_cost;
  const double room = b.view.value("current_remaining_resource_budget", 0.0);
  if (b.view.value("resource_budget_enabled", true) && units > room) {
    std::ostringstream why;
    why << "HALO cannot start: one role agent on " << c.name << " needs " << units << " resource units but only "
        << room << " are free";
    out.push_back(journal_step(msg::EventKind::refusal, json{{"first_search_resource", units}, {"remaining", room}}));
    return finish(out, false, why.str(), "unaffordable");
  }
  const double worst = first_search_worst_case();
  const double left = b.view.value("current_remaining_expense_budget", 0.0);
  if (b.view.value("expense_budget_enabled", true) && worst > left) {
    std::ostringstream why;
    why << "HALO cannot start: its first search needs up to $" << worst
        << " (worst case: " << (setup_.settings.use_prompt_refinement ? 4 : 1)
        << " refinement calls, the planner, the role designer, "
        << "one role's prompt and hire, one search node; each call up to " << setup_.settings.max_tokens
        << " tokens out) but only $" << left << " of the expense budget is remaining";
    out.push_back(journal_step(msg::EventKind::refusal, json{{"first_search_worst_case", worst}, {"remaining", left}}));
    return finish(out, false, why.str() + ". Authorise an increase (kaisha budget --raise-expense USD).",
                  "unaffordable");
  }
  worst_case_usd_ = worst;
  begin(out);
}

void HaloDriver::begin(Effects& out) {
  query_ = task_.input;  // P1 and the refinement see the raw query
  call_model(out, "halo.task_parser", HaloPrompt::task_parser, {{"query", task_.input}},
             [this](Effects& o, const Reply& r) { on_task_parse(o, r); });
}

void HaloDriver::on_task_parse(Effects& out, const Reply& r) {
  Parsed<TaskParse> f = parse_task_parse(r.text, task_.input);
  problem(out, "halo.task_parser", f.problem, r);
  parse_ = std::move(f.value);
  if (!setup_.settings.use_prompt_refinement) return refined(out, false);
  refine(out, 0, "");
}

// P2 -> P3 -> P4: step `step` of kRefine, fed the previous step's output.
void HaloDriver::refine(Effects& out, int step, const std::string& previous) {
  const ChainStep& c = kRefine[step];
  Values v = context();
  if (*c.input) v[c.input] = previous;
  call_model(out, c.purpose, c.prompt, v, [this, step](Effects& o, const Reply& r) {
    const ChainStep& c = kRefine[step];
    Parsed<std::string> p = parse_prompt_reply(c.reply, r.text, task_.input);
    problem(o, c.purpose, p.problem, r);
    if (step + 1 < 3) return refine(o, step + 1, p.value);
    query_ = std::move(p.value);
    refined(o, true);
  });
}

void HaloDriver::refined(Effects& out, bool refined) {
  add_strategy_event(
      out, kHaloStrategy, event::refined,
      refined ? "refined query: " + utf8::truncate(query_, 200) : "the raw query is used (no refinement)",
      json{{"task_type", parse_.task_type},
           {"core_intent", parse_.core_intent},
           {"key_details", parse_.key_details},
           {"query", query_},
           {"refined", refined}},
      true);
  next_subtask(out);
}

// ---------------------------------------------------------- subtask loop

std::string HaloDriver::history_text() const {
  if (history_.empty()) return "No subtask has been carried out yet.";
  std::string out;
  for (size_t i = 0; i < history_.size(); ++i) {
    const HistoryEntry& h = history_[i];
    if (i) out += "\n\n";
    out += "[subtask " + std::to_string(i + 1) + "]\nsubtask name: " + h.subtask + "\nsubtask answer: " + h.answer +
           "\nsubtask result: " + (h.success ? "success" : "fail");
  }
  return out;
}

void HaloDriver::next_subtask(Effects& out) {
  const HaloSettings& s = setup_.settings;
  if (!s.use_planner) return run_subtask(out, query_);  // K = 1: the subtask is Q* itself
  if (k_ >= s.max_subtasks)
    return finish(out, false, s.failure_answer, "subtask_budget");  // K ran without a stop or an agreement
  Values v = context();
  v["history"] = history_text();
  call_model(out, "halo.planner", HaloPrompt::task_decomposition, v, [this](Effects& o, const Reply& r) {
    Parsed<NextSubtask> next = parse_next_subtask(r.text, query_);
    problem(o, "halo.planner", next.problem, r);
    if (!next.value.stop) return run_subtask(o, std::move(next.value.subtask));
    if (history_.empty()) return finish(o, false, setup_.settings.failure_answer, "planner_stop");
    finish(o, true, history_.back().extracted, "planner_stop");
  });
}

void HaloDriver::run_subtask(Effects& out, std::string subtask) {
  ++k_;
  subtask_ = std::move(subtask);
  roles_.clear();
  search_.reset();
  in_flight_.clear();
  add_strategy_event(out, kHaloStrategy, event::subtask,
                     "subtask " + std::to_string(k_) + ": " + utf8::truncate(subtask_, 200),
                     json{{"subtask", k_}, {"text", subtask_}}, true);
  call_model(out, "halo.role_design", HaloPrompt::role_design, context(subtask_),
             [this](Effects& o, const Reply& r) { on_roles(o, r); });
}

void HaloDriver::on_roles(Effects& out, const Reply& r) {
  RoleLimits limits;
  limits.max_roles = size_t(setup_.settings.max_roles);
  Parsed<std::vector<std::string>> roles = parse_agent_roles(r.text, limits);
  problem(out, "halo.role_design", roles.problem, r);
  json names = json::array();
  for (std::string& name : roles.value) {
    names.push_back(name);
    roles_.push_back(Role{std::move(name), "", 0, ""});
  }
  std::string text = "roles for subtask " + std::to_string(k_) + ":";
  for (size_t i = 0; i < roles_.size(); ++i) text += (i ? ", " : " ") + roles_[i].name;
  // What hiring one role's agent costs (a role already hired in this task
  // with the same prompt is not hired again).
  const economy::ModelCost& c = setup_.agent_cost;
  std::ostringstream cost;
  cost << " (a new agent's hire: " << c.create_resource_cost << " resource units, $" << c.create_expense_cost << ")";
  add_strategy_event(out, kHaloStrategy, event::roles, text + cost.str(),
                     json{{"subtask", k_},
                          {"roles", names},
                          {"problem", roles.problem ? *roles.problem : ""},
                          {"hire_cost", {{"resource", c.create_resource_cost}, {"usd", c.create_expense_cost}}}},
                     true);
  // The roles' prompt chains run side by side.
  for (size_t i = 0; i < roles_.size() && !finished_; ++i) build_prompt(out, i);
}

// The next builder call of role `role`'s chain (template -> optimised -> rho).
void HaloDriver::build_prompt(Effects& out, size_t role) {
  const Role& r = roles_[role];
  const ChainStep& c = kBuild[r.built];
  Values v{{"subtask", subtask_}, {"role", r.name}};
  if (*c.input) v[c.input] = r.prompt;
  const int k = k_;
  call_model(out, c.purpose, c.prompt, v, [this, role, k](Effects& o, const Reply& reply) {
    if (k == k_) on_built(o, role, reply);
  });
}

void HaloDriver::on_built(Effects& out, size_t role, const Reply& reply) {
  Role& r = roles_[role];
  const ChainStep& c = kBuild[r.built];
  Parsed<std::string> p = parse_prompt_reply(c.reply, reply.text, prompts_->assistant_fallback);
  problem(out, std::string(c.purpose) + " (" + r.name + ")", p.problem, reply);
  r.prompt = std::move(p.value);
  if (++r.built < 3) return build_prompt(out, role);
  for (const Role& x : roles_)
    if (x.built < 3) return;
  hire_roles(out);
}

// Every role gets its agent: the one already hired for the same role and
// rho, or a new hire. Hires go out in role order, all at once.
void HaloDriver::hire_roles(Effects& out) {
  waiting_hires_ = 0;
  for (Role& r : roles_)
    for (const Agent& a : agents_)
      if (a.role == r.name && a.rho == r.prompt) r.agent = a.name;
  // Every agent hired holds its create cost until the task ends: the cap is
  // checked for all of this subtask's new agents before any is hired.
  size_t fresh = 0;
  for (const Role& r : roles_) fresh += r.agent.empty();
  const double cap = setup_.settings.max_resource_units;
  if (cap > 0 && double(agents_.size() + fresh) * setup_.agent_cost.create_resource_cost > cap)
    return end_at_cap(out, "max_resource_units", cap);
  for (Role& r : roles_) {
    if (!r.agent.empty()) continue;
    Agent a{agent_name(r.name, int(agents_.size()) + 1), r.name, r.prompt, false};
    r.agent = a.name;
    msg::AgentSpec spec;
    spec.name = a.name;
    spec.base_model = setup_.agent_cost.name;
    spec.model_ref = setup_.agent_cost.model_ref;
    spec.type = setup_.agent_cost.type;
    spec.system_prompt = r.prompt;
    spec.description = "HALO role agent: " + r.name;
    spec.costs = economy::spec_costs_json(setup_.agent_cost);
    // Its calls sample as HALO's own do (halo.temperature, halo.seed), not
    // at the employee defaults.
    spec.temperature = setup_.settings.temperature;
    spec.seed = static_cast<int64_t>(setup_.settings.seed);
    agents_.push_back(std::move(a));
    ++waiting_hires_;
    const CallId id = pending_.expect<HireAnswered>(
        [this, name = spec.name](const HireAnswered& h, Effects& o) { on_hired(o, name, h); });
    out.push_back(Hire{id, std::move(spec), setup_.agent_cost});
  }
  if (waiting_hires_ == 0) start_search(out);
}

void HaloDriver::on_hired(Effects& out, const std::string& agent, const HireAnswered& a) {
  if (!a.ok) {
    out.push_back(journal_step(msg::EventKind::refusal, json{{"hire", agent}, {"error", a.error}}));
    return finish(out, false, "Could not hire HALO's agent " + agent + ": " + a.error, "hire_refused");
  }
  for (Agent& x : agents_)
    if (x.name == agent) x.hired = true;
  // The hire as every strategy reports it (the kit journals it; the event
  // stream and `kaisha agents` watchers see it here).
  if (listening())
    out.push_back(Report{msg::EventKind::hire, agent, json{{"agent", agent}, {"budget", a.budget}}, "HALO"});
  if (--waiting_hires_ == 0) start_search(out);
}

// ---------------------------------------------------------------- search

void HaloDriver::start_search(Effects& out) {
  search_.emplace(setup_.settings.search, int(roles_.size()), setup_.settings.seed, k_);
  std::vector<EvaluationRequest> requests = search_->start();
  report_search_events(out);
  for (const EvaluationRequest& r : requests) evaluate(out, r);
  if (!finished_ && search_->done()) on_search_done(out);
}

// The role's agent answers after the agents in the request's context
// (item 12): rho, then per earlier agent its answer and an acknowledgement,
// then the solve request.
void HaloDriver::evaluate(Effects& out, const EvaluationRequest& request) {
  if (!may_call(out)) return;
  const Role& role = roles_.at(size_t(request.role));
  std::vector<llm::ChatMessage> messages;
  messages.push_back({llm::Role::system, role.prompt, {}, "", ""});
  for (const PathEntry& e : request.context) {
    Result<std::string> said =
        prompts_->context_response.render({{"role", roles_.at(size_t(e.role)).name}, {"answer", e.answer}});
    if (!said) return finish(out, false, "HALO's context prompt: " + said.error().message, "error");
    messages.push_back({llm::Role::user, *said, {}, "", ""});
    messages.push_back({llm::Role::assistant, prompts_->context_acknowledgement, {}, "", ""});
  }
  Result<std::string> solve = prompts_->templates.at(HaloPrompt::inference_solve).render(context(subtask_));
  if (!solve) return finish(out, false, "HALO's solve prompt: " + solve.error().message, "error");
  messages.push_back({llm::Role::user, std::move(solve).value(), {}, "", ""});
  const EvaluationKey key = request.key;
  InFlight& f = in_flight_[key];
  f = InFlight{};
  f.request = request;
  if (setup_.code_tool) f.messages = messages;  // the turn goes on after its tool calls
  ask(out, key, std::move(messages));
}

std::string HaloDriver::job(const EvaluationKey& key) const {
  return "halo s" + std::to_string(k_) + " " + to_string(key);
}

// With a job, the agent journals only its request; its answer is journaled
// in on_answer with the job and what it cost.
void HaloDriver::ask(Effects& out, const EvaluationKey& key, std::vector<llm::ChatMessage> messages) {
  ++model_calls_;
  const std::string& agent = roles_.at(size_t(in_flight_.at(key).request.role)).agent;
  const int k = k_;
  const CallId id = pending_.expect<AskAnswered>([this, key, k](const AskAnswered& a, Effects& o) {
    if (k == k_) on_answer(o, key, a);
  });
  std::vector<llm::ToolSpec> tools;
  if (setup_.code_tool) tools.push_back(*setup_.code_tool);
  out.push_back(Ask{id, agent, "", job(key), false, std::move(messages), std::move(tools)});
}

void HaloDriver::on_answer(Effects& out, const EvaluationKey& key, const AskAnswered& a) {
  usd_ += a.expense;
  auto it = in_flight_.find(key);
  if (it == in_flight_.end()) return;
  const std::string& agent = roles_.at(size_t(it->second.request.role)).agent;
  const std::string job = this->job(key);
  if (!a.ok || !a.reply.ok) {
    const std::string error = !a.ok ? a.error : a.reply.error;
    out.push_back(journal_step(a.refused ? msg::EventKind::refusal : msg::EventKind::error,
                               json{{"job", job}, {"error", error}}, 0, 0, a.expense, agent));
    problem(out, "the agent " + agent + " (" + job + ")", "it did not answer: evaluated as fail with score 0",
            Reply{false, "", error});
    return evaluated(out, key, Evaluation{"", NodeLabel::fail, 0.0});
  }
  const msg::AskReply& r = a.reply;
  json said{{"job", job}, {"text", r.output}};
  if (!r.tool_requests.empty()) said["tool_calls"] = r.tool_requests.size();
  out.push_back(journal_step(msg::EventKind::llm_response, std::move(said), r.usage.input_tokens, r.usage.output_tokens,
                             a.expense, agent));
  if (setup_.code_tool && !r.tool_requests.empty() && it->second.tool_rounds < setup_.settings.max_tool_rounds)
    return run_tools(out, key, r);
  it->second.answer = r.output;
  judge(out, key);
}

// ------------------------------------------------------------ the code tool

namespace {

std::string tool_text(const company::ToolResult& r) { return r.to_json().dump(); }

}  // namespace

void HaloDriver::run_tools(Effects& out, const EvaluationKey& key, const msg::AskReply& reply) {
  InFlight& f = in_flight_.at(key);
  ++f.tool_rounds;
  f.messages.push_back({llm::Role::assistant, reply.output, reply.tool_requests, "", ""});
  f.calls = reply.tool_requests;
  f.results.assign(f.calls.size(), std::nullopt);
  const std::string& agent = roles_.at(size_t(f.request.role)).agent;
  const std::string& tool = setup_.code_tool->name;
  for (size_t i = 0; i < f.calls.size(); ++i) {
    const llm::ToolCall& c = f.calls[i];
    out.push_back(journal_step(msg::EventKind::tool_call,
                               json{{"job", job(key)}, {"tool", c.name}, {"arguments", c.arguments}}, 0, 0, 0, agent));
    if (listening())
      out.push_back(Report{msg::EventKind::tool_call, c.name + " " + utf8::truncate(c.arguments, 200),
                           json{{"job", job(key)}}, agent});
    if (c.name != tool) {
      record_tool_result(
          out, key, f, i,
          company::ToolResult::error("the tool '" + c.name + "' is not available; the only tool is " + tool)
              .to_json()
              .dump());
      continue;
    }
    const int k = k_;
    const CallId id = pending_.expect<ToolRan>([this, key, k, i](const ToolRan& t, Effects& o) {
      if (k == k_) tool_done(o, key, i, tool_text(t.result));
    });
    out.push_back(RunTool{id, c.name, c.arguments, "", ""});
  }
  // Calls that ran nothing (an unknown tool) may be all there was.
  next_tool_round(out, key);
}

void HaloDriver::tool_done(Effects& out, const EvaluationKey& key, size_t call, std::string result) {
  auto it = in_flight_.find(key);
  if (it == in_flight_.end()) return;
  record_tool_result(out, key, it->second, call, std::move(result));
  next_tool_round(out, key);
}

void HaloDriver::record_tool_result(Effects& out, const EvaluationKey& key, InFlight& f, size_t call,
                                    std::string result) {
  if (call >= f.results.size() || f.results[call]) return;
  const std::string& agent = roles_.at(size_t(f.request.role)).agent;
  out.push_back(journal_step(msg::EventKind::tool_result,
                             json{{"job", job(key)}, {"tool", f.calls[call].name}, {"result", result}}, 0, 0, 0,
                             agent));
  if (listening())
    out.push_back(Report{msg::EventKind::tool_result, f.calls[call].name + " -> " + utf8::truncate(result, 200),
                         json{{"job", job(key)}}, agent});
  f.results[call] = std::move(result);
}

// Once every call of the round has its result, they go back to the agent in
// call order, after its turn so far.
void HaloDriver::next_tool_round(Effects& out, const EvaluationKey& key) {
  auto it = in_flight_.find(key);
  if (it == in_flight_.end() || it->second.calls.empty()) return;
  InFlight& f = it->second;
  for (const auto& r : f.results)
    if (!r) return;
  for (size_t i = 0; i < f.calls.size(); ++i)
    f.messages.push_back({llm::Role::tool, *f.results[i], {}, f.calls[i].id, f.calls[i].name});
  f.calls.clear();
  f.results.clear();
  if (!may_call(out)) return;
  ask(out, key, f.messages);
}

void HaloDriver::judge(Effects& out, const EvaluationKey& key) {
  const InFlight& f = in_flight_.at(key);
  Values v = context(subtask_);
  v["role"] = roles_.at(size_t(f.request.role)).name;
  v["output"] = f.answer;
  const int k = k_;
  call_model(out, "halo.judge", HaloPrompt::judge, v, [this, key, k](Effects& o, const Reply& r) {
    if (k != k_ || !in_flight_.count(key)) return;
    Parsed<NodeLabel> label = parse_judge_label(r.text);
    problem(o, "halo.judge", label.problem, r);
    in_flight_.at(key).label = label.value;
    score(o, key);
  });
}

void HaloDriver::score(Effects& out, const EvaluationKey& key) {
  const InFlight& f = in_flight_.at(key);
  Values v = context(subtask_);
  v["role"] = roles_.at(size_t(f.request.role)).name;
  v["output"] = f.answer;
  v["judge_status"] = std::string(to_string(f.label));
  const int k = k_;
  call_model(out, "halo.scorer", HaloPrompt::scorer, v, [this, key, k](Effects& o, const Reply& r) {
    if (k != k_ || !in_flight_.count(key)) return;
    Parsed<double> s = parse_score(r.text);
    problem(o, "halo.scorer", s.problem, r);
    const InFlight& f = in_flight_.at(key);
    evaluated(o, key, Evaluation{f.answer, f.label, s.value});
  });
}

void HaloDriver::evaluated(Effects& out, const EvaluationKey& key, Evaluation evaluation) {
  in_flight_.erase(key);
  if (!search_ || search_->done()) return;
  std::vector<EvaluationRequest> next;
  try {
    next = search_->on_evaluated(key, std::move(evaluation));
  } catch (const std::exception& e) {
    return finish(out, false, std::string("HALO's search: ") + e.what(), "error");
  }
  report_search_events(out);
  for (const EvaluationRequest& r : next) evaluate(out, r);
  if (!finished_ && search_->done()) on_search_done(out);
}

// The search's events since the last call, as strategy events (the tree's
// node ids are this subtask's).
void HaloDriver::report_search_events(Effects& out) {
  const SearchTree& tree = search_->tree();
  auto role_name = [this](int role) { return role >= 0 && size_t(role) < roles_.size() ? roles_[role].name : ""; };
  const std::string sub = "subtask " + std::to_string(k_) + ": ";
  for (const SearchEvent& ev : search_->take_events()) {
    if (const auto* e = std::get_if<SelectionEvent>(&ev)) {
      if (listening())
        add_strategy_event(out, kHaloStrategy, event::selection,
                           sub + "iteration " + std::to_string(e->iteration) + " selected a path of " +
                               std::to_string(e->path.size()) + " nodes",
                           json{{"subtask", k_}, {"iteration", e->iteration}, {"path", path_json(e->path)}});
    } else if (const auto* e = std::get_if<ExpansionEvent>(&ev)) {
      json children = json::array();
      for (const ExpandedChild& c : e->children)
        children.push_back({{"node", c.node},
                            {"role", c.role},
                            {"role_name", role_name(c.role)},
                            {"label", to_string(c.label)},
                            {"value", c.value},
                            {"answer", tree.node(c.node).answer}});
      add_strategy_event(
          out, kHaloStrategy, event::expansion,
          sub + "node " + std::to_string(e->parent) + " expanded into " + std::to_string(e->children.size()) +
              " agents",
          json{{"subtask", k_}, {"iteration", e->iteration}, {"parent", e->parent}, {"children", children}}, true);
    } else if (const auto* e = std::get_if<RolloutFinishedEvent>(&ev)) {
      json names = json::array();
      for (int r : e->roles) names.push_back(role_name(r));
      add_strategy_event(out, kHaloStrategy, event::rollout,
                         sub + "rollout " + std::to_string(e->rollout) + " from node " + std::to_string(e->from) +
                             ": " + std::string(to_string(e->end)),
                         json{{"subtask", k_},
                              {"iteration", e->iteration},
                              {"rollout", e->rollout},
                              {"from", e->from},
                              {"roles", e->roles},
                              {"role_names", names},
                              {"end", to_string(e->end)},
                              {"reward", e->reward}},
                         true);
    } else if (const auto* e = std::get_if<BackpropagatedEvent>(&ev)) {
      json updates = json::array();
      for (const NodeUpdate& u : e->updates)
        updates.push_back({{"node", u.node}, {"value", u.value}, {"visits", u.visits}});
      add_strategy_event(
          out, kHaloStrategy, event::backpropagated,
          sub + "rollout " + std::to_string(e->rollout) + " backpropagated over " + std::to_string(e->updates.size()) +
              " nodes",
          json{{"subtask", k_}, {"iteration", e->iteration}, {"rollout", e->rollout}, {"updates", updates}}, true);
    } else if (const auto* e = std::get_if<SearchEndedEvent>(&ev)) {
      const SearchResult r = search_->result();
      json trajectory = json::array();
      for (size_t i = 0; i < r.trajectory.size(); ++i)
        trajectory.push_back({{"node", r.nodes.at(i)},
                              {"role", r.trajectory[i].role},
                              {"role_name", role_name(r.trajectory[i].role)},
                              {"answer", r.trajectory[i].answer}});
      add_strategy_event(
          out, kHaloStrategy, event::search_ended,
          sub + "search ended (" + std::string(to_string(e->reason)) + ")" + (e->success ? ", success" : ""),
          json{{"subtask", k_},
               {"iteration", e->iteration},
               {"reason", to_string(e->reason)},
               {"node", e->node},
               {"success", e->success},
               {"answer", r.answer},
               {"iterations", r.iterations},
               {"evaluations", r.evaluations},
               {"trajectory", trajectory}},
          true);
    }
  }
}

void HaloDriver::on_search_done(Effects& out) {
  const SearchResult r = search_->result();
  history_.push_back(HistoryEntry{subtask_, r.answer, r.success, r.answer});
  const AnswerFormat format = setup_.settings.answer_format;
  if (format == AnswerFormat::text || r.answer.empty()) return subtask_answered(out, r.answer);
  // The answer parser reads the choice or the formula out of the answer
  // (its default, "C" or 0, when it cannot).
  const bool choice = format == AnswerFormat::multiple_choice;
  call_model(out, "halo.answer_parser", choice ? HaloPrompt::parse_mmlu : HaloPrompt::parse_math,
             {{"result", r.answer}}, [this, choice](Effects& o, const Reply& reply) {
               std::string extracted;
               if (choice) {
                 Parsed<std::string> p = parse_mmlu_answer(reply.text);
                 problem(o, "halo.answer_parser", p.problem, reply);
                 extracted = p.value;
               } else {
                 Parsed<MathAnswer> p = parse_math_answer(reply.text);
                 problem(o, "halo.answer_parser", p.problem, reply);
                 extracted = p.value.latex;
               }
               subtask_answered(o, std::move(extracted));
             });
}

// The subtask's answer as it is compared and returned.
void HaloDriver::subtask_answered(Effects& out, std::string extracted) {
  history_.back().extracted = std::move(extracted);
  if (!setup_.settings.use_planner) return finish(out, true, history_.back().extracted, "single_subtask");
  // Early stop (item 8) over the answers there are: a search that ended
  // before any agent answered adds none (two such would "agree").
  std::vector<std::string> answers;
  for (const HistoryEntry& h : history_)
    if (!h.extracted.empty()) answers.push_back(h.extracted);
  answers::ConsistencyOptions options;
  options.equivalence = setup_.settings.equivalence;
  options.threshold = setup_.settings.consistency_threshold;
  const answers::Consistency c = answers::check_consistency(answers, options);
  if (c.stop) {
    add_strategy_event(out, kHaloStrategy, event::early_stop,
                       std::to_string(c.agreeing) + " of " + std::to_string(c.total) + " subtask answers agree",
                       json{{"subtask", k_},
                            {"answers", answers},
                            {"majority", c.majority},
                            {"agreeing", c.agreeing},
                            {"total", c.total}},
                       true);
    return finish(out, true, c.majority, "early_stop");
  }
  next_subtask(out);
}

// ----------------------------------------------------------------- endings

void HaloDriver::end_at_cap(Effects& out, const std::string& cap, double limit) {
  std::string answer;
  if (search_ && !search_->done()) {
    search_->stop();
    report_search_events(out);
  }
  // The running subtask's search (stopped now) has not joined the history.
  if (search_ && search_->done() && int(history_.size()) < k_) answer = search_->result().answer;
  if (answer.empty() && !history_.empty()) answer = history_.back().extracted;
  const bool found = !answer.empty();
  if (!found) answer = setup_.settings.failure_answer;
  add_strategy_event(out, kHaloStrategy, event::cap_reached,
                     "the task's " + cap + " cap was reached: " +
                         (found ? "the best answer so far ends it" : "no answer yet, the failure answer ends it"),
                     json{{"cap", cap},
                          {"limit", limit},
                          {"model_calls", model_calls_},
                          {"usd", usd_},
                          {"subtask", k_},
                          {"answer", answer}},
                     true);
  finish(out, found, answer, "cap_reached");
}

void HaloDriver::finish(Effects& out, bool ok, const std::string& text, const std::string& exit) {
  if (finished_) return;
  finished_ = true;
  pending_.clear();  // outcomes that still come are ignored
  for (const Agent& a : agents_)
    if (a.hired) out.push_back(Fire{a.name, 0});
  json history = json::array();
  for (const HistoryEntry& h : history_)
    history.push_back(
        {{"subtask", h.subtask}, {"answer", h.answer}, {"extracted", h.extracted}, {"success", h.success}});
  const HaloSettings& s = setup_.settings;
  json m{{"strategy", kHaloStrategy},
         {"exit", exit},
         {"answer", text},
         {"subtasks", k_},
         {"history", history},
         {"model_calls", model_calls_},
         {"usd", usd_},
         {"agents_hired", agents_.size()},
         {"reply_problems", problems_},
         {"task_parse",
          {{"task_type", parse_.task_type}, {"core_intent", parse_.core_intent}, {"key_details", parse_.key_details}}},
         {"refined_query", query_},
         {"use_prompt_refinement", s.use_prompt_refinement},
         {"use_planner", s.use_planner},
         {"max_subtasks", s.max_subtasks},
         {"backend", setup_.agent_cost.model_ref}};
  if (worst_case_usd_ >= 0) m["first_search_worst_case_expense"] = worst_case_usd_;
  out.push_back(Finish{ok, text, std::move(m)});
}

}  // namespace kaisha::halo
