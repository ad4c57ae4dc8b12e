#include "runtime/pyramid/agent_context.hpp"

#include <gtest/gtest.h>

#include "runtime/llm/usage_estimate.hpp"
#include "tests/runtime/pyramid/pyramid_test_util.hpp"

namespace kaisha::pyramid {
namespace {

const char* kLibrary = R"(agents:
  - name: coder
    level: 1
    description: builds code
    responsibility: Build the code for task {task_id}.
    workflow: |
      1. Write code_run/main.py.
      2. Pass {task_id} to every tool.
    available_tools: [file_write, final_output]
)";

struct Fixture {
  AgentLibrary lib = value_or_throw(AgentLibrary::parse(kLibrary, "lib.yaml"));
  AgentContext context = value_or_throw(AgentContext::load(std::string(KAISHA_SOURCE_DIR) + "/prompts"));
  WorkspaceIndex index{llm::estimate_tokens};
  CallTree tree;
};

TEST(AgentContext, TheSystemPromptIsResponsibilityWorkflowAndOutputControlWithTheTaskId) {
  Fixture f;
  const std::string s = f.context.system_prompt(*f.lib.find("coder"), "t-42");
  EXPECT_EQ(s.rfind("Build the code for task t-42.\n\n1. Write code_run/main.py.\n2. Pass t-42 to every tool.\n", 0),
            0u)
      << s;
  EXPECT_NE(s.find("Only complete the task before making the final output! Use the final_output tool to output!!"),
            std::string::npos);
  EXPECT_EQ(s.find("{task_id}"), std::string::npos);
}

// infiagent.md §10 item 39: four parts, in a fixed order, each measurable.
TEST(AgentContext, EveryCallGetsTheFourPartsInOrder) {
  Fixture f;
  f.index.describe("project_designs/summary.md", "how the scripts fit together");
  const uint64_t root = f.tree.push(0, "boss", "plans", "build a river model");
  const uint64_t me = f.tree.push(root, "coder", "builds code", "write main.py");
  std::vector<llm::ChatMessage> env = {
      {llm::Role::system, "old system", {}, "", ""},
      {llm::Role::user, "write main.py", {}, "", ""},
      {llm::Role::assistant, "", {{"c1", "file_write", R"({"file_path":"x"})"}}, "", ""},
      {llm::Role::tool, "Content is required", {}, "c1", "file_write"}};
  auto m = f.context.messages(*f.lib.find("coder"), "t-42", f.index, 1000, f.tree, me, env);
  ASSERT_EQ(m.size(), 5u);  // C_sys, C_LM + C_SM, then the call's own 3 messages
  EXPECT_EQ(m[0].role, llm::Role::system);
  EXPECT_NE(m[0].content.find("Build the code for task t-42."), std::string::npos);
  EXPECT_EQ(m[1].role, llm::Role::user);
  EXPECT_NE(m[1].content.find("Your task ID is t-42"), std::string::npos);
  EXPECT_NE(m[1].content.find("- project_designs/summary.md: how the scripts fit together"), std::string::npos);
  EXPECT_NE(m[1].content.find("  - coder (builds code): write main.py  <- you"), std::string::npos) << m[1].content;
  EXPECT_EQ(m[2].content, "write main.py");
  EXPECT_EQ(m[3].tool_calls.at(0).name, "file_write");

  ContextParts p = f.context.parts(*f.lib.find("coder"), "t-42", f.index, 1000, f.tree, me, env, llm::estimate_tokens);
  EXPECT_EQ(p.system.text, m[0].content);
  EXPECT_EQ(p.long_term.text, "- project_designs/summary.md: how the scripts fit together\n");
  EXPECT_NE(p.short_term.text.find("boss"), std::string::npos);
  EXPECT_NE(p.environment.text.find("file_write"), std::string::npos);
  EXPECT_EQ(p.environment.text.find("old system"), std::string::npos);
  for (const ContextPart* part : {&p.system, &p.long_term, &p.short_term, &p.environment})
    EXPECT_EQ(part->tokens, llm::estimate_tokens(part->text));
  EXPECT_EQ(p.total(), p.system.tokens + p.long_term.tokens + p.short_term.tokens + p.environment.tokens);
}

TEST(AgentContext, AnEmptyWorkspaceAndNoOtherCallsSaySo) {
  Fixture f;
  const uint64_t me = f.tree.push(0, "coder", "", "x");
  auto m = f.context.messages(*f.lib.find("coder"), "t", f.index, 100, f.tree, me, {});
  ASSERT_EQ(m.size(), 2u);
  EXPECT_NE(m[1].content.find("(none yet)"), std::string::npos) << m[1].content;
}

TEST(AgentContext, MissingPromptFilesAreAClearError) {
  auto c = AgentContext::load("/nonexistent/prompts");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("/nonexistent/prompts/pyramid/agent_system.md"), std::string::npos)
      << c.error().message;
}

}  // namespace
}  // namespace kaisha::pyramid
