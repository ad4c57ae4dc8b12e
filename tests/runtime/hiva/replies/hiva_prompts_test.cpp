#include "runtime/hiva/replies/hiva_prompts.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "runtime/hiva/replies/agent_feedback.hpp"
#include "runtime/hiva/replies/free_text.hpp"
#include "runtime/hiva/replies/parallelizability.hpp"
#include "runtime/hiva/replies/prompt_inputs.hpp"
#include "runtime/hiva/replies/reward_reply.hpp"
#include "runtime/hiva/replies/tagged_reply.hpp"
#include "runtime/hiva/replies/tool_code.hpp"
#include "runtime/hiva/replies/tool_validation.hpp"
#include "runtime/hiva/replies/topology_choice.hpp"

namespace kaisha::hiva {
namespace hiva_prompts_test {

const std::string kRoot = KAISHA_SOURCE_DIR;

// A value per placeholder that names it, so the rendered text shows where each went.
std::map<std::string, std::string> values_for(HivaPrompt p) {
  std::map<std::string, std::string> values;
  for (const std::string& name : placeholders(p)) values[name] = "<value of " + name + ">";
  return values;
}

PromptMessages rendered(HivaPrompt p) {
  Result<PromptMessages> m = render_hiva_prompt(p, values_for(p), kRoot);
  EXPECT_TRUE(m.ok()) << m.error().message;
  return m.ok() ? *m : PromptMessages{};
}

TEST(HivaPrompts, EveryPromptLoadsAndRendersWithItsPlaceholdersFilled) {
  for (HivaPrompt p : kHivaPrompts) {
    Result<PromptMessages> m = render_hiva_prompt(p, values_for(p), kRoot);
    ASSERT_TRUE(m.ok()) << m.error().message;
    EXPECT_FALSE(m->system.empty()) << prompt_name(p);
    EXPECT_GT(m->user.size(), 30u) << prompt_name(p);
    EXPECT_FALSE(m->system.ends_with("\n")) << prompt_name(p);
    EXPECT_FALSE(m->user.ends_with("\n")) << prompt_name(p);
    for (const std::string* text : {&m->system, &m->user})
      EXPECT_EQ(text->find("{{"), std::string::npos) << prompt_name(p);
    for (const std::string& name : placeholders(p))
      EXPECT_NE((m->system + m->user).find("<value of " + name + ">"), std::string::npos)
          << prompt_name(p) << " " << name;
  }
}

// The figures' wording reaches the model (hiva.md §10).
TEST(HivaPrompts, TheFiguresWordingIsThere) {
  EXPECT_EQ(rendered(HivaPrompt::instruction).system,
            "You are an instruction generator for multi-agent systems. Create clear, specific instructions.");
  EXPECT_EQ(rendered(HivaPrompt::system_feedback).system,
            "You are an output aggregator generating feedback for predecessors based on environmental outcomes.");
  EXPECT_EQ(rendered(HivaPrompt::agent_feedback).system, "Analyze successor feedback for agent improvement.");
  EXPECT_EQ(rendered(HivaPrompt::prompt_update).system, "Generate an improved system prompt.");
  EXPECT_EQ(rendered(HivaPrompt::topology_decision).system, "You are a network topology optimizer.");
  EXPECT_EQ(rendered(HivaPrompt::agent_step).system, "<value of system_prompt>");
  EXPECT_EQ(rendered(HivaPrompt::agent_step).user,
            "Instruction: <value of instruction>\n\nTooluse Result: <value of tool_result>");
  EXPECT_NE(
      rendered(HivaPrompt::agent_step_tool_failed).user.find("Warning: Tool execution failed. <value of tool_error>"),
      std::string::npos);
  std::string aggregation = rendered(HivaPrompt::aggregation).user;
  for (const char* step : {"Integrate all key insights", "Consider each agent's specialized role",
                           "Resolve any conflicts", "Directly answer the original instruction"})
    EXPECT_NE(aggregation.find(step), std::string::npos) << step;
  std::string critique = rendered(HivaPrompt::self_critique).user;
  for (const char* aspect : {"consistency", "Completeness", "Alignment with the instruction"})
    EXPECT_NE(critique.find(aspect), std::string::npos) << aspect;
  std::string teacher = rendered(HivaPrompt::math_teacher).system;
  EXPECT_NE(teacher.find("never reveal the correct answer"), std::string::npos);
}

// Each prompt asks for what its parser reads.
TEST(HivaPrompts, EachPromptAsksForItsParsersFormat) {
  auto asks = [](HivaPrompt p, std::initializer_list<const char*> words) {
    PromptMessages m = rendered(p);
    for (const char* w : words) EXPECT_NE((m.system + m.user).find(w), std::string::npos) << prompt_name(p) << " " << w;
  };
  asks(HivaPrompt::system_feedback, {"<FEEDBACK>", "</FEEDBACK>"});
  asks(HivaPrompt::self_critique, {"<FEEDBACK>", "</FEEDBACK>"});
  asks(HivaPrompt::math_teacher, {"<FEEDBACK>", "VERDICT: CORRECT or INCORRECT"});
  asks(HivaPrompt::agent_feedback, {"SYSTEM_PROMPT_FEEDBACK:", "TOOL_FEEDBACK:", "OVERALL_FEEDBACK:"});
  asks(HivaPrompt::prompt_update, {"<IMPROVED_VARIABLE>", "</IMPROVED_VARIABLE>"});
  asks(HivaPrompt::new_agent_prompt, {"<SYSTEM_PROMPT>", "</SYSTEM_PROMPT>"});
  asks(HivaPrompt::topology_decision,
       {"ADD_PARALLEL:", "ADD_SERIAL:", "REMOVE_SUCCESSOR:", "CONNECT_TO_AGGREGATOR:", "NO_CHANGE:", "least_visited"});
  asks(HivaPrompt::parallelizability,
       {"CAN_PARALLELIZE:", "SUBTASKS_COUNT:", "COORDINATION_REQUIRED:", "PARALLEL_BENEFIT:"});
  asks(HivaPrompt::tool_synthesis, {"tool_function", "input_data", "```python"});
  asks(HivaPrompt::tool_refinement, {"tool_function(input_data, **kwargs)", "```python"});
  asks(HivaPrompt::reward, {"POSITIVE", "NEUTRAL", "CRITICAL"});
}

// The example outputs the prompts show are replies the parsers accept.
TEST(HivaPrompts, ExampleOutputsParse) {
  auto example = [](HivaPrompt p, const std::string& from) {
    std::string user = rendered(p).user;
    size_t at = user.rfind(from);
    EXPECT_NE(at, std::string::npos) << prompt_name(p);
    return at == std::string::npos ? std::string() : user.substr(at);
  };
  Parsed<TopologyReply> decision = parse_topology_decision(example(HivaPrompt::topology_decision, "Output:"));
  EXPECT_EQ(decision.value.choice, TopologyChoice::add_parallel);
  EXPECT_EQ(decision.value.argument, "Data retrieval agent");
  Parsed<AgentFeedback> feedback = parse_agent_feedback(example(HivaPrompt::agent_feedback, "Output:"));
  EXPECT_EQ(feedback.value.tool, "Enhance entity extraction tool.");
  EXPECT_EQ(feedback.problem, std::nullopt);
  Parsed<Parallelizability> par = parse_parallelizability(example(HivaPrompt::parallelizability, "Example:"));
  EXPECT_EQ(par.problem, std::nullopt);
  EXPECT_GT(par.value.score, 0.5);
  EXPECT_EQ(*parse_improved_variable(example(HivaPrompt::prompt_update, "Output: <IMPROVED")).value,
            "You are a reasoning agent specializing in extracting entities (e.g., locations).");
  EXPECT_EQ(parse_feedback(example(HivaPrompt::system_feedback, "Output: <FEEDBACK>Use")).value,
            "Use recent sources for Austin's population.");
  EXPECT_EQ(parse_instruction(example(HivaPrompt::instruction, "Output:"), "x").value,
            "Retrieve Austin, Texas population.");
  Parsed<std::string> sha = parse_tool_code(example(HivaPrompt::tool_synthesis, "```python"));
  EXPECT_EQ(sha.problem, std::nullopt);
  EXPECT_TRUE(validate_tool_source(sha.value).ok()) << validate_tool_source(sha.value).error().message;
  Parsed<std::string> ratio = parse_tool_code(example(HivaPrompt::tool_refinement, "- Expected Evolved Code:"));
  EXPECT_NE(ratio.value.find("if b == 0:"), std::string::npos);
  EXPECT_TRUE(validate_tool_source(ratio.value).ok()) << validate_tool_source(ratio.value).error().message;
}

TEST(HivaPrompts, AMissingValueIsRefused) {
  std::map<std::string, std::string> values = values_for(HivaPrompt::topology_decision);
  values.erase("successors");
  Result<PromptMessages> m = render_hiva_prompt(HivaPrompt::topology_decision, values, kRoot);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().code, "prompt");
  EXPECT_NE(m.error().message.find("has no value for {{successors}}"), std::string::npos) << m.error().message;
}

TEST(PromptInputs, AgentOutputsAndSuccessorsAreLabelled) {
  EXPECT_EQ(format_agent_outputs({{"agent_1", "Extractor", "Revenue: 3M"}, {"agent_2", "Searcher", "検索結果 🔎"}}),
            "### Agent agent_1 (role: Extractor)\nRevenue: 3M\n\n### Agent agent_2 (role: Searcher)\n検索結果 🔎");
  EXPECT_EQ(format_agent_outputs({}), "(no agent output)");
  EXPECT_EQ(format_successors({{"agent_3", "Summarizer", 1, 4}, {"aggregator", "Aggregator", 0, 0}}),
            "[0] id: agent_3 | role: Summarizer | routed this iteration: 1 | visits: 4\n"
            "[1] id: aggregator | role: Aggregator | routed this iteration: 0 | visits: 0");
  EXPECT_EQ(format_successors({}), "(no successors)");
}

class HivaPromptFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("hiva_prompts_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(root_ / "prompts" / "hiva");
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  void write(const std::string& name, const std::string& text) {
    std::ofstream(root_ / "prompts" / "hiva" / name) << text;
  }
  std::filesystem::path root_;
};

TEST_F(HivaPromptFiles, AnUnknownPlaceholderIsRefused) {
  write("reward.system.md", "Classify for {{agent_role}}.\n");
  write("reward.user.md", "{{gradient}} in {{language}}\n");
  Result<HivaPromptTemplates> t = load_hiva_prompt(HivaPrompt::reward, root_.string());
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().code, "prompt");
  EXPECT_NE(t.error().message.find("reward.user.md uses {{language}}, which HiVA does not fill there (it fills "
                                   "{{agent_role}}, {{gradient}})"),
            std::string::npos)
      << t.error().message;
}

