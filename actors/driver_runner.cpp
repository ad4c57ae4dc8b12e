#include "actors/driver_runner.hpp"

#include <stdexcept>
#include <type_traits>
#include <utility>

#include <caf/event_based_actor.hpp>

#include "actors/atoms.hpp"

namespace kaisha::actors {

using namespace driver;

namespace {

// A hook the strategy did not give, for an effect its driver asked for.
[[noreturn]] void missing(const StrategyKit& kit, const char* what) {
  throw std::logic_error(kit.deps().who + "'s driver asked for " + what + ", which it has no hook for");
}

}  // namespace

DriverRunner::DriverRunner(caf::event_based_actor* self, StrategyKit& kit, DriverHooks hooks)
    : self_(self), kit_(kit), hooks_(std::move(hooks)) {}

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
  run(hooks_.feed(o), s);
}

void DriverRunner::execute(const Scope& s, Effect& effect) {
  std::visit(
      [&](auto& e) {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, CallModel>) {
          // The budget after a call is known only when it waited for its settlement.
          kit_.call_model(hooks_.model_role(e), std::move(e.request), e.await_settle,
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
            if (kit_.listening()) kit_.emit(msg::EventKind::fire, name, json{{"agent", name}, {"budget", budget.to_json()}});
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
            kit_.ask(e.agent, e.prompt, e.job, e.await_settle, std::move(answered));
          else
            kit_.ask_turn(e.agent, std::move(e.messages), std::move(e.tools), e.job, e.await_settle,
                          std::move(answered));
        } else if constexpr (std::is_same_v<T, Audit>) {
          kit_.audit(e.producer, e.instruction, e.claim, [this, s, id = e.id](AuditOutcome o) {
            using K = JudgeRuled::Kind;
            const K kind = o.kind == AuditOutcome::Kind::verdict        ? K::verdict
                           : o.kind == AuditOutcome::Kind::judge_failed ? K::judge_failed
                                                                        : K::no_answer;
            answer(s, JudgeRuled{id, kind, std::move(o.verdict), std::move(o.error)});
          });
        } else if constexpr (std::is_same_v<T, RunTool>) {
          if (!hooks_.run_tool) missing(kit_, "a tool");
          hooks_.run_tool(e, [this, s, id = e.id](company::ToolResult r) { answer(s, ToolRan{id, std::move(r)}); });
        } else if constexpr (std::is_same_v<T, ReadBudget>) {
          self_->request(kit_.deps().ledger, caf::infinite, budget_atom::value)
              .then([this, s, id = e.id](LedgerReply& b) { answer(s, BudgetRead{id, std::move(b.view)}); });
        } else if constexpr (std::is_same_v<T, Recall>) {
          if (!hooks_.recall) missing(kit_, "memories");
          hooks_.recall(e, s.tid);
        } else if constexpr (std::is_same_v<T, Journal>) {
          kit_.step(e.kind, std::move(e.payload), e.tokens_in, e.tokens_out, e.usd, e.agent);
        } else if constexpr (std::is_same_v<T, Report>) {
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
          hooks_.finish(std::move(e));
        } else if constexpr (std::is_same_v<T, Reply>) {
          if (!hooks_.reply) missing(kit_, "a reply");
          hooks_.reply(std::move(e));
        } else {
          static_assert(!sizeof(T), "an effect the runner does not execute");
        }
      },
      effect);
}

}  // namespace kaisha::actors
