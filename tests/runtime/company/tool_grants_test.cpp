// Grant resolution for employees: union of all / by agent / by model, tools
// by name or whole sources, management tools never, MemoryManager only by
// name; unknown names reported at their config place.
#include <gtest/gtest.h>

#include "runtime/company/tool_grants.hpp"

namespace kaisha::company {
namespace {

config::GrantEntry entry(std::string tool, std::string where = "c.yaml:1: employee.tools.all[0]") {
  return {std::move(tool), std::move(where)};
}

TEST(ToolGrants, NoEntriesMeansNoTools) {
  config::EmployeeGrants g;
  GrantedTools t = grant_for(g, "Poet", "llama3.2");
  EXPECT_TRUE(t.empty());
  EXPECT_FALSE(t.allows("Calculator", "builtin"));
}

TEST(ToolGrants, UnionOfAllAgentAndModelLists) {
  config::EmployeeGrants g;
  g.all = {entry("Calculator")};
  g.agents["Researcher"] = {entry("GetWebsite"), entry("mcp:weather")};
  g.models["mistral"] = {entry("ReadFile")};
  GrantedTools r = grant_for(g, "Researcher", "mistral");
  EXPECT_TRUE(r.allows("Calculator", "builtin"));
  EXPECT_TRUE(r.allows("GetWebsite", "builtin"));
  EXPECT_TRUE(r.allows("ReadFile", "builtin"));
  EXPECT_TRUE(r.allows("get_forecast", "mcp:weather"));
  EXPECT_FALSE(r.allows("get_forecast", "mcp:other"));
  EXPECT_FALSE(r.allows("WriteFile", "builtin"));
  GrantedTools poet = grant_for(g, "Poet", "llama3.2");
  EXPECT_TRUE(poet.allows("Calculator", "builtin"));
  EXPECT_FALSE(poet.allows("GetWebsite", "builtin"));
  EXPECT_FALSE(poet.allows("get_forecast", "mcp:weather"));
  EXPECT_EQ(r.entries(), (std::vector<std::string>{"Calculator", "GetWebsite", "ReadFile", "mcp:weather"}));
}

TEST(ToolGrants, ProviderGrantsNeverBringManagementToolsOrMemory) {
  config::EmployeeGrants g;
  g.all = {entry("user"), entry("memory")};
  GrantedTools t = grant_for(g, "A", "m");
  EXPECT_TRUE(t.allows("CurrentTimeTool", "user"));
  EXPECT_FALSE(t.allows("ToolCreator", "user"));
  EXPECT_FALSE(t.allows("ToolDeletor", "user"));
  EXPECT_FALSE(t.allows("MemoryManager", "memory"));
  // Named, MemoryManager is granted; a management tool never is, even named.
  g.all.push_back(entry("MemoryManager"));
  g.all.push_back(entry("AgentCreator"));
  GrantedTools named = grant_for(g, "A", "m");
  EXPECT_TRUE(named.allows("MemoryManager", "memory"));
  EXPECT_FALSE(named.allows("AgentCreator", "builtin"));
}

TEST(ToolGrants, CheckReportsUnknownToolsAndProvidersAtTheirPlace) {
  const std::map<std::string, std::string> tools = {
      {"Calculator", "builtin"}, {"ReadFile", "builtin"}, {"ToolCreator", "user"}};
  const std::set<std::string> origins = {"builtin", "user"};
  config::EmployeeGrants ok;
  ok.all = {entry("Calculator"), entry("builtin")};
  EXPECT_TRUE(check_grants(ok, tools, origins).ok());

  config::EmployeeGrants typo;
  typo.agents["R"] = {entry("Calculater", "c.yaml:9: employee.tools.agents.R[0]")};
  Status s = check_grants(typo, tools, origins);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("c.yaml:9: employee.tools.agents.R[0]: unknown tool 'Calculater' "
                                   "(did you mean 'Calculator'?)"),
            std::string::npos)
      << s.error().message;
  // The listing offers what may be granted: not ToolCreator.
  EXPECT_NE(s.error().message.find("[\"Calculator\",\"ReadFile\"]"), std::string::npos) << s.error().message;

  config::EmployeeGrants no_server;
  no_server.models["m"] = {entry("mcp:weather", "c.yaml:4: employee.tools.models.m[0]")};
  s = check_grants(no_server, tools, origins);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("c.yaml:4: employee.tools.models.m[0]: no tool source 'mcp:weather' "
                                   "(sources: builtin, user)"),
            std::string::npos)
      << s.error().message;
}

}  // namespace
}  // namespace kaisha::company
