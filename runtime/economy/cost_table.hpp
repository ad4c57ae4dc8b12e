// CostTable: the per-model prices of the HASHIRU economy, loaded from YAML
// (data/cost_table.yaml) and editable at runtime: the system may rewrite it
// (hashiru.md Case Study 1, §9 item 53), so it is data, not code.
//
// File format:
//   models:
//     mistral:
//       model_ref: ollama:mistral      # optional, default "ollama:<name>" for
//       type: local                    #   local, "<name>" otherwise
//       create_resource_cost: 20       # every cost optional, default 0,
//       invoke_resource_cost: 100      #   must be >= 0
//       create_expense_cost: 0
//       invoke_expense_cost: 0         # USD per 1M input tokens
//       output_expense_cost: 0         # USD per 1M output tokens
//       description: "..."
//       tags: [gpu]                    # optional: in a cluster, only nodes
//                                      #   carrying every tag host it
// `type` is optional: "local" when model_ref starts with "ollama:", else "cloud".
//
// Not thread-safe: one owner (the ledger actor) reads and writes it; others
// get copies (to_json()/all()).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/economy/model_cost.hpp"

namespace kaisha::economy {

class CostTable {
 public:
  CostTable() = default;

  // The model whose name or model_ref equals `name_or_model_ref` (names are
  // tried first), or nullptr. The pointer is valid until the next set()/remove().
  const ModelCost* find(std::string_view name_or_model_ref) const;

  // The prices of `ref` (a cost-table name or a model ref): its row when
  // listed, else a free local model of that ref — an unlisted model is
  // assumed to be one the user runs locally. A listed name's row keeps its
  // own model_ref, so calls go to the priced model.
  ModelCost priced(std::string_view ref) const;

  // Adds the model, or replaces the one with the same name (keeping its place).
  void set(ModelCost cost);
  // Removes by name; false when there was no such model.
  bool remove(std::string_view name);

  const std::vector<ModelCost>& all() const { return models_; }
  size_t size() const { return models_.size(); }
  bool empty() const { return models_.empty(); }

  // AgentCostManager's answer: {name: {description, create_resource_cost,
  // invoke_resource_cost, create_expense_cost, invoke_expense_cost,
  // output_expense_cost}}.
  json to_json() const;
  // The file format above; parse_cost_table(to_yaml()) gives back this table.
  std::string to_yaml() const;

 private:
  std::vector<ModelCost> models_;  // file order; names are unique
};

// Errors (code "config") name "<source>:<line>: models.<name>.<key>: ...".
Result<CostTable> parse_cost_table(const std::string& yaml_text, const std::string& source_name);
Result<CostTable> load_cost_table_file(const std::string& path);
// Writes to_yaml() to `path` (via a temporary file and rename).
Status save_cost_table_file(const CostTable& table, const std::string& path);

}  // namespace kaisha::economy
