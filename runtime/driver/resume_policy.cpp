#include "runtime/driver/resume_policy.hpp"

#include <utility>

namespace kaisha::driver {

std::string effect_description(const Effect& e) {
  if (const auto* c = std::get_if<CallModel>(&e)) return "model call (" + c->purpose + ")";
  if (const auto* a = std::get_if<Ask>(&e)) return "ask " + a->agent;
  if (const auto* h = std::get_if<Hire>(&e)) return "hire " + h->spec.name;
  if (const auto* f = std::get_if<Fire>(&e)) return "fire " + f->agent;
  if (const auto* a = std::get_if<Audit>(&e)) return "audit of " + a->producer;
  if (const auto* t = std::get_if<RunTool>(&e)) return "tool " + t->tool;
  if (std::holds_alternative<ReadBudget>(e)) return "budget read";
  if (const auto* st = std::get_if<SaveState>(&e)) return "state " + st->key;
  return "memory recall";
}

bool outcome_answers(const Effect& e, const Outcome& o) {
  if (std::holds_alternative<CallModel>(e)) return std::holds_alternative<ModelAnswered>(o);
  if (std::holds_alternative<Hire>(e)) return std::holds_alternative<HireAnswered>(o);
  if (std::holds_alternative<Fire>(e)) return std::holds_alternative<FireAnswered>(o);
  if (std::holds_alternative<Ask>(e)) return std::holds_alternative<AskAnswered>(o);
  if (std::holds_alternative<Audit>(e)) return std::holds_alternative<JudgeRuled>(o);
  if (std::holds_alternative<RunTool>(e)) return std::holds_alternative<ToolRan>(o);
  if (std::holds_alternative<ReadBudget>(e)) return std::holds_alternative<BudgetRead>(o);
  if (std::holds_alternative<Recall>(e)) return std::holds_alternative<Recalled>(o);
  return false;
}

ResumePolicy::ResumePolicy(std::shared_ptr<ReplayLog> log, std::function<bool(const std::string&)> repeatable)
    : log_(std::move(log)), repeatable_(std::move(repeatable)) {}

Result<ResumeStep> ResumePolicy::step(const Effect& effect, CallId kept_id, bool replaying) {
  ResumeStep r;
  if (std::holds_alternative<Journal>(effect) || std::holds_alternative<Report>(effect)) {
    r.handled = replaying;
    return r;
  }
  if (kept_id == 0 && !std::holds_alternative<Fire>(effect)) return r;
  if (kept_id != 0 && log_->answered(kept_id)) {
    const Outcome& o = *log_->outcome(kept_id);
    if (!outcome_answers(effect, o))
      return Error{"resume", "cannot resume: the journal's outcome of call " + std::to_string(kept_id) +
                                 " does not answer what the strategy asks for now (" + effect_description(effect) +
                                 "); the strategy or its configuration changed since the task was interrupted"};
    r.handled = true;
    if (const auto* h = std::get_if<Hire>(&effect))
      r.adopt = std::get<HireAnswered>(o).ok && log_->take_hire(h->spec.name);
    if (const auto* f = std::get_if<Fire>(&effect))
      r.dismiss = std::get<FireAnswered>(o).ok && log_->take_fire(f->agent);
    return r;
  }
  if (const auto* t = std::get_if<RunTool>(&effect); t && replaying && !(repeatable_ ? repeatable_(t->tool) : false)) {
    r.handled = true;
    r.note = json{{"not_repeated", t->tool}, {"call", kept_id}};
    r.deferred =
        ToolRan{t->id, company::ToolResult::error("`" + t->tool +
                                                  "` was running when the process running this task stopped, "
                                                  "and it is not marked safe to repeat, so it was not run again: check "
                                                  "whether it took effect before calling it again")};
    return r;
  }
  if (const auto* h = std::get_if<Hire>(&effect); h && log_->take_hire(h->spec.name)) {
    r.handled = r.adopt = r.answer_with_budget = true;
    return r;
  }
  if (const auto* f = std::get_if<Fire>(&effect); f && log_->take_fire(f->agent)) {
    r.handled = r.dismiss = true;
    r.answer_with_budget = f->id != 0;
    return r;
  }
  if (kept_id != 0 && replaying) r.note = json{{"rerun", effect_description(effect)}, {"call", kept_id}};
  return r;
}

}  // namespace kaisha::driver
