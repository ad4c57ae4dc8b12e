#include "runtime/pyramid/agent_tools.hpp"

#include <gtest/gtest.h>

namespace kaisha::pyramid::agent_tools_test {
namespace {

const char* kLibrary = R"(agents:
  - {name: judge_agent, level: -1, description: checks results, available_tools: [file_read, dir_list, execute_code, final_output]}
  - {name: code_builder_agent, level: 1, description: builds code, max_turns: 40,
     available_tools: [judge_agent, final_output, file_read, file_write, dir_create, file_move, execute_shell, execute_code, pip_install]}
  - {name: idea_agent, level: 2, description: 考える, available_tools: [judge_agent, file_read, code_builder_agent]}
)";

AgentLibrary library() {
  auto lib = AgentLibrary::parse(kLibrary, "lib.yaml");
  EXPECT_TRUE(lib.ok()) << lib.error().message;
  return *lib;
}

std::map<std::string, llm::ToolSpec> level0() {
  std::map<std::string, llm::ToolSpec> m;
  for (const auto& t : level0_tools()) m[t] = llm::ToolSpec{t, "the " + t + " tool", json::object()};
  return m;
}

// infiagent.md §10 item 8.
TEST(AgentTools, AgentsAppearToTheirParentsAsToolsWithTaskIdAndInput) {
  AgentLibrary lib = library();
  auto tools = tools_of(lib, *lib.find("idea_agent"), level0());
  std::vector<std::string> names;
  for (const auto& t : tools) names.push_back(t.name);
  EXPECT_EQ(names, (std::vector<std::string>{"judge_agent", "file_read", "code_builder_agent", "final_output"}));
  const llm::ToolSpec& coder = tools[2];
  EXPECT_EQ(coder.description, "builds code");
  EXPECT_EQ(coder.parameters["required"], (json{"task_id", "task_input"}));
  EXPECT_EQ(coder.parameters["properties"]["max_turns"]["default"], 40);
  EXPECT_EQ(coder.parameters["properties"]["task_input"]["type"], "string");
}

// infiagent.md §10 item 2: with Appendix B's lists, code_builder_agent may
// not call dir_list, and the refusal names what it may call.
TEST(AgentTools, ACallOutsideTheListIsRefusedWithTheList) {
  AgentLibrary lib = library();
  const AgentDefinition& coder = *lib.find("code_builder_agent");
  Status s = check_allowed(coder, "dir_list");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, "tool_not_allowed");
  EXPECT_EQ(s.error().message,
            "Tool `dir_list` is not available to code_builder_agent. The tools it may call are: judge_agent, "
            "final_output, file_read, file_write, dir_create, file_move, execute_shell, execute_code, pip_install.");
  EXPECT_TRUE(check_allowed(coder, "file_write").ok());
  EXPECT_TRUE(check_allowed(*lib.find("idea_agent"), "final_output").ok());  // always allowed
  EXPECT_NE(check_allowed(*lib.find("idea_agent"), "file_write").error().message.find("final_output."),
            std::string::npos);
}

TEST(AgentTools, AgentCallArgumentsAreChecked) {
  AgentLibrary lib = library();
  const AgentDefinition& coder = *lib.find("code_builder_agent");
  auto call = parse_agent_call(coder, R"({"task_id": "t1", "task_input": "write code_run/川.py", "max_turns": 500})");
  ASSERT_TRUE(call.ok()) << call.error().message;
  EXPECT_EQ(call->task_id, "t1");
  EXPECT_EQ(call->task_input, "write code_run/川.py");
  EXPECT_EQ(call->max_turns, 40);  // capped at the callee's own bound
  EXPECT_EQ(parse_agent_call(coder, R"({"task_input": "x"})")->max_turns, 40);
  EXPECT_EQ(parse_agent_call(coder, R"({"task_input": "x", "max_turns": 3})")->max_turns, 3);
  for (const char* bad :
       {"nope", "[]", R"({"task_id": "t"})", R"({"task_input": "  "})", R"({"task_input": "x", "max_turns": 0})",
        R"({"task_input": "x", "max_turns": "ten"})", R"({"task_input": "x", "prompt": "y"})"}) {
    auto r = parse_agent_call(coder, bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().code, "agent_call");
    EXPECT_EQ(r.error().message.rfind("code_builder_agent: ", 0), 0u) << r.error().message;
  }
}

// Item 11: a sub-task carries an instruction plus (addr, desc) references;
// each is checked as a final output's files are, and the callee's
// instruction lists them.
TEST(AgentTools, ReferencesAreAddressAndDescriptionPairsListedInTheInstruction) {
  AgentLibrary lib = library();
  const AgentDefinition& coder = *lib.find("code_builder_agent");
  EXPECT_EQ(tools_of(lib, *lib.find("idea_agent"), level0())[2].parameters["properties"]["references"]["maxItems"],
            kMaxReferences);
  auto call = parse_agent_call(coder, R"({"task_input": "build it", "references": [
      {"path": "./design//main.md", "description": "the design 設計"},
      {"path": "notes/🦀.md", "description": "what to avoid"}]})");
  ASSERT_TRUE(call.ok()) << call.error().message;
  ASSERT_EQ(call->references.size(), 2u);
  EXPECT_EQ(call->references[0].path, "design/main.md");  // normalised
  EXPECT_EQ(instruction_with_references(*call),
            "build it\n\nReferences (files in the task's workspace):\n- design/main.md: the design 設計\n"
            "- notes/🦀.md: what to avoid");
  EXPECT_EQ(instruction_with_references(*parse_agent_call(coder, R"({"task_input": "x", "references": []})")), "x");

  const std::pair<const char*, const char*> bad[] = {
      {R"({"task_input": "x", "references": "a.md"})", "references must be a list of {path, description}"},
      {R"({"task_input": "x", "references": [{"path": "a.md"}]})", "references[0] (a.md) needs a description"},
      {R"({"task_input": "x", "references": [{"description": "d"}]})", "references[0] needs a path"},
      {R"({"task_input": "x", "references": [{"path": "/etc/passwd", "description": "d"}]})", "references[0]: "},
      {R"({"task_input": "x", "references": [{"path": "../up.md", "description": "d"}]})", "references[0]: "},
  };
  for (const auto& [args, says] : bad) {
    auto r = parse_agent_call(coder, args);
    ASSERT_FALSE(r.ok()) << args;
    EXPECT_EQ(r.error().code, "agent_call");
    EXPECT_NE(r.error().message.find(says), std::string::npos) << r.error().message;
  }
  json many{{"task_input", "x"}, {"references", json::array()}};
  for (size_t i = 0; i <= kMaxReferences; ++i)
    many["references"].push_back({{"path", "f" + std::to_string(i)}, {"description", "d"}});
  auto r = parse_agent_call(coder, many.dump());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("more than 64"), std::string::npos) << r.error().message;
}

// Item 37: material travels by reference; a task_input over the inline
// limit is refused with what to do instead.
TEST(AgentTools, ALargeInlineTaskInputIsRefused) {
  AgentLibrary lib = library();
  const AgentDefinition& coder = *lib.find("code_builder_agent");
  const std::string big(1'000'000, 'x');
  auto r = parse_agent_call(coder, json{{"task_input", big}}.dump(), 16384);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("task_input is 1000000 bytes, more than the 16384 allowed inline: write the "
                                   "material to a file"),
            std::string::npos)
      << r.error().message;
  EXPECT_TRUE(parse_agent_call(coder, json{{"task_input", std::string(16384, 'x')}}.dump(), 16384).ok());
}

}  // namespace
}  // namespace kaisha::pyramid::agent_tools_test
