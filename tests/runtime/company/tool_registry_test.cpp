#include "runtime/company/tool_registry.hpp"

#include <gtest/gtest.h>

#include "runtime/company/agent_roster.hpp"
#include "runtime/company/schema_check.hpp"

namespace kaisha::company {
namespace {

Tool ask_tool(int* calls) {
  Tool t;
  t.spec.name = "AskAgent";
  t.spec.description = "asks";
  t.spec.parameters = json::parse(R"({"type":"object","properties":{
      "agent_name":{"type":"string"},"prompt":{"type":"string"},
      "mode":{"type":"string","enum":["a","b"]}},"required":["agent_name","prompt"]})");
  t.handler = [calls](const json& args, ToolDone done) {
    ++*calls;
    done(ToolResult::success("ok", args["prompt"]));
  };
  return t;
}

ToolResult run(const ToolRegistry& reg, const std::string& name, const std::string& args,
               ToolGrant grant = std::nullopt) {
  ToolResult out;
  bool called = false;
  reg.invoke(name, args, grant, [&](ToolResult r) {
    EXPECT_FALSE(called) << "done called twice";
    called = true;
    out = std::move(r);
  });
  EXPECT_TRUE(called);
  return out;
}

TEST(ToolRegistry, RunsAValidCall) {
  int calls = 0;
  ToolRegistry reg;
  ASSERT_TRUE(reg.add(ask_tool(&calls)).ok());
  ToolResult r = run(reg, "AskAgent", R"({"agent_name":"Poet","prompt":"hi"})");
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.output, "hi");
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(r.to_json()["status"], "success");
}

TEST(ToolRegistry, UnknownToolHasHashiruText) {
  ToolRegistry reg;
  ToolResult r = run(reg, "Nope", "{}");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.message, "Tool Nope not found");
  EXPECT_EQ(r.to_json()["status"], "error");
}

TEST(ToolRegistry, BadArgumentsNeverReachTheHandler) {
  int calls = 0;
  ToolRegistry reg;
  ASSERT_TRUE(reg.add(ask_tool(&calls)).ok());
  EXPECT_NE(run(reg, "AskAgent", R"({"agent_name": "X",)").message.find("not valid JSON"),
            std::string::npos);
  EXPECT_EQ(run(reg, "AskAgent", R"({"agent_name":"X"})").message,
            "AskAgent: missing required parameter 'prompt'");
  EXPECT_NE(run(reg, "AskAgent", R"({"agent_name":7,"prompt":"p"})").message.find("'agent_name' must be"),
            std::string::npos);
  EXPECT_NE(run(reg, "AskAgent", R"({"agent_name":"a","prompt":"p","mode":"z"})").message.find("one of"),
            std::string::npos);
  EXPECT_NE(run(reg, "AskAgent", R"([1,2])").message.find("must be a JSON object"), std::string::npos);
  EXPECT_EQ(calls, 0);
}

TEST(ToolRegistry, GrantsLimitWhatAnAgentSeesAndCalls) {
  int calls = 0;
  ToolRegistry reg;
  ASSERT_TRUE(reg.add(ask_tool(&calls)).ok());
  Tool other;
  other.spec.name = "GetBudget";
  other.handler = [](const json&, ToolDone d) { d(ToolResult::success("b")); };
  ASSERT_TRUE(reg.add(other).ok());
  ToolGrant only_budget = std::set<std::string>{"GetBudget"};
  ASSERT_EQ(reg.specs(only_budget).size(), 1u);
  EXPECT_EQ(reg.specs().size(), 2u);
  ToolResult r = run(reg, "AskAgent", R"({"agent_name":"a","prompt":"p"})", only_budget);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.message.find("GetBudget"), std::string::npos);
  EXPECT_EQ(calls, 0);
}

TEST(ToolRegistry, UnderAGrantAnUnknownToolGetsTheListingToo) {
  ToolRegistry reg;
  Tool calc;
  calc.spec.name = "Calculator";
  calc.handler = [](const json&, ToolDone d) { d(ToolResult::success("4")); };
  ASSERT_TRUE(reg.add(calc).ok());
  ToolResult r = run(reg, "AgentCreator", "{}", std::set<std::string>{"Calculator"});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.message, "Tool AgentCreator is not granted to this agent; it may use: [\"Calculator\"]");
  EXPECT_EQ(run(reg, "AgentCreator", "{}").message, "Tool AgentCreator not found");  // no grant: all tools
}

TEST(ToolRegistry, ThrowingHandlerBecomesToolError) {
  ToolRegistry reg;
  Tool t;
  t.spec.name = "Boom";
  t.handler = [](const json&, ToolDone) { throw std::runtime_error("kaput"); };
  ASSERT_TRUE(reg.add(t).ok());
  ToolResult r = run(reg, "Boom", "");
  EXPECT_EQ(r.message, "Tool `Boom` failed to run.");
  EXPECT_EQ(r.output, "kaput");
}

TEST(AgentRoster, NamesAndDuplicates) {
  AgentRoster roster;
  EXPECT_TRUE(roster.check_new("River_Poet2").ok());
  EXPECT_FALSE(roster.check_new("River Poet").ok());
  EXPECT_FALSE(roster.check_new("poet!").ok());
  EXPECT_FALSE(roster.check_new("").ok());
  msg::AgentSpec s;
  s.name = "Poet";
  s.base_model = "mistral";
  s.costs = json{{"create_resource_cost", 20}};
  roster.add(s);
  EXPECT_EQ(roster.check_new("Poet").error().message, "Agent Poet already exists");
  json j = roster.to_json();
  EXPECT_EQ(j["Poet"]["base_model"], "mistral");
  EXPECT_EQ(j["Poet"]["create_resource_cost"], 20);
  EXPECT_EQ(j["Poet"]["invoke_expense_cost"], 0);
  EXPECT_TRUE(roster.remove("Poet"));
  EXPECT_FALSE(roster.remove("Poet"));
}

}  // namespace
}  // namespace kaisha::company
