// halo.md §12 item 25: the same inputs give the same tree, events and result
// whatever order the evaluations arrive in, and the rollouts' roles depend
// on the seed setting (and subtask), drawn from the documented streams.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "runtime/halo/search/mcts_search.hpp"
#include "runtime/core/fnv1a.hpp"
#include "runtime/random/random_stream.hpp"
#include "runtime/random/samplers.hpp"
#include "tests/runtime/halo/search/scripted_driver.hpp"

namespace kaisha::halo {
namespace mcts_search_determinism_test {

using testing::Arrival;
using testing::drive;
using testing::events_of;

// Labels and scores that vary with the request (never with the arrival
// order): some rollout steps succeed or fail, some children are terminal.
Evaluation mixed(const EvaluationRequest& r) {
  const std::string answer = testing::answer_for(r);
  const uint64_t h = fnv1a_64(answer);
  NodeLabel label = NodeLabel::continue_;
  if (r.key.kind == EvaluationKind::rollout) {
    if (h % 5 == 0) label = NodeLabel::success;
    if (h % 5 == 1) label = NodeLabel::fail;
  } else if (h % 13 == 0) {
    label = NodeLabel::fail;
  }
  return Evaluation{answer, label, static_cast<double>(h % 1001) / 1000.0};
}

SearchSettings mixed_settings() {
  SearchSettings s;
  s.attempts = 4;
  s.max_depth = 4;
  s.max_iterations = 10;
  s.max_evaluations = 1000;
  return s;
}

std::vector<EvaluationKey> keys_of(const testing::Run& run) {
  std::vector<EvaluationKey> keys;
  for (const EvaluationRequest& r : run.requests) keys.push_back(r.key);
  return keys;
}

std::vector<EvaluationRequest> sorted_requests(std::vector<EvaluationRequest> requests) {
  std::sort(requests.begin(), requests.end(),
            [](const EvaluationRequest& a, const EvaluationRequest& b) { return a.key < b.key; });
  return requests;
}

TEST(HaloMctsSearchDeterminism, AnyArrivalOrderGivesTheSameEventsTreeAndResult) {
  MctsSearch in_order(mixed_settings(), 3, 10, 0);
  const testing::Run reference = drive(in_order, mixed, Arrival::oldest_first);
  // The script must exercise the search: several iterations, rollouts of
  // more than one step, and concurrent rollouts answered out of order.
  ASSERT_GE(events_of<SelectionEvent>(reference.events).size(), 4u);
  const auto rollouts = events_of<RolloutFinishedEvent>(reference.events);
  ASSERT_TRUE(std::any_of(rollouts.begin(), rollouts.end(), [](const auto& e) { return e.roles.size() >= 2; }));

  const std::vector<std::pair<Arrival, uint64_t>> orders = {
      {Arrival::newest_first, 0}, {Arrival::shuffled, 1}, {Arrival::shuffled, 2}, {Arrival::shuffled, 3}};
  for (const auto& [arrival, shuffle_seed] : orders) {
    MctsSearch other(mixed_settings(), 3, 10, 0);
    const testing::Run run = drive(other, mixed, arrival, shuffle_seed);
    SCOPED_TRACE("arrival " + std::to_string(static_cast<int>(arrival)) + " shuffle " + std::to_string(shuffle_seed));
    EXPECT_NE(keys_of(run), keys_of(reference)) << "the arrival order should differ from the reference's";
    EXPECT_EQ(run.events, reference.events);
    EXPECT_EQ(other.tree(), in_order.tree());
    EXPECT_EQ(run.result, reference.result);
    EXPECT_EQ(sorted_requests(run.requests), sorted_requests(reference.requests));
  }
}

TEST(HaloMctsSearchDeterminism, TwoRunsWithTheSameSeedAreIdentical) {
  MctsSearch first(mixed_settings(), 3, 10, 2);
  MctsSearch second(mixed_settings(), 3, 10, 2);
  const testing::Run a = drive(first, mixed);
  const testing::Run b = drive(second, mixed);
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.requests, b.requests);
  EXPECT_EQ(first.tree(), second.tree());
  EXPECT_EQ(a.result, b.result);
}

std::vector<std::vector<int>> rollout_roles(uint64_t seed, int subtask) {
  // Everything continues, so every rollout runs to the maximum depth and the
  // runs differ in their draws only.
  MctsSearch search(mixed_settings(), 3, seed, subtask);
  const testing::Run run = drive(search, testing::always_continue);
  std::vector<std::vector<int>> roles;
  for (const auto& e : events_of<RolloutFinishedEvent>(run.events)) roles.push_back(e.roles);
  return roles;
}

TEST(HaloMctsSearchDeterminism, ADifferentSeedOrSubtaskDrawsDifferentRolloutRoles) {
  const auto base = rollout_roles(10, 0);
  ASSERT_FALSE(base.empty());
  EXPECT_EQ(rollout_roles(10, 0), base);
  EXPECT_NE(rollout_roles(11, 0), base);
  EXPECT_NE(rollout_roles(10, 1), base);
}

TEST(HaloMctsSearchDeterminism, RolloutRolesComeFromTheDocumentedStreams) {
  const int subtask = 4;
  MctsSearch search(mixed_settings(), 3, 10, subtask);
  const testing::Run run = drive(search, mixed);
  int checked = 0;
  for (const EvaluationRequest& r : run.requests) {
    if (r.key.kind != EvaluationKind::rollout) continue;
    random::RandomStream stream(random::TaskSeed("halo.search", 10),
                                random::StreamKey("halo.rollout", subtask, r.key.iteration, r.key.index, r.key.step));
    EXPECT_EQ(r.role, static_cast<int>(random::uniform_below(stream, 3))) << to_string(r.key);
    ++checked;
  }
  EXPECT_GT(checked, 10);
}

}  // namespace mcts_search_determinism_test
}  // namespace kaisha::halo
