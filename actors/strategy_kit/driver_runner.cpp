#include "actors/strategy_kit/driver_runner.hpp"

#include <stdexcept>
#include <type_traits>
#include <utility>

#include <caf/event_based_actor.hpp>

#include "actors/caf/atoms.hpp"
#include "actors/system/ledger_actor.hpp"
#include "runtime/company/tool_spec_file.hpp"
#include "runtime/driver/outcome_codec.hpp"
#include "runtime/driver/pending_calls.hpp"
#include "runtime/driver/resume_policy.hpp"
#include "runtime/messages/ask_usage.hpp"
#include "runtime/telemetry/tool_span.hpp"
#include "runtime/telemetry/tracer.hpp"

namespace kaisha::actors {

using namespace driver;

namespace {

// A hook the strategy did not give, for an effect its driver asked for.
[[noreturn]] void missing(const StrategyKit& kit, const char* what) {
  throw std::logic_error(kit.deps().who + "'s driver asked for " + what + ", which it has no hook for");
}

}  // namespace

DriverRunner::DriverRunner(caf::event_based_actor* self, StrategyKit& kit, DriverHooks hooks)
    : self_(self), kit_(kit), hooks_(std::move(hooks)), tool_spans_(hooks_.invokes_agent) {}

void DriverRunner::run(Effects effects) { run(std::move(effects), Scope{kit_.task_id(), false}); }

void DriverRunner::run_direct(Effects effects) { run(std::move(effects), Scope{"", true}); }

void DriverRunner::answer(const std::string& tid, Outcome o) { answer(Scope{tid, false}, std::move(o)); }

bool DriverRunner::live(const Scope& s) const { return s.direct || kit_.current(s.tid); }

void DriverRunner::run(Effects effects, const Scope& s) {
  for (Effect& e : effects) {
    if (!live(s)) return;
    execute(s, e);
  }
}

void DriverRunner::answer(const Scope& s, Outcome o) {
  if (!live(s)) return;
  if (s.direct) return run(hooks_.feed(o), s);
  Numbering& n = numbering(s.tid);
  const int64_t seq = n.kept++;
  const CallId kept_id = id_of(o) - n.base;
  run(hooks_.feed(o), s);
  // After feeding, so the driver's next effects go out first; its charge
  // was sent before it came, which is all a kept outcome needs.
  kit_.keep_outcome(s.tid, seq, std::make_shared<Outcome>(with_id(std::move(o), kept_id)));
}

DriverRunner::Numbering& DriverRunner::numbering(const std::string& tid) {
  if (numbering_.tid != tid) numbering_ = Numbering{tid};
  return numbering_;
}

void DriverRunner::resume(Effects start, std::shared_ptr<ReplayLog> log) {
  const Scope s{kit_.task_id(), false};
  replay_ = std::move(log);
  policy_ = std::make_unique<ResumePolicy>(replay_, [this](const std::string& tool) {
    return hooks_.repeatable ? hooks_.repeatable(tool) : company::repeatable_tool(tool);
  });
  replay_tid_ = s.tid;
  numbering(s.tid).kept = static_cast<int64_t>(replay_->size());
  replaying_ = true;
  run(std::move(start), s);
  for (const Outcome& kept : replay_->outcomes()) {
    if (!live(s)) break;
    const Outcome o = with_id(kept, id_of(kept) + numbering_.base);
    // The task's totals count what was paid before, as when it came.
    if (const auto* m = std::get_if<ModelAnswered>(&o); m && m->ok) kit_.account(s.tid, m->response.usage, m->expense);
    if (const auto* a = std::get_if<AskAnswered>(&o); a && a->ok)
      kit_.account(s.tid, msg::ask_usage(a->reply), a->expense);
    run(hooks_.feed(o), s);
  }
  replaying_ = false;
  if (live(s)) kit_.step(msg::EventKind::note, json{{"resumed", {{"replayed", replay_->size()}}}});
  // Answers made up during the replay come after every kept one, as they
  // would have: the kept outcomes are what was fed before the process died.
  for (Outcome& o : std::exchange(deferred_, {})) answer(s, std::move(o));
}

namespace {

// The id an effect's outcome carries (0: it has none).
CallId effect_id(const Effect& e) {
  return std::visit(
      [](const auto& x) -> CallId {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, Journal> || std::is_same_v<T, Report> || std::is_same_v<T, Finish> ||
                      std::is_same_v<T, Reply> || std::is_same_v<T, SaveState>)
          return 0;
        else
          return x.id;
      },
      e);
}

}  // namespace

