#include <gtest/gtest.h>

#include "runtime/llm/model_tier.hpp"

namespace kaisha::llm {
namespace {

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
}  // namespace kaisha::llm
