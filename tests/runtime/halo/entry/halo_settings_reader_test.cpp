// The halo: section of a config file, read into HaloSettings: the paper's
// defaults, every key, and each wrong value refused where it is written.
#include "runtime/halo/entry/halo_settings_reader.hpp"

#include <string>

#include <gtest/gtest.h>

namespace kaisha::halo::halo_settings_reader_test {
namespace {

Result<HaloSettings> read(const std::string& yaml) {
  auto doc = config::parse_yaml(yaml, "config.yaml");
  if (!doc) return doc.error();
  return read_halo_settings((*doc)["halo"], config::YamlReader("config.yaml"));
}

std::string error_of(const std::string& yaml) {
  auto h = read(yaml);
  EXPECT_FALSE(h.ok()) << yaml;
  return h.ok() ? std::string() : h.error().message;
}

TEST(HaloSettingsReader, NoSectionGivesThePapersDefaults) {
  auto h = read("strategy: halo\n");
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_DOUBLE_EQ(h->temperature, 0.8);
  EXPECT_EQ(h->max_tokens, 2048);
  EXPECT_EQ(h->seed, 10u);
  EXPECT_EQ(h->max_subtasks, 5);
  EXPECT_TRUE(h->use_prompt_refinement);
  EXPECT_TRUE(h->use_planner);
  EXPECT_EQ(h->search.max_depth, 5);
  EXPECT_EQ(h->search.attempts, 5);
  EXPECT_DOUBLE_EQ(h->search.exploration, 1.4);
  EXPECT_DOUBLE_EQ(h->consistency_threshold, 0.66);
  EXPECT_EQ(h->answer_format, AnswerFormat::text);
  EXPECT_FALSE(h->code_tool);
  EXPECT_EQ(h->max_tool_rounds, 3);
  auto math = read("halo:\n  answer_format: math\n");
  ASSERT_TRUE(math.ok()) << math.error().message;
  EXPECT_EQ(math->answer_format, AnswerFormat::math);
}

TEST(HaloSettingsReader, ReadsEveryKey) {
  auto h = read(
      "halo:\n"
      "  model: openai:gpt-4o\n"
      "  temperature: 0.2\n"
      "  max_tokens: 512\n"
      "  seed: 7\n"
      "  use_prompt_refinement: false\n"
      "  use_planner: false\n"
      "  max_subtasks: 3\n"
      "  max_roles: 2\n"
      "  equivalence: latex\n"
      "  consistency_threshold: 0.5\n"
      "  failure_answer: \"答えられません 🙇\"\n"
      "  max_model_calls: 90\n"
      "  max_usd: 0.25\n"
      "  code_tool: true\n"
      "  max_tool_rounds: 2\n"
      "  search:\n"
      "    max_depth: 3\n"
      "    attempts: 3\n"
      "    width: one_per_expansion\n"
      "    exploration: 2\n"
      "    success_reward: 1\n"
      "    failure_penalty: -0.5\n"
      "    visit_order: increment_after\n"
      "    max_iterations: 4\n"
      "    max_evaluations: 40\n");
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_EQ(h->model, "openai:gpt-4o");
  EXPECT_DOUBLE_EQ(h->temperature, 0.2);
  EXPECT_EQ(h->max_tokens, 512);
  EXPECT_EQ(h->seed, 7u);
  EXPECT_FALSE(h->use_prompt_refinement);
  EXPECT_FALSE(h->use_planner);
  EXPECT_EQ(h->max_subtasks, 3);
  EXPECT_EQ(h->max_roles, 2);
  EXPECT_EQ(h->equivalence, answers::Equivalence::latex);
  EXPECT_DOUBLE_EQ(h->consistency_threshold, 0.5);
  EXPECT_EQ(h->failure_answer, "答えられません 🙇");
  EXPECT_EQ(h->max_model_calls, 90);
  EXPECT_DOUBLE_EQ(h->max_usd, 0.25);
  EXPECT_TRUE(h->code_tool);
  EXPECT_EQ(h->max_tool_rounds, 2);
  EXPECT_EQ(h->search.max_depth, 3);
  EXPECT_EQ(h->search.attempts, 3);
  EXPECT_EQ(h->search.width, ExpansionWidth::one_per_expansion);
  EXPECT_DOUBLE_EQ(h->search.exploration, 2);
  EXPECT_DOUBLE_EQ(h->search.success_reward, 1);
  EXPECT_DOUBLE_EQ(h->search.failure_penalty, -0.5);
  EXPECT_EQ(h->search.visit_order, VisitOrder::increment_after);
  EXPECT_EQ(h->search.max_iterations, 4);
  EXPECT_EQ(h->search.max_evaluations, 40);
}

TEST(HaloSettingsReader, AWrongValueIsRefusedWhereItIsWritten) {
  EXPECT_EQ(error_of("halo:\n  temperature: 3\n"),
            "config.yaml:2: halo.temperature: expected a number between 0 and 2, got 3");
  EXPECT_EQ(error_of("halo:\n  max_subtasks: 0\n"),
            "config.yaml:2: halo.max_subtasks: expected an integer >= 1, got 0");
  EXPECT_EQ(error_of("halo:\n  code_tool: sometimes\n"),
            "config.yaml:2: halo.code_tool: expected true or false, got \"sometimes\"");
  EXPECT_EQ(error_of("halo:\n  max_tool_rounds: 0\n"),
            "config.yaml:2: halo.max_tool_rounds: expected an integer >= 1, got 0");
  EXPECT_EQ(error_of("halo:\n  seed: -1\n"), "config.yaml:2: halo.seed: expected an integer >= 0, got -1");
  EXPECT_EQ(error_of("halo:\n  equivalence: regex\n"),
            "config.yaml:2: halo.equivalence: expected one of exact, latex, bleu, got \"regex\"");
  EXPECT_EQ(error_of("halo:\n  consistency_threshold: 0\n"),
            "config.yaml:2: halo.consistency_threshold: expected a number > 0, got 0");
  EXPECT_EQ(error_of("halo:\n  use_planner: maybe\n"),
            "config.yaml:2: halo.use_planner: expected true or false, got \"maybe\"");
  EXPECT_EQ(error_of("halo:\n  search:\n    max_depth: 0\n"),
            "config.yaml:3: halo.search.max_depth: expected an integer >= 1, got 0");
  EXPECT_EQ(error_of("halo:\n  search:\n    width: wide\n"),
            "config.yaml:3: halo.search.width: expected one of full, one_per_expansion, got \"wide\"");
  EXPECT_EQ(error_of("halo:\n  max_usd: -1\n"), "config.yaml:2: halo.max_usd: expected a number >= 0, got -1");
  EXPECT_EQ(error_of("halo:\n  max_resource_units: -2\n"),
            "config.yaml:2: halo.max_resource_units: expected a number >= 0, got -2");
  EXPECT_EQ(error_of("halo:\n  answer_format: essay\n"),
            "config.yaml:2: halo.answer_format: expected one of text, multiple_choice, math, got \"essay\"");
}

TEST(HaloSettingsReader, AnUnknownKeySuggestsTheClosest) {
  EXPECT_EQ(error_of("halo:\n  max_subtask: 3\n"),
            "config.yaml:2: unknown key 'max_subtask' in halo (did you mean 'max_subtasks'?)");
  EXPECT_EQ(error_of("halo:\n  search:\n    attempt: 3\n"),
            "config.yaml:3: unknown key 'attempt' in halo.search (did you mean 'attempts'?)");
  EXPECT_EQ(error_of("halo: [1, 2]\n"), "config.yaml:1: halo: expected a map, got a list");
}

}  // namespace
}  // namespace kaisha::halo::halo_settings_reader_test
