#include "runtime/dag/dag_scheduler.hpp"

#include <gtest/gtest.h>

namespace kaisha::planning {
namespace {

Subtask st(std::string id, std::vector<std::string> deps = {}, Priority p = Priority::medium) {
  Subtask s;
  s.id = std::move(id);
  s.description = "do " + s.id;
  s.depends_on = std::move(deps);
  s.priority = p;
  return s;
}

SubtaskDag dag(std::vector<Subtask> subtasks) {
  auto d = SubtaskDag::build(std::move(subtasks));
  EXPECT_TRUE(d.ok()) << d.error().message;
  return std::move(d).value();
}

std::vector<std::string> ids(const std::vector<Assignment>& a) {
  std::vector<std::string> out;
  for (const auto& x : a) out.push_back(x.id);
  return out;
}

SchedulerOptions no_retries() {
  SchedulerOptions o;
  o.max_retries = 0;
  return o;
}

TEST(DagScheduler, ParallelRunsAllAtOnceThenSynthesizes) {
  DagScheduler s(dag({st("a"), st("b"), st("c")}), no_retries());
  auto ready = s.start_ready();
  EXPECT_EQ(ids(ready), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(ready[0].context.empty());
  EXPECT_EQ(s.running(), 3u);
  EXPECT_TRUE(s.start_ready().empty());
  ASSERT_TRUE(s.complete("b", "B").ok());
  ASSERT_FALSE(s.fail("a", "timeout").value());  // no retry left: failed for good
  EXPECT_EQ(s.state(2), SubtaskState::running);  // the failure cancels no sibling
  EXPECT_FALSE(s.finished());
  EXPECT_FALSE(s.outcome().ok());
  ASSERT_TRUE(s.complete("c", "C").ok());
  ASSERT_TRUE(s.finished());
  auto out = s.outcome();
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->kind, PlanOutcome::Kind::synthesize);
  ASSERT_EQ(out->results.size(), 3u);
  EXPECT_EQ(out->results[0].state, SubtaskState::failed);
  EXPECT_EQ(out->results[0].error, "timeout");
  std::string text = render_results(out->results);
  EXPECT_NE(text.find("[a FAILED] do a\nError: timeout"), std::string::npos) << text;
  EXPECT_NE(text.find("[b] do b\nResult:\nB"), std::string::npos);
}

TEST(DagScheduler, MaxConcurrentCapsRunningSubtasks) {
  SchedulerOptions o = no_retries();
  o.max_concurrent = 2;
  DagScheduler s(dag({st("a"), st("b"), st("c", {}, Priority::high), st("d")}), o);
  // High priority first, then plan order.
  EXPECT_EQ(ids(s.start_ready()), (std::vector<std::string>{"c", "a"}));
  EXPECT_TRUE(s.start_ready().empty());
  ASSERT_TRUE(s.complete("a", "A").ok());
  EXPECT_EQ(ids(s.start_ready()), (std::vector<std::string>{"b"}));
  EXPECT_EQ(s.running(), 2u);
}

TEST(DagScheduler, SequentialPassesPredecessorAndAnswersWithLastResult) {
  DagScheduler s(dag({st("a"), st("b", {"a"}), st("c", {"b"})}), no_retries());
  EXPECT_EQ(ids(s.start_ready()), std::vector<std::string>{"a"});
  ASSERT_TRUE(s.complete("a", "A-out").ok());
  auto b = s.start_ready();
  ASSERT_EQ(ids(b), std::vector<std::string>{"b"});
  ASSERT_EQ(b[0].context.size(), 1u);
  EXPECT_EQ(b[0].context[0].id, "a");
  EXPECT_TRUE(b[0].context[0].ok);
  EXPECT_EQ(b[0].context[0].text, "A-out");
  ASSERT_TRUE(s.complete("b", "B-out").ok());
  auto c = s.start_ready();
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].context[0].text, "B-out");  // direct predecessor only
  ASSERT_TRUE(s.complete("c", "final").ok());
  auto out = s.outcome();
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->kind, PlanOutcome::Kind::answer);
  EXPECT_EQ(out->answer, "final");
}

TEST(DagScheduler, SequentialFailureInTheMiddleRunsOnWithErrorNote) {
  DagScheduler s(dag({st("a"), st("b", {"a"}), st("c", {"b"})}), no_retries());
  s.start_ready();
  ASSERT_TRUE(s.complete("a", "A").ok());
  s.start_ready();
  ASSERT_FALSE(s.fail("b", "tool crashed").value());
  auto c = s.start_ready();
  ASSERT_EQ(ids(c), std::vector<std::string>{"c"});
  ASSERT_EQ(c[0].context.size(), 1u);
  EXPECT_FALSE(c[0].context[0].ok);
  EXPECT_EQ(c[0].context[0].text, "tool crashed");
  EXPECT_NE(render_context(c[0].context).find("[b FAILED] do b\nError: tool crashed"), std::string::npos);
  ASSERT_TRUE(s.complete("c", "partial final").ok());
  auto out = s.outcome();
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->kind, PlanOutcome::Kind::answer);  // the chain's end completed
  EXPECT_EQ(out->answer, "partial final");
}

