// employee.tools (grants), employee.max_tool_iterations and tools.costs:
// read as written, with file:line:key errors, and management tools refused.
#include <gtest/gtest.h>

#include "runtime/config/config_loader.hpp"

namespace kaisha::config {
namespace {

TEST(EmployeeToolsConfig, NoGrantsByDefault) {
  auto c = parse_config("store: x.db\n", "c.yaml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_TRUE(c->employee.tools.empty());
  EXPECT_EQ(c->employee.max_tool_iterations, 10);
  EXPECT_EQ(c->employee.max_malformed_tool_calls, 3);
  EXPECT_TRUE(c->tools.costs.empty());
}

TEST(EmployeeToolsConfig, ReadsGrantsIterationsAndCosts) {
  auto c = parse_config(R"(employee:
  max_tool_iterations: 4
  max_malformed_tool_calls: 1
  tools:
    all: [Calculator]
    agents:
      Researcher: [GetWebsite, "mcp:weather"]
    models:
      llama3.2: [builtin]
tools:
  costs:
    get_forecast: { invoke_expense_cost: 0.001 }
    Calculator: { invoke_resource_cost: 2 }
)",
                        "c.yaml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  const EmployeeConfig& e = c->employee;
  EXPECT_EQ(e.max_tool_iterations, 4);
  EXPECT_EQ(e.max_malformed_tool_calls, 1);
  ASSERT_EQ(e.tools.all.size(), 1u);
  EXPECT_EQ(e.tools.all[0].tool, "Calculator");
  EXPECT_EQ(e.tools.all[0].where, "c.yaml:5: employee.tools.all[0]");
  ASSERT_EQ(e.tools.agents.at("Researcher").size(), 2u);
  EXPECT_EQ(e.tools.agents.at("Researcher")[1].tool, "mcp:weather");
  EXPECT_EQ(e.tools.agents.at("Researcher")[1].where, "c.yaml:7: employee.tools.agents.Researcher[1]");
  EXPECT_EQ(e.tools.models.at("llama3.2")[0].tool, "builtin");
  EXPECT_DOUBLE_EQ(c->tools.costs.at("get_forecast").invoke_expense_cost, 0.001);
  EXPECT_DOUBLE_EQ(c->tools.costs.at("get_forecast").invoke_resource_cost, 0);
  EXPECT_DOUBLE_EQ(c->tools.costs.at("Calculator").invoke_resource_cost, 2);
}

TEST(EmployeeToolsConfig, MistakesNameFileLineAndKey) {
  struct Case {
    const char* yaml;
    const char* words;
  } cases[] = {
      {"employee:\n  tools:\n    al: [Calculator]\n",
       "c.yaml:3: unknown key 'al' in employee.tools (did you mean 'all'?)"},
      {"employee:\n  tools:\n    all: Calculator\n", "c.yaml:3: employee.tools.all: expected a list"},
      {"employee:\n  tools:\n    all: [Calculator, AgentCreator]\n",
       "c.yaml:3: employee.tools.all[1]: 'AgentCreator' is a management tool of the CEO; employees can never use it"},
      {"employee:\n  tools:\n    agents:\n      Poet: [AskAgent]\n",
       "c.yaml:4: employee.tools.agents.Poet[0]: 'AskAgent' is a management tool"},
      {"employee:\n  tools:\n    models:\n      mistral: [ToolCreator]\n", "'ToolCreator' is a management tool"},
      {"employee:\n  tools:\n    all: [\"mcp:\"]\n", "employee.tools.all[0]: 'mcp:' needs a server name"},
      {"employee:\n  tools:\n    all: [\"\"]\n", "employee.tools.all[0]: a tool name or provider cannot be empty"},
      {"employee:\n  max_tool_iterations: 0\n",
       "c.yaml:2: employee.max_tool_iterations: expected an integer >= 1, got 0"},
      {"tools:\n  costs:\n    X: { invoke_expense_cost: -1 }\n",
       "c.yaml:3: tools.costs.X.invoke_expense_cost: expected a number >= 0, got -1"},
      {"tools:\n  costs:\n    X: { expense: 1 }\n", "c.yaml:3: unknown key 'expense' in tools.costs.X"},
  };
  for (const auto& k : cases) {
    auto c = parse_config(k.yaml, "c.yaml");
    ASSERT_FALSE(c.ok()) << k.yaml;
    EXPECT_NE(c.error().message.find(k.words), std::string::npos) << "got: " << c.error().message;
  }
}

}  // namespace
}  // namespace kaisha::config
