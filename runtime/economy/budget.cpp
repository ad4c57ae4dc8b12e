#include "runtime/economy/budget.hpp"

#include <algorithm>

#include <cmath>
#include <fstream>
#include <sstream>

namespace kaisha::economy {

namespace {

Error refusal(const std::string& ledger, double cost, double remaining) {
  return Error{"budget", Budget::refusal_text(ledger, cost, remaining)};
}

}  // namespace

// ---- BudgetState -------------------------------------------------------------

json BudgetState::to_json() const {
  return json{{"version", 1},
              {"resource", {{"total", resource.total}, {"used", resource.used}, {"enabled", resource.enabled}}},
              {"expense", {{"total", expense.total}, {"used", expense.used}, {"enabled", expense.enabled}}},
              {"internal_invoke_cost", internal_invoke_cost},
              {"hired_agents", hired_agents},
              {"expense_overshoot", expense_overshoot},
              {"overshoot_calls", overshoot_calls},
              {"seq", seq}};
}

Result<BudgetState> BudgetState::from_json(const json& j) {
  try {
    BudgetState s;
    auto ledger = [](const json& l) {
      return LedgerState{l.at("total").get<double>(), l.at("used").get<double>(), l.value("enabled", true)};
    };
    s.resource = ledger(j.at("resource"));
    s.expense = ledger(j.at("expense"));
    s.internal_invoke_cost = j.value("internal_invoke_cost", 0.0);
    s.hired_agents = j.value("hired_agents", 0);
    s.expense_overshoot = j.value("expense_overshoot", 0.0);
    s.overshoot_calls = j.value("overshoot_calls", 0);
    s.seq = j.value("seq", uint64_t{0});
    return s;
  } catch (const json::exception& e) {
    return Error{"budget", std::string("malformed budget state: ") + e.what()};
  }
}

// ---- Budget ------------------------------------------------------------------

Budget::Budget(double resource_total, double expense_total) {
  resource_.set_total(resource_total);
  expense_.set_total(expense_total);
}

Budget::Budget(const config::BudgetConfig& cfg, const config::Switches& switches)
    : Budget(resource_total_for(cfg), cfg.expense_total) {
  resource_.set_enabled(switches.resource_budget);
  expense_.set_enabled(switches.economy_budget);
  max_agents_ = cfg.max_agents;
  max_inflight_ = cfg.max_inflight_asks;
}

double Budget::host_memory_gib() {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("MemTotal:", 0) != 0) continue;
    std::istringstream ls(line.substr(9));
    double kib = 0;
    if (ls >> kib) return kib / (1024.0 * 1024.0);
  }
  return 0;
}

double Budget::resource_total_for(const config::BudgetConfig& cfg) {
  if (cfg.resource_mode == "host_memory") {
    double gib = host_memory_gib();
    if (gib <= 0) return 100;  // unreadable: fall back to the paper's reading
    return std::round(gib / 16.0 * 100.0);
  }
  if (cfg.resource_mode == "paper_16GiB_is_100") return 100;
  return cfg.resource_total;
}

double Budget::expense_for(const ModelCost& cost, int64_t input_tokens, int64_t output_tokens) {
  return cost.invoke_expense_cost * static_cast<double>(input_tokens) / 1e6 +
         cost.output_expense_cost * static_cast<double>(output_tokens) / 1e6;
}

std::string Budget::refusal_text(const std::string& ledger, double cost, double remaining) {
  return "Do not have enough " + ledger + " budget to create/use the agent. Creating/Using the agent costs " +
         format_amount(cost) + " but only " + format_amount(remaining) + " is remaining";
}

std::string Budget::overspent_text(double cost, double spent, double total, double overshoot) {
  std::string why =
      overshoot > 0 ? " after providers billed " + format_amount(overshoot) + " more than was reserved for their calls"
                    : "";
  return "The expense budget is overspent: " + format_amount(spent) + " is spent of a total of " +
         format_amount(total) + why + ". Nothing that costs money (this costs " + format_amount(cost) +
         ") can run until the budget is raised; free calls still can";
}

