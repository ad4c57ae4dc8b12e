#include "runtime/employee/tool_loop_driver.hpp"

#include <utility>

#include "runtime/company/tool_error_class.hpp"
#include "runtime/core/json_text.hpp"
#include "runtime/driver/pending_calls.hpp"

namespace kaisha::employee {

using namespace driver;

namespace {

json calls_json(const std::vector<llm::ToolCall>& calls) {
  json a = json::array();
  for (const auto& c : calls) a.push_back({{"id", c.id}, {"name", c.name}, {"arguments", c.arguments}});
  return a;
}

}  // namespace

ToolLoopDriver::ToolLoopDriver(ToolLoopSettings settings)
    : settings_(std::move(settings)),
      // max_turns counts model answers: the loop's bound on model calls.
      conversation_(settings_.system_prompt,
                    company::ConversationLimits{settings_.max_tool_iterations, settings_.max_malformed_tool_calls}) {
  conversation_.add_user(settings_.prompt);
}

Effects ToolLoopDriver::start() {
  Effects out;
  call_model(out);
  return out;
}

Effects ToolLoopDriver::on(const Outcome& outcome) {
  if (finished_ || !waiting_ || id_of(outcome) != *waiting_) return {};
  const auto* a = std::get_if<ModelAnswered>(&outcome);
  const auto* t = std::get_if<ToolRan>(&outcome);
  // The answer of the effect it waits for, of that effect's kind.
  if (a && !waiting_model_) a = nullptr;
  if (t && waiting_model_) t = nullptr;
  if (!a && !t) return {};
  waiting_.reset();
  return a ? on_answer(*a) : on_tool(*t);
}

Effects ToolLoopDriver::cancel(const std::string& why) {
  Effects out;
  if (finished_) return out;
  waiting_.reset();
  stop(out, why);
  return out;
}

const llm::ToolCall* ToolLoopDriver::tool_call(CallId id) const {
  for (const auto& [asked, call] : asked_)
    if (asked == id) return &call;
  return nullptr;
}

Effects ToolLoopDriver::on_answer(const ModelAnswered& a) {
  Effects out;
  const std::string& agent = settings_.agent;
  if (a.refused) {
    out.push_back(
        journal_step(msg::EventKind::refusal, json{{"error", a.error}, {"call", "employee_model"}}, 0, 0, 0, agent));
    out.push_back(Report{msg::EventKind::refusal, a.error, json{{"agent", agent}}, agent});
    stop(out, a.error);
    return out;
  }
  if (!a.ok) {
    if (conversation_.turns() > 0) {
      stop(out, "the model call failed: " + a.error);
      return out;
    }
    // The ask's first call failed: the ask fails, as for an employee without tools.
    out.push_back(journal_step(msg::EventKind::error, json{{"error", a.error}}, 0, 0, 0, agent));
    finish(out, false, a.error);
    return out;
  }
  const llm::ChatResponse& response = a.response;
  out.push_back(journal_step(msg::EventKind::llm_response,
                             json{{"text", response.message.content},
                                  {"tool_calls", calls_json(response.message.tool_calls)},
                                  {"usage_estimated", response.usage.estimated}},
                             response.usage.input_tokens, response.usage.output_tokens, 0, agent));
  company::NextStep step = conversation_.on_response(response);
  switch (step.kind) {
    case company::NextStep::Kind::answer:
      finish(out, true, step.text);
      break;
    case company::NextStep::Kind::fail:
      if (conversation_.turns() >= settings_.max_tool_iterations && !response.message.tool_calls.empty())
        stop(out, "no final answer after " + std::to_string(conversation_.turns()) +
                      " model calls (employee.max_tool_iterations)");
      else
        stop(out, step.text);
      break;
    case company::NextStep::Kind::run_tools:
      calls_ = std::move(step.calls);
      next_call_ = 0;
      next(out);
      break;
  }
  return out;
}

Effects ToolLoopDriver::on_tool(const ToolRan& t) {
  Effects out;
  const llm::ToolCall* call = tool_call(t.id);
  if (!call) return out;
  const std::string& agent = settings_.agent;
  json result = t.result.to_json();
  out.push_back(journal_step(msg::EventKind::tool_result,
                             json{{"tool", call->name}, {"result", result}, {"call_id", call->id}}, 0, 0, 0, agent));
  if (listening())
    out.push_back(Report{msg::EventKind::tool_result,
                         "Tool responded with " + dump_text(result),
                         {{"tool", call->name}, {"result", result}, {"call_id", call->id}, {"agent", agent}},
                         agent});
  // A copy: asking again adds to asked_, which `call` points into.
  if (!t.result.ok && retry(out, llm::ToolCall(*call), t.result)) return out;
  conversation_.add_tool_result(*call, result);
  next(out);
  return out;
}

bool ToolLoopDriver::retry(Effects& out, const llm::ToolCall& call, const company::ToolResult& result) {
  const auto kind = company::classify_tool_error(result);
  if (!kind) return false;
  const bool repeatable = settings_.repeatable && settings_.repeatable(call.name);
  const std::string key = settings_.task_id + '/' + settings_.agent + '/' + call.id;
  const auto delay = settings_.retry.retry_after(*kind, repeatable, attempt_, key);
  if (!delay) return false;
  ++attempt_;
  const std::string& agent = settings_.agent;
  const std::string error_class(company::tool_error_class_name(*kind));
  json note{{"tool_retry", call.name},    {"call_id", call.id}, {"attempt", attempt_},
            {"error_class", error_class}, {"delay_ms", *delay}, {"error", result.message}};
  out.push_back(journal_step(msg::EventKind::note, note, 0, 0, 0, agent));
  if (listening()) {
    note["tool"] = call.name;
    note["agent"] = agent;
    out.push_back(Report{msg::EventKind::retry,
                         "Retrying `" + call.name + "` in " + std::to_string(*delay) + " ms (attempt " +
                             std::to_string(attempt_) + " of " + std::to_string(settings_.retry.max_attempts) + ", " +
                             error_class + "): " + result.message,
                         std::move(note), agent});
  }
  run_tool(out, call, *delay);
  return true;
}

// The model's tool calls, one after the other in its order (hashiru.md §9
// item 7); then the next model call.
void ToolLoopDriver::next(Effects& out) {
  if (next_call_ == calls_.size()) return call_model(out);
  const llm::ToolCall& call = calls_[next_call_++];
  ++tool_calls_;
  attempt_ = 1;
  run_tool(out, call, 0);
}

void ToolLoopDriver::run_tool(Effects& out, const llm::ToolCall& call, int64_t delay_ms) {
  const CallId id = ++last_id_;
  asked_.emplace_back(id, call);
  waiting_ = id;
  waiting_model_ = false;
  RunTool run;
  run.id = id;
  run.tool = call.name;
  run.arguments = call.arguments;
  run.delay_ms = delay_ms;
  out.push_back(std::move(run));
}

void ToolLoopDriver::call_model(Effects& out) {
  const CallId id = ++last_id_;
  waiting_ = id;
  waiting_model_ = true;
  out.push_back(CallModel{id, "employee_model",
                          conversation_.request({}, settings_.temperature, settings_.max_output_tokens), false});
}

// The loop cannot go on: the employee still answers — with what stopped it —
// so that the asker settles the first call it paid for.
void ToolLoopDriver::stop(Effects& out, const std::string& why) {
  out.push_back(journal_step(msg::EventKind::error, json{{"error", why}, {"call", "employee_tool_loop"}}, 0, 0, 0,
                             settings_.agent));
  finish(out, true, settings_.agent + " stopped before a final answer: " + why);
}

void ToolLoopDriver::finish(Effects& out, bool ok, std::string text) {
  finished_ = true;
  waiting_.reset();
  out.push_back(Finish{ok, std::move(text), json::object()});
}

}  // namespace kaisha::employee