TEST_F(HivaPromptFiles, AnUnusedInputIsRefused) {
  write("reward.system.md", "Classify.\n");
  write("reward.user.md", "{{gradient}}\n");
  Result<HivaPromptTemplates> t = load_hiva_prompt(HivaPrompt::reward, root_.string());
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("do not use {{agent_role}}, an input of this call"), std::string::npos)
      << t.error().message;
}

TEST_F(HivaPromptFiles, AMissingFileNamesThePath) {
  write("reward.system.md", "Classify {{agent_role}}.\n");
  Result<PromptMessages> m = render_hiva_prompt(HivaPrompt::reward, values_for(HivaPrompt::reward), root_.string());
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().code, "prompt");
  EXPECT_NE(m.error().message.find((root_ / "prompts" / "hiva" / "reward.user.md").string()), std::string::npos)
      << m.error().message;
}

TEST_F(HivaPromptFiles, TheFinalNewlineIsNotPartOfTheMessage) {
  write("reward.system.md", "Classify {{agent_role}}.\n\n");
  write("reward.user.md", "Feedback:\n{{gradient}}\n");
  Result<PromptMessages> m =
      render_hiva_prompt(HivaPrompt::reward, {{"agent_role", "r"}, {"gradient", "g"}}, root_.string());
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->system, "Classify r.");
  EXPECT_EQ(m->user, "Feedback:\ng");
}

}  // namespace hiva_prompts_test
}  // namespace kaisha::hiva
