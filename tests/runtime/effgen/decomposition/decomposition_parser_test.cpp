#include "runtime/effgen/decomposition/decomposition_parser.hpp"

#include <gtest/gtest.h>

#include "runtime/effgen/decomposition/decomposition_round.hpp"
#include "runtime/prompt/json_extract.hpp"

namespace kaisha::planning {
namespace {

TEST(JsonExtract, WholeAnswerFenceAndLeadingProse) {
  EXPECT_EQ((*extract_json(R"({"a":1})"))["a"], 1);
  EXPECT_EQ((*extract_json("Here is the plan:\n```json\n{\"a\": 2}\n```\nThanks"))["a"], 2);
  EXPECT_EQ((*extract_json("```\n{\"a\": 3}\n```"))["a"], 3);
  EXPECT_EQ((*extract_json("Sure! The plan is {\"a\": {\"b\": \"}\"}} and that's it."))["a"]["b"], "}");
  EXPECT_EQ((*extract_json("x [1,2]", JsonTop::object_or_array))[1], 2);
}

// The error goes back to the model inside a JSON request body, so it must be
// valid UTF-8 even when the parser stopped inside a multi-byte character.
TEST(JsonExtract, ParseErrorQuotingNonAsciiBytesIsValidJsonText) {
  for (std::string answer : {std::string("{\"a\": tru\xc3\xa9}"), std::string("{\"a\": \"\xff\"}"),
                             std::string("Plan: {\"a\": [1, \xe2\x82\xac]}")}) {
    auto r = extract_json(answer);
    ASSERT_FALSE(r.ok()) << answer;
    EXPECT_NO_THROW((void)json(r.error().message).dump()) << r.error().message;
    EXPECT_NE(r.error().message.find("\\x"), std::string::npos) << r.error().message;
  }
}

// nlohmann throws out_of_range, not parse_error, for a number beyond a
// double; it used to escape extract_json and terminate the process.
TEST(JsonExtract, NumberBeyondADoubleIsAnErrorNotACrash) {
  auto r = extract_json("Plan: {\"a\": 1e400}");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "json");
  EXPECT_NE(r.error().message.find("number overflow parsing '1e400'"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("starting at byte 7"), std::string::npos) << r.error().message;
  auto d = parse_decomposition(
      R"({"subtasks":[{"id":"a","description":"x","estimated_complexity":2e308},{"id":"b","description":"y"}]})",
      routing::Strategy::parallel);
  EXPECT_FALSE(d.ok());
}

TEST(JsonExtract, NothingLooser) {
  auto r = extract_json(R"({"a": 1,})");  // trailing comma is not repaired
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "json");
  EXPECT_EQ(r.error().message.rfind("JSON parse error at byte 9: ", 0), 0u) << r.error().message;
  // The byte offset counts from the start of the whole answer, prose included,
  // and points at the last byte read: the "}" that ends the bad literal.
  auto p = extract_json("Plan: {\"a\": tru}");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("at byte 16"), std::string::npos) << p.error().message;
  EXPECT_FALSE(extract_json("no json here").ok());
  EXPECT_NE(extract_json("   ").error().message.find("empty"), std::string::npos);
  EXPECT_FALSE(extract_json("{\"a\": 1").ok());  // truncated
  EXPECT_FALSE(extract_json("```json\n{\"a\":1} {\"b\":2}\n```").ok());
}

constexpr const char* kParallel = R"({"subtasks":[
  {"id":"st_1","description":"Research PyTorch","expected_output":"notes","estimated_complexity":4.0,"required_specialization":"research","priority":"high"},
  {"id":"st_2","description":"Research TensorFlow","expected_output":"notes","estimated_complexity":6,"required_specialization":"Research","priority":"LOW"}],
  "reasoning":"independent"})";

TEST(DecompositionParser, ParallelForm) {
  auto d = parse_decomposition(kParallel, routing::Strategy::parallel);
  ASSERT_TRUE(d.ok()) << d.error().message;
  ASSERT_EQ(d->subtasks.size(), 2u);
  EXPECT_EQ(d->strategy, routing::Strategy::parallel);
  EXPECT_EQ(d->subtasks[0].id, "st_1");
  EXPECT_EQ(d->subtasks[0].description, "Research PyTorch");
  EXPECT_EQ(d->subtasks[0].expected_output, "notes");
  EXPECT_DOUBLE_EQ(d->subtasks[1].estimated_complexity, 6.0);
  EXPECT_EQ(d->subtasks[1].required_specialization, "research");
  EXPECT_EQ(d->subtasks[0].priority, Priority::high);
  EXPECT_EQ(d->subtasks[1].priority, Priority::low);
  EXPECT_TRUE(d->subtasks[0].depends_on.empty());
  EXPECT_EQ(d->reasoning, "independent");
  EXPECT_FALSE(d->manager_task);
}

