#include "runtime/pyramid/call_tree.hpp"

#include <gtest/gtest.h>

namespace kaisha::pyramid {
namespace {

TEST(CallTree, ShowsTheRunningCallsAndMarksTheReader) {
  CallTree t;
  const uint64_t root = t.push(0, "idea_agent", "orchestrates", "write a paper on rivers");
  const uint64_t plan = t.push(root, "project_planner_agent", "plans", "design the experiments");
  const uint64_t code = t.push(plan, "code_builder_agent", "builds code", "write code_run/main.py");
  EXPECT_EQ(t.size(), 3u);
  EXPECT_EQ(t.path_to(code), (std::vector<uint64_t>{root, plan, code}));
  EXPECT_EQ(t.render(code),
            "- idea_agent (orchestrates): write a paper on rivers\n"
            "  - project_planner_agent (plans): design the experiments\n"
            "    - code_builder_agent (builds code): write code_run/main.py  <- you\n");
}

// infiagent.md §10 item 42: siblings running in parallel both show; once one
// finishes, nothing of it is left in the other's view.
TEST(CallTree, AFinishedSiblingLeavesNoTrace) {
  CallTree t;
  const uint64_t root = t.push(0, "boss", "", "task");
  const uint64_t b = t.push(root, "writer", "", "B's secret input");
  const uint64_t c = t.push(root, "coder", "", "C's input");
  std::string during = t.render(c);
  EXPECT_NE(during.find("writer"), std::string::npos);
  EXPECT_NE(during.find("coder"), std::string::npos);
  EXPECT_TRUE(t.pop(b));
  std::string after = t.render(c);
  EXPECT_EQ(after.find("writer"), std::string::npos) << after;
  EXPECT_EQ(after.find("B's secret"), std::string::npos) << after;
  EXPECT_FALSE(t.pop(b));  // already gone
}

TEST(CallTree, AnEndedCallTakesItsRunningCallsWithIt) {
  CallTree t;
  const uint64_t root = t.push(0, "boss", "", "task");
  const uint64_t mid = t.push(root, "planner", "", "plan");
  const uint64_t leaf = t.push(mid, "coder", "", "code");
  EXPECT_TRUE(t.pop(mid));
  EXPECT_FALSE(t.running(leaf));
  EXPECT_TRUE(t.running(root));
  EXPECT_EQ(t.push(mid, "late", "", "x"), 0u);  // its parent is gone
  EXPECT_TRUE(t.path_to(leaf).empty());
}

// §10 item 42, bounded: the reader sees its ancestors and their siblings;
// what runs under a sibling is one line counting it, however large.
TEST(CallTree, WhatRunsUnderASiblingIsCountedNotShown) {
  CallTree t;
  const uint64_t root = t.push(0, "boss", "", "task");
  const uint64_t left = t.push(root, "planner", "", "plan A");
  const uint64_t right = t.push(root, "planner", "", "plan B");
  for (int i = 0; i < 5; ++i) {
    const uint64_t coder = t.push(left, "coder", "", "code A" + std::to_string(i));
    for (int j = 0; j < 5; ++j) t.push(coder, "tester", "", "test A" + std::to_string(i) + std::to_string(j));
  }
  const uint64_t mine = t.push(right, "coder", "", "code B");
  EXPECT_EQ(t.render(mine),
            "- boss: task\n"
            "  - planner: plan A\n"
            "    - (30 more calls running under it)\n"
            "  - planner: plan B\n"
            "    - coder: code B  <- you\n");
  // Seen from the other side, the same rule.
  const std::string from_left = t.render(t.path_to(left).back());
  EXPECT_NE(from_left.find("- planner: plan A  <- you"), std::string::npos) << from_left;
  EXPECT_NE(from_left.find("    - coder: code A0\n      - (5 more calls running under it)"), std::string::npos)
      << from_left;
  EXPECT_NE(from_left.find("    - (1 more call running under it)"), std::string::npos) << from_left;
}

TEST(CallTree, LongTextIsOneLineCutAtACharacter) {
  CallTree t;
  const std::string input = "一行目\n" + std::string(300, 'x') + "🌊";
  const uint64_t id = t.push(0, "agent", "役割", input);
  const std::string text = t.render(id, 20);
  EXPECT_EQ(text.rfind("- agent (役割): 一行目 xxxx", 0), 0u) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1);
  EXPECT_EQ(t.render(0).find("<- you"), std::string::npos);
  EXPECT_EQ(CallTree().render(1), "");
}

}  // namespace
}  // namespace kaisha::pyramid
