#include "runtime/hiva/replies/parallelizability.hpp"

#include <gtest/gtest.h>

namespace kaisha::hiva {
namespace parallelizability_test {

TEST(Parallelizability, ReadsTheFourFields) {
  Parsed<Parallelizability> p = parse_parallelizability(
      "CAN_PARALLELIZE: True\nSUBTASKS_COUNT: 3\nCOORDINATION_REQUIRED: Low\nPARALLEL_BENEFIT: High");
  EXPECT_TRUE(p.value.can_parallelize);
  EXPECT_EQ(p.value.subtasks, 3);
  EXPECT_EQ(p.value.coordination, Level::low);
  EXPECT_EQ(p.value.benefit, Level::high);
  EXPECT_DOUBLE_EQ(p.value.score, 1.0 * (0.5 + 0.25 * 0.5 + 0.25 * 1.0));
  EXPECT_EQ(p.problem, std::nullopt);
  EXPECT_EQ(describe(p.value), "0.88 (can parallelize: yes, subtasks: 3, coordination: low, benefit: high)");
}

TEST(Parallelizability, ToleratesMarkdownJsonAndCrlf) {
  for (const char* reply :
       {"- **CAN_PARALLELIZE:** yes\r\n- **SUBTASKS_COUNT:** 3 subtasks\r\n- **COORDINATION_REQUIRED:** False\r\n- "
        "**PARALLEL_BENEFIT:** **High**\r\n",
        "{\"CAN_PARALLELIZE\": true, \"SUBTASKS_COUNT\": 3, \"COORDINATION_REQUIRED\": \"none\", "
        "\"PARALLEL_BENEFIT\": \"High\"}",
        "Can parallelize: True\nSubtasks count: 3\nCoordination required: None\nParallel benefit: high 🚀"}) {
    Parsed<Parallelizability> p = parse_parallelizability(reply);
    EXPECT_TRUE(p.value.can_parallelize) << reply;
    EXPECT_EQ(p.value.subtasks, 3) << reply;
    EXPECT_EQ(p.value.coordination, Level::none) << reply;
    EXPECT_EQ(p.value.benefit, Level::high) << reply;
    EXPECT_EQ(p.problem, std::nullopt) << reply << "\n" << *p.problem;
  }
}

// The documented mapping against the driver's 0.5 threshold.
TEST(Parallelizability, TheBenefitDecidesAndTheStructureTipsTheBalance) {
  auto score = [](bool can, int subtasks, Level coordination, Level benefit) {
    Parallelizability p{can, subtasks, coordination, benefit, 0.0};
    return parallelizability_score(p);
  };
  EXPECT_GT(score(true, 2, Level::high, Level::high), 0.5);
  EXPECT_LT(score(true, 5, Level::none, Level::low), 0.5);
  EXPECT_GT(score(true, 2, Level::low, Level::medium), 0.5);
  EXPECT_GT(score(true, 3, Level::medium, Level::medium), 0.5);
  EXPECT_LT(score(true, 2, Level::medium, Level::medium), 0.5);
  EXPECT_EQ(score(false, 5, Level::none, Level::high), 0.0);
  EXPECT_EQ(score(true, 1, Level::none, Level::high), 0.0);
  EXPECT_EQ(score(true, 4, Level::none, Level::none), 0.0);
  EXPECT_DOUBLE_EQ(score(true, 9, Level::none, Level::high), 1.0);
}

TEST(Parallelizability, MissingFieldsGetNamedDefaults) {
  Parsed<Parallelizability> p = parse_parallelizability("CAN_PARALLELIZE: True");
  EXPECT_TRUE(p.value.can_parallelize);
  EXPECT_EQ(p.value.subtasks, 2);
  EXPECT_EQ(p.value.coordination, Level::medium);
  EXPECT_EQ(p.value.benefit, Level::medium);
  EXPECT_LT(p.value.score, 0.5);
  EXPECT_TRUE(p.defaulted);
  EXPECT_EQ(*p.problem,
            "parallelizability reply: no SUBTASKS_COUNT; taken as 2; no COORDINATION_REQUIRED; taken as Medium; no "
            "PARALLEL_BENEFIT; taken as Medium");
  Parsed<Parallelizability> inferred = parse_parallelizability(
      "CAN_PARALLELIZE: maybe\nSUBTASKS_COUNT: 4\nPARALLEL_BENEFIT: High\nCOORDINATION_REQUIRED: Low");
  EXPECT_TRUE(inferred.value.can_parallelize);
  EXPECT_NE(inferred.problem->find("CAN_PARALLELIZE is \"maybe\"; taken as True from the other fields"),
            std::string::npos)
      << *inferred.problem;
}

TEST(Parallelizability, AnUnreadReplyScoresZero) {
  for (const char* reply : {"", "この作業は並列化できます 👍", "It can be parallelized."}) {
    Parsed<Parallelizability> p = parse_parallelizability(reply);
    EXPECT_EQ(p.value.score, 0.0) << reply;
    EXPECT_FALSE(p.value.can_parallelize) << reply;
    EXPECT_TRUE(p.defaulted) << reply;
    EXPECT_NE(p.problem->find("the score is 0"), std::string::npos) << *p.problem;
  }
}

}  // namespace parallelizability_test
}  // namespace kaisha::hiva
