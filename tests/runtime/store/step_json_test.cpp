#include "runtime/store/step_json.hpp"

#include <gtest/gtest.h>

namespace kaisha::store {
namespace {

StepRow sample() {
  StepRow r;
  r.id = 9;
  r.session_id = "s-1";
  r.task_id = "t-1";
  r.seq = 3;
  r.agent = "CEO";
  r.kind = "llm_response";
  r.payload = json{{"text", "大阪"}};
  r.tokens_in = 12;
  r.tokens_out = 34;
  r.expense = 0.25;
  r.at = 1'700'000'000'123;
  return r;
}

TEST(StepJson, WritesTheStepUnderTheCallersTimeKey) {
  const json j = step_to_json(sample(), "at_ms");
  EXPECT_EQ(j, (json{{"seq", 3},
                     {"agent", "CEO"},
                     {"kind", "llm_response"},
                     {"payload", {{"text", "大阪"}}},
                     {"tokens_in", 12},
                     {"tokens_out", 34},
                     {"expense", 0.25},
                     {"at_ms", 1'700'000'000'123}}));
}

TEST(StepJson, TheTimeKeyIsTheOnlyDifference) {
  json at = step_to_json(sample(), "at");
  json at_ms = step_to_json(sample(), "at_ms");
  EXPECT_EQ(at["at"], at_ms["at_ms"]);
  EXPECT_FALSE(at.contains("at_ms"));
  at.erase("at");
  at_ms.erase("at_ms");
  EXPECT_EQ(at, at_ms);
}

}  // namespace
}  // namespace kaisha::store