TEST(DagScheduler, SkipPolicySkipsDependentsTransitively) {
  SchedulerOptions o = no_retries();
  o.on_failed_dependency = DependencyFailurePolicy::skip;
  DagScheduler s(dag({st("a"), st("b", {"a"}), st("c", {"b"}), st("d")}), o);
  EXPECT_EQ(ids(s.start_ready()), (std::vector<std::string>{"a", "d"}));
  ASSERT_FALSE(s.fail("a", "boom").value());
  EXPECT_TRUE(s.start_ready().empty());
  EXPECT_EQ(s.state(1), SubtaskState::skipped);
  EXPECT_EQ(s.state(2), SubtaskState::skipped);
  ASSERT_TRUE(s.complete("d", "D").ok());
  auto out = s.outcome();
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->kind, PlanOutcome::Kind::synthesize);
  EXPECT_EQ(out->results[2].error, "skipped because its dependency b skipped");
}

TEST(DagScheduler, HybridW2WithFailureInTheMiddle) {
  DagScheduler s(dag({st("st_1"), st("st_2"), st("st_3", {"st_1", "st_2"}), st("st_4", {"st_3"})}), no_retries());
  EXPECT_EQ(ids(s.start_ready()), (std::vector<std::string>{"st_1", "st_2"}));
  ASSERT_TRUE(s.complete("st_2", "TF notes").ok());
  EXPECT_TRUE(s.start_ready().empty());  // st_3 still waits for st_1
  ASSERT_FALSE(s.fail("st_1", "search failed").value());
  auto l1 = s.start_ready();
  ASSERT_EQ(ids(l1), std::vector<std::string>{"st_3"});
  ASSERT_EQ(l1[0].context.size(), 2u);
  EXPECT_FALSE(l1[0].context[0].ok);
  EXPECT_EQ(l1[0].context[0].text, "search failed");
  EXPECT_TRUE(l1[0].context[1].ok);
  EXPECT_EQ(l1[0].context[1].text, "TF notes");
  ASSERT_TRUE(s.complete("st_3", "comparison").ok());
  auto l2 = s.start_ready();
  ASSERT_EQ(ids(l2), std::vector<std::string>{"st_4"});
  EXPECT_EQ(l2[0].context[0].text, "comparison");
  ASSERT_TRUE(s.complete("st_4", "table").ok());
  auto out = s.outcome();
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->kind, PlanOutcome::Kind::synthesize);  // hybrid plans are always synthesized
  EXPECT_EQ(out->results[0].state, SubtaskState::failed);
  EXPECT_EQ(out->results[3].output, "table");
}

TEST(DagScheduler, RetriesBeforeFailing) {
  SchedulerOptions o;  // Table 29 default: 2 retries
  DagScheduler s(dag({st("a"), st("b")}), o);
  s.start_ready();
  EXPECT_TRUE(s.fail("a", "e1").value());
  auto again = s.start_ready();
  ASSERT_EQ(ids(again), std::vector<std::string>{"a"});
  EXPECT_EQ(again[0].attempt, 2);
  EXPECT_TRUE(s.fail("a", "e2").value());
  EXPECT_EQ(s.start_ready()[0].attempt, 3);
  EXPECT_FALSE(s.fail("a", "e3").value());
  EXPECT_TRUE(s.start_ready().empty());
  EXPECT_EQ(s.state(0), SubtaskState::failed);
  ASSERT_TRUE(s.fail("b", "x").ok());
  s.start_ready();
  ASSERT_TRUE(s.complete("b", "B").ok());
  auto out = s.outcome();
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->results[0].attempts, 3);
  EXPECT_EQ(out->results[0].error, "e3");
  EXPECT_EQ(out->results[1].attempts, 2);
}

TEST(DagScheduler, AllFailedAsksForSingleAgentFallback) {
  DagScheduler s(dag({st("a"), st("b")}), no_retries());
  s.start_ready();
  s.fail("a", "x");
  s.fail("b", "y");
  auto out = s.outcome();
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->kind, PlanOutcome::Kind::all_failed);
}

TEST(DagScheduler, HierarchicalChainIsStillSynthesized) {
  SchedulerOptions o = no_retries();
  o.always_synthesize = true;
  DagScheduler s(dag({st("wk_1"), st("wk_2", {"wk_1"})}), o);
  s.start_ready();
  s.complete("wk_1", "1");
  s.start_ready();
  s.complete("wk_2", "2");
  EXPECT_EQ(s.outcome()->kind, PlanOutcome::Kind::synthesize);
}

TEST(DagScheduler, ReportsOutOfTurnAreErrors) {
  DagScheduler s(dag({st("a"), st("b", {"a"})}), no_retries());
  EXPECT_EQ(s.complete("a", "x").error().code, "scheduler");  // not started yet
  EXPECT_FALSE(s.complete("zz", "x").ok());
  s.start_ready();
  EXPECT_FALSE(s.fail("b", "x").ok());  // pending, not running
  ASSERT_TRUE(s.complete("a", "A").ok());
  EXPECT_FALSE(s.complete("a", "again").ok());
  EXPECT_EQ(s.state(0), SubtaskState::completed);
}

}  // namespace
}  // namespace kaisha::planning
