// Scoring answers by the suite's formats, the code path through the real
// sandbox, and the records a run keeps per answer.
#include "runtime/eval/item_score.hpp"

#include <gtest/gtest.h>

#include "runtime/eval/item_record.hpp"
#include "runtime/sandbox/sandbox.hpp"
#include "runtime/suite/suite_parse.hpp"

namespace kaisha::eval {
namespace item_score_test {

suite::SuiteItem item(const std::string& line) {
  auto items = suite::parse_suite(line, "t.jsonl");
  EXPECT_TRUE(items.ok()) << items.error().message;
  return items.ok() ? items->front() : suite::SuiteItem{};
}

TEST(ScoreItem, EachMatchedFormat) {
  auto exact = item(R"({"input": "Capital of Australia?", "answer": "Canberra"})");
  EXPECT_EQ(score_item(exact, " Canberra\n").correct, true);
  ItemScore wrong = score_item(exact, "Sydney");
  EXPECT_EQ(wrong.correct, false);
  EXPECT_NE(wrong.feedback.find("Canberra"), std::string::npos) << wrong.feedback;  // the user may see it

  auto numeric = item(R"({"input": "3*12-7?", "answer": 29, "format": "numeric"})");
  EXPECT_EQ(score_item(numeric, "36 - 7 = 29\n#### 29").correct, true);
  EXPECT_EQ(score_item(numeric, "#### 31").correct, false);
  // A maths checker's feedback keeps the reference out of HiVA's loss; eval shows it.
  EXPECT_NE(score_item(numeric, "#### 31").feedback.find("29"), std::string::npos);

  auto choice = item(R"({"input": "Red planet? (A) Venus (B) Mars", "answer": "B", "format": "multiple_choice"})");
  EXPECT_EQ(score_item(choice, "The answer is (B).").correct, true);
  EXPECT_EQ(score_item(choice, "The answer is (A).").correct, false);

  auto latex = item(R"({"input": "6/12?", "answer": "\\frac{1}{2}", "format": "latex"})");
  EXPECT_EQ(score_item(latex, "So \\boxed{\\dfrac{1}{2}}").correct, true);

  auto f1 = item(R"({"input": "Which?", "answer": "Greater Manchester Metrolink", "format": "f1"})");
  ItemScore partial = score_item(f1, "Manchester Metrolink");
  EXPECT_EQ(partial.correct, false);
  EXPECT_DOUBLE_EQ(*partial.score, 0.8);
}

TEST(ScoreItem, WhatEvalCannotScore) {
  auto code = item(R"({"input": "add", "tests": "assert add(1, 2) == 3"})");
  EXPECT_TRUE(eval_can_score(code));
  EXPECT_FALSE(score_item(code, "def add(a, b): return a + b").correct.has_value());
  auto interactive = item(R"({"input": "Room.", "turns": [{"reply": "Done."}]})");
  EXPECT_FALSE(eval_can_score(interactive));
  auto none = item(R"({"input": "Write a poem."})");
  EXPECT_FALSE(eval_can_score(none));
}

TEST(ScoreCodeItem, RunsTheTestsInTheSandbox) {
  Status available = sandbox::sandbox_available();
  if (!available) GTEST_SKIP() << "sandbox unavailable: " << available.error().message;
  sandbox::SandboxLimits limits;
  limits.cpu_seconds = 30;
  limits.wall_timeout_ms = 30000;  // generous for a loaded machine
  auto code = item(R"({"input": "add", "tests": "assert add(2, 3) == 5\nassert add(-1, 1) == 0"})");
  auto right = score_code_item(code, "```python\ndef add(a, b):\n    return a + b\n```", limits);
  ASSERT_TRUE(right.ok()) << right.error().message;
  EXPECT_EQ(right->correct, true);
  EXPECT_EQ(right->score, 1.0);
  auto half = score_code_item(code, "```python\ndef add(a, b):\n    return 5\n```", limits);
  ASSERT_TRUE(half.ok()) << half.error().message;
  EXPECT_EQ(half->correct, false);
  EXPECT_EQ(half->score, 0.5);
}

TEST(ItemRecord, KeysAndJsonRoundTrip) {
  EXPECT_EQ(run_key("gsm"), "run/gsm");
  EXPECT_EQ(item_key("gsm", "q7", 2), "run/gsm/item/q7/2");
  EXPECT_EQ(item_task_id("gsm", "q7", 2), "eval-gsm-2-q7");
  ItemRecord r;
  r.item = "q7";
  r.repetition = 2;
  r.task_id = "eval-gsm-2-q7";
  r.answer = "#### 29 🍎";
  r.correct = true;
  r.score = 1.0;
  r.feedback = "Correct";
  r.tokens_in = 120;
  r.tokens_out = 30;
  r.usd = 0.0025;
  r.ms = 812;
  auto back = item_record_from_json(to_json(r));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(to_json(*back), to_json(r));
  EXPECT_EQ(back->outcome().tokens, 150);
  ItemRecord unjudged;
  unjudged.item = "x";
  auto u = item_record_from_json(to_json(unjudged));
  ASSERT_TRUE(u.ok());
  EXPECT_FALSE(u->correct.has_value());
  auto bad = item_record_from_json(json{{"item", 3}, {"repetition", 1}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, "eval");
  EXPECT_FALSE(item_record_from_json(json::array()).ok());
}

}  // namespace item_score_test
}  // namespace kaisha::eval
