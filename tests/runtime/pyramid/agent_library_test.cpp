#include "runtime/pyramid/agent_library.hpp"

#include <gtest/gtest.h>

namespace kaisha::pyramid::agent_library_test {
namespace {

// A small pyramid: a level-3 root over a level-2 planner over a level-1
// coder, all of which may call the judge.
const char* kLibrary = R"(max_children: 5
agents:
  - name: judge_agent
    level: -1
    description: Verifies task completion and output quality.
    available_tools: [file_read, dir_list, execute_code, final_output]
  - name: code_builder_agent
    level: 1
    description: Writes and runs code. コードを書く 🛠
    responsibility: Build the code the task asks for.
    workflow: |
      1. Write the module.
      2. Run it, then call judge_agent.
    available_tools: [judge_agent, final_output, file_read, file_write, dir_create, file_move, execute_shell, execute_code, pip_install]
    model: mock:coder
    max_turns: 40
  - name: project_planner_agent
    level: 2
    description: Plans a project and hands the parts down.
    available_tools: [judge_agent, final_output, file_read, file_write, code_builder_agent]
  - name: idea_agent
    level: 3
    description: Top-level orchestration.
    available_tools: [judge_agent, file_read, project_planner_agent, code_builder_agent, final_output]
)";

TEST(AgentLibrary, LoadsAgentsAsDataWithTheirFields) {
  auto lib = AgentLibrary::parse(kLibrary, "agents.yaml");
  ASSERT_TRUE(lib.ok()) << lib.error().message;
  ASSERT_EQ(lib->agents().size(), 4u);
  const AgentDefinition* coder = lib->find("code_builder_agent");
  ASSERT_NE(coder, nullptr);
  EXPECT_EQ(coder->level, 1);
  EXPECT_EQ(coder->description, "Writes and runs code. コードを書く 🛠");
  EXPECT_EQ(coder->workflow, "1. Write the module.\n2. Run it, then call judge_agent.\n");
  EXPECT_EQ(coder->model, "mock:coder");
  EXPECT_EQ(coder->max_turns, 40);
  EXPECT_EQ(coder->available_tools.size(), 9u);  // 8 tools and the judge: within K_max
  EXPECT_EQ(coder->line, 7);
  EXPECT_EQ(lib->find("idea_agent")->max_turns, 100);
  ASSERT_NE(lib->judge(), nullptr);
  EXPECT_EQ(lib->judge()->name, "judge_agent");
  std::vector<std::string> callees;
  for (const AgentDefinition* c : lib->callees(*lib->find("idea_agent"))) callees.push_back(c->name);
  EXPECT_EQ(callees, (std::vector<std::string>{"judge_agent", "project_planner_agent", "code_builder_agent"}));
  EXPECT_EQ(lib->find("nobody"), nullptr);
}

TEST(AgentLibrary, ReportsDepthFanOutFunctionalAgentsAndBranching) {
  auto lib = AgentLibrary::parse(kLibrary, "agents.yaml");
  ASSERT_TRUE(lib.ok()) << lib.error().message;
  LibraryShape s = lib->shape();
  EXPECT_EQ(s.depth, 2);  // idea -> planner -> coder
  EXPECT_EQ(s.fan_out.at("idea_agent"), 2);
  EXPECT_EQ(s.fan_out.at("project_planner_agent"), 1);
  EXPECT_EQ(s.fan_out.at("code_builder_agent"), 0);
  EXPECT_EQ(s.fan_out.count("judge_agent"), 0u);
  EXPECT_EQ(s.functional, 1);
  EXPECT_DOUBLE_EQ(s.branching, 1.5);
  EXPECT_EQ(s.roots, std::vector<std::string>{"idea_agent"});
}

// infiagent.md §10 item 6: a 5-ary registry of depth 3 has 125 functional agents.
TEST(AgentLibrary, AFiveAryPyramidOfDepthThreeHasOneHundredTwentyFiveFunctionalAgents) {
  // Level by level: each agent of level l has 5 children at level l-1.
  std::vector<std::vector<std::string>> levels = {{"root"}};
  for (int l = 3; l >= 1; --l) {
    std::vector<std::string> next;
    for (size_t i = 0; i < levels.back().size() * 5; ++i)
      next.push_back("a" + std::to_string(l) + "_" + std::to_string(i));
    levels.push_back(next);
  }
  std::string yaml = "agents:\n";
  for (size_t d = 0; d < levels.size(); ++d) {
    const int level = 4 - int(d);
    for (size_t i = 0; i < levels[d].size(); ++i) {
      yaml +=
          "  - {name: " + levels[d][i] + ", level: " + std::to_string(level) + ", description: d, available_tools: [";
      if (d + 1 < levels.size())
        for (size_t k = 0; k < 5; ++k) yaml += (k ? ", " : "") + levels[d + 1][i * 5 + k];
      else
        yaml += "final_output";
      yaml += "]}\n";
    }
  }
  auto lib = AgentLibrary::parse(yaml, "five.yaml");
  ASSERT_TRUE(lib.ok()) << lib.error().message;
  LibraryShape s = lib->shape();
  EXPECT_EQ(s.depth, 3);
  EXPECT_EQ(s.functional, 125);
  EXPECT_DOUBLE_EQ(s.branching, 5.0);
  EXPECT_EQ(s.roots, std::vector<std::string>{"root"});
}

TEST(AgentLibrary, EveryMistakeNamesFileLineAndKey) {
  struct Case {
    std::string yaml;
    std::string words;
  } cases[] = {
      {"agents:\n  - {name: a, level: 1, description: d, available_tools: [dir_lst]}\n",
       "lib.yaml:2: agents[0].available_tools[0]: unknown tool or agent 'dir_lst' (did you mean 'dir_list'?)"},
      {"agents:\n  - {name: low, level: 1, description: d, available_tools: [high]}\n"
       "  - {name: high, level: 2, description: d, available_tools: [low]}\n",
       "lib.yaml:2: agents[0].available_tools[0]: 'high' (level 2) is not below 'low' (level 1)"},
      {"agents:\n  - {name: a, level: 2, description: d, available_tools: [b]}\n"
       "  - {name: b, level: 2, description: d, available_tools: [a]}\n",
       "'b' (level 2) is not below 'a' (level 2)"},
      {"agents:\n  - {name: a, level: 1, description: d, available_tools: [a]}\n", "'a' (level 1) is not below 'a'"},
      {"agents:\n  - {name: j, level: -1, description: d, available_tools: [file_read, file_write]}\n",
       "agents[0].available_tools[1]: the judge only reads and runs: 'file_write' is not one of file_read, dir_list, "
       "execute_code, final_output"},
      {"agents:\n  - {name: j, level: -1, description: d, available_tools: [a]}\n"
       "  - {name: a, level: 1, description: d, available_tools: []}\n",
       "the judge calls no agent ('a')"},
      {"agents:\n  - {name: j, level: -1, description: d, available_tools: []}\n"
       "  - {name: k, level: -1, description: d, available_tools: []}\n",
       "lib.yaml:3: agents[1].level: a second judge ('j' is the judge, line 2)"},
      {"agents:\n  - {name: a, level: 0, description: d, available_tools: []}\n",
       "agents[0].level: level 0 is the built-in tools"},
      {"agents:\n  - {name: a, level: 1, description: d, available_tools: []}\n"
       "  - {name: a, level: 2, description: d, available_tools: []}\n",
       "lib.yaml:3: agents[1].name: 'a' is given twice (lines 2 and 3); keep one"},
      {"agents:\n  - {name: 詩人, level: 1, description: d, available_tools: []}\n",
       "agents[0].name: '詩人' is not a tool name a model can call"},
      {"agents:\n  - {name: file_read, level: 1, description: d, available_tools: []}\n",
       "'file_read' is a level-0 tool's name"},
      {"agents:\n  - {name: a, level: 1, available_tools: []}\n", "lib.yaml:2: agents[0]: 'description' is required"},
      {"agents:\n  - {name: a, level: 1, description: d, available_tools: [final_output, final_output]}\n",
       "agents[0].available_tools[1]: 'final_output' is listed twice"},
      {"agents:\n  - {name: a, level: 1, description: d, available_tools: file_read}\n",
       "agents[0].available_tools: expected a list of tool and agent names"},
      {"agents:\n  - {name: a, level: 1, description: d, available_tools: [], max_turns: 0}\n",
       "agents[0].max_turns: expected an integer >= 1"},
      {"agents:\n  - {name: a, level: 1, description: d, available_tools: [], max_turns: 100000}\n",
       "agents[0].max_turns: expected an integer <= 10000, got 100000"},
      {"agents:\n  - {name: a, levle: 1, description: d, available_tools: []}\n", "did you mean 'level'?"},
      {"agents: []\n", "lib.yaml:1: agents: expected a list of agents"},
      {"agents:\n  - {name: a, level: 1, description: d, available_tools: [file_write], review: [{call: "
       "judge_agent}]}\n",
       "agents[0].review[0].call: 'judge_agent' is not a tool this agent lists"},
      {"agents:\n  - {name: a, level: 1, description: d, available_tools: [file_write], review: [{file: x, call: "
       "file_write}]}\n",
       "agents[0].review[0]: give either 'file'"},
      {"agents:\n  - {name: a, level: 1, description: d, available_tools: [], review: [{file: ../x.md}]}\n",
       "agents[0].review[0].file: '../x.md' is not a path inside the task's directory"},
      {"agents:\n  - {name: a, level: 1, description: d, available_tools: [], review: {file: x.md}}\n",
       "agents[0].review: expected a list of steps"},
      {"agents:\n  - {name: a, level: 1, description: d, available_tools: [], review: [{fiel: x.md}]}\n",
       "did you mean 'file'?"},
      {"max_children: 0\nagents:\n  - {name: a, level: 1, description: d, available_tools: []}\n",
       "max_children: expected an integer >= 1"},
      {"agents:\n  - {name: a, level: 1, description: d, available_tools: [], candidates: [m1]}\n",
       "lib.yaml:2: agents[0].candidates: expected 2 to 8 models, got 1"},
      {"agents:\n  - {name: a, level: 1, description: d, available_tools: [], model: m0, candidates: [m1, m2]}\n",
       "agents[0].candidates: give 'model' or 'candidates', not both"},
      {"agents:\n  - {name: a, level: 1, description: d, available_tools: [], candidates: [m1, m1]}\n",
       "agents[0].candidates[1]: 'm1' is listed twice"},
      {"agents:\n  - {name: a, level: 1, description: d, available_tools: [], candidates: m1}\n",
       "agents[0].candidates: expected a list of model refs"},
      {"agents:\n  - {name: j, level: -1, description: d, available_tools: [], candidates: [m1, m2]}\n",
       "agents[0].candidates: the judge runs on one model"},
      {"agents:\n  - {name: a, level: 1, description: d, available_tools: [], candidates: [m1, m2]}\n"
       "  - {name: a__2, level: 1, description: d, available_tools: []}\n",
       "lib.yaml:3: agents[1].name: 'a__2' is the name a's candidate 2 runs as; rename one of them"},
  };
  for (const auto& c : cases) {
    auto r = AgentLibrary::parse(c.yaml, "lib.yaml");
    ASSERT_FALSE(r.ok()) << c.yaml;
    EXPECT_NE(r.error().message.find(c.words), std::string::npos) << c.yaml << "\n" << r.error().message;
  }
}

// Item 34: review steps are read, with their paths normalised.
TEST(AgentLibrary, ReviewStepsAreRead) {
  auto lib = AgentLibrary::parse(
      "agents:\n  - {name: j, level: -1, description: d, available_tools: [final_output]}\n"
      "  - name: planner\n    level: 1\n    description: d\n    available_tools: [file_write, j, final_output]\n"
      "    review:\n      - file: ./designs//summary.md\n      - call: j\n",
      "lib.yaml");
  ASSERT_TRUE(lib.ok()) << lib.error().message;
  const auto& review = lib->find("planner")->review;
  ASSERT_EQ(review.size(), 2u);
  EXPECT_EQ(review[0].file, "designs/summary.md");
  EXPECT_EQ(review[0].describe(), "write designs/summary.md");
  EXPECT_EQ(review[1].call, "j");
  EXPECT_EQ(review[1].describe(), "call j with success");
  EXPECT_TRUE(lib->find("j")->review.empty());
}

// infiagent.md §10 item 5: K_max bounds sub-agents; tools and the judge do not count.
TEST(AgentLibrary, MoreSubAgentsThanMaxChildrenAreRefused) {
  std::string yaml = "agents:\n  - {name: judge, level: -1, description: d, available_tools: [file_read]}\n";
  for (int i = 1; i <= 6; ++i)
    yaml += "  - {name: c" + std::to_string(i) + ", level: 1, description: d, available_tools: [final_output]}\n";
  const std::string parent =
      "  - {name: boss, level: 2, description: d, available_tools: [judge, file_read, file_write, c1, c2, c3, c4, c5";
  auto five = AgentLibrary::parse(yaml + parent + "]}\n", "lib.yaml");
  EXPECT_TRUE(five.ok()) << five.error().message;
  auto six = AgentLibrary::parse(yaml + parent + ", c6]}\n", "lib.yaml");
  ASSERT_FALSE(six.ok());
  EXPECT_NE(six.error().message.find(
                "lib.yaml:9: agents[7].available_tools: 'boss' lists 6 sub-agents, more than max_children (5)"),
            std::string::npos)
      << six.error().message;
  auto raised = AgentLibrary::parse("max_children: 6\n" + yaml + parent + ", c6]}\n", "lib.yaml");
  EXPECT_TRUE(raised.ok()) << raised.error().message;
}

TEST(AgentLibrary, AMissingFileIsAClearError) {
  auto r = AgentLibrary::load_file("/nonexistent/agents.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("/nonexistent/agents.yaml"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace kaisha::pyramid::agent_library_test
