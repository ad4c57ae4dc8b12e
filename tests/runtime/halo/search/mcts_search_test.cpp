// The search loop of halo.md §6.2 with the fixes of §6.3: expansion
// (item 11), path context (item 12), rollouts (item 14), terminal ends
// (item 16), the persistent tree (item 17), one-per-expansion width, and
// rollouts that run concurrently but are applied together.
#include "runtime/halo/search/mcts_search.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/core/fnv1a.hpp"
#include "tests/runtime/halo/search/scripted_driver.hpp"

namespace kaisha::halo {
namespace mcts_search_test {

using testing::Arrival;
using testing::drive;
using testing::events_of;

SearchSettings settings_with(int attempts, int max_depth, int max_iterations) {
  SearchSettings s;
  s.attempts = attempts;
  s.max_depth = max_depth;
  s.max_iterations = max_iterations;
  s.max_evaluations = 1000;
  return s;
}

void expect_tree_invariants(const SearchTree& tree, int max_depth) {
  for (int id = 0; id < tree.size(); ++id) {
    const SearchNode& n = tree.node(id);
    EXPECT_EQ(n.id, id);
    EXPECT_LE(n.depth, max_depth);
    for (int child : n.children) {
      EXPECT_EQ(tree.node(child).parent, id);
      EXPECT_EQ(tree.node(child).depth, n.depth + 1);
    }
  }
}

TEST(HaloMctsSearch, FullWidthExpandsTheRootIntoOneChildPerRoleEachEvaluatedOnce) {
  MctsSearch search(settings_with(5, 5, 1), 3, 10, 0);
  const std::vector<EvaluationRequest> first = search.start();
  ASSERT_EQ(first.size(), 3u);
  for (int role = 0; role < 3; ++role) {
    const EvaluationRequest& r = first[static_cast<size_t>(role)];
    EXPECT_EQ(r.key, (EvaluationKey{0, EvaluationKind::expansion, role, 0}));
    EXPECT_EQ(r.role, role);
    EXPECT_EQ(r.depth, 1);
    EXPECT_EQ(r.after, SearchTree::kRoot);
    EXPECT_TRUE(r.context.empty());
  }
  EXPECT_EQ(search.outstanding(), 3);
  for (const EvaluationRequest& r : first) search.on_evaluated(r.key, testing::always_continue(r));

  const SearchTree& tree = search.tree();
  ASSERT_EQ(tree.node(SearchTree::kRoot).children.size(), 3u);
  for (int role = 0; role < 3; ++role) {
    const SearchNode& child = tree.node(tree.node(SearchTree::kRoot).children[static_cast<size_t>(role)]);
    EXPECT_EQ(child.depth, 1);
    EXPECT_EQ(child.role, role);
    EXPECT_EQ(child.answer, testing::answer_for(first[static_cast<size_t>(role)]));
  }
  // The three children cost three evaluations (nine model calls), no more.
  EXPECT_EQ(search.evaluations_requested(), 3 + search.outstanding());
  const auto expansions = events_of<ExpansionEvent>(search.take_events());
  ASSERT_EQ(expansions.size(), 1u);
  EXPECT_EQ(expansions[0].children.size(), 3u);
}

TEST(HaloMctsSearch, ADepthThreeChildIsShownTheDepthOneAndDepthTwoAnswersInOrder) {
  // One role and one rollout: iteration i expands the depth-i node.
  MctsSearch search(settings_with(1, 5, 3), 1, 10, 0);
  const testing::Run run = drive(search, testing::always_continue);
  const EvaluationRequest* depth_three = nullptr;
  for (const EvaluationRequest& r : run.requests) {
    if (r.key.kind == EvaluationKind::expansion && r.depth == 3) depth_three = &r;
  }
  ASSERT_NE(depth_three, nullptr);
  EXPECT_EQ(depth_three->context, (std::vector<PathEntry>{{0, "expansion i0 r0 s0 role 0 depth 1"},
                                                          {0, "expansion i1 r0 s0 role 0 depth 2"}}));
  EXPECT_EQ(search.tree().node(depth_three->after).depth, 2);
}

TEST(HaloMctsSearch, ARolloutStepIsShownTheTreePathThenTheRolloutsEarlierSteps) {
  MctsSearch search(settings_with(1, 5, 1), 2, 10, 0);
  const testing::Run run = drive(search, testing::always_continue);
  std::vector<EvaluationRequest> steps;
  for (const EvaluationRequest& r : run.requests) {
    if (r.key.kind == EvaluationKind::rollout) steps.push_back(r);
  }
  // From the depth-1 child, steps at depths 2 to 5.
  ASSERT_EQ(steps.size(), 4u);
  for (size_t s = 0; s < steps.size(); ++s) {
    EXPECT_EQ(steps[s].key, (EvaluationKey{0, EvaluationKind::rollout, 0, static_cast<int>(s)}));
    EXPECT_EQ(steps[s].depth, 2 + static_cast<int>(s));
    EXPECT_EQ(steps[s].after, 1);
    ASSERT_EQ(steps[s].context.size(), s + 1);
    EXPECT_EQ(steps[s].context[0], (PathEntry{0, "expansion i0 r0 s0 role 0 depth 1"}));
    for (size_t earlier = 0; earlier < s; ++earlier) {
      EXPECT_EQ(steps[s].context[earlier + 1], (PathEntry{steps[earlier].role, testing::answer_for(steps[earlier])}));
    }
  }
}

TEST(HaloMctsSearch, ARolloutJudgedContinueContinueSuccessHasThreeStepsAndSucceeds) {
  MctsSearch search(settings_with(1, 5, 1), 2, 10, 0);
  const testing::Run run = drive(search, [](const EvaluationRequest& r) {
    const bool third_step = r.key.kind == EvaluationKind::rollout && r.key.step == 2;
    return Evaluation{testing::answer_for(r), third_step ? NodeLabel::success : NodeLabel::continue_, 0.5};
  });
  const auto rollouts = events_of<RolloutFinishedEvent>(run.events);
  ASSERT_EQ(rollouts.size(), 1u);
  EXPECT_EQ(rollouts[0].from, 1);
  EXPECT_EQ(rollouts[0].roles.size(), 3u);
  EXPECT_EQ(rollouts[0].end, RolloutEnd::success);
  EXPECT_DOUBLE_EQ(rollouts[0].reward, 0.7);
  // The transient agents stay out of the tree.
  EXPECT_EQ(search.tree().size(), 3);
  // Eq. 11 (increment first): child (0.5*1 + 0.7) / 1 = 1.2; root
  // (0*1 + 0.7 + 1.2 + 0.5) / (1 + 2) = 0.8.
  const auto backprops = events_of<BackpropagatedEvent>(run.events);
  ASSERT_EQ(backprops.size(), 1u);
  ASSERT_EQ(backprops[0].updates.size(), 2u);
  EXPECT_EQ(backprops[0].updates[0].node, 1);
  EXPECT_NEAR(backprops[0].updates[0].value, 1.2, 1e-12);
  EXPECT_EQ(backprops[0].updates[0].visits, 1);
  EXPECT_EQ(backprops[0].updates[1].node, 0);
  EXPECT_NEAR(backprops[0].updates[1].value, 0.8, 1e-12);
  EXPECT_EQ(backprops[0].updates[1].visits, 1);
}

TEST(HaloMctsSearch, ARolloutEndsOnAFailOrWhenTheDepthRunsOut) {
  {
    MctsSearch search(settings_with(1, 5, 1), 2, 10, 0);
    const testing::Run run = drive(search, [](const EvaluationRequest& r) {
      const bool second_step = r.key.kind == EvaluationKind::rollout && r.key.step == 1;
      return Evaluation{testing::answer_for(r), second_step ? NodeLabel::fail : NodeLabel::continue_, 0.5};
    });
    const auto rollouts = events_of<RolloutFinishedEvent>(run.events);
    ASSERT_EQ(rollouts.size(), 1u);
    EXPECT_EQ(rollouts[0].roles.size(), 2u);
    EXPECT_EQ(rollouts[0].end, RolloutEnd::fail);
    EXPECT_DOUBLE_EQ(rollouts[0].reward, -0.3);
  }
  {
    MctsSearch search(settings_with(1, 3, 1), 2, 10, 0);
    const testing::Run run = drive(search, testing::always_continue);
    const auto rollouts = events_of<RolloutFinishedEvent>(run.events);
    ASSERT_EQ(rollouts.size(), 1u);
    EXPECT_EQ(rollouts[0].roles.size(), 2u);  // depths 2 and 3
    EXPECT_EQ(rollouts[0].end, RolloutEnd::depth_exhausted);
    EXPECT_DOUBLE_EQ(rollouts[0].reward, -0.3);
  }
}

Evaluation children_judged(NodeLabel label, const EvaluationRequest& r) {
  return Evaluation{testing::answer_for(r), r.key.kind == EvaluationKind::expansion ? label : NodeLabel::continue_,
                    0.5};
}

TEST(HaloMctsSearch, SelectingAChildJudgedSuccessEndsWithItsAnswer) {
  MctsSearch search(settings_with(3, 5, 20), 1, 10, 0);
  const testing::Run run =
      drive(search, [](const EvaluationRequest& r) { return children_judged(NodeLabel::success, r); });
  EXPECT_EQ(run.result.reason, EndReason::terminal_success);
  EXPECT_TRUE(run.result.success);
  EXPECT_EQ(run.result.answer, "expansion i0 r0 s0 role 0 depth 1");
  EXPECT_EQ(run.result.nodes, (std::vector<int>{1}));
  EXPECT_EQ(run.result.trajectory, (std::vector<PathEntry>{{0, "expansion i0 r0 s0 role 0 depth 1"}}));
  EXPECT_EQ(run.result.iterations, 2);
  EXPECT_EQ(run.result.evaluations, 1);
  // A rollout from a terminal child needs no evaluation and carries its label.
  const auto rollouts = events_of<RolloutFinishedEvent>(run.events);
  ASSERT_EQ(rollouts.size(), 3u);
  for (const auto& rollout : rollouts) {
    EXPECT_TRUE(rollout.roles.empty());
    EXPECT_EQ(rollout.end, RolloutEnd::success);
  }
  EXPECT_EQ(run.events.back(), SearchEvent(SearchEndedEvent{1, EndReason::terminal_success, 1, true}));
}

TEST(HaloMctsSearch, SelectingAChildJudgedFailEndsUnsuccessfully) {
  MctsSearch search(settings_with(3, 5, 20), 1, 10, 0);
  const testing::Run run =
      drive(search, [](const EvaluationRequest& r) { return children_judged(NodeLabel::fail, r); });
  EXPECT_EQ(run.result.reason, EndReason::terminal_fail);
  EXPECT_FALSE(run.result.success);
  EXPECT_EQ(run.result.answer, "expansion i0 r0 s0 role 0 depth 1");
  for (const auto& rollout : events_of<RolloutFinishedEvent>(run.events)) EXPECT_EQ(rollout.end, RolloutEnd::fail);
}

TEST(HaloMctsSearch, SelectingAContinueNodeAtTheMaximumDepthEndsAtTheDepthLimit) {
  MctsSearch search(settings_with(3, 1, 20), 2, 10, 0);
  const testing::Run run = drive(search, testing::always_continue);
  EXPECT_EQ(run.result.reason, EndReason::depth_limit);
  EXPECT_FALSE(run.result.success);
  EXPECT_EQ(run.result.evaluations, 2);  // the two depth-1 children, nothing deeper
  ASSERT_EQ(run.result.nodes.size(), 1u);
  EXPECT_EQ(search.tree().node(run.result.nodes[0]).depth, 1);
  for (const auto& rollout : events_of<RolloutFinishedEvent>(run.events)) {
    EXPECT_EQ(rollout.end, RolloutEnd::depth_exhausted);
  }
}

TEST(HaloMctsSearch, AfterTwoIterationsTheDepthOneVisitsSumToTheRolloutsThroughThem) {
  MctsSearch search(settings_with(5, 5, 2), 3, 10, 0);
  const testing::Run run = drive(search, testing::always_continue);
  ASSERT_EQ(run.result.reason, EndReason::iteration_cap);
  const auto rollouts = events_of<RolloutFinishedEvent>(run.events);
  ASSERT_EQ(rollouts.size(), 10u);
  int depth_one_visits = 0;
  for (int child : search.tree().node(SearchTree::kRoot).children) depth_one_visits += search.tree().node(child).visits;
  EXPECT_EQ(depth_one_visits, 10);
  EXPECT_EQ(search.tree().node(SearchTree::kRoot).visits, 10);
}

// Labels and scores that vary with the request, so that the search grows
// an uneven tree.
Evaluation varied(const EvaluationRequest& r) {
  const std::string answer = testing::answer_for(r);
  const uint64_t h = fnv1a_64(answer);
  const bool rollout = r.key.kind == EvaluationKind::rollout;
  NodeLabel label = NodeLabel::continue_;
  if (rollout && h % 4 == 0) label = NodeLabel::success;
  if (rollout && h % 4 == 1) label = NodeLabel::fail;
  return Evaluation{answer, label, static_cast<double>(h % 1000) / 999.0};
}

TEST(HaloMctsSearch, EveryNodesVisitsCountTheRolloutsRunBelowItAcrossIterations) {
  SearchSettings s = settings_with(3, 4, 12);
  MctsSearch search(s, 3, 10, 0);
  const testing::Run run = drive(search, varied);
  const SearchTree& tree = search.tree();
  ASSERT_GT(tree.size(), 4) << "the tree should have grown below depth 1";
  std::vector<int> through(static_cast<size_t>(tree.size()), 0);
  const auto rollouts = events_of<RolloutFinishedEvent>(run.events);
  for (const auto& rollout : rollouts) {
    for (int id : tree.path_to(rollout.from)) ++through[static_cast<size_t>(id)];
  }
  for (int id = 0; id < tree.size(); ++id) EXPECT_EQ(tree.node(id).visits, through[static_cast<size_t>(id)]) << id;
  EXPECT_EQ(tree.node(SearchTree::kRoot).visits, static_cast<int>(rollouts.size()));
  expect_tree_invariants(tree, s.max_depth);
}

TEST(HaloMctsSearch, OnePerExpansionAddsTheLowestUntriedRoleEachTime) {
  SearchSettings s = settings_with(2, 5, 5);
  s.width = ExpansionWidth::one_per_expansion;
  MctsSearch search(s, 3, 10, 0);
  const std::vector<EvaluationRequest> first = search.start();
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].key, (EvaluationKey{0, EvaluationKind::expansion, 0, 0}));
  EXPECT_EQ(first[0].role, 0);

