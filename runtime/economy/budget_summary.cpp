#include "runtime/economy/budget_summary.hpp"

namespace kaisha::economy {

json BudgetSummary::to_json() const {
  return json{{"total_resource_budget", total_resource_budget},
              {"current_resource_usage", current_resource_usage},
              {"current_remaining_resource_budget", current_remaining_resource_budget},
              {"total_expense_budget", total_expense_budget},
              {"current_expense", current_expense},
              {"current_remaining_expense_budget", current_remaining_expense_budget}};
}

}  // namespace kaisha::economy
