#include "runtime/messages/task_result_json.hpp"

#include <gtest/gtest.h>

#include "runtime/core/json_text.hpp"

namespace kaisha::msg {
namespace {

TaskResult sample() {
  TaskResult r;
  r.task_id = "t-1";
  r.ok = true;
  r.answer = "42";
  r.tokens_in = 120;
  r.tokens_out = 30;
  r.expense = 0.5;
  r.wall_ms = 900;
  r.metadata = json{{"strategy", "effgen"}};
  r.canceled = false;
  return r;
}

// The `result` line of kaisha run/submit/feedback --json: scripts read these
// keys, so they are pinned here.
TEST(TaskResultJson, ResultLineKeys) {
  const json j = sample();
  EXPECT_EQ(dump_text(j), R"({"answer":"42","error":"","expense":0.5,"metadata":{"strategy":"effgen"},"ok":true,)"
                          R"("task":"t-1","tokens_in":120,"tokens_out":30,"wall_ms":900})");
}

TEST(TaskResultJson, TotalsOfTheFinalEvent) {
  EXPECT_EQ(dump_text(task_totals_json(sample())), R"({"expense":0.5,"tokens_in":120,"tokens_out":30,"wall_ms":900})");
}

}  // namespace
}  // namespace kaisha::msg