bool DriverRunner::replayed(const Scope& s, Effect& effect) {
  if (s.direct || !policy_ || s.tid != replay_tid_) return false;
  const CallId id = effect_id(effect);
  auto step = policy_->step(effect, id == 0 ? 0 : id - numbering_.base, replaying_);
  if (!step.ok()) throw std::runtime_error(step.error().message);
  if (!step->note.is_null()) kit_.step(msg::EventKind::note, std::move(step->note));
  if (step->deferred) deferred_.push_back(std::move(*step->deferred));
  if (auto* h = std::get_if<Hire>(&effect); h && step->adopt)
    kit_.adopt(h->spec, h->cost, hooks_.tenure, hooks_.run_as(h->spec));
  if (auto* f = std::get_if<Fire>(&effect); f && step->dismiss) kit_.dismiss(f->agent);
  if (step->answer_with_budget) {
    // The ledger made the hire or fire; its answer was lost with the process.
    const bool hire = std::holds_alternative<Hire>(effect);
    self_->request(kit_.deps().ledger, caf::infinite, budget_atom::value).then([this, s, id, hire](LedgerReply& b) {
      if (hire)
        answer(s, HireAnswered{id, true, false, "", std::move(b.view)});
      else
        answer(s, FireAnswered{id, true, false, "", std::move(b.view)});
    });
  }
  return step->handled;
}

KeptWith DriverRunner::kept_with(const Scope& s, CallId id) {
  if (s.direct || id == 0) return {};
  return KeptWith{static_cast<int64_t>(id - numbering(s.tid).base), -1};
}

AskKeeping DriverRunner::keeping(const Scope& s, CallId id) {
  if (s.direct) return {};
  const CallId call = id - numbering(s.tid).base;
  AskKeeping k{static_cast<int64_t>(call), {}};
  // An ask run again on a resume gets what its tool loop had done.
  if (replay_ && s.tid == replay_tid_) k.replay = replay_->ask_steps(call);
  return k;
}

