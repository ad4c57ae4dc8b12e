#include <gtest/gtest.h>

#include "runtime/effgen/prompt_optimizer/tier_profile.hpp"

namespace kaisha::prompt {
namespace {

// effgen.md §23 B.5: the tier table.
TEST(TierProfile, TableEighteenParameters) {
  struct Row {
    ModelTier t;
    int64_t prompt, context;
    int shot, chain;
    double alpha;
  };
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

TEST(TierProfile, TableEighteenStageMatrix) {
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

}  // namespace
}  // namespace kaisha::prompt
