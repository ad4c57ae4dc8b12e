#include "runtime/effgen/routing/complexity_weights.hpp"

#include <cmath>
#include <cstdio>
#include <string>

namespace kaisha::routing {

namespace {

// Shortest readable form: 0.95 rather than 0.9500000000000001.
std::string format_number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

}  // namespace

Status ComplexityWeights::validate() const {
  const std::pair<const char*, double> named[] = {{"task_length", length},
                                                  {"requirement_count", requirements},
                                                  {"domain_breadth", domain},
                                                  {"tool_requirements", tools},
                                                  {"reasoning_depth", reasoning}};
  for (const auto& [name, w] : named) {
    if (!std::isfinite(w) || w < 0.0 || w > 1.0) {
      return Error{"config",
                   std::string("Complexity weight '") + name + "' must be in [0, 1] (got " + format_number(w) + ")"};
    }
  }
  const double s = sum();
  if (std::fabs(s - 1.0) > kWeightSumTolerance) {
    return Error{"config", "Complexity weights must sum to 1.0 (got " + format_number(s) + ")"};
  }
  return Status::Ok();
}

json ComplexityWeights::to_json() const {
  return json{{"task_length", length},
              {"requirement_count", requirements},
              {"domain_breadth", domain},
              {"tool_requirements", tools},
              {"reasoning_depth", reasoning}};
}

}  // namespace kaisha::routing
