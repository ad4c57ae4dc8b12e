// examples/pyramid/infihelper.yaml: InfiHelper's agents from the InfiAgent
// paper's Appendix B (infiagent.md §9), loaded as data (§10 item 1). The
// expected values below are written out from §9 rather than read back from
// the file, so that an edit to the file that drifts from the paper fails.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/pyramid/agent_library.hpp"

namespace kaisha::pyramid {
namespace {

using Names = std::vector<std::string>;

const std::string kPath = std::string(KAISHA_SOURCE_DIR) + "/examples/pyramid/infihelper.yaml";

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(InfiHelperLibrary, LoadsTheFourAppendixBAgentsWithTheirLevels) {
  auto lib = AgentLibrary::load_file(kPath);
  ASSERT_TRUE(lib.ok()) << lib.error().message;
  struct Expected {
    const char* name;
    int level;
  } agents[] = {{"judge_agent", -1}, {"code_builder_agent", 1}, {"project_planner_agent", 2}, {"idea_agent", 3}};
  for (const auto& e : agents) {
    const AgentDefinition* a = lib->find(e.name);
    ASSERT_NE(a, nullptr) << e.name;
    EXPECT_EQ(a->level, e.level) << e.name;
    EXPECT_FALSE(a->description.empty()) << e.name;
    EXPECT_FALSE(a->workflow.empty()) << e.name;
  }
  ASSERT_NE(lib->judge(), nullptr);
  EXPECT_EQ(lib->judge()->name, "judge_agent");
}

// The "Available Tools" lines of Appendix B, in their order.
TEST(InfiHelperLibrary, ToolListsAreAppendixBsExactly) {
  auto lib = AgentLibrary::load_file(kPath);
  ASSERT_TRUE(lib.ok()) << lib.error().message;
  EXPECT_EQ(lib->find("judge_agent")->available_tools,
            (Names{"file_read", "dir_list", "execute_code", "final_output"}));
  EXPECT_EQ(lib->find("code_builder_agent")->available_tools,
            (Names{"judge_agent", "final_output", "file_read", "file_write", "dir_create", "file_move", "execute_shell",
                   "execute_code", "pip_install"}));
  EXPECT_EQ(lib->find("project_planner_agent")->available_tools,
            (Names{"judge_agent", "final_output", "file_read", "file_write", "dir_create", "file_move"}));
  EXPECT_EQ(lib->find("idea_agent")->available_tools,
            (Names{"judge_agent", "file_read", "file_write", "dir_list", "dir_create", "final_output",
                   "idea_generate_agent", "brainstorming_agent", "planning_agent"}));
}

// infiagent.md §10 item 2's case: the coder's workflow mentions dir_list but
// its tool list does not have it, and the library keeps the paper's list, so
// a runtime that enforces tool lists must refuse that call.
TEST(InfiHelperLibrary, CodeBuilderDoesNotListDirList) {
  auto lib = AgentLibrary::load_file(kPath);
  ASSERT_TRUE(lib.ok()) << lib.error().message;
  const AgentDefinition* coder = lib->find("code_builder_agent");
  const Names& tools = coder->available_tools;
  EXPECT_EQ(std::find(tools.begin(), tools.end(), "dir_list"), tools.end());
  EXPECT_TRUE(contains(coder->workflow, "you can call dir_list and file_read"));
}

TEST(InfiHelperLibrary, PromptsAreVerbatimWithTheirPlaceholders) {
  auto lib = AgentLibrary::load_file(kPath);
  ASSERT_TRUE(lib.ok()) << lib.error().message;
  EXPECT_TRUE(contains(lib->find("judge_agent")->workflow,
                       "0. Your task ID for this task is {task_id}. Every time you call a tool, you should pass the "
                       "taskid as a parameter to the tool.\n"));
  EXPECT_TRUE(contains(lib->find("project_planner_agent")->workflow,
                       "placed in the workspace/tasks/{task_id}/project_designs directory."));
  EXPECT_EQ(lib->find("code_builder_agent")->responsibility,
            "Your responsibility is to automatically write Python scripts based on programming task requirements "
            "combined with the entire projects information, execute the scripts and verify whether the output results "
            "meet the expected requirements.\n");
  // The paper's quote marks stay as they are.
  EXPECT_TRUE(contains(lib->find("judge_agent")->description, "InfiAgent\u2019s Execution-Level audit mechanism"));
}

// idea_agent's three sub-agents are not defined by Appendix B: the library
// has stubs for them one level below idea_agent.
TEST(InfiHelperLibrary, IdeaAgentsUndefinedSubAgentsAreStubs) {
  auto lib = AgentLibrary::load_file(kPath);
  ASSERT_TRUE(lib.ok()) << lib.error().message;
  for (const char* name : {"idea_generate_agent", "brainstorming_agent", "planning_agent"}) {
    const AgentDefinition* a = lib->find(name);
    ASSERT_NE(a, nullptr) << name;
    EXPECT_EQ(a->level, 2) << name;
    EXPECT_TRUE(contains(a->description, "Stub")) << name;
    EXPECT_TRUE(contains(a->workflow, "final_output")) << name;
  }
  EXPECT_EQ(lib->agents().size(), 11u);  // Appendix B's 4, the 3 stubs, InfiHelper and its 3 other modules
}

// Item 34: the planner's step 3 (the summary) and step 4 (the judge) are
// review steps the runtime checks.
TEST(InfiHelperLibrary, ThePlannersReviewStepsAreDeclared) {
  auto lib = AgentLibrary::load_file(kPath);
  ASSERT_TRUE(lib.ok()) << lib.error().message;
  const auto& review = lib->find("project_planner_agent")->review;
  ASSERT_EQ(review.size(), 2u);
  EXPECT_EQ(review[0].file, "project_designs/project_design_summary.md");
  EXPECT_EQ(review[1].call, "judge_agent");
}

// Item 60: InfiHelper's top agent orchestrates the four modules. Appendix
// B's planner does not list the coder, so experiment_agent calls both; the
// pyramid is two calls deep.
TEST(InfiHelperLibrary, InfiHelperOrchestratesTheFourModules) {
  auto lib = AgentLibrary::load_file(kPath);
  ASSERT_TRUE(lib.ok()) << lib.error().message;
  LibraryShape s = lib->shape();
  EXPECT_EQ(s.roots, (Names{"infihelper_agent"}));
  EXPECT_EQ(s.depth, 2);
  EXPECT_EQ(lib->find("infihelper_agent")->available_tools,
            (Names{"literature_review_agent", "idea_agent", "experiment_agent", "paper_writing_agent", "judge_agent",
                   "dir_list", "file_read", "final_output"}));
  EXPECT_EQ(s.fan_out.at("infihelper_agent"), 4);
  EXPECT_EQ(s.fan_out.at("idea_agent"), 3);
  EXPECT_EQ(s.fan_out.at("experiment_agent"), 2);
  EXPECT_EQ(s.fan_out.at("project_planner_agent"), 0);
  EXPECT_EQ(s.fan_out.at("code_builder_agent"), 0);
  // The coder, the planner, the three stubs, the literature review and the paper writer.
  EXPECT_EQ(s.functional, 7);
  EXPECT_DOUBLE_EQ(s.branching, 3.0);
}

}  // namespace
}  // namespace kaisha::pyramid