Error Budget::expense_refusal_locked(double cost) const {
  if (double over = expense_.overspent(); over > 0)
    return Error{"budget", overspent_text(cost, expense_.used(), expense_.total(), from_micros(overshoot_))};
  return refusal("expense", cost, expense_.remaining());
}

Status Budget::can_hire(const ModelCost& cost) const {
  std::lock_guard lock(mu_);
  return can_hire_locked(cost);
}

Status Budget::can_hire_locked(const ModelCost& cost) const {
  if (max_agents_ > 0 && hired_ >= max_agents_) {
    return Error{"budget", "Cannot hire another agent: the limit of " + std::to_string(max_agents_) +
                               " concurrently hired agents is reached; fire an agent first"};
  }
  if (!resource_.can_spend(cost.create_resource_cost)) {
    return refusal("resource", cost.create_resource_cost, resource_.remaining());
  }
  if (!expense_.can_spend(cost.create_expense_cost)) return expense_refusal_locked(cost.create_expense_cost);
  return Status::Ok();
}

Status Budget::hire(const ModelCost& cost) {
  std::lock_guard lock(mu_);
  if (Status s = can_hire_locked(cost); !s) return s;
  if (Status s = charge_create_locked(cost.create_resource_cost, cost.create_expense_cost); !s) return s;
  ++hired_;
  return Status::Ok();
}

Status Budget::charge_create_locked(double resource_cost, double expense_cost) {
  // record_call() and the operator setters do not take mu_, so a ledger can
  // change between a check and the charge: charge each ledger checked and
  // undo the first if the second refuses.
  if (Status s = resource_.charge(resource_cost); !s) {
    return refusal("resource", resource_cost, resource_.remaining());
  }
  if (Status s = expense_.charge(expense_cost); !s) {
    (void)resource_.refund(resource_cost);
    return expense_refusal_locked(expense_cost);
  }
  return Status::Ok();
}

Status Budget::charge_create_costs(double resource_cost, double expense_cost) {
  std::lock_guard lock(mu_);
  return charge_create_locked(resource_cost, expense_cost);
}

void Budget::undo_hire(const ModelCost& cost) {
  undo_create_costs(cost.create_resource_cost, cost.create_expense_cost);
  std::lock_guard lock(mu_);
  if (hired_ > 0) --hired_;
}

void Budget::undo_create_costs(double resource_cost, double expense_cost) {
  std::lock_guard lock(mu_);
  (void)resource_.refund(resource_cost);
  (void)expense_.refund(expense_cost);
}

Status Budget::refund_resource(double amount) {
  std::lock_guard lock(mu_);
  return resource_.refund(amount);
}

Status Budget::fire(const ModelCost& cost) {
  std::lock_guard lock(mu_);
  if (Status s = resource_.refund(cost.create_resource_cost); !s) return s;
  if (hired_ > 0) --hired_;
  return Status::Ok();
}

Result<AskReservation> Budget::reserve_ask(const ModelCost& cost, int64_t input_token_bound,
                                           int64_t max_output_tokens) {
  std::lock_guard lock(mu_);
  if (max_inflight_ > 0 && inflight_ >= max_inflight_) {
    return Error{"budget", "Too many agent calls in flight: the limit is " + std::to_string(max_inflight_) +
                               "; wait for one to finish"};
  }
  AskReservation r;
  r.cost = cost;
  auto res = resource_.reserve(cost.invoke_resource_cost);
  if (!res) return refusal("resource", cost.invoke_resource_cost, resource_.remaining());
  double worst = expense_for(cost, input_token_bound, max_output_tokens);
  auto exp = expense_.reserve(worst);
  if (!exp) {
    resource_.release(*res);
    return expense_refusal_locked(worst);
  }
  r.resource_id = *res;
  r.expense_id = *exp;
  r.resource_held = resource_.enabled() ? cost.invoke_resource_cost : 0;
  r.expense_held = expense_.enabled() ? worst : 0;
  active_asks_.insert(r.resource_id);
  ++inflight_;
  return r;
}

