// `kaisha agents --library FILE`: a pyramid agent library is checked and its
// shape shown; a mistake names file, line and key and exits 2.
#include "e2e_fixture.hpp"

namespace kaisha::e2e {
namespace {

TEST_F(E2eTest, AgentLibraryShowsItsShape) {
  const std::string lib = dir_.write("agents.yaml", R"(agents:
  - {name: judge_agent, level: -1, description: checks, available_tools: [file_read, dir_list, execute_code, final_output]}
  - {name: coder, level: 1, description: コードを書く, available_tools: [judge_agent, file_write, final_output]}
  - {name: writer, level: 1, description: 文章 ✍, available_tools: [file_write, final_output]}
  - {name: boss, level: 2, description: plans, available_tools: [coder, writer, judge_agent], model: mock:boss}
)");
  RunResult r = kaisha({"agents", "--library", lib});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("level 2  boss  (2 sub-agents)  model mock:boss"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("depth L 1, functional agents N_func 2, mean branching b 2"), std::string::npos) << r.out;
  RunResult j = kaisha({"agents", "--library", lib, "--json"});
  ASSERT_EQ(j.exit_code, 0) << j.describe();
  json doc = json::parse(j.out);
  EXPECT_EQ(doc["shape"]["functional_agents"], 2);
  EXPECT_EQ(doc["agents"][1]["description"], "コードを書く");
}

TEST_F(E2eTest, AgentLibraryMistakeNamesFileLineAndKey) {
  const std::string lib = dir_.write("bad.yaml", R"(agents:
  - {name: coder, level: 1, description: d, available_tools: [final_output]}
  - {name: boss, level: 2, description: d, available_tools: [coder, dir_lst]}
)");
  RunResult r = kaisha({"agents", "--library", lib});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_NE(r.err.find(lib + ":3: agents[1].available_tools[1]: unknown tool or agent 'dir_lst' (did you mean "
                             "'dir_list'?)"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace kaisha::e2e