  MctsSearch again(s, 3, 10, 0);
  const testing::Run run = drive(again, testing::always_continue);
  const auto expansions = events_of<ExpansionEvent>(run.events);
  ASSERT_EQ(expansions.size(), 5u);
  // The root is tried with every role before selection goes deeper.
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(expansions[static_cast<size_t>(i)].parent, SearchTree::kRoot);
    ASSERT_EQ(expansions[static_cast<size_t>(i)].children.size(), 1u);
    EXPECT_EQ(expansions[static_cast<size_t>(i)].children[0].role, i);
  }
  const int deeper = expansions[3].parent;
  EXPECT_EQ(again.tree().node(deeper).depth, 1);
  EXPECT_EQ(expansions[3].children[0].role, 0);
  // Each new child is the one rolled out from.
  const auto rollouts = events_of<RolloutFinishedEvent>(run.events);
  ASSERT_EQ(rollouts.size(), 10u);
  for (size_t i = 0; i < expansions.size(); ++i) EXPECT_EQ(rollouts[2 * i].from, expansions[i].children[0].node);
}

TEST(HaloMctsSearch, RolloutsRunConcurrentlyAndAreAppliedTogetherInRolloutOrder) {
  MctsSearch search(settings_with(5, 5, 1), 3, 10, 0);
  const std::vector<EvaluationRequest> expansion = search.start();
  ASSERT_EQ(expansion.size(), 3u);
  EXPECT_TRUE(search.on_evaluated(expansion[2].key, testing::always_continue(expansion[2])).empty());
  EXPECT_TRUE(search.on_evaluated(expansion[0].key, testing::always_continue(expansion[0])).empty());
  EXPECT_EQ(search.tree().size(), 1) << "children join the tree only once all have arrived";
  const std::vector<EvaluationRequest> rollouts =
      search.on_evaluated(expansion[1].key, testing::always_continue(expansion[1]));
  ASSERT_EQ(rollouts.size(), 5u);
  for (int r = 0; r < 5; ++r) {
    EXPECT_EQ(rollouts[static_cast<size_t>(r)].key, (EvaluationKey{0, EvaluationKind::rollout, r, 0}));
    EXPECT_EQ(rollouts[static_cast<size_t>(r)].after, 1);
  }
  search.take_events();

  // Rollout 3's next step is requested at once, whatever the others do.
  const auto next = search.on_evaluated(rollouts[3].key, testing::always_continue(rollouts[3]));
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0].key, (EvaluationKey{0, EvaluationKind::rollout, 3, 1}));
  // Rollout 1 ends now, but nothing is applied until all five have ended.
  EXPECT_TRUE(search.on_evaluated(rollouts[1].key, Evaluation{"done", NodeLabel::success, 0.5}).empty());
  EXPECT_EQ(search.tree().node(SearchTree::kRoot).visits, 0);
  EXPECT_TRUE(search.take_events().empty());

  for (int r : {4, 0, 2}) search.on_evaluated(rollouts[static_cast<size_t>(r)].key, {"x", NodeLabel::fail, 0.5});
  EXPECT_EQ(search.tree().node(SearchTree::kRoot).visits, 0);
  search.on_evaluated(next[0].key, {"y", NodeLabel::success, 0.5});
  EXPECT_EQ(search.tree().node(SearchTree::kRoot).visits, 5);
  const auto finished = events_of<RolloutFinishedEvent>(search.take_events());
  ASSERT_EQ(finished.size(), 5u);
  const std::vector<RolloutEnd> ends = {RolloutEnd::fail, RolloutEnd::success, RolloutEnd::fail, RolloutEnd::success,
                                        RolloutEnd::fail};
  for (int r = 0; r < 5; ++r) {
    EXPECT_EQ(finished[static_cast<size_t>(r)].rollout, r);
    EXPECT_EQ(finished[static_cast<size_t>(r)].end, ends[static_cast<size_t>(r)]);
  }
}

TEST(HaloMctsSearch, ScoresAreClampedToTheUnitInterval) {
  MctsSearch search(settings_with(1, 5, 1), 2, 10, 0);
  const std::vector<EvaluationRequest> expansion = search.start();
  ASSERT_EQ(expansion.size(), 2u);
  search.on_evaluated(expansion[0].key, {"high", NodeLabel::continue_, 1.7});
  search.on_evaluated(expansion[1].key, {"low", NodeLabel::continue_, -0.2});
  const auto expanded = events_of<ExpansionEvent>(search.take_events());
  ASSERT_EQ(expanded.size(), 1u);
  EXPECT_DOUBLE_EQ(expanded[0].children[0].value, 1.0);
  EXPECT_DOUBLE_EQ(expanded[0].children[1].value, 0.0);
  EXPECT_DOUBLE_EQ(search.tree().node(2).value, 0.0);
}

}  // namespace mcts_search_test
}  // namespace kaisha::halo