double Budget::settle_ask(const AskReservation& r, int64_t input_tokens, int64_t output_tokens) {
  std::lock_guard lock(mu_);
  if (active_asks_.erase(r.resource_id) == 0) return 0;  // already settled or cancelled
  --inflight_;
  const double over = expense_.settle(r.expense_id, expense_for(r.cost, input_tokens, output_tokens));
  resource_.release(r.resource_id);  // the salary is reclaimable: nothing stays used
  internal_invoke_ += to_micros(r.cost.invoke_resource_cost);
  if (over > 0) {
    overshoot_ += to_micros(over);
    ++overshoot_calls_;
  }
  return over;
}

void Budget::cancel_ask(const AskReservation& r) {
  std::lock_guard lock(mu_);
  if (active_asks_.erase(r.resource_id) == 0) return;
  --inflight_;
  expense_.release(r.expense_id);
  resource_.release(r.resource_id);
}

double Budget::record_call(const ModelCost& cost, int64_t input_tokens, int64_t output_tokens) {
  double usd = expense_for(cost, input_tokens, output_tokens);
  expense_.record_spent(usd);
  return usd;
}

void Budget::raise_expense(double additional) { expense_.raise(additional); }
void Budget::raise_resource(double additional) { resource_.raise(additional); }

void Budget::set_limits(int max_agents, int max_inflight_asks) {
  std::lock_guard lock(mu_);
  max_agents_ = max_agents;
  max_inflight_ = max_inflight_asks;
}

double Budget::internal_invoke_cost() const {
  std::lock_guard lock(mu_);
  return from_micros(internal_invoke_);
}

double Budget::expense_overshoot() const {
  std::lock_guard lock(mu_);
  return from_micros(overshoot_);
}

int Budget::overshoot_calls() const {
  std::lock_guard lock(mu_);
  return overshoot_calls_;
}

int Budget::hired_agents() const {
  std::lock_guard lock(mu_);
  return hired_;
}

int Budget::inflight_asks() const {
  std::lock_guard lock(mu_);
  return inflight_;
}

json Budget::get_budget_json() const {
  std::lock_guard lock(mu_);
  LedgerState r = resource_.snapshot();
  LedgerState e = expense_.snapshot();
  return json{{"total_resource_budget", r.total},
              {"current_resource_usage", r.used},
              {"current_remaining_resource_budget", resource_.remaining()},
              {"total_expense_budget", e.total},
              {"current_expense", e.used},
              {"current_remaining_expense_budget", expense_.remaining()},
              {"reserved_resource", resource_.reserved()},
              {"reserved_expense", expense_.reserved()},
              {"internal_invoke_cost", from_micros(internal_invoke_)},
              {"hired_agents", hired_},
              {"inflight_asks", inflight_},
              {"resource_budget_enabled", r.enabled},
              {"expense_budget_enabled", e.enabled},
              {"expense_overshoot", from_micros(overshoot_)},
              {"overshoot_calls", overshoot_calls_}};
}

BudgetSummary Budget::summary() const {
  std::lock_guard lock(mu_);
  return BudgetSummary{resource_.total(), resource_.used(), resource_.remaining(),
                       expense_.total(),  expense_.used(),  expense_.remaining()};
}

BudgetState Budget::snapshot() const {
  std::lock_guard lock(mu_);
  return BudgetState{
      resource_.snapshot(), expense_.snapshot(), from_micros(internal_invoke_), hired_, from_micros(overshoot_),
      overshoot_calls_,     ++snapshots_};
}

void Budget::restore(const BudgetState& state) {
  std::lock_guard lock(mu_);
  resource_.restore(state.resource);
  expense_.restore(state.expense);
  internal_invoke_ = to_micros(state.internal_invoke_cost);
  hired_ = state.hired_agents;
  overshoot_ = to_micros(state.expense_overshoot);
  overshoot_calls_ = state.overshoot_calls;
  snapshots_ = std::max(snapshots_, state.seq);
}

}  // namespace kaisha::economy
