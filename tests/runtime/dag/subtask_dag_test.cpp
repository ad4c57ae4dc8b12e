#include "runtime/dag/subtask_dag.hpp"

#include <gtest/gtest.h>

#include "runtime/effgen/decomposition/decomposition_metrics.hpp"

namespace kaisha::planning::subtask_dag_test {
namespace {

Subtask st(std::string id, std::vector<std::string> deps = {}, double c = 5.0, std::string desc = "") {
  Subtask s;
  s.id = std::move(id);
  s.description = desc.empty() ? "do " + s.id : desc;
  s.depends_on = std::move(deps);
  s.estimated_complexity = c;
  return s;
}

// effgen.md §3.5 W.2: st1 ∥ st2 (research), st3 (analysis) after both, st4 (synthesis) last.
std::vector<Subtask> w2() {
  return {st("st_1", {}, 4.0, "Research PyTorch"), st("st_2", {}, 4.0, "Research TensorFlow"),
          st("st_3", {"st_1", "st_2"}, 6.0, "Compare the frameworks"),
          st("st_4", {"st_3"}, 6.0, "Create a summary table")};
}

TEST(SubtaskDag, W2IsHybridWithParallelismHalf) {
  auto dag = SubtaskDag::build(w2());
  ASSERT_TRUE(dag.ok()) << dag.error().message;
  EXPECT_EQ(dag->shape(), DagShape::hybrid);
  EXPECT_DOUBLE_EQ(parallelism(*dag), 0.5);
  EXPECT_DOUBLE_EQ(granularity(*dag), 5.0);
  EXPECT_EQ(dag->edge_count(), 3u);
  ASSERT_EQ(dag->levels().size(), 3u);
  EXPECT_EQ(dag->levels()[0], (std::vector<size_t>{0, 1}));
  EXPECT_EQ(dag->levels()[1], (std::vector<size_t>{2}));
  EXPECT_EQ(dag->levels()[2], (std::vector<size_t>{3}));
  EXPECT_EQ(dag->topological_order(), (std::vector<size_t>{0, 1, 2, 3}));
  EXPECT_EQ(dag->predecessors(2), (std::vector<size_t>{0, 1}));
  EXPECT_EQ(dag->successors(0), (std::vector<size_t>{2}));
  EXPECT_EQ(dag->sinks(), (std::vector<size_t>{3}));
}

TEST(SubtaskDag, ParallelAndSequentialShapes) {
  auto par = SubtaskDag::build({st("a"), st("b"), st("c")});
  ASSERT_TRUE(par.ok());
  EXPECT_EQ(par->shape(), DagShape::parallel);
  EXPECT_DOUBLE_EQ(parallelism(*par), 1.0);
  EXPECT_EQ(par->levels().size(), 1u);

  auto seq = SubtaskDag::build({st("a"), st("b", {"a"}), st("c", {"b"})});
  ASSERT_TRUE(seq.ok());
  EXPECT_EQ(seq->shape(), DagShape::sequential);
  EXPECT_NEAR(parallelism(*seq), 1.0 / 3.0, 1e-12);

  // A chain given out of order, with a redundant shortcut edge, still admits one order only.
  auto shortcut = SubtaskDag::build({st("c", {"b", "a"}), st("a"), st("b", {"a"})});
  ASSERT_TRUE(shortcut.ok());
  EXPECT_EQ(shortcut->shape(), DagShape::sequential);
  EXPECT_EQ(shortcut->topological_order(), (std::vector<size_t>{1, 2, 0}));

  // Two separate chains run side by side: hybrid.
  auto two = SubtaskDag::build({st("a"), st("b", {"a"}), st("c"), st("d", {"c"})});
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two->shape(), DagShape::hybrid);
}

TEST(SubtaskDag, CyclesAreRejectedAndNamed) {
  auto three = SubtaskDag::build({st("a", {"c"}), st("b", {"a"}), st("c", {"b"}), st("d")});
  ASSERT_FALSE(three.ok());
  EXPECT_EQ(three.error().message, "dependency cycle: a → c → b → a (each depends on the next)");
  auto self = SubtaskDag::build({st("a", {"a"}), st("b")});
  ASSERT_FALSE(self.ok());
  EXPECT_EQ(self.error().message, "subtask #1: depends on itself ('a')");
}

TEST(SubtaskDag, UnknownAndDuplicateIds) {
  auto unknown = SubtaskDag::build({st("a"), st("b", {"a", "zz"})});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message, "subtask #2: depends_on refers to unknown id 'zz'");
  auto dup = SubtaskDag::build({st("a"), st("a")});
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.error().message, "subtask #2: duplicate id 'a' (first used by subtask #1)");
  auto empty = SubtaskDag::build({st(""), st("b")});
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().message, "subtask #1: id is empty");
}

TEST(SubtaskDag, RepeatedDependencyIsMerged) {
  auto dag = SubtaskDag::build({st("a"), st("b", {"a", "a"})});
  ASSERT_TRUE(dag.ok());
  EXPECT_EQ(dag->edge_count(), 1u);
  EXPECT_EQ(dag->at(1).depends_on, std::vector<std::string>{"a"});
  EXPECT_EQ(dag->shape(), DagShape::sequential);
}

TEST(DecompositionMetrics, CoverageOnlyWithAspects) {
  auto dag = SubtaskDag::build(w2());
  ASSERT_TRUE(dag.ok());
  DecompositionMetrics m = measure(*dag);
  EXPECT_FALSE(m.coverage);
  EXPECT_DOUBLE_EQ(m.parallelism, 0.5);
  m = measure(*dag, {"pytorch", "TensorFlow", "summary table", "JAX", "  "});
  ASSERT_TRUE(m.coverage);
  EXPECT_DOUBLE_EQ(*m.coverage, 0.75);  // the blank aspect is not counted
}

}  // namespace
}  // namespace kaisha::planning::subtask_dag_test
