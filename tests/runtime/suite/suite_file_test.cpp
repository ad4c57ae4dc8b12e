// Reading suite files, and every suite the documentation and the examples
// show: a rule changed in the reader fails here until they follow.
#include "runtime/suite/suite_file.hpp"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "runtime/core/data_paths.hpp"

namespace kaisha::suite {
namespace suite_file_test {

namespace fs = std::filesystem;

const std::string kSource = KAISHA_SOURCE_DIR;

// The ```jsonl blocks of a markdown page.
std::vector<std::string> jsonl_blocks(const std::string& page) {
  std::vector<std::string> blocks;
  std::istringstream in(page);
  std::string line, block;
  bool inside = false;
  while (std::getline(in, line)) {
    if (!inside && line == "```jsonl") {
      inside = true;
      block.clear();
    } else if (inside && line == "```") {
      inside = false;
      blocks.push_back(block);
    } else if (inside) {
      block += line + "\n";
    }
  }
  return blocks;
}

TEST(SuiteFile, EveryExampleSuiteParses) {
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(kSource + "/examples/suites")) {
    if (entry.path().extension() != ".jsonl") continue;
    ++files;
    auto r = load_suite_file(entry.path().string());
    EXPECT_TRUE(r.ok()) << r.error().message;
  }
  EXPECT_GE(files, 4u);
}

TEST(SuiteFile, EverySuiteInTheDocumentationParses) {
  auto page = read_text_file(kSource + "/docs/suites.md");
  ASSERT_TRUE(page.ok()) << page.error().message;
  std::vector<std::string> blocks = jsonl_blocks(page.value());
  EXPECT_GE(blocks.size(), 7u);  // one per format at least
  std::set<std::string> formats;
  for (const std::string& block : blocks) {
    auto r = parse_suite(block, "docs/suites.md");
    EXPECT_TRUE(r.ok()) << r.error().message << "\nin:\n" << block;
    if (r)
      for (const SuiteItem& item : r.value()) formats.insert(item.format);
  }
  EXPECT_EQ(formats.size(), kFormats.size());
}

TEST(SuiteFile, TheDocumentedErrorsAreTheOnesGiven) {
  // A few lines of the page's error listing, produced for real.
  auto r = parse_suite(
      "{\"input\": \"a\", \"answer\": \"b\"}\n{\"input\": \"a\", \"answer\": \"b\"}\n{\"input\": 7}\n"
      "{\"id\": \"q7\", \"input\": \"a\"}\n{\"id\": \"x\", \"input\": \"a\", \"format\": \"numeric\", \"answer\": "
      "\"forty\"}\n",
      "tasks.jsonl");
  ASSERT_FALSE(r.ok());
  auto page = read_text_file(kSource + "/docs/suites.md");
  ASSERT_TRUE(page.ok());
  for (const char* line : {"tasks.jsonl:3: \"input\": expected a string, got an integer",
                           "\"answer\": \"forty\" is not a number (format numeric)"}) {
    EXPECT_NE(r.error().message.find(line), std::string::npos) << r.error().message;
    EXPECT_NE(page->find(line), std::string::npos) << line;
  }
}

TEST(SuiteFile, NamesAFileThatCannotBeRead) {
  auto missing = load_suite_file("/nonexistent/tasks.jsonl");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, "io");
  EXPECT_NE(missing.error().message.find("/nonexistent/tasks.jsonl"), std::string::npos);
  auto dir = load_suite_file(kSource + "/examples/suites");
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.error().message, kSource + "/examples/suites: is a directory, not a suite file");
}

TEST(SuiteFile, RefusesAnOversizedFileBeforeReadingIt) {
  SuiteLimits small;
  small.max_file_bytes = 10;
  std::string path = kSource + "/examples/suites/qa.jsonl";
  auto r = load_suite_file(path, small);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "suite");
  EXPECT_EQ(r.error().message.rfind(path + ": ", 0), 0u);
  EXPECT_NE(r.error().message.find("more than the 10 a suite may have"), std::string::npos);
}

TEST(SuiteFile, ErrorsNameThePathGiven) {
  std::string path = (fs::temp_directory_path() / "kaisha-suite-file-test.jsonl").string();
  std::ofstream(path) << "{\"input\": \"a\"}\n{\"input\": \"b\", \"format\": \"regex\"}\n";
  auto r = load_suite_file(path);
  fs::remove(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, path +
                                   ":2: \"format\": \"regex\" is not one of: exact, numeric, multiple_choice, latex, "
                                   "f1, code, interactive");
}

}  // namespace suite_file_test
}  // namespace kaisha::suite
