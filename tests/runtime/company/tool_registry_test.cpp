#include "runtime/company/tool_registry.hpp"

#include <gtest/gtest.h>

#include "runtime/company/agent_roster.hpp"

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
  EXPECT_NE(run(reg, "AskAgent", R"({"agent_name": "X",)").message.find("not valid JSON"), std::string::npos);
  EXPECT_EQ(run(reg, "AskAgent", R"({"agent_name":"X"})").message,
            "AskAgent: arguments: missing required member 'prompt'");
  EXPECT_EQ(run(reg, "AskAgent", R"({"agent_name":7,"prompt":"p"})").message,
            "AskAgent: arguments.agent_name: expected string, got an integer");
  EXPECT_NE(run(reg, "AskAgent", R"({"agent_name":"a","prompt":"p","mode":"z"})").message.find("one of"),
            std::string::npos);
  EXPECT_NE(run(reg, "AskAgent", R"([1,2])").message.find("must be a JSON object"), std::string::npos);
  EXPECT_EQ(calls, 0);
}

// A model's call is checked as deep as JSON-RPC params are: the checker it
// had before looked only at the top-level properties' type and enum, and let
// each of these calls reach the handler.
TEST(ToolRegistry, ArgumentsAreCheckedAtEveryDepth) {
  int calls = 0;
  ToolRegistry reg;
  Tool t;
  t.spec.name = "Plan";
  t.spec.parameters = json::parse(R"({"type":"object","additionalProperties":false,
      "properties":{
        "steps":{"type":"array","items":{"type":"object","required":["title"],
                 "properties":{"title":{"type":"string"},"effort":{"enum":["low","high"]}}}},
        "owner":{"type":"object","properties":{"name":{"type":"string"}}},
        "version":{"const":2}},
      "required":["steps"]})");
  t.handler = [&calls](const json&, ToolDone done) {
    ++calls;
    done(ToolResult::success("planned"));
  };
  ASSERT_TRUE(reg.add(t).ok());

  EXPECT_TRUE(run(reg, "Plan", R"({"steps":[{"title":"a","effort":"low"}],"owner":{"name":"Kai"},"version":2})").ok);
  EXPECT_EQ(calls, 1);

  // A wrong type inside an array element.
  EXPECT_EQ(run(reg, "Plan", R"({"steps":[{"title":"a"},{"title":5}]})").message,
            "Plan: arguments.steps[1].title: expected string, got an integer");
  // A missing required member of a nested object.
  EXPECT_EQ(run(reg, "Plan", R"({"steps":[{"effort":"low"}]})").message,
            "Plan: arguments.steps[0]: missing required member 'title'");
  // An enum inside a nested object.
  EXPECT_EQ(run(reg, "Plan", R"({"steps":[{"title":"a","effort":"huge"}]})").message,
            "Plan: arguments.steps[0].effort: \"huge\" is not one of [\"low\",\"high\"]");
  // A wrong type of a nested object's member.
  EXPECT_EQ(run(reg, "Plan", R"({"steps":[],"owner":{"name":["Kai"]}})").message,
            "Plan: arguments.owner.name: expected string, got an array");
  // A member the schema does not allow, and a const.
  EXPECT_EQ(run(reg, "Plan", R"({"steps":[],"stpes":[]})").message, "Plan: arguments: unexpected member 'stpes'");
  EXPECT_EQ(run(reg, "Plan", R"({"steps":[],"version":3})").message, "Plan: arguments.version: must be 2, got 3");
  EXPECT_EQ(calls, 1);
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
