// ComplexityWeights: the w_i of effGen's C(q) = Σ w_i·f_i(q) (§3.2), defaults
// (0.15, 0.25, 0.20, 0.20, 0.20) from the paper's grid search.
#pragma once

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::routing {

struct ComplexityWeights {
  double length = 0.15;        // task_length
  double requirements = 0.25;  // requirement_count
  double domain = 0.20;        // domain_breadth
  double tools = 0.20;         // tool_requirements
  double reasoning = 0.20;     // reasoning_depth

  double sum() const { return length + requirements + domain + tools + reasoning; }

  // Ok when every weight is a finite number in [0, 1] and |Σw − 1| ≤ 0.01
  // (effGen O.1 / Algorithm 14). Otherwise an Error with code "config" and
  // the message "Complexity weights must sum to 1.0 (got 0.95)", or
  // "Complexity weight 'tools' must be in [0, 1] (got -0.2)".
  // The weights are used as given, not normalized: within the tolerance the
  // total is clamped to [0, 10] instead.
  Status validate() const;

  // {"task_length": .., "requirement_count": .., "domain_breadth": ..,
  //  "tool_requirements": .., "reasoning_depth": ..} (effGen O.1 key names).
  json to_json() const;
};

// The allowed |Σw − 1|.
inline constexpr double kWeightSumTolerance = 0.01;

}  // namespace kaisha::routing
