#include "runtime/halo/search/search_settings.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>

namespace kaisha::halo {
namespace search_settings_test {

TEST(HaloSearchSettings, DefaultsAreTheReferenceCodes) {
  const SearchSettings s;
  EXPECT_EQ(s.max_depth, 5);
  EXPECT_EQ(s.attempts, 5);
  EXPECT_EQ(s.width, ExpansionWidth::full);
  EXPECT_DOUBLE_EQ(s.exploration, 1.4);
  EXPECT_DOUBLE_EQ(s.success_reward, 0.7);
  EXPECT_DOUBLE_EQ(s.failure_penalty, -0.3);
  EXPECT_EQ(s.visit_order, VisitOrder::increment_first);
  EXPECT_GE(s.max_iterations, 1);
  EXPECT_GE(s.max_evaluations, 1);
  EXPECT_NO_THROW(validate(s));
}

std::string rejection(const std::function<void(SearchSettings&)>& spoil) {
  SearchSettings s;
  spoil(s);
  try {
    validate(s);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(HaloSearchSettings, EachBadSettingIsRejectedByNameAndValue) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  struct Case {
    std::function<void(SearchSettings&)> spoil;
    std::string name;
    std::string value;
  };
  const std::vector<Case> cases = {
      {[](SearchSettings& s) { s.max_depth = 0; }, "max_depth", "is 0"},
      {[](SearchSettings& s) { s.attempts = -2; }, "attempts", "is -2"},
      {[](SearchSettings& s) { s.max_iterations = 0; }, "max_iterations", "is 0"},
      {[](SearchSettings& s) { s.max_evaluations = 0; }, "max_evaluations", "is 0"},
      {[](SearchSettings& s) { s.exploration = -0.5; }, "exploration", "is -0.5"},
      {[&](SearchSettings& s) { s.exploration = nan; }, "exploration", "is nan"},
      {[&](SearchSettings& s) { s.success_reward = inf; }, "success_reward", "is inf"},
      {[&](SearchSettings& s) { s.failure_penalty = nan; }, "failure_penalty", "is nan"},
      {[](SearchSettings& s) { s.width = static_cast<ExpansionWidth>(7); }, "width", "is 7"},
      {[](SearchSettings& s) { s.visit_order = static_cast<VisitOrder>(9); }, "visit_order", "is 9"},
  };
  for (const Case& c : cases) {
    const std::string message = rejection(c.spoil);
    EXPECT_NE(message.find(c.name + " " + c.value), std::string::npos) << message;
  }
}

TEST(HaloSearchSettings, ZeroExplorationAndTheSmallestCapsAreValid) {
  SearchSettings s;
  s.exploration = 0.0;
  s.max_depth = 1;
  s.attempts = 1;
  s.max_iterations = 1;
  s.max_evaluations = 1;
  EXPECT_NO_THROW(validate(s));
}

}  // namespace search_settings_test
}  // namespace kaisha::halo
