#include "runtime/effgen/decomposition/decomposition_prompts.hpp"

#include <gtest/gtest.h>

#include "runtime/judge/judge_prompt.hpp"
#include "runtime/prompt/prompt_template.hpp"

namespace kaisha::planning {
namespace {

const std::string kRoot = KAISHA_SOURCE_DIR;

TEST(PromptTemplate, RendersPlaceholdersAndLeavesJsonAlone) {
  auto t = PromptTemplate::from_text(R"(Task: {{ task }} / {"a":{"b":1}} {{task}} {{ not a name }})");
  EXPECT_EQ(t.placeholders(), std::vector<std::string>{"task"});
  auto r = t.render({{"task", "write {{x}}"}, {"unused", "y"}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, R"(Task: write {{x}} / {"a":{"b":1}} write {{x}} {{ not a name }})");
  auto missing = PromptTemplate::from_text("{{a}} {{b}}", "t.md").render({{"a", "1"}});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "prompt template t.md has no value for {{b}}");
}

TEST(DecompositionPrompts, AllFourRenderWithTheTask) {
  for (routing::Strategy s : {routing::Strategy::parallel, routing::Strategy::sequential, routing::Strategy::hybrid,
                              routing::Strategy::hierarchical}) {
    auto p = render_decomposition_prompt(s, "Compare the top 3 ML frameworks", kRoot);
    ASSERT_TRUE(p.ok()) << p.error().message;
    EXPECT_EQ(p->rfind("You are a task decomposition expert.", 0), 0u) << to_string(s);
    EXPECT_NE(p->find("Task: Compare the top 3 ML frameworks"), std::string::npos);
    EXPECT_NE(p->find("Respond with ONLY the JSON, no additional text."), std::string::npos);
    EXPECT_EQ(p->find("{{"), std::string::npos);
  }
  auto seq = render_decomposition_prompt(routing::Strategy::sequential, "t", kRoot);
  EXPECT_NE(seq->find("\"depends_on\":[]"), std::string::npos);
  auto hyb = render_decomposition_prompt(routing::Strategy::hybrid, "t", kRoot);
  EXPECT_NE(hyb->find("\"parallel_groups\""), std::string::npos);
  auto hier = render_decomposition_prompt(routing::Strategy::hierarchical, "t", kRoot);
  EXPECT_NE(hier->find("\"worker_subtasks\""), std::string::npos);
  EXPECT_NE(hier->find("\"reports_to\":\"manager\""), std::string::npos);
  auto par = render_decomposition_prompt(routing::Strategy::parallel, "t", kRoot);
  EXPECT_NE(par->find("1. Identify 2-5 independent subtasks"), std::string::npos);
}

TEST(DecompositionPrompts, MissingFileNamesThePath) {
  auto p = render_decomposition_prompt(routing::Strategy::hybrid, "t", "/nonexistent-root");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().code, "prompt");
  EXPECT_NE(p.error().message.find("/nonexistent-root/prompts/effgen/decompose_hybrid.md"), std::string::npos)
      << p.error().message;
}

TEST(JudgePrompt, CarriesTaskIdInstructionAndResult) {
  auto p = render_judge_prompt("task-42", "Write hello.py printing hi", "Created code_run/hello.py", kRoot);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_NE(p->system.find("Your task ID for this task is task-42."), std::string::npos);
  EXPECT_NE(p->system.find("\"status\": \"success\" | \"error\""), std::string::npos);
  EXPECT_NE(p->user.find("Write hello.py printing hi"), std::string::npos);
  EXPECT_NE(p->user.find("Created code_run/hello.py"), std::string::npos);
  auto missing = render_judge_prompt("t", "i", "r", "/nonexistent-root");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("/nonexistent-root/prompts/judge/audit.md"), std::string::npos);
}

}  // namespace
}  // namespace kaisha::planning
