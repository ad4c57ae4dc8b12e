// halo.md §12 item 22: the events say enough to rebuild the tree (but for
// the answers, which the driver journals with each evaluation's key).
#include "runtime/halo/search/search_event.hpp"

#include <gtest/gtest.h>

#include <variant>

#include "runtime/halo/search/mcts_search.hpp"
#include "runtime/core/fnv1a.hpp"
#include "tests/runtime/halo/search/scripted_driver.hpp"

namespace kaisha::halo {
namespace search_event_test {

Evaluation uneven(const EvaluationRequest& r) {
  const std::string answer = testing::answer_for(r);
  const uint64_t h = fnv1a_64(answer);
  NodeLabel label = NodeLabel::continue_;
  if (r.key.kind == EvaluationKind::rollout && h % 3 == 0) label = NodeLabel::success;
  return Evaluation{answer, label, static_cast<double>(h % 997) / 996.0};
}

TEST(HaloSearchEvents, ReplayingTheEventsRebuildsTheTreesShapeValuesAndVisits) {
  SearchSettings s;
  s.attempts = 3;
  s.max_depth = 4;
  s.max_iterations = 9;
  s.max_evaluations = 1000;
  MctsSearch search(s, 3, 10, 0);
  const testing::Run run = testing::drive(search, uneven, testing::Arrival::shuffled, 7);

  SearchTree replay;
  for (const SearchEvent& event : run.events) {
    if (const auto* e = std::get_if<ExpansionEvent>(&event)) {
      for (const ExpandedChild& child : e->children) {
        EXPECT_EQ(replay.add_child(e->parent, child.role, "", child.label, child.value), child.node);
      }
    } else if (const auto* b = std::get_if<BackpropagatedEvent>(&event)) {
      for (const NodeUpdate& update : b->updates) {
        replay.node(update.node).value = update.value;
        replay.node(update.node).visits = update.visits;
      }
    }
  }
  const SearchTree& tree = search.tree();
  ASSERT_EQ(replay.size(), tree.size());
  ASSERT_GT(tree.size(), 7);
  for (int id = 0; id < tree.size(); ++id) {
    SearchNode expected = tree.node(id);
    expected.answer.clear();
    EXPECT_EQ(replay.node(id), expected) << "node " << id;
  }
}

TEST(HaloSearchEvents, EveryEnumeratorHasAName) {
  EXPECT_EQ(to_string(RolloutEnd::success), "success");
  EXPECT_EQ(to_string(RolloutEnd::fail), "fail");
  EXPECT_EQ(to_string(RolloutEnd::depth_exhausted), "depth exhausted");
  EXPECT_EQ(to_string(EndReason::terminal_success), "terminal success");
  EXPECT_EQ(to_string(EndReason::terminal_fail), "terminal fail");
  EXPECT_EQ(to_string(EndReason::depth_limit), "depth limit");
  EXPECT_EQ(to_string(EndReason::iteration_cap), "iteration cap");
  EXPECT_EQ(to_string(EndReason::evaluation_cap), "evaluation cap");
  EXPECT_EQ(to_string(EndReason::stopped), "stopped");
  EXPECT_EQ(to_string(NodeLabel::continue_), "continue");
  EXPECT_EQ(to_string(NodeLabel::success), "success");
  EXPECT_EQ(to_string(NodeLabel::fail), "fail");
  EXPECT_EQ(to_string(EvaluationKey{2, EvaluationKind::rollout, 1, 3}), "iteration 2 rollout 1 step 3");
  EXPECT_EQ(to_string(EvaluationKey{0, EvaluationKind::expansion, 2, 0}), "iteration 0 expansion role 2");
}

}  // namespace search_event_test
}  // namespace kaisha::halo
