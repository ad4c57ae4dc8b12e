// BudgetSummary: the six §3.3 GetBudget numbers (hashiru.md) as plain
// fields. The ledger actor sends one with every reply, so it must be cheap to
// build and copy; the JSON form is made only where someone reads it (a
// progress event, a tool result).
#pragma once

#include "runtime/core/json.hpp"

namespace kaisha::economy {

struct BudgetSummary {
  double total_resource_budget = 0;
  double current_resource_usage = 0;
  double current_remaining_resource_budget = 0;  // total - used - reserved
  double total_expense_budget = 0;
  double current_expense = 0;
  double current_remaining_expense_budget = 0;  // total - used - reserved

  // {"total_resource_budget", ..., "current_remaining_expense_budget"}: the
  // same six keys, named as the fields.
  json to_json() const;
};

}  // namespace kaisha::economy
