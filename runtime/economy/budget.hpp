// Budget: the two HASHIRU ledgers (hashiru.md §2.4, §4, §9 D/E).
//
//   resource  percentage points of the machine's memory budget; reclaimable:
//             hire charges create_resource_cost, fire refunds it, and each
//             call holds invoke_resource_cost while it runs (the §4 actor-port
//             reservation: concurrent calls cannot exceed the headroom).
//   expense   USD; never refunded: hire charges create_expense_cost, each call
//             charges invoke_expense_cost x in/1e6 + output_expense_cost x out/1e6.
//   internal invoke cost  the paper's per-use "salary", accumulated on every
//             settled call so that "invocation costs are tracked" (§9 item 24).
//
// Refusals carry code "budget" and the exact HASHIRU sentences, e.g.
//   "Do not have enough resource budget to create/use the agent. Creating/Using
//    the agent costs 20 but only 10 is remaining"
// and are meant to go back to the CEO as a tool error.
//
// Optional limits (BudgetConfig.max_agents / max_inflight_asks, §9 item 29):
// 0 means unlimited.
//
// Overshoot: a reservation holds a true upper bound of a call's cost
// (token_bound.hpp), so a settlement above its hold means a provider billed
// more than any tokenizer should produce. The excess is still charged (the
// money is spent), counted as an overshoot (persisted, shown by GetBudget and
// `kaisha budget`), and while the expense ledger is over its total every paid
// reservation or hire is refused with overspent_text(); a free call (cost 0)
// is never refused by the expense ledger.
//
// Thread-safe. Refused operations charge nothing on either ledger.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_set>

#include "runtime/config/config.hpp"
#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/economy/budget_summary.hpp"
#include "runtime/economy/ledger.hpp"
#include "runtime/economy/model_cost.hpp"

namespace kaisha::economy {

// What a call holds while it runs. Pass it back to settle_ask() or
// cancel_ask() exactly once.
struct AskReservation {
  ReservationId resource_id = 0;
  ReservationId expense_id = 0;
  double resource_held = 0;  // invoke_resource_cost (0 while the ledger is disabled)
  double expense_held = 0;   // worst-case expense for the call
  ModelCost cost;            // the prices the call was reserved at
};

// The persistent part of a Budget (store: budget_state.state_json).
// Decision for hashiru.md §9 item 55: ledger state is persisted and restored;
// restoring agents does NOT re-charge their hire costs.
struct BudgetState {
  LedgerState resource;
  LedgerState expense;
  double internal_invoke_cost = 0;
  int hired_agents = 0;
  double expense_overshoot = 0;  // USD billed above the holds, all calls together
  int overshoot_calls = 0;       // settlements that went above their hold
  // Orders snapshots of one Budget: a later one has a larger seq and holds
  // every change before it, so where several writers save the same budget
  // (sessions sharing it), the store keeps the largest.
  uint64_t seq = 0;

  json to_json() const;
  static Result<BudgetState> from_json(const json& j);
};

class Budget {
 public:
  Budget(double resource_total, double expense_total);
  // Totals from `cfg` (resource per cfg.resource_mode), ledgers enabled per
  // the switches resource_budget / economy_budget.
  Budget(const config::BudgetConfig& cfg, const config::Switches& switches);
  Budget(const Budget&) = delete;
  Budget& operator=(const Budget&) = delete;

  // Resource total for a config: fixed -> resource_total; host_memory ->
  // round(RAM GiB / 16 x 100) from /proc/meminfo (100 if unreadable);
  // paper_16GiB_is_100 -> 100.
  static double resource_total_for(const config::BudgetConfig& cfg);
  // MemTotal of /proc/meminfo in GiB, 0 when unreadable.
  static double host_memory_gib();

  // USD for one call: invoke_expense_cost x in/1e6 + output_expense_cost x out/1e6.
  static double expense_for(const ModelCost& cost, int64_t input_tokens, int64_t output_tokens);

  // The exact HASHIRU refusal sentence; `ledger` is "resource" or "expense".
  static std::string refusal_text(const std::string& ledger, double cost, double remaining);
  // The refusal while the expense ledger is over its total: `cost` is what
  // the refused call or hire would cost, `overshoot` the USD providers billed
  // above their holds.
  static std::string overspent_text(double cost, double spent, double total, double overshoot);

