// ComplexityScore: the result of effGen's pre-execution complexity analysis
// C(q) (§3.2, App. E), with every factor and what hit, so that a journalled
// routing decision can be explained and replayed.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/effgen/routing/complexity_weights.hpp"

namespace kaisha::routing {

struct ComplexityScore {
  // C(q) = Σ w_i·f_i in [0, 10]; rounded to 1e-9 so that floating-point noise
  // in the sum cannot move a query across a routing threshold (the exact
  // factor values are multiples of 0.5 and the weights have two decimals).
  double total = 0.0;
  // f_len, f_req, f_dom, f_tool, f_reas, each in [0, 10].
  double length = 0.0, requirements = 0.0, domain = 0.0, tools = 0.0, reasoning = 0.0;
  ComplexityWeights weights;

  std::vector<std::string> domains_hit;          // in table order
  std::vector<std::string> tool_categories_hit;  // in table order
  std::string reasoning_level;                   // level that set f_reas, "" = default
  std::size_t word_count = 0;                    // |q|_w
  std::size_t requirement_count = 0;             // n_req under the active profile

  // {"total", "factors": {"length", "requirements", "domain", "tools",
  //  "reasoning"}, "weights": {...}, "domains_hit", "tool_categories_hit",
  //  "reasoning_level", "word_count", "requirement_count"}.
  json to_json() const;
};

// The factor functions of Eq. 13, 15, 16/17 on their counts.
// f_len: <20 → 2, 20–49 → 4, 50–99 → 6, 100–199 → 8, ≥200 → 10.
double length_factor(std::size_t word_count);
// f_req = min(10, 2·n_req).
double requirement_factor(std::size_t n_req);
// f_dom / f_tool = min(10, 2.5·categories hit).
double breadth_factor(std::size_t categories_hit);

// Σ w_i·f_i, clamped to [0, 10] and rounded to 1e-9, from the factors of
// `score` and `weights` (also stored into the result). The other fields are
// copied through unchanged.
ComplexityScore combine_factors(ComplexityScore factors, const ComplexityWeights& weights);

}  // namespace kaisha::routing
