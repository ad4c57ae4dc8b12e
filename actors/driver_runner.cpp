#include "actors/driver_runner.hpp"

#include <stdexcept>
#include <type_traits>
#include <utility>

#include <caf/event_based_actor.hpp>

#include "actors/atoms.hpp"

namespace kaisha::actors {

using namespace driver;

DriverRunner::DriverRunner(caf::event_based_actor* self, StrategyKit& kit, DriverHooks hooks)
    : self_(self), kit_(kit), hooks_(std::move(hooks)) {}

void DriverRunner::run(Effects effects) {
  const std::string tid = kit_.task_id();
  for (Effect& e : effects) {
    if (!kit_.current(tid)) return;
    execute(tid, e);
  }
}

void DriverRunner::answer(const std::string& tid, Outcome o) {
  if (!kit_.current(tid)) return;
  run(hooks_.feed(o));
}

void DriverRunner::execute(const std::string& tid, Effect& effect) {
  std::visit(
      [&](auto& e) {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, CallModel>) {
          kit_.call_model(hooks_.model_role(e), std::move(e.request), e.await_settle,
                          [this, tid, id = e.id](ChargedCallResult r) {
                            answer(tid, ModelAnswered{id, r.ok, r.refused, std::move(r.error), std::move(r.response),
                                                      r.expense});
                          });
        } else if constexpr (std::is_same_v<T, Hire>) {
          kit_.hire(e.spec, e.cost, hooks_.tenure, hooks_.run_as(e.spec), [this, tid, id = e.id](HireResult h) {
            answer(tid, HireAnswered{id, h.ok, h.refused, std::move(h.error), h.budget.to_json()});
          });
        } else if constexpr (std::is_same_v<T, Fire>) {
          kit_.fire(e.agent, [this, tid, id = e.id, name = e.agent](bool ok, std::string error,
                                                                   economy::BudgetSummary budget) {
            if (id != 0) return answer(tid, FireAnswered{id, ok, std::move(error), budget.to_json()});
            if (kit_.listening()) kit_.emit("fire", name, json{{"agent", name}, {"budget", budget.to_json()}});
          });
        } else if constexpr (std::is_same_v<T, Ask>) {
          // The budget after the ask is known only when the ask waited for its settlement.
          kit_.ask(e.agent, e.prompt, e.job, e.await_settle,
                   [this, tid, id = e.id, settled = e.await_settle](ChargedAskResult r) {
                     json budget = settled ? r.budget.to_json() : json::object();
                     answer(tid, AskAnswered{id, r.ok, r.refused, std::move(r.error), std::move(r.reply), r.expense,
                                             std::move(budget)});
                   });
        } else if constexpr (std::is_same_v<T, Audit>) {
          kit_.audit(e.producer, e.instruction, e.claim, [this, tid, id = e.id](AuditOutcome o) {
            JudgeRuled ruled;
            ruled.id = id;
            ruled.kind = o.kind == AuditOutcome::Kind::verdict        ? JudgeRuled::Kind::verdict
                         : o.kind == AuditOutcome::Kind::judge_failed ? JudgeRuled::Kind::judge_failed
                                                                      : JudgeRuled::Kind::no_answer;
            ruled.verdict = std::move(o.verdict);
            ruled.error = std::move(o.error);
            answer(tid, std::move(ruled));
          });
        } else if constexpr (std::is_same_v<T, RunTool>) {
          if (!hooks_.run_tool) throw std::logic_error(kit_.deps().who + " runs no tools, but its driver asked for " + e.tool);
          hooks_.run_tool(e, [this, tid, id = e.id](company::ToolResult r) { answer(tid, ToolRan{id, std::move(r)}); });
        } else if constexpr (std::is_same_v<T, ReadBudget>) {
          self_->request(kit_.deps().ledger, caf::infinite, budget_atom::value)
              .then([this, tid, id = e.id](LedgerReply& b) { answer(tid, BudgetRead{id, std::move(b.view)}); });
        } else if constexpr (std::is_same_v<T, Journal>) {
          kit_.step(e.kind, std::move(e.payload), e.tokens_in, e.tokens_out, e.usd, e.agent);
        } else if constexpr (std::is_same_v<T, Report>) {
          kit_.emit(e.kind, e.text, std::move(e.data), e.agent);
        } else if constexpr (std::is_same_v<T, Finish>) {
          hooks_.finish(std::move(e));
        }
      },
      effect);
}

}  // namespace kaisha::actors
