#include <gtest/gtest.h>

#include "runtime/prompt/model_tier.hpp"

namespace kaisha::prompt {
namespace {

// effgen.md §23 B.5: the tier table.
TEST(ModelTier, TableEighteenParameters) {
  struct Row { ModelTier t; int64_t prompt, context; int shot, chain; double alpha; };
  for (Row r : {Row{ModelTier::tiny, 512, 1024, 1, 2, 0.6}, Row{ModelTier::small, 1024, 2048, 2, 3, 0.7},
                Row{ModelTier::medium, 2048, 4096, 3, 5, 0.8}, Row{ModelTier::large, 4096, 8192, 5, 7, 0.85},
                Row{ModelTier::xl, 8192, 16384, 8, 10, 0.9}}) {
    const TierProfile& p = tier_profile(r.t);
    EXPECT_EQ(p.tier, r.t);
    EXPECT_EQ(p.max_prompt_tokens, r.prompt) << to_string(r.t);
    EXPECT_EQ(p.max_context_tokens, r.context) << to_string(r.t);
    EXPECT_EQ(p.n_shot, r.shot) << to_string(r.t);
    EXPECT_EQ(p.max_chain_depth, r.chain) << to_string(r.t);
    EXPECT_DOUBLE_EQ(p.target_ratio, r.alpha) << to_string(r.t);
  }
}

TEST(ModelTier, TableEighteenStageMatrix) {
  using S = StageSupport;
  const TierProfile& large = tier_profile(ModelTier::large);
  EXPECT_EQ(large.compression, S::yes);
  EXPECT_EQ(large.simplification, S::optional);
  EXPECT_EQ(large.bullets, S::optional);
  EXPECT_EQ(large.truncation, S::as_needed);
  const TierProfile& xl = tier_profile(ModelTier::xl);
  EXPECT_EQ(xl.compression, S::optional);
  EXPECT_EQ(xl.simplification, S::no);
  EXPECT_EQ(xl.redundancy, S::yes);
  EXPECT_EQ(xl.bullets, S::no);
  EXPECT_EQ(xl.truncation, S::rare);
  EXPECT_EQ(tier_profile(ModelTier::medium).truncation, S::as_needed);
  for (ModelTier t : {ModelTier::tiny, ModelTier::small}) {
    const TierProfile& p = tier_profile(t);
    for (S s : {p.compression, p.simplification, p.redundancy, p.bullets, p.truncation}) EXPECT_EQ(s, S::yes);
  }
  EXPECT_TRUE(enabled_by_default(S::as_needed));
  EXPECT_TRUE(enabled_by_default(S::rare));
  EXPECT_FALSE(enabled_by_default(S::optional));
  EXPECT_FALSE(enabled_by_default(S::no));
}

// §23 B.5 golden: 0.5B→TINY, 1.5B→SMALL, 3B→MEDIUM, 7B→LARGE, 14B→XL.
TEST(ModelTier, FromParameterCount) {
  EXPECT_EQ(tier_from_parameters(0.5), ModelTier::tiny);
  EXPECT_EQ(tier_from_parameters(1.5), ModelTier::small);
  EXPECT_EQ(tier_from_parameters(3), ModelTier::medium);
  EXPECT_EQ(tier_from_parameters(7), ModelTier::large);
  EXPECT_EQ(tier_from_parameters(14), ModelTier::xl);
}

TEST(ModelTier, BoundariesAreDefinitionThreeOnePlusXl) {
  EXPECT_EQ(tier_from_parameters(0.99), ModelTier::tiny);
  EXPECT_EQ(tier_from_parameters(1.0), ModelTier::small);
  EXPECT_EQ(tier_from_parameters(2.99), ModelTier::small);
  EXPECT_EQ(tier_from_parameters(6.99), ModelTier::medium);
  EXPECT_EQ(tier_from_parameters(12.9), ModelTier::large);
  EXPECT_EQ(tier_from_parameters(13), ModelTier::xl);
  // D.8's reading (1.5B is TINY) through configurable boundaries.
  TierBoundaries d8;
  d8.small_from = 2.0;
  EXPECT_EQ(tier_from_parameters(1.5, d8), ModelTier::tiny);
}

TEST(ModelTier, ParsesSizeFromModelNames) {
  EXPECT_EQ(parameters_from_model_name("llama3.2:3b"), 3.0);
  EXPECT_EQ(parameters_from_model_name("qwen2.5:7b"), 7.0);
  EXPECT_EQ(parameters_from_model_name("Qwen/Qwen2.5-1.5B-Instruct"), 1.5);
  EXPECT_EQ(parameters_from_model_name("qwen2.5:0.5b-instruct-q4_K_M"), 0.5);
  EXPECT_EQ(parameters_from_model_name("meta-llama/Llama-3.1-8B-Instruct"), 8.0);
  EXPECT_EQ(parameters_from_model_name("gpt-oss:20b"), 20.0);
  EXPECT_EQ(parameters_from_model_name("mixtral:8x7b"), 56.0);
  EXPECT_DOUBLE_EQ(*parameters_from_model_name("HuggingFaceTB/SmolLM2-360M-Instruct"), 0.36);
  EXPECT_EQ(parameters_from_model_name("gpt-4o-mini"), std::nullopt);
  EXPECT_EQ(parameters_from_model_name("qwen2.5:latest"), std::nullopt);
  EXPECT_EQ(parameters_from_model_name("llama3.2"), std::nullopt);
  EXPECT_EQ(parameters_from_model_name("model-7bit"), std::nullopt);
  EXPECT_EQ(parameters_from_model_name(""), std::nullopt);
}

TEST(ModelTier, ResolvePrecedence) {
  EXPECT_EQ(resolve_tier({std::nullopt, std::nullopt, "llama3.2:3b"}), ModelTier::medium);
  EXPECT_EQ(resolve_tier({std::nullopt, std::nullopt, "Qwen/Qwen2.5-1.5B-Instruct"}), ModelTier::small);
  EXPECT_EQ(resolve_tier({std::nullopt, std::nullopt, "qwen2.5:14b"}), ModelTier::xl);
  // A parameter count beats the name; an explicit setting beats both.
  EXPECT_EQ(resolve_tier({std::nullopt, 0.5, "qwen2.5:14b"}), ModelTier::tiny);
  EXPECT_EQ(resolve_tier({ModelTier::small, 14.0, "qwen2.5:14b"}), ModelTier::small);
  // Unknown: the documented default (LARGE), or the caller's.
  EXPECT_EQ(resolve_tier({std::nullopt, std::nullopt, "gpt-4o"}), ModelTier::large);
  EXPECT_EQ(resolve_tier({std::nullopt, std::nullopt, "gpt-4o"}, {}, ModelTier::medium), ModelTier::medium);
}

TEST(ModelTier, ParsesTierNames) {
  EXPECT_EQ(*parse_model_tier("Small"), ModelTier::small);
  EXPECT_EQ(*parse_model_tier("XL"), ModelTier::xl);
  auto bad = parse_model_tier("huge");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, "config");
  EXPECT_NE(bad.error().message.find("huge"), std::string::npos);
}

}  // namespace
}  // namespace kaisha::prompt