  // --- hiring ---------------------------------------------------------------
  // Would hire() succeed now? Charges nothing.
  Status can_hire(const ModelCost& cost) const;
  // Checks both create costs (and max_agents) and charges both, atomically:
  // on refusal nothing is charged. Call before any backend side effect.
  Status hire(const ModelCost& cost);
  // Refunds create_resource_cost; expense is never refunded. Fails (and
  // changes nothing) if the refund would take resource usage below 0.
  Status fire(const ModelCost& cost);

  // Create costs of something that is not an agent — a tool that declares
  // create_resource_cost / create_expense_cost (§9 item 34): checked and
  // charged to the right ledger like a hire (atomic, same refusal texts),
  // without counting an agent. refund_resource() undoes the resource part
  // when the tool is deleted; expense stays spent.
  Status charge_create_costs(double resource_cost, double expense_cost);
  Status refund_resource(double amount);

  // Take back a hire / create costs that could not be recorded (the journal
  // failed to commit them), so that nothing unrecorded stays charged. Unlike
  // fire(), both ledgers are refunded and the agent count drops.
  void undo_hire(const ModelCost& cost);
  void undo_create_costs(double resource_cost, double expense_cost);

  // --- calls ----------------------------------------------------------------
  // Holds invoke_resource_cost on the resource ledger and the worst-case
  // expense (input_token_bound in, max_output_tokens out — both upper bounds,
  // see llm::input_token_bound) on the expense ledger. Refused with the
  // HASHIRU sentence when either does not fit (overspent_text() while the
  // expense ledger is over its total); a free call is never refused for expense.
  Result<AskReservation> reserve_ask(const ModelCost& cost, int64_t input_token_bound, int64_t max_output_tokens);
  // Charges the actual expense of the finished call (even if above the hold:
  // the provider has billed it), releases the resource hold and adds
  // invoke_resource_cost to the internal invoke-cost counter. Returns the
  // overshoot: USD charged above the expense hold (0 normally).
  double settle_ask(const AskReservation& r, int64_t input_tokens, int64_t output_tokens);
  // The call did not happen: releases both holds, charges nothing.
  void cancel_ask(const AskReservation& r);

  // A cost already incurred outside reserve_ask (e.g. the CEO's own model
  // calls): recorded on the expense ledger without a check. Returns the USD.
  double record_call(const ModelCost& cost, int64_t input_tokens, int64_t output_tokens);

  // --- operator -------------------------------------------------------------
  void raise_expense(double additional);
  void raise_resource(double additional);
  void set_resource_enabled(bool on) { resource_.set_enabled(on); }
  void set_expense_enabled(bool on) { expense_.set_enabled(on); }
  void set_limits(int max_agents, int max_inflight_asks);

  // GetBudget (§3.3): total_resource_budget, current_resource_usage,
  // current_remaining_resource_budget, total_expense_budget, current_expense,
  // current_remaining_expense_budget; plus reserved_resource,
  // reserved_expense, internal_invoke_cost, hired_agents, inflight_asks,
  // resource_budget_enabled, expense_budget_enabled, expense_overshoot,
  // overshoot_calls.
  // "remaining" is total - used - reserved: what a new request can get.
  json get_budget_json() const;
  // Just the six §3.3 GetBudget numbers: what a caller reports after a
  // charge (the ledger actor sends them with every reply).
  BudgetSummary summary() const;

  const Ledger& resource() const { return resource_; }
  const Ledger& expense() const { return expense_; }
  double internal_invoke_cost() const;
  double expense_overshoot() const;
  int overshoot_calls() const;
  int hired_agents() const;
  int inflight_asks() const;

  BudgetState snapshot() const;
  void restore(const BudgetState& state);

 private:
  Status can_hire_locked(const ModelCost& cost) const;
  Status charge_create_locked(double resource_cost, double expense_cost);
  // The expense refusal for `cost`: overspent_text() while the ledger is over
  // its total, else the HASHIRU sentence.
  Error expense_refusal_locked(double cost) const;

  Ledger resource_{"resource", 0};
  Ledger expense_{"expense", 0};
  // Guards the counters below and serialises hire/fire/reserve_ask so that
  // limits and the two ledgers are checked together.
  mutable std::mutex mu_;
  Micros internal_invoke_ = 0;
  Micros overshoot_ = 0;
  int overshoot_calls_ = 0;
  int hired_ = 0;
  int inflight_ = 0;
  int max_agents_ = 0;
  int max_inflight_ = 0;
  std::unordered_set<ReservationId> active_asks_;  // keyed by AskReservation.resource_id
  mutable uint64_t snapshots_ = 0;                 // the last BudgetState::seq handed out
};

}  // namespace kaisha::economy
