#include "runtime/effgen/routing/complexity_score.hpp"

#include <algorithm>
#include <cmath>

namespace kaisha::routing {

double length_factor(std::size_t words) {
  if (words < 20) return 2.0;
  if (words < 50) return 4.0;
  if (words < 100) return 6.0;
  if (words < 200) return 8.0;
  return 10.0;
}

double requirement_factor(std::size_t n_req) { return std::min(10.0, 2.0 * static_cast<double>(n_req)); }

double breadth_factor(std::size_t categories_hit) { return std::min(10.0, 2.5 * static_cast<double>(categories_hit)); }

ComplexityScore combine_factors(ComplexityScore s, const ComplexityWeights& w) {
  s.weights = w;
  double total = w.length * s.length + w.requirements * s.requirements + w.domain * s.domain + w.tools * s.tools +
                 w.reasoning * s.reasoning;
  total = std::clamp(total, 0.0, 10.0);
  s.total = std::round(total * 1e9) / 1e9;
  return s;
}

json ComplexityScore::to_json() const {
  return json{{"total", total},
              {"factors",
               {{"length", length},
                {"requirements", requirements},
                {"domain", domain},
                {"tools", tools},
                {"reasoning", reasoning}}},
              {"weights", weights.to_json()},
              {"domains_hit", domains_hit},
              {"tool_categories_hit", tool_categories_hit},
              {"reasoning_level", reasoning_level},
              {"word_count", word_count},
              {"requirement_count", requirement_count}};
}

}  // namespace kaisha::routing
