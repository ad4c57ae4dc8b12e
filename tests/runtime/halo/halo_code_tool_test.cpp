// HALO's code tool (halo.md §12 item 21): with halo.code_tool, every ask of
// a role agent offers the sandbox tool; the calls an answer asks for run as
// RunTool effects and their results go back to the agent in one more ask,
// at most max_tool_rounds times. Without it, nothing is offered.
#include <gtest/gtest.h>

#include "tests/runtime/halo/halo_script.hpp"

namespace kaisha::halo::testing {
namespace {

HaloSetup with_code_tool(int rounds = 3) {
  HaloSetup s = test_setup();
  s.settings.code_tool = true;
  s.settings.max_tool_rounds = rounds;
  s.code_tool = llm::ToolSpec{kCodeTool, "Executes Python code", json{{"type", "object"}}};
  return s;
}

bool has_tool_result(const std::vector<llm::ChatMessage>& messages) {
  for (const auto& m : messages)
    if (m.role == llm::Role::tool) return true;
  return false;
}

// The agent asks for code to run on its first turn and answers on the next.
Script coding_agent() {
  Script sc;
  sc.agent_tool_calls = [](const Ask& a) {
    if (has_tool_result(a.messages)) return std::vector<llm::ToolCall>{};
    return std::vector<llm::ToolCall>{{"call_1", kCodeTool, R"j({"code":"print(2 + 3)"})j"}};
  };
  sc.agent = [](const Ask& a) { return has_tool_result(a.messages) ? std::string("ANSWER 5") : std::string(""); };
  sc.tool = [](const RunTool&) {
    return company::ToolResult::success("Python code executed successfully.",
                                        json{{"stdout", "5\n"}, {"stderr", ""}, {"return_code", 0}});
  };
  return sc;
}

TEST(HaloCodeTool, OffNothingIsOfferedAndNoToolRuns) {
  HaloDriver d(test_setup(), test_task());
  Harness h(d, coding_agent());
  h.start();
  h.run();
  ASSERT_FALSE(h.all<Ask>().empty());
  for (const Ask& a : h.all<Ask>()) EXPECT_TRUE(a.tools.empty());
  EXPECT_TRUE(h.all<RunTool>().empty());
}

TEST(HaloCodeTool, TheAgentsCodeRunsAndItsResultGoesBackInOneMoreAsk) {
  HaloDriver d(with_code_tool(), test_task());
  Harness h(d, coding_agent());
  h.start();
  h.run();
  const auto asks = h.all<Ask>();
  ASSERT_FALSE(asks.empty());
  for (const Ask& a : asks) {
    ASSERT_EQ(a.tools.size(), 1u);
    EXPECT_EQ(a.tools[0].name, kCodeTool);
  }
  const auto runs = h.all<RunTool>();
  ASSERT_FALSE(runs.empty());
  EXPECT_EQ(runs[0].tool, kCodeTool);
  EXPECT_EQ(runs[0].arguments, R"j({"code":"print(2 + 3)"})j");
  // Every node's agent was asked twice: once with the solve request, once
  // with its tool call and the result after it, under the same job.
  EXPECT_EQ(asks.size(), 2 * runs.size());
  size_t followed = 0;
  for (const Ask& a : asks) {
    if (!has_tool_result(a.messages)) continue;
    ++followed;
    const auto& m = a.messages;
    ASSERT_GE(m.size(), 3u);
    EXPECT_EQ(m[m.size() - 2].role, llm::Role::assistant);
    ASSERT_EQ(m[m.size() - 2].tool_calls.size(), 1u);
    EXPECT_EQ(m[m.size() - 1].tool_call_id, "call_1");
    EXPECT_NE(m[m.size() - 1].content.find("\"stdout\":\"5\\n\""), std::string::npos) << m.back().content;
  }
  EXPECT_EQ(followed, runs.size());
  // The call and its result are journaled under the node's job; the
  // answer after the tool is the node's.
  std::vector<Journal> calls, results;
  for (const Journal& j : h.all<Journal>()) {
    if (j.kind == msg::EventKind::tool_call) calls.push_back(j);
    if (j.kind == msg::EventKind::tool_result) results.push_back(j);
  }
  ASSERT_EQ(calls.size(), runs.size());
  ASSERT_EQ(results.size(), runs.size());
  EXPECT_EQ(calls[0].payload["tool"], kCodeTool);
  EXPECT_EQ(calls[0].payload["job"], results[0].payload["job"]);
  EXPECT_NE(calls[0].agent, "");
  auto f = h.finish();
  ASSERT_TRUE(f.has_value());
  EXPECT_TRUE(f->ok);
  EXPECT_EQ(f->text, "ANSWER 5");
}

TEST(HaloCodeTool, AnUnknownToolIsAnsweredWithAnErrorAndRunsNothing) {
  Script sc = coding_agent();
  sc.agent_tool_calls = [](const Ask& a) {
    if (has_tool_result(a.messages)) return std::vector<llm::ToolCall>{};
    return std::vector<llm::ToolCall>{{"call_9", "rm_rf", "{}"}};
  };
  HaloDriver d(with_code_tool(), test_task());
  Harness h(d, sc);
  h.start();
  h.run();
  EXPECT_TRUE(h.all<RunTool>().empty());
  bool told = false;
  for (const Ask& a : h.all<Ask>())
    for (const auto& m : a.messages)
      if (m.role == llm::Role::tool && m.content.find("the tool 'rm_rf' is not available") != std::string::npos)
        told = true;
  EXPECT_TRUE(told);
  ASSERT_TRUE(h.finish().has_value());
}

TEST(HaloCodeTool, AnAgentThatNeverStopsCallingToolsIsCutAfterMaxToolRounds) {
  Script sc = coding_agent();
  sc.agent_tool_calls = [](const Ask&) {
    return std::vector<llm::ToolCall>{{"call_1", kCodeTool, R"j({"code":"print(1)"})j"}};
  };
  sc.agent = [](const Ask&) { return std::string("ANSWER 5"); };
  HaloDriver d(with_code_tool(2), test_task());
  Harness h(d, sc);
  h.start();
  h.run();
  const size_t asks = h.all<Ask>().size(), runs = h.all<RunTool>().size();
  ASSERT_GT(runs, 0u);
  // Per node: 2 rounds of tools, so 3 asks.
  EXPECT_EQ(asks * 2, runs * 3);
  ASSERT_TRUE(h.finish().has_value());
}

}  // namespace
}  // namespace kaisha::halo::testing
