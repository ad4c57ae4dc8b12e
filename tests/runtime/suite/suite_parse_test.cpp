// The file-level rules of parse_suite: lines, comments, line ends, the BOM,
// UTF-8, limits, duplicate ids and how errors are listed.
#include "runtime/suite/suite_parse.hpp"

#include <gtest/gtest.h>

namespace kaisha::suite {
namespace suite_parse_test {

std::string error_of(std::string_view text, const SuiteLimits& limits = {}) {
  auto r = parse_suite(text, "tasks.jsonl", limits);
  return r ? "(parsed)" : r.error().code + ": " + r.error().message;
}

TEST(ParseSuite, ReadsOneTaskPerLineSkippingBlanksAndComments) {
  auto r = parse_suite(
      "# capitals\n"
      "{\"id\": \"fr\", \"input\": \"Capital of France?\", \"answer\": \"Paris\"}\n"
      "\n"
      "   # indented comment\n"
      "{\"input\": \"2+2?\", \"answer\": 4, \"format\": \"numeric\"}",  // no final newline
      "tasks.jsonl");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].id, "fr");
  EXPECT_EQ((*r)[0].format, "exact");
  EXPECT_EQ((*r)[0].answer, "Paris");
  EXPECT_EQ((*r)[1].id, "line-5");  // counted with the comment and blank lines
  EXPECT_EQ((*r)[1].answer, "4");
}

TEST(ParseSuite, AcceptsCrlfAndALeadingByteOrderMark) {
  auto r = parse_suite("\xEF\xBB\xBF{\"input\": \"a\", \"answer\": \"b\"}\r\n{\"input\": \"c\", \"answer\": \"d\"}\r\n",
                       "t");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[1].answer, "d");  // no '\r' left over
}

TEST(ParseSuite, AcceptsAByteOrderMarkOnAnyLine) {
  // Files joined with cat keep their marks; one before a comment still makes a comment.
  auto r = parse_suite("{\"input\": \"a\"}\n\xEF\xBB\xBF# joined\n\xEF\xBB\xBF{\"input\": \"b\"}\n", "t");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[1].id, "line-3");
}

TEST(ParseSuite, NamesTheFileLineAndFieldOfAMistypedField) {
  EXPECT_EQ(error_of("{\"input\": \"a\"}\n\n{\"input\": 7, \"answer\": \"x\"}\n"),
            "suite: tasks.jsonl:3: \"input\": expected a string, got an integer");
}

TEST(ParseSuite, NamesTheColumnOfBrokenJson) {
  std::string e = error_of("{\"input\": \"a\",}\n");
  EXPECT_EQ(e.rfind("suite: tasks.jsonl:1: not valid JSON at column 15: ", 0), 0u) << e;
}

TEST(ParseSuite, RefusesIllFormedUtf8WithItsByte) {
  EXPECT_EQ(error_of("{\"input\": \"caf\xE9\"}\n"), "suite: tasks.jsonl:1: not valid UTF-8 at byte 15 of the line");
}

TEST(ParseSuite, RefusesALineThatIsNotAnObject) {
  EXPECT_EQ(error_of("[1, 2]\n"), "suite: tasks.jsonl:1: expected a JSON object, got an array");
}

TEST(ParseSuite, RefusesADuplicateIdNamingTheFirstLine) {
  EXPECT_EQ(error_of("{\"id\": \"q\", \"input\": \"a\"}\n{\"id\": \"r\", \"input\": \"b\"}\n{\"id\": \"q\", \"input\": "
                     "\"c\"}\n"),
            "suite: tasks.jsonl:3: \"id\": \"q\" is already the id of line 1");
  // A default id counts too.
  EXPECT_EQ(error_of("{\"input\": \"a\"}\n{\"id\": \"line-1\", \"input\": \"b\"}\n"),
            "suite: tasks.jsonl:2: \"id\": \"line-1\" is already the id of line 1");
}

TEST(ParseSuite, ChecksEveryLineAndListsTheErrorsInOrder) {
  std::string text;
  for (int i = 0; i < 13; ++i) text += i == 1 ? "{\"input\": \"fine\"}\n" : "{\"input\": 1}\n";
  std::string e = error_of(text);
  EXPECT_EQ(e.rfind("suite: tasks.jsonl:1: \"input\": expected a string, got an integer\n"
                    "tasks.jsonl:3: \"input\": expected a string, got an integer\n",
                    0),
            0u)
      << e;
  // 12 bad lines: 10 listed, 2 counted.
  EXPECT_NE(e.find("tasks.jsonl:11: "), std::string::npos);
  EXPECT_EQ(e.find("tasks.jsonl:12: "), std::string::npos);
  EXPECT_EQ(e.substr(e.size() - 20), "\n(and 2 more errors)");
}

TEST(ParseSuite, EnforcesTheLineFileAndItemLimits) {
  SuiteLimits small;
  small.max_line_bytes = 30;
  EXPECT_EQ(error_of("{\"input\": \"this line is too long for 30\"}\n", small),
            "suite: tasks.jsonl:1: 41 bytes, more than the 30 a task's line may have");
  small.max_file_bytes = 10;
  EXPECT_EQ(error_of("{\"input\": \"a\"}\n", small), "suite: tasks.jsonl: 15 bytes, more than the 10 a suite may have");
  SuiteLimits two;
  two.max_items = 2;
  EXPECT_EQ(error_of("{\"input\": \"a\"}\n{\"input\": \"b\"}\n{\"input\": \"c\"}\n", two),
            "suite: tasks.jsonl:3: more than the 2 tasks a suite may have");
  SuiteLimits shallow;
  shallow.max_depth = 2;
  std::string e = error_of("{\"input\": \"a\", \"metadata\": {\"x\": [1]}}\n", shallow);
  EXPECT_EQ(e.rfind("suite: tasks.jsonl:1: nesting deeper than 2 levels at column 34", 0), 0u) << e;
}

TEST(ParseSuite, RefusesASuiteWithoutATask) {
  EXPECT_EQ(error_of(""), "suite: tasks.jsonl: holds no task (every line is blank or a comment)");
  EXPECT_EQ(error_of("# only\n\r\n  \n"), "suite: tasks.jsonl: holds no task (every line is blank or a comment)");
}

}  // namespace suite_parse_test
}  // namespace kaisha::suite
