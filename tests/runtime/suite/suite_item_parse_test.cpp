// The fields of one task and what each format needs.
#include "runtime/suite/suite_item_parse.hpp"

#include <gtest/gtest.h>

namespace kaisha::suite {
namespace suite_item_parse_test {

std::string item_error(const char* line) {
  auto r = parse_suite_item(json::parse(line), 4);
  return r ? "(parsed)" : r.error().message;
}

SuiteItem item(const char* line) {
  auto r = parse_suite_item(json::parse(line), 4);
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r ? r.value() : SuiteItem{};
}

TEST(SuiteItemParse, ReadsEveryField) {
  SuiteItem it = item(R"J({"id": "he-0", "input": "Write add(a, b).", "answer": "def add(a, b): return a + b",
    "format": "code", "tests": "assert add(1, 2) == 3", "entry_point": "add", "metadata": {"source": "mine"}})J");
  EXPECT_EQ(it.id, "he-0");
  EXPECT_EQ(it.input, "Write add(a, b).");
  EXPECT_EQ(it.answer, "def add(a, b): return a + b");
  EXPECT_EQ(it.format, "code");
  EXPECT_EQ(it.tests, "assert add(1, 2) == 3");
  EXPECT_EQ(it.entry_point, "add");
  EXPECT_EQ(it.metadata, (json{{"source", "mine"}}));
}

TEST(SuiteItemParse, IdsAreStringsOrIntegersElseTheLine) {
  EXPECT_EQ(item(R"J({"id": 17, "input": "x"})J").id, "17");
  EXPECT_EQ(item(R"J({"input": "x"})J").id, "line-4");
  EXPECT_EQ(item_error(R"J({"id": "", "input": "x"})J"), "\"id\": is empty");
  EXPECT_EQ(item_error(R"J({"id": 1.5, "input": "x"})J"), "\"id\": expected a string or an integer, got a number");
  EXPECT_EQ(item_error(R"J({"id": "a\tb", "input": "x"})J"), "\"id\": holds a control character");
  EXPECT_EQ(item_error(("{\"id\": \"" + std::string(kMaxIdBytes + 1, 'x') + "\", \"input\": \"x\"}").c_str()),
            "\"id\": is longer than 200 bytes");
}

TEST(SuiteItemParse, TheFormatFollowsWhatTheItemCarries) {
  EXPECT_EQ(item(R"J({"input": "x", "answer": "y"})J").format, "exact");
  EXPECT_EQ(item(R"J({"input": "x", "answer": "y", "tests": "assert True"})J").format, "code");
  EXPECT_EQ(item(R"J({"input": "x", "turns": [{"reply": "done"}]})J").format, "interactive");
  EXPECT_EQ(item(R"J({"input": "x"})J").format, "");  // nothing to check with
}

TEST(SuiteItemParse, AnswersMayBeNumbers) {
  EXPECT_EQ(item(R"J({"input": "x", "answer": 42, "format": "numeric"})J").answer, "42");
  EXPECT_EQ(item(R"J({"input": "x", "answer": -0.5, "format": "numeric", "tolerance": 0.01})J").tolerance, 0.01);
  EXPECT_EQ(item_error(R"J({"input": "x", "answer": true})J"),
            "\"answer\": expected a string or a number, got a boolean");
}

TEST(SuiteItemParse, RefusesMissingEmptyAndUnknownFields) {
  EXPECT_EQ(item_error(R"J({"answer": "y"})J"), "\"input\": is missing (the task itself)");
  EXPECT_EQ(item_error(R"J({"input": ""})J"), "\"input\": is empty");
  EXPECT_EQ(item_error(R"J({"input": "x", "anwser": "y"})J"),
            "unknown field \"anwser\" (fields: id, input, answer, format, tests, entry_point, tolerance, turns, "
            "metadata)");
  EXPECT_EQ(item_error(R"J({"input": "x", "metadata": []})J"), "\"metadata\": expected an object, got an array");
}

TEST(SuiteItemParse, RefusesAnUnknownFormat) {
  EXPECT_EQ(item_error(R"J({"input": "x", "answer": "y", "format": "Exact"})J"),
            "\"format\": \"Exact\" is not one of: exact, numeric, multiple_choice, latex, f1, code, interactive");
}

TEST(SuiteItemParse, ComparingFormatsNeedAnAnswerOfTheirKind) {
  for (const char* f : {"exact", "numeric", "multiple_choice", "latex", "f1"})
    EXPECT_EQ(item_error(("{\"input\": \"x\", \"format\": \"" + std::string(f) + "\"}").c_str()),
              "\"answer\": is missing (format " + std::string(f) + " compares with it)");
  EXPECT_EQ(item_error(R"J({"input": "x", "answer": "forty", "format": "numeric"})J"),
            "\"answer\": \"forty\" is not a number (format numeric)");
  EXPECT_EQ(item_error(R"J({"input": "x", "answer": "B or C", "format": "multiple_choice"})J"),
            "\"answer\": \"B or C\" is not one option letter such as B or (B) (format multiple_choice)");
  EXPECT_EQ(item(R"J({"input": "x", "answer": "(B)", "format": "multiple_choice"})J").answer, "(B)");
}

TEST(SuiteItemParse, FieldsAFormatDoesNotUseAreRefused) {
  EXPECT_EQ(item_error(R"J({"input": "x", "answer": "y", "format": "exact", "tests": "assert True"})J"),
            "\"tests\": not used by format exact (only format code runs tests)");
  EXPECT_EQ(item_error(R"J({"input": "x", "answer": "y", "entry_point": "f"})J"),
            "\"entry_point\": not used by format exact (only format code calls one)");
  EXPECT_EQ(item_error(R"J({"input": "x", "answer": "y", "format": "latex", "turns": [{"reply": "r"}]})J"),
            "\"turns\": not used by format latex (only format interactive plays turns)");
  EXPECT_EQ(item_error(R"J({"input": "x", "answer": "y", "turns": [{"reply": "r"}]})J"),
            "\"answer\": not used by format interactive (its turns say what succeeds)");
  EXPECT_EQ(item_error(R"J({"input": "x", "answer": "y", "tolerance": 1})J"),
            "\"tolerance\": not used by format exact (only format numeric has one)");
}

TEST(SuiteItemParse, CodeNeedsTestsAndAFunctionName) {
  EXPECT_EQ(item_error(R"J({"input": "x", "format": "code"})J"), "\"tests\": is missing (format code runs them)");
  EXPECT_EQ(item_error(R"J({"input": "x", "tests": ""})J"), "\"tests\": is empty");
  EXPECT_EQ(item_error(R"J({"input": "x", "tests": "assert f()", "entry_point": "my-func"})J"),
            "\"entry_point\": \"my-func\" is not a Python function name");
  EXPECT_EQ(item_error(R"J({"input": "x", "format": "interactive"})J"),
            "\"turns\": is missing (format interactive plays them)");
}

TEST(SuiteItemParse, RefusesABadToleranceAndTurns) {
  EXPECT_EQ(item_error(R"J({"input": "x", "answer": 1, "format": "numeric", "tolerance": -1})J"),
            "\"tolerance\": expected a number >= 0, got -1");
  EXPECT_EQ(item_error(R"J({"input": "x", "turns": [{"reply": 3}]})J"),
            "\"turns\"[0].reply: expected a string, got an integer");
}

}  // namespace suite_item_parse_test
}  // namespace kaisha::suite
