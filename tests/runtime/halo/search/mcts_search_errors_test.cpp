// Bad input to the search throws std::invalid_argument saying what was
// wrong, and leaves the search as it was.
#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/halo/search/mcts_search.hpp"
#include "tests/runtime/halo/search/scripted_driver.hpp"

namespace kaisha::halo {
namespace mcts_search_errors_test {

template <class Call>
std::string invalid_argument_of(Call call) {
  try {
    call();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(nothing thrown)";
}

TEST(HaloMctsSearchErrors, BadSettingsOrNoRolesAreRejected) {
  EXPECT_NE(invalid_argument_of([] { MctsSearch(SearchSettings{}, 0, 10, 0); }).find("role_count is 0"),
            std::string::npos);
  SearchSettings s;
  s.attempts = 0;
  EXPECT_NE(invalid_argument_of([&] { MctsSearch(s, 3, 10, 0); }).find("attempts is 0"), std::string::npos);
}

TEST(HaloMctsSearchErrors, AnUnknownKeyIsRejectedAndChangesNothing) {
  MctsSearch search(SearchSettings{}, 3, 10, 0);
  const std::vector<EvaluationRequest> first = search.start();
  search.take_events();
  const EvaluationKey stray{4, EvaluationKind::rollout, 1, 2};
  const std::string message = invalid_argument_of([&] { search.on_evaluated(stray, {"x", NodeLabel::success, 1}); });
  EXPECT_NE(message.find("iteration 4 rollout 1 step 2 was never requested"), std::string::npos) << message;
  const EvaluationKey absent_role{0, EvaluationKind::expansion, 3, 0};
  EXPECT_THROW(search.on_evaluated(absent_role, {"x", NodeLabel::success, 1}), std::invalid_argument);
  EXPECT_EQ(search.outstanding(), 3);
  EXPECT_EQ(search.evaluations_requested(), 3);
  EXPECT_EQ(search.tree().size(), 1);
  EXPECT_TRUE(search.take_events().empty());
}

TEST(HaloMctsSearchErrors, ADuplicateResultIsRejectedAndChangesNothing) {
  MctsSearch search(SearchSettings{}, 3, 10, 0);
  const std::vector<EvaluationRequest> first = search.start();
  search.on_evaluated(first[1].key, testing::always_continue(first[1]));
  const std::string message =
      invalid_argument_of([&] { search.on_evaluated(first[1].key, testing::always_continue(first[1])); });
  EXPECT_NE(message.find("iteration 0 expansion role 1 was already answered"), std::string::npos) << message;
  EXPECT_EQ(search.outstanding(), 2);
  // The search goes on as if the duplicate had never come.
  search.on_evaluated(first[0].key, testing::always_continue(first[0]));
  EXPECT_EQ(search.on_evaluated(first[2].key, testing::always_continue(first[2])).size(), 5u);
}

TEST(HaloMctsSearchErrors, ANanScoreIsRejectedAndChangesNothing) {
  MctsSearch search(SearchSettings{}, 1, 10, 0);
  const std::vector<EvaluationRequest> first = search.start();
  ASSERT_EQ(first.size(), 1u);
  const std::string message = invalid_argument_of([&] {
    search.on_evaluated(first[0].key, {"x", NodeLabel::continue_, std::numeric_limits<double>::quiet_NaN()});
  });
  EXPECT_NE(message.find("not a number"), std::string::npos) << message;
  EXPECT_EQ(search.outstanding(), 1);
  EXPECT_EQ(search.on_evaluated(first[0].key, {"x", NodeLabel::continue_, 0.5}).size(), 5u);
}

TEST(HaloMctsSearchErrors, CallsOutOfSequenceAreLogicErrors) {
  MctsSearch search(SearchSettings{}, 2, 10, 0);
  EXPECT_THROW(search.on_evaluated(EvaluationKey{}, {}), std::logic_error);
  EXPECT_THROW(search.result(), std::logic_error);
  search.start();
  EXPECT_THROW(search.start(), std::logic_error);
  EXPECT_THROW(search.result(), std::logic_error);
}

}  // namespace mcts_search_errors_test
}  // namespace kaisha::halo
