#include "runtime/halo/replies/halo_prompts.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "runtime/halo/replies/agent_roles.hpp"
#include "runtime/halo/replies/answer_parse.hpp"
#include "runtime/halo/replies/judge_label.hpp"
#include "runtime/halo/replies/next_subtask.hpp"
#include "runtime/halo/replies/prompt_reply.hpp"
#include "runtime/halo/replies/score_reply.hpp"
#include "runtime/halo/replies/task_parse.hpp"

namespace kaisha::halo {
namespace {

const std::string kRoot = KAISHA_SOURCE_DIR;

// A value per placeholder that names it, so the rendered text shows where each went.
std::map<std::string, std::string> values_for(HaloPrompt p) {
  std::map<std::string, std::string> values;
  for (const std::string& name : placeholders(p)) values[name] = "<value of " + name + ">";
  return values;
}

TEST(HaloPrompts, EveryFileLoadsAndRendersWithItsPlaceholdersFilled) {
  for (HaloPrompt p : kHaloPrompts) {
    Result<planning::PromptTemplate> t = load_halo_prompt(p, kRoot);
    ASSERT_TRUE(t.ok()) << t.error().message;
    Result<std::string> text = render_halo_prompt(p, values_for(p), kRoot);
    ASSERT_TRUE(text.ok()) << text.error().message;
    EXPECT_GT(text->size(), 40u) << file_name(p);
    EXPECT_EQ(text->find("{{"), std::string::npos) << file_name(p);
    for (const std::string& name : placeholders(p))
      EXPECT_NE(text->find("<value of " + name + ">"), std::string::npos) << file_name(p) << " " << name;
  }
}

// F reaches every downstream agent (halo.md §12 item 4).
TEST(HaloPrompts, TheTaskTripleReachesEveryDownstreamAgent) {
  for (HaloPrompt p : {HaloPrompt::task_decomposition, HaloPrompt::role_design, HaloPrompt::inference_solve,
                       HaloPrompt::judge, HaloPrompt::scorer}) {
    const std::vector<std::string>& names = placeholders(p);
    for (const char* field : {"query", "task_type", "core_intent", "key_details"})
      EXPECT_NE(std::find(names.begin(), names.end(), field), names.end()) << file_name(p) << " " << field;
  }
  const std::vector<std::string>& scorer = placeholders(HaloPrompt::scorer);
  EXPECT_NE(std::find(scorer.begin(), scorer.end(), "judge_status"), scorer.end());
}

// Each prompt shows the model the exact key its reply parser reads.
TEST(HaloPrompts, EachPromptAsksForItsParsersKey) {
  auto asks_for = [&](HaloPrompt p, std::string_view key) {
    Result<std::string> text = render_halo_prompt(p, values_for(p), kRoot);
    ASSERT_TRUE(text.ok()) << text.error().message;
    EXPECT_NE(text->find("\"" + std::string(key) + "\":"), std::string::npos) << file_name(p) << " " << key;
  };
  for (std::string_view key : {kTaskTypeKey, kCoreIntentKey, kKeyDetailsKey}) asks_for(HaloPrompt::task_parser, key);
  asks_for(HaloPrompt::prompt_template, reply_key(PromptReply::generated_template));
  asks_for(HaloPrompt::prompt_optimizer, reply_key(PromptReply::optimized_template));
  asks_for(HaloPrompt::final_prompt, reply_key(PromptReply::final_prompt));
  asks_for(HaloPrompt::agent_prompt_template, reply_key(PromptReply::agent_template));
  asks_for(HaloPrompt::agent_prompt_optimizer, reply_key(PromptReply::agent_optimized));
  asks_for(HaloPrompt::agent_final_prompt, reply_key(PromptReply::agent_final));
  asks_for(HaloPrompt::task_decomposition, kNextSubtaskKey);
  asks_for(HaloPrompt::role_design, kAgentRolesKey);
  asks_for(HaloPrompt::judge, kStatusKey);
  asks_for(HaloPrompt::scorer, kScoreKey);
  asks_for(HaloPrompt::parse_mmlu, kAnswerKey);
  asks_for(HaloPrompt::parse_math, kAnswerKey);
}

// The JSON examples in the prompts are replies the parsers accept.
TEST(HaloPrompts, ExampleRepliesParse) {
  auto rendered = [&](HaloPrompt p) { return *render_halo_prompt(p, values_for(p), kRoot); };
  EXPECT_EQ(parse_judge_label(rendered(HaloPrompt::judge)).value, NodeLabel::success);
  Parsed<double> score = parse_score(rendered(HaloPrompt::scorer));
  EXPECT_EQ(score.value, 0.55);
  EXPECT_FALSE(score.defaulted);
  EXPECT_EQ(parse_mmlu_answer(rendered(HaloPrompt::parse_mmlu)).value, "A");
  EXPECT_FALSE(parse_next_subtask(rendered(HaloPrompt::task_decomposition), "Q*").defaulted);
  EXPECT_FALSE(parse_agent_roles(rendered(HaloPrompt::role_design)).defaulted);
}

TEST(HaloPrompts, AssistantFallbackIsOneTrimmedParagraph) {
  Result<std::string> text = load_assistant_fallback(kRoot);
  ASSERT_TRUE(text.ok()) << text.error().message;
  EXPECT_EQ(text->rfind("You are a highly capable AI assistant", 0), 0u) << *text;
  EXPECT_FALSE(text->ends_with("\n"));
}

TEST(HaloPrompts, AMissingValueIsRefused) {
  std::map<std::string, std::string> values = values_for(HaloPrompt::judge);
  values.erase("output");
  Result<std::string> text = render_halo_prompt(HaloPrompt::judge, values, kRoot);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error().code, "prompt");
  EXPECT_NE(text.error().message.find("has no value for {{output}}"), std::string::npos) << text.error().message;
}

class HaloPromptFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("halo_prompts_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(root_ / "prompts" / "halo");
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  void write(const std::string& name, const std::string& text) {
    std::ofstream(root_ / "prompts" / "halo" / name) << text;
  }
  std::filesystem::path root_;
};

TEST_F(HaloPromptFiles, AnUnknownPlaceholderIsRefused) {
  write("parse_mmlu.md", "Read {{result}} for {{subject}}.");
  Result<planning::PromptTemplate> t = load_halo_prompt(HaloPrompt::parse_mmlu, root_.string());
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().code, "prompt");
  EXPECT_NE(t.error().message.find("parse_mmlu.md uses {{subject}}, which HALO does not fill there (it fills "
                                   "{{result}})"),
            std::string::npos)
      << t.error().message;
}

TEST_F(HaloPromptFiles, AnUnusedInputIsRefused) {
  write("scorer.md", "Score {{output}} of {{role}}.");
  Result<planning::PromptTemplate> t = load_halo_prompt(HaloPrompt::scorer, root_.string());
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("does not use {{query}}, {{task_type}}, {{core_intent}}, {{key_details}}, "
                                   "{{subtask}}, {{judge_status}}, an input of this agent"),
            std::string::npos)
      << t.error().message;
}

TEST_F(HaloPromptFiles, AMissingFileNamesThePath) {
  Result<std::string> text = render_halo_prompt(HaloPrompt::judge, {}, root_.string());
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.error().message.find((root_ / "prompts" / "halo" / "judge.md").string()), std::string::npos)
      << text.error().message;
}

}  // namespace
}  // namespace kaisha::halo
