#include "runtime/halo/search/search_settings.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

namespace kaisha::halo {

namespace {

template <class Value>
[[noreturn]] void reject(const char* name, Value value, const char* rule) {
  std::ostringstream message;
  message << "HALO search settings: " << name << " is " << value << "; " << rule;
  throw std::invalid_argument(message.str());
}

void require_at_least_one(const char* name, int value) {
  if (value < 1) reject(name, value, "it must be at least 1");
}

void require_finite(const char* name, double value) {
  if (!std::isfinite(value)) reject(name, value, "it must be a finite number");
}

}  // namespace

void validate(const SearchSettings& settings) {
  require_at_least_one("max_depth", settings.max_depth);
  require_at_least_one("attempts", settings.attempts);
  require_at_least_one("max_iterations", settings.max_iterations);
  require_at_least_one("max_evaluations", settings.max_evaluations);
  require_finite("exploration", settings.exploration);
  if (settings.exploration < 0) reject("exploration", settings.exploration, "it must not be negative");
  require_finite("success_reward", settings.success_reward);
  require_finite("failure_penalty", settings.failure_penalty);
  // A value cast from a number (a config reader's bug) would silently take
  // the switch's default branch; say so instead.
  if (settings.width != ExpansionWidth::full && settings.width != ExpansionWidth::one_per_expansion) {
    reject("width", static_cast<int>(settings.width), "it must be full or one_per_expansion");
  }
  if (settings.visit_order != VisitOrder::increment_first && settings.visit_order != VisitOrder::increment_after) {
    reject("visit_order", static_cast<int>(settings.visit_order), "it must be increment_first or increment_after");
  }
}

}  // namespace kaisha::halo
