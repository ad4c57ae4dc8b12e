// halo.md §12 item 16: the search always ends, within its iteration and
// evaluation caps, says why, and keeps a trajectory; stop() is the
// driver's money cap.
#include <gtest/gtest.h>

#include <vector>

#include "runtime/halo/search/mcts_search.hpp"
#include "tests/runtime/halo/search/scripted_driver.hpp"

namespace kaisha::halo {
namespace mcts_search_limits_test {

using testing::drive;
using testing::events_of;

void expect_trajectory_of(const SearchResult& result, const SearchTree& tree) {
  ASSERT_FALSE(result.nodes.empty());
  EXPECT_EQ(result.trajectory, tree.path_context(result.nodes.back()));
  EXPECT_EQ(result.answer, tree.node(result.nodes.back()).answer);
  std::vector<int> path = tree.path_to(result.nodes.back());
  path.erase(path.begin());
  EXPECT_EQ(result.nodes, path);
}

TEST(HaloMctsSearchLimits, AnAlwaysContinueJudgeEndsWithinTheDefaultCaps) {
  const SearchSettings defaults;
  MctsSearch search(defaults, 3, 10, 0);
  const testing::Run run = drive(search, testing::always_continue);
  ASSERT_TRUE(search.done());
  EXPECT_LE(run.result.evaluations, defaults.max_evaluations);
  EXPECT_EQ(static_cast<int>(run.requests.size()), run.result.evaluations);
  EXPECT_LE(run.result.iterations, defaults.max_iterations);
  // With D = 5, 3 roles and 5 rollouts of up to 4 steps, the 200
  // evaluations run out before 20 iterations or a depth-5 node.
  EXPECT_EQ(run.result.reason, EndReason::evaluation_cap);
  EXPECT_FALSE(run.result.success);
  expect_trajectory_of(run.result, search.tree());
  ASSERT_FALSE(run.events.empty());
  EXPECT_EQ(run.events.back(), SearchEvent(SearchEndedEvent{search.iteration(), EndReason::evaluation_cap,
                                                            run.result.nodes.back(), false}));
}

TEST(HaloMctsSearchLimits, TheIterationCapEndsTheSearchWithTheBestTrajectory) {
  SearchSettings s;
  s.max_iterations = 4;
  s.max_evaluations = 1000;
  MctsSearch search(s, 3, 10, 0);
  const testing::Run run = drive(search, testing::always_continue);
  EXPECT_EQ(run.result.reason, EndReason::iteration_cap);
  EXPECT_EQ(run.result.iterations, 4);
  EXPECT_EQ(events_of<SelectionEvent>(run.events).size(), 4u);
  expect_trajectory_of(run.result, search.tree());
  // The best trajectory takes the child of highest value at each level.
  int at = SearchTree::kRoot;
  for (int node : run.result.nodes) {
    for (int sibling : search.tree().node(at).children) {
      EXPECT_LE(search.tree().node(sibling).value, search.tree().node(node).value);
    }
    at = node;
  }
  EXPECT_TRUE(search.tree().node(at).children.empty());
}

TEST(HaloMctsSearchLimits, RolloutsThatCouldOverrunTheEvaluationCapAreNotStarted) {
  SearchSettings s;  // D 5, 5 rollouts: a depth-1 child reserves 5 * 4 = 20
  s.max_evaluations = 10;
  MctsSearch search(s, 3, 10, 0);
  const double scores[] = {0.2, 0.9, 0.5};
  const testing::Run run = drive(search, [&](const EvaluationRequest& r) {
    return Evaluation{testing::answer_for(r), NodeLabel::continue_, scores[r.role]};
  });
  EXPECT_EQ(run.result.reason, EndReason::evaluation_cap);
  EXPECT_EQ(run.result.evaluations, 3);
  EXPECT_TRUE(events_of<RolloutFinishedEvent>(run.events).empty());
  // The best child is the one scored highest.
  EXPECT_EQ(run.result.nodes, (std::vector<int>{2}));
  EXPECT_EQ(run.result.trajectory, (std::vector<PathEntry>{{1, "expansion i0 r1 s0 role 1 depth 1"}}));
}

TEST(HaloMctsSearchLimits, NoCapIsEverExceeded) {
  for (int cap = 1; cap <= 60; ++cap) {
    SearchSettings s;
    s.max_depth = 3;
    s.attempts = 2;
    s.max_evaluations = cap;
    MctsSearch search(s, 3, 10, 0);
    const testing::Run run = drive(search, testing::always_continue);
    EXPECT_LE(static_cast<int>(run.requests.size()), cap) << "cap " << cap;
    EXPECT_EQ(search.evaluations_requested(), static_cast<int>(run.requests.size())) << "cap " << cap;
  }
}

TEST(HaloMctsSearchLimits, ACapBelowTheFirstExpansionEndsAtOnceWithoutATrajectory) {
  SearchSettings s;
  s.max_evaluations = 2;
  MctsSearch search(s, 3, 10, 0);
  EXPECT_TRUE(search.start().empty());
  ASSERT_TRUE(search.done());
  const SearchResult result = search.result();
  EXPECT_EQ(result.reason, EndReason::evaluation_cap);
  EXPECT_TRUE(result.answer.empty());
  EXPECT_FALSE(result.success);
  EXPECT_TRUE(result.nodes.empty());
  EXPECT_TRUE(result.trajectory.empty());
  EXPECT_EQ(search.take_events(), (std::vector<SearchEvent>{SelectionEvent{0, {0}},
                                                            SearchEndedEvent{0, EndReason::evaluation_cap, 0, false}}));
}

TEST(HaloMctsSearchLimits, StopEndsWithTheBestTrajectoryAndLateResultsAreIgnored) {
  SearchSettings s;
  MctsSearch search(s, 2, 10, 0);
  const std::vector<EvaluationRequest> expansion = search.start();
  ASSERT_EQ(expansion.size(), 2u);
  search.on_evaluated(expansion[0].key, {"weak", NodeLabel::continue_, 0.3});
  const std::vector<EvaluationRequest> rollouts =
      search.on_evaluated(expansion[1].key, {"strong", NodeLabel::continue_, 0.8});
  ASSERT_EQ(rollouts.size(), 5u);
  const std::vector<EvaluationRequest> step1 =
      search.on_evaluated(rollouts[0].key, testing::always_continue(rollouts[0]));
  ASSERT_EQ(step1.size(), 1u);
  search.take_events();

  search.stop();
  ASSERT_TRUE(search.done());
  const SearchResult result = search.result();
  EXPECT_EQ(result.reason, EndReason::stopped);
  EXPECT_EQ(result.answer, "strong");
  EXPECT_EQ(result.nodes, (std::vector<int>{2}));
  EXPECT_EQ(result.evaluations, 8);
  // The unfinished rollouts were never applied.
  EXPECT_EQ(search.tree().node(SearchTree::kRoot).visits, 0);
  EXPECT_EQ(search.take_events(), (std::vector<SearchEvent>{SearchEndedEvent{0, EndReason::stopped, 2, false}}));

  // Calls in flight when the driver stopped may still report.
  EXPECT_EQ(search.outstanding(), 5);
  EXPECT_TRUE(search.on_evaluated(step1[0].key, testing::always_continue(step1[0])).empty());
  EXPECT_TRUE(search.on_evaluated(rollouts[4].key, {"late", NodeLabel::success, 0.9}).empty());
  EXPECT_EQ(search.outstanding(), 3);
  EXPECT_THROW(search.on_evaluated(rollouts[4].key, {"again", NodeLabel::success, 0.9}), std::invalid_argument);
  search.stop();  // no-op
  EXPECT_TRUE(search.take_events().empty());
  EXPECT_EQ(search.result(), result);
}

TEST(HaloMctsSearchLimits, StopBeforeStartEndsWithoutRequests) {
  MctsSearch search(SearchSettings{}, 2, 10, 0);
  search.stop();
  EXPECT_TRUE(search.done());
  EXPECT_TRUE(search.start().empty());
  EXPECT_EQ(search.result().reason, EndReason::stopped);
  EXPECT_TRUE(search.result().trajectory.empty());
}

}  // namespace mcts_search_limits_test
}  // namespace kaisha::halo