TEST(DecompositionParser, SequentialForm) {
  auto d = parse_decomposition(R"(```json
{"subtasks":[
  {"id":"st_1","description":"Extract","depends_on":[]},
  {"id":"st_2","description":"Transform","depends_on":["st_1"]},
  {"id":"st_3","description":"Report","depends_on":["st_2"],"priority":"medium"}],"reasoning":"chain"}
```)",
                               routing::Strategy::sequential);
  ASSERT_TRUE(d.ok()) << d.error().message;
  ASSERT_EQ(d->subtasks.size(), 3u);
  EXPECT_EQ(d->subtasks[2].depends_on, std::vector<std::string>{"st_2"});
  // Defaults for what the model left out.
  EXPECT_DOUBLE_EQ(d->subtasks[0].estimated_complexity, 5.0);
  EXPECT_EQ(d->subtasks[0].required_specialization, "general");
  EXPECT_EQ(d->subtasks[0].priority, Priority::medium);
}

TEST(DecompositionParser, HybridForm) {
  auto d = parse_decomposition(R"({"subtasks":[
    {"id":"st_1","description":"a","depends_on":[]},
    {"id":"st_2","description":"b","depends_on":[]},
    {"id":"st_3","description":"c","depends_on":["st_1","st_2"]},
    {"id":"st_4","description":"d","depends_on":["st_3"]}],
    "parallel_groups":[["st_1","st_2"],["st_3"],["st_4"]],"reasoning":"r"})",
                               routing::Strategy::hybrid);
  ASSERT_TRUE(d.ok()) << d.error().message;
  ASSERT_EQ(d->parallel_groups.size(), 3u);
  EXPECT_EQ(d->parallel_groups[0], (std::vector<std::string>{"st_1", "st_2"}));
  EXPECT_EQ(d->subtasks[2].depends_on, (std::vector<std::string>{"st_1", "st_2"}));
}

TEST(DecompositionParser, HierarchicalForm) {
  auto d = parse_decomposition(
      R"({"manager_task":{"description":"Coordination and synthesis task","responsibilities":["coordinate","synthesize","quality_check"]},
    "worker_subtasks":[
      {"id":"wk_1","description":"research A","reports_to":"manager","expected_output":"x","estimated_complexity":5.0,"required_specialization":"research"},
      {"id":"wk_2","description":"research B","reports_to":"manager"},
      {"id":"wk_3","description":"analyse","reports_to":"manager","depends_on":["wk_1","wk_2"],"required_specialization":"analysis"}],
    "reasoning":"r"})",
      routing::Strategy::hierarchical);
  ASSERT_TRUE(d.ok()) << d.error().message;
  ASSERT_TRUE(d->manager_task);
  EXPECT_EQ(d->manager_task->description, "Coordination and synthesis task");
  EXPECT_EQ(d->manager_task->responsibilities.size(), 3u);
  ASSERT_EQ(d->subtasks.size(), 3u);
  EXPECT_EQ(d->subtasks[0].reports_to, "manager");
  EXPECT_EQ(d->subtasks[2].required_specialization, "analysis");
}

TEST(DecompositionParser, HierarchicalNeedsManagerAndWorkers) {
  auto d = parse_decomposition(R"({"subtasks":[{"id":"a","description":"x"},{"id":"b","description":"y"}]})",
                               routing::Strategy::hierarchical);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().message.find("missing \"manager_task\" object"), std::string::npos) << d.error().message;
  EXPECT_NE(d.error().message.find("missing \"worker_subtasks\" array"), std::string::npos);
  auto r = parse_decomposition(R"({"manager_task":{"description":"m"},"worker_subtasks":[
      {"id":"wk_1","description":"x","reports_to":"boss"},{"id":"wk_2","description":"y"}]})",
                               routing::Strategy::hierarchical);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "subtask #1: reports_to refers to unknown id 'boss' (use \"manager\" or a worker id)");
}

TEST(DecompositionParser, TwoToFiveBound) {
  std::string seven = R"({"subtasks":[)";
  for (int i = 1; i <= 7; ++i)
    seven += std::string(i > 1 ? "," : "") + R"({"id":"st_)" + std::to_string(i) + R"(","description":"d"})";
  seven += "]}";
  auto d = parse_decomposition(seven, routing::Strategy::parallel);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().message, "expected 2–5 subtasks, got 7");
  auto one = parse_decomposition(R"({"subtasks":[{"id":"st_1","description":"d"}]})", routing::Strategy::parallel);
  ASSERT_FALSE(one.ok());
  EXPECT_EQ(one.error().message, "expected 2–5 subtasks, got 1");
  DecompositionLimits loose{1, 7};
  EXPECT_TRUE(parse_decomposition(seven, routing::Strategy::parallel, loose).ok());
}

TEST(DecompositionParser, UnknownDependencyNamesItsPlace) {
  auto d = parse_decomposition(R"({"subtasks":[{"id":"st_1","description":"a"},{"id":"st_2","description":"b"},
      {"id":"st_3","description":"c","depends_on":["x"]}]})",
                               routing::Strategy::hybrid);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().code, "decomposition");
  EXPECT_EQ(d.error().message, "subtask #3: depends_on refers to unknown id 'x'");
}

TEST(DecompositionParser, CycleIsNamed) {
  auto d = parse_decomposition(R"({"subtasks":[{"id":"st_1","description":"a","depends_on":["st_2"]},
      {"id":"st_2","description":"b","depends_on":["st_1"]}]})",
                               routing::Strategy::sequential);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().message, "dependency cycle: st_1 → st_2 → st_1 (each depends on the next)");
}

TEST(DecompositionParser, BadJsonSaysWhere) {
  auto d = parse_decomposition(R"({"subtasks":[{"id":"st_1","description":"a"},{"id":"st_2" "description":"b"}]})",
                               routing::Strategy::parallel);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().code, "json");
  EXPECT_EQ(d.error().message.rfind("JSON parse error at byte 71: ", 0), 0u) << d.error().message;
}

TEST(DecompositionParser, FieldErrorsAreListedTogether) {
  auto d = parse_decomposition(R"({"subtasks":[
      {"id":"st_1","description":"","estimated_complexity":11},
      {"id":2,"description":"b","required_specialization":"research|coding","priority":"urgent","depends_on":"st_1"},
      "oops"]})",
                               routing::Strategy::hybrid);
  ASSERT_FALSE(d.ok());
  const std::string& m = d.error().message;
  EXPECT_NE(m.find("subtask #1: description is empty"), std::string::npos) << m;
  EXPECT_NE(m.find("subtask #1: estimated_complexity 11 is outside [0, 10]"), std::string::npos) << m;
  EXPECT_NE(m.find("subtask #2: id must be a string, got a number"), std::string::npos) << m;
  EXPECT_NE(m.find("subtask #2: required_specialization 'research|coding' is not one of"), std::string::npos) << m;
  EXPECT_NE(m.find("subtask #2: priority 'urgent' is not one of high, medium, low"), std::string::npos) << m;
  EXPECT_NE(m.find("subtask #2: depends_on must be an array of ids, got a string"), std::string::npos) << m;
  EXPECT_NE(m.find("subtask #3: must be a JSON object, got a string"), std::string::npos) << m;
}

TEST(DecompositionParser, DuplicateIdsAndUnknownGroupMembers) {
  auto d = parse_decomposition(R"({"subtasks":[{"id":"st_1","description":"a"},{"id":"st_1","description":"b"}],
      "parallel_groups":[["st_1","st_9"]]})",
                               routing::Strategy::hybrid);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().message.find("parallel_groups[0]: refers to unknown id 'st_9'"), std::string::npos);
  EXPECT_NE(d.error().message.find("subtask #2: duplicate id 'st_1' (first used by subtask #1)"), std::string::npos);
}

TEST(DecompositionRound, OneRetryThenSingleAgentFallback) {
  DecompositionRound round(routing::Strategy::parallel);
  RoundStep s = round.on_answer("I think we should research first.");
  ASSERT_EQ(s.kind, RoundStep::Kind::retry);
  EXPECT_NE(s.feedback.find("no JSON object found"), std::string::npos);
  s = round.on_answer(R"({"subtasks":[]})");
  EXPECT_EQ(s.kind, RoundStep::Kind::fall_back);
  EXPECT_EQ(s.reason, "expected 2–5 subtasks, got 0");
  EXPECT_EQ(round.answers(), 2);
  EXPECT_EQ(round.on_answer(kParallel).kind, RoundStep::Kind::fall_back);  // over
}

TEST(DecompositionRound, RetryCanSucceed) {
  DecompositionRound round(routing::Strategy::parallel);
  ASSERT_EQ(round.on_answer("{bad").kind, RoundStep::Kind::retry);
  RoundStep s = round.on_answer(kParallel);
  ASSERT_EQ(s.kind, RoundStep::Kind::accept);
  ASSERT_TRUE(s.plan);
  EXPECT_EQ(s.plan->subtasks.size(), 2u);
}

}  // namespace
}  // namespace kaisha::planning