void DriverRunner::execute(const Scope& s, Effect& effect) {
  if (!s.direct) {
    // The task's first effect with an id sets where its numbering starts.
    Numbering& n = numbering(s.tid);
    if (const CallId id = effect_id(effect); id != 0 && !n.based) {
      n.based = true;
      n.base = id - 1;
    }
  }
  if (replayed(s, effect)) return;
  std::visit(
      [&](auto& e) {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, CallModel>) {
          // The budget after a call is known only when it waited for its settlement.
          kit_.call_model(hooks_.model_role(e), std::move(e.request), e.await_settle, kept_with(s, e.id),
                          [this, s, id = e.id, settled = e.await_settle](ChargedCallResult r) {
                            json budget = settled ? r.budget.to_json() : json::object();
                            answer(s, ModelAnswered{id, r.ok, r.refused, std::move(r.error), std::move(r.response),
                                                    r.expense, std::move(budget)});
                          });
        } else if constexpr (std::is_same_v<T, Hire>) {
          kit_.hire(e.spec, e.cost, hooks_.tenure, hooks_.run_as(e.spec), [this, s, id = e.id](HireResult h) {
            answer(s, HireAnswered{id, h.ok, h.refused, std::move(h.error), h.budget.to_json()});
          });
        } else if constexpr (std::is_same_v<T, Fire>) {
          auto answered = [this, s, id = e.id, name = e.agent](bool ok, std::string error,
                                                               economy::BudgetSummary budget) {
            if (id != 0) return answer(s, FireAnswered{id, ok, false, std::move(error), budget.to_json()});
            if (kit_.listening())
              kit_.emit(msg::EventKind::fire, name, json{{"agent", name}, {"budget", budget.to_json()}});
          };
          if (!kit_.fire(e.agent, answered) && e.id != 0)
            answer(s, FireAnswered{e.id, false, true, e.agent + " is not hired", json::object()});
        } else if constexpr (std::is_same_v<T, Ask>) {
          auto answered = [this, s, id = e.id, settled = e.await_settle](ChargedAskResult r) {
            json budget = settled ? r.budget.to_json() : json::object();
            answer(s, AskAnswered{id, r.ok, r.refused, std::move(r.error), std::move(r.reply), r.expense,
                                  std::move(budget)});
          };
          if (e.messages.empty())
            kit_.ask(e.agent, e.prompt, e.job, e.await_settle, keeping(s, e.id), std::move(answered));
          else
            kit_.ask_turn(e.agent, std::move(e.messages), std::move(e.tools), e.job, e.await_settle, kept_with(s, e.id),
                          std::move(answered));
        } else if constexpr (std::is_same_v<T, Audit>) {
          kit_.audit(e.producer, e.instruction, e.claim, kept_with(s, e.id).call, [this, s, id = e.id](AuditOutcome o) {
            using K = JudgeRuled::Kind;
            const K kind = o.kind == AuditOutcome::Kind::verdict        ? K::verdict
                           : o.kind == AuditOutcome::Kind::judge_failed ? K::judge_failed
                                                                        : K::no_answer;
            answer(s, JudgeRuled{id, kind, std::move(o.verdict), std::move(o.error)});
          });
        } else if constexpr (std::is_same_v<T, RunTool>) {
          if (!hooks_.run_tool) missing(kit_, "a tool");
          // Once the outcomes kept so far (the answer asking for this tool)
          // are on disk: a resume then knows the tool was in flight.
          auto run = [this, s, e]() mutable {
            // The span the driver's tool_call event opened, or one of its own.
            e.trace = tool_spans_.claim(e.tool, s.tid);
            auto span = e.trace.empty() ? telemetry::tool_span(e.tool, "", "", s.tid) : nullptr;
            if (span) e.trace = telemetry::traceparent_of(*span);
            hooks_.run_tool(e, [this, s, id = e.id, span](company::ToolResult r) {
              if (span) telemetry::end_tool_span(*span, r);
              answer(s, ToolRan{id, std::move(r)});
            });
          };
          if (e.delay_ms <= 0) return after_ledger_synced(self_, kit_.deps().ledger, std::move(run));
          // A retry's backoff: waited on the actor's clock, the thread free meanwhile.
          const uint64_t wait = ++next_wait_;
          waits_.emplace(wait, [this, s, run = std::move(run)]() mutable {
            if (live(s)) after_ledger_synced(self_, kit_.deps().ledger, std::move(run));
          });
          self_->delayed_send(self_, std::chrono::milliseconds(e.delay_ms), tool_atom::value, wait);
        } else if constexpr (std::is_same_v<T, ReadBudget>) {
          self_->request(kit_.deps().ledger, caf::infinite, budget_atom::value)
              .then([this, s, id = e.id](LedgerReply& b) {
                answer(s, BudgetRead{id, std::move(b.view)});
              });
        } else if constexpr (std::is_same_v<T, Recall>) {
          if (!hooks_.recall) missing(kit_, "memories");
          hooks_.recall(e, s.tid);
        } else if constexpr (std::is_same_v<T, Journal>) {
          kit_.step(e.kind, std::move(e.payload), e.tokens_in, e.tokens_out, e.usd, e.agent);
        } else if constexpr (std::is_same_v<T, Report>) {
          if (e.kind == msg::EventKind::tool_call)
            tool_spans_.called(e.data, e.text, s.tid);
          else if (e.kind == msg::EventKind::tool_result)
            tool_spans_.returned(e.data);
          msg::ProgressEvent ev;
          ev.kind = e.kind;
          ev.text = std::move(e.text);
          ev.data = std::move(e.data);
          ev.agent = std::move(e.agent);
          ev.tokens_in = e.tokens_in;
          ev.tokens_out = e.tokens_out;
          ev.usd = e.usd;
          kit_.emit(std::move(ev));
        } else if constexpr (std::is_same_v<T, Finish>) {
          tool_spans_.end_all("the task ended before the tool answered");
          hooks_.finish(std::move(e));
        } else if constexpr (std::is_same_v<T, Reply>) {
          if (!hooks_.reply) missing(kit_, "a reply");
          hooks_.reply(std::move(e));
        } else if constexpr (std::is_same_v<T, SaveState>) {
          // Run again on a resume too: a change saved again replaces its version.
          if (!hooks_.save_state) missing(kit_, "state");
          hooks_.save_state(std::move(e));
        } else {
          static_assert(!sizeof(T), "an effect the runner does not execute");
        }
      },
      effect);
}

void DriverRunner::on_wait_over(uint64_t wait) {
  auto it = waits_.find(wait);
  if (it == waits_.end()) return;
  auto then = std::move(it->second);
  waits_.erase(it);
  then();
}

}  // namespace kaisha::actors
