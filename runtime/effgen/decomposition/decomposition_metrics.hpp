// The decomposition quality metrics of effgen.md §4.4. The paper reports
// them (Table 26) and gives targets; the runtime records them with each plan.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runtime/dag/subtask_dag.hpp"

namespace kaisha::planning {

struct DecompositionMetrics {
  std::optional<double> coverage;  // only when aspects were given; target > 0.90
  double granularity = 0.0;        // mean estimated complexity; target in [4, 7]
  double parallelism = 0.0;        // share of subtasks without dependencies
};

// (1/n)·Σ c_i; 0 for an empty graph.
double granularity(const SubtaskDag& dag);

// |{s_i : deps_i = ∅}| / n; 0 for an empty graph.
double parallelism(const SubtaskDag& dag);

// |aspects covered| / |aspects|. The paper leaves "covered" to human judges;
// here an aspect counts as covered when some subtask's description or
// expected_output contains it, ignoring ASCII case. Blank aspects are not
// counted. nullopt when no (non-blank) aspect is given.
std::optional<double> coverage(const SubtaskDag& dag, const std::vector<std::string>& aspects);

DecompositionMetrics measure(const SubtaskDag& dag, const std::vector<std::string>& aspects = {});

}  // namespace kaisha::planning
