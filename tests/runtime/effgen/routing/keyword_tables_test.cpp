// The keyword data file: the shipped tables are the paper's, and a bad file
// is reported as <file>:<line>: <key>: <what>.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/effgen/routing/keyword_tables.hpp"
#include "tests/runtime/effgen/routing/routing_test_support.hpp"

namespace kaisha::routing {
namespace {

using ::testing::ElementsAre;

TEST(KeywordTables, ShippedFileHoldsTables20To22) {
  const KeywordTables& t = testing::shipped_tables();
  ASSERT_EQ(t.domains.size(), 8u);
  EXPECT_EQ(t.domains[0].name, "technical");
  EXPECT_EQ(t.domains[0].phrases.size(), 11u);
  EXPECT_EQ(t.domains[4].name, "data");
  EXPECT_EQ(t.domains[4].phrases.size(), 10u);  // "statistics" twice, as printed
  ASSERT_EQ(t.tool_categories.size(), 8u);
  EXPECT_EQ(t.tool_categories[0].phrases[1], "find online");
  ASSERT_EQ(t.reasoning_levels.size(), 4u);
  EXPECT_EQ(t.reasoning_levels[0].name, "very_complex");
  EXPECT_DOUBLE_EQ(t.reasoning_levels[0].score, 9.0);
  EXPECT_DOUBLE_EQ(t.reasoning_levels[3].score, 3.0);
  EXPECT_DOUBLE_EQ(t.reasoning_default, 5.0);
  ASSERT_NE(t.find_profile("eq14"), nullptr);
  EXPECT_EQ(t.find_profile("eq14")->classes.size(), 8u);
  ASSERT_NE(t.find_profile("paper-example"), nullptr);
  EXPECT_TRUE(t.find_profile("paper-example")->commas_yield_to_numbered_items);
  EXPECT_NE(t.find_profile("main-text"), nullptr);
}

TEST(KeywordTables, DefaultTablesAreLoadedOnceAndShared) {
  auto a = default_keyword_tables();
  auto b = default_keyword_tables();
  ASSERT_TRUE(a) << a.error().message;
  ASSERT_TRUE(b);
  EXPECT_EQ(a->get(), b->get());
  EXPECT_EQ((*a)->domains.size(), 8u);
}

// A valid file to break one line at a time.
const char* kValid =
    "version: 1\n"                                              // 1
    "domains:\n"                                                // 2
    "  technical: [code, debug]\n"                              // 3
    "tool_categories:\n"                                        // 4
    "  web_search: [search, find online]\n"                     // 5
    "reasoning_levels:\n"                                       // 6
    "  - {name: complex, score: 7.0, indicators: [compare]}\n"  // 7
    "reasoning_default: 5.0\n"                                  // 8
    "requirement_profiles:\n"                                   // 9
    "  eq14: {count: [question, and]}\n";                       // 10

std::string with_line(int line, const std::string& replacement) {
  std::string s = kValid, out;
  int n = 1;
  std::size_t start = 0;
  while (start < s.size()) {
    std::size_t end = s.find('\n', start);
    std::string text = s.substr(start, end - start);
    out += (n == line ? replacement : text) + "\n";
    start = end + 1;
    ++n;
  }
  return out;
}

std::string error_of(const std::string& yaml) {
  auto t = parse_keyword_tables(yaml, "kw.yaml");
  if (t) return "(parsed)";
  EXPECT_EQ(t.error().code, "config");
  return t.error().message;
}

TEST(KeywordTables, ValidMinimalFileParses) {
  auto t = parse_keyword_tables(kValid, "kw.yaml");
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_THAT(t->tool_categories[0].phrases, ElementsAre("search", "find online"));
}

TEST(KeywordTablesErrors, MissingFileNamesThePath) {
  auto t = load_keyword_tables("/nonexistent/kw.yaml");
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().code, "config");
  EXPECT_NE(t.error().message.find("/nonexistent/kw.yaml"), std::string::npos) << t.error().message;
}

TEST(KeywordTablesErrors, SyntaxErrorHasLineAndColumn) {
  EXPECT_EQ(error_of(with_line(3, "  technical: [code, debug")).rfind("kw.yaml:", 0), 0u);
  EXPECT_NE(error_of(with_line(3, "  technical: [code, debug")).find("YAML syntax error"), std::string::npos);
}

TEST(KeywordTablesErrors, KeywordMustBeAString) {
  EXPECT_EQ(error_of(with_line(3, "  technical: [code, [debug]]")),
            "kw.yaml:3: domains.technical[1]: expected a string, got a list");
}

TEST(KeywordTablesErrors, KeywordMustHaveAWord) {
  EXPECT_EQ(error_of(with_line(5, "  web_search: [search, \"--\"]")),
            "kw.yaml:5: tool_categories.web_search[1]: keyword \"--\" has no letters or digits, so it can never match");
}

TEST(KeywordTablesErrors, EmptyCategory) {
  EXPECT_EQ(error_of(with_line(3, "  technical: []")), "kw.yaml:3: domains.technical: has no keywords");
}

TEST(KeywordTablesErrors, MissingTopLevelKey) {
  EXPECT_EQ(error_of(with_line(8, "")), "kw.yaml:1: missing key 'reasoning_default'");
}

TEST(KeywordTablesErrors, UnknownTopLevelKeySuggests) {
  EXPECT_EQ(error_of(with_line(8, "reasoning_defualt: 5.0")),
            "kw.yaml:8: unknown key 'reasoning_defualt' in top level (did you mean 'reasoning_default'?)");
}

TEST(KeywordTablesErrors, WrongVersion) {
  EXPECT_EQ(error_of(with_line(1, "version: 2")), "kw.yaml:1: version: unsupported version 2 (expected 1)");
}

TEST(KeywordTablesErrors, ScoreOutOfRange) {
  EXPECT_EQ(error_of(with_line(7, "  - {name: complex, score: 11, indicators: [compare]}")),
            "kw.yaml:7: reasoning_levels[0].score: must be in [0, 10], got 11");
  EXPECT_EQ(error_of(with_line(7, "  - {name: complex, score: high, indicators: [compare]}")),
            "kw.yaml:7: reasoning_levels[0].score: expected a number, got \"high\"");
}

TEST(KeywordTablesErrors, LevelMissingKey) {
  EXPECT_EQ(error_of(with_line(7, "  - {name: complex, score: 7}")),
            "kw.yaml:7: reasoning_levels[0]: missing key 'indicators'");
}

TEST(KeywordTablesErrors, UnknownRequirementClass) {
  EXPECT_EQ(error_of(with_line(10, "  eq14: {count: [question, but]}")),
            "kw.yaml:10: requirement_profiles.eq14.count[1]: unknown token class 'but' (known: question, and, or, "
            "then, comma, semicolon, numbered_item, bullet)");
}

TEST(KeywordTablesErrors, DuplicateCategory) {
  std::string yaml = with_line(3, "  technical: [code]\n  technical: [debug]");
  std::string e = error_of(yaml);
  // yaml-cpp may reject duplicate keys itself; either way the file and line are named.
  EXPECT_EQ(e.rfind("kw.yaml:", 0), 0u) << e;
  EXPECT_NE(e, "(parsed)");
}

TEST(KeywordTablesErrors, DomainsMustBeAMap) {
  EXPECT_EQ(error_of(with_line(3, "  - code")), "kw.yaml:3: domains: expected a map of name: [keywords]");
}

}  // namespace
}  // namespace kaisha::routing
