// ModelCost: what one model costs under the HASHIRU economy (hashiru.md §2.4).
#pragma once

#include <string>
#include <vector>

#include "runtime/core/json.hpp"

namespace kaisha::economy {

// One row of the cost table. Resource costs are percentage points of the
// resource ledger; expense costs are USD. A cost the table leaves out is 0.
struct ModelCost {
  std::string name;                 // what the CEO passes as base_model, e.g. "mistral"
  std::string model_ref;            // provider:model, e.g. "ollama:mistral"
  std::string type;                 // "local" | "cloud"
  double create_resource_cost = 0;  // charged on hire, refunded on fire
  double invoke_resource_cost = 0;  // held for the duration of each call
  double create_expense_cost = 0;   // USD charged on hire, never refunded
  double invoke_expense_cost = 0;   // USD per 1M input tokens
  double output_expense_cost = 0;   // USD per 1M output tokens
  std::string description;          // strengths shown to the CEO
  // In a cluster, the tags a node must carry to host an agent of this model
  // (e.g. "gpu"); ignored in one process.
  std::vector<std::string> tags;

  bool is_local() const { return type == "local"; }
};

// What an AgentSpec carries of its model's row (AgentSpec::costs): the five
// costs, and the placement tags when there are any.
inline json spec_costs_json(const ModelCost& c) {
  json j{{"create_resource_cost", c.create_resource_cost},
         {"invoke_resource_cost", c.invoke_resource_cost},
         {"create_expense_cost", c.create_expense_cost},
         {"invoke_expense_cost", c.invoke_expense_cost},
         {"output_expense_cost", c.output_expense_cost}};
  if (!c.tags.empty()) j["tags"] = c.tags;
  return j;
}

}  // namespace kaisha::economy
