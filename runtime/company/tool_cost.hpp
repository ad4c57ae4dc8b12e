// What one call of a tool costs, as the tool declares it (hashiru.md §9 item
// 34): invoke_resource_cost is held on the resource ledger while the call
// runs and given back after (like a model call's salary); invoke_expense_cost
// is charged in USD per call on the expense ledger (never refunded). Free
// tools (both 0) touch no ledger at all.
//
// Declared by a Python tool's inputSchema (invoke_resource_cost,
// invoke_expense_cost; HASHIRU's generic invoke_cost counts as expense) or
// set for any tool — MCP tools included — in the config's tools.costs, which
// wins. A Python tool may also declare create_resource_cost and
// create_expense_cost (HASHIRU's create_cost counts as expense): charged when ToolCreator makes it (refused, the tool
// is not kept), the resource part refunded when ToolDeletor removes it.
#pragma once

#include <algorithm>

#include "runtime/core/json.hpp"

namespace kaisha::company {

struct ToolCost {
  double invoke_resource_cost = 0;
  double invoke_expense_cost = 0;   // USD per call
  double create_resource_cost = 0;  // charged once when the tool is created
  double create_expense_cost = 0;   // USD, once

  // No per-call cost (create costs aside).
  bool free() const { return invoke_resource_cost <= 0 && invoke_expense_cost <= 0; }
  bool has_create_costs() const { return create_resource_cost > 0 || create_expense_cost > 0; }

  // From a Python tool's declared cost keys; negative or non-numeric values count as 0.
  static ToolCost from_declared(const json& costs) {
    auto num = [&](const char* k) {
      auto it = costs.find(k);
      return it != costs.end() && it->is_number() ? std::max(0.0, it->get<double>()) : 0.0;
    };
    ToolCost c;
    if (!costs.is_object()) return c;
    c.invoke_resource_cost = num("invoke_resource_cost");
    c.invoke_expense_cost = num("invoke_expense_cost") + num("invoke_cost");
    c.create_resource_cost = num("create_resource_cost");
    c.create_expense_cost = num("create_expense_cost") + num("create_cost");
    return c;
  }

  json to_json() const {
    return json{{"invoke_resource_cost", invoke_resource_cost}, {"invoke_expense_cost", invoke_expense_cost}};
  }
};

}  // namespace kaisha::company
