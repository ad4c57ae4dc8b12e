// Shared by the prompt tests: the patterns file of the source tree.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "runtime/effgen/prompt_optimizer/optimizer_patterns.hpp"

namespace kaisha::prompt::testing {

inline std::string patterns_path() { return std::string(KAISHA_SOURCE_DIR) + "/data/effgen/optimizer_patterns.yaml"; }

inline const OptimizerPatterns& shipped_patterns() {
  static const OptimizerPatterns p = [] {
    auto r = load_optimizer_patterns(patterns_path());
    if (!r.ok()) ADD_FAILURE() << r.error().message;
    return r.ok() ? *r : OptimizerPatterns{};
  }();
  return p;
}

}  // namespace kaisha::prompt::testing
