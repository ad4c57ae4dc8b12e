// The judge's section (judge:) and the older names of its keys in effgen:.
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/config/config_loader.hpp"
#include "runtime/effgen/entry/effgen_settings.hpp"

namespace kaisha::config::judge_section_test {
namespace {

kaisha::effgen::EffgenConfig effgen_settings_in(const kaisha::config::Config& c) {
  return kaisha::config::strategy_settings<kaisha::effgen::EffgenConfig>(c, kaisha::effgen::kSection);
}

using ::testing::HasSubstr;

std::string judge_error(const std::string& yaml) {
  auto c = parse_config(yaml, "c.yaml");
  EXPECT_FALSE(c.ok()) << yaml;
  return c.ok() ? std::string() : c.error().message;
}

TEST(JudgeSection, DefaultsWithoutTheSection) {
  auto c = parse_config("strategy: effgen\n", "c.yaml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->judge.model, "");
  EXPECT_TRUE(c->judge.subtasks);
  EXPECT_FALSE(c->judge.final_answer);
  EXPECT_EQ(c->judge.max_retries, 3);
  EXPECT_TRUE(c->warnings.empty());
}

TEST(JudgeSection, ItsKeysAreRead) {
  auto c = parse_config(
      "judge:\n"
      "  model: openai:judge-7b\n"
      "  subtasks: false\n"
      "  final_answer: true\n"
      "  max_retries: 5\n",
      "c.yaml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->judge.model, "openai:judge-7b");
  EXPECT_FALSE(c->judge.subtasks);
  EXPECT_TRUE(c->judge.final_answer);
  EXPECT_EQ(c->judge.max_retries, 5);
  EXPECT_TRUE(c->warnings.empty());
}

TEST(JudgeSection, OlderEffgenKeysAreReadWithOneWarningEach) {
  auto c = parse_config(
      "effgen:\n"
      "  worker_model: llama3.2\n"
      "  judge_model: openai:judge-7b\n"
      "  judge: false\n"
      "  max_judge_retries: 1\n"
      "  max_concurrent: 2\n",
      "old.yaml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->judge.model, "openai:judge-7b");
  EXPECT_FALSE(c->judge.subtasks);
  EXPECT_EQ(c->judge.max_retries, 1);
  EXPECT_EQ(effgen_settings_in(*c).worker_model, "llama3.2");  // effGen's own keys are unaffected
  EXPECT_EQ(effgen_settings_in(*c).max_concurrent, 2);
  ASSERT_EQ(c->warnings.size(), 3u);
  EXPECT_EQ(c->warnings[0],
            "old.yaml:3: 'effgen.judge_model' is deprecated; it is read as 'judge.model', its new name (move it to "
            "the judge: section)");
  EXPECT_THAT(c->warnings[1], HasSubstr("old.yaml:4: 'effgen.judge' is deprecated; it is read as 'judge.subtasks'"));
  EXPECT_THAT(c->warnings[2],
              HasSubstr("old.yaml:5: 'effgen.max_judge_retries' is deprecated; it is read as 'judge.max_retries'"));
}

TEST(JudgeSection, AnOlderKeyWithTheNewKeysValueOnlyWarns) {
  auto c = parse_config(
      "effgen: { max_judge_retries: 2, judge_model: openai:j }\n"
      "judge: { max_retries: 2, model: openai:j }\n",
      "c.yaml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->judge.max_retries, 2);
  EXPECT_EQ(c->judge.model, "openai:j");
  ASSERT_EQ(c->warnings.size(), 2u);
  EXPECT_THAT(c->warnings[0], HasSubstr("'effgen.judge_model' is deprecated"));
  EXPECT_THAT(c->warnings[1], HasSubstr("'effgen.max_judge_retries' is deprecated"));
}

TEST(JudgeSection, AnOlderKeyAndItsNewNameWithDifferentValuesIsAnErrorNamingBoth) {
  EXPECT_EQ(judge_error("effgen:\n  max_judge_retries: 1\njudge:\n  max_retries: 2\n"),
            "c.yaml:2: effgen.max_judge_retries: is the older name of 'judge.max_retries', also given at c.yaml:4 "
            "with a different value; keep only 'judge.max_retries'");
  std::string e = judge_error("effgen: { judge_model: openai:a }\njudge: { model: openai:b }\n");
  EXPECT_THAT(e, HasSubstr("c.yaml:1: effgen.judge_model:"));
  EXPECT_THAT(e, HasSubstr("older name of 'judge.model', also given at c.yaml:2"));
  e = judge_error("judge: { subtasks: true }\neffgen: { judge: false }\n");
  EXPECT_THAT(e, HasSubstr("c.yaml:2: effgen.judge:"));
  EXPECT_THAT(e, HasSubstr("older name of 'judge.subtasks', also given at c.yaml:1"));
}

TEST(JudgeSection, BadRetryCountsNameTheKeyAndLine) {
  EXPECT_EQ(judge_error("judge:\n  max_retries: -1\n"),
            "c.yaml:2: judge.max_retries: expected an integer >= 0, got -1");
  EXPECT_EQ(judge_error("judge:\n  final_answer: true\n  max_retries: abc\n"),
            "c.yaml:3: judge.max_retries: expected an integer, got \"abc\"");
  // Under its older name, the older name is what the user has to fix.
  EXPECT_EQ(judge_error("effgen:\n  max_judge_retries: -2\n"),
            "c.yaml:2: effgen.max_judge_retries: expected an integer >= 0, got -2");
}

TEST(JudgeSection, OtherBadValuesNameTheirKey) {
  EXPECT_THAT(judge_error("judge: { subtasks: maybe }\n"), HasSubstr("c.yaml:1: judge.subtasks:"));
  EXPECT_THAT(judge_error("judge: { model: [a, b] }\n"), HasSubstr("c.yaml:1: judge.model:"));
  EXPECT_THAT(judge_error("judge: { max_retry: 2 }\n"), HasSubstr("did you mean 'max_retries'?"));
  EXPECT_THAT(judge_error("judge: true\n"), HasSubstr("c.yaml:1: judge: expected a map"));
}

}  // namespace
}  // namespace kaisha::config::judge_section_test
