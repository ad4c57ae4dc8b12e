// The configuration examples users copy from docs/configuration.md load:
// a key renamed or removed in the loader fails here until the page follows.
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/config/config_loader.hpp"

namespace kaisha::config::docs_examples_test {
namespace {

// The ```yaml blocks of `markdown`, in order.
std::vector<std::string> yaml_blocks(const std::string& markdown) {
  std::vector<std::string> out;
  const std::string open = "```yaml\n", close = "```";
  for (size_t at = markdown.find(open); at != std::string::npos; at = markdown.find(open, at)) {
    at += open.size();
    const size_t end = markdown.find(close, at);
    if (end == std::string::npos) break;
    out.push_back(markdown.substr(at, end - at));
    at = end + close.size();
  }
  return out;
}

TEST(DocsConfigurationExamples, EveryKaishaConfigExampleLoads) {
  const std::string path = std::string(KAISHA_SOURCE_DIR) + "/docs/configuration.md";
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << path;
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  const auto blocks = yaml_blocks(text);
  ASSERT_GE(blocks.size(), 5u);
  // The environment variables the examples name.
  ::setenv("GROQ_API_KEY", "key-for-the-docs-test", 0);
  ::setenv("SEARCH_MCP_TOKEN", "token-for-the-docs-test", 0);
  ::setenv("TRACKER_SECRET", "secret-for-the-docs-test", 0);
  size_t checked = 0;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const std::string& b = blocks[i];
    // A cost table (models:) and a cluster file (company:, cluster:) are other files.
    if (b.rfind("models:", 0) == 0 || b.find("\ncluster:") != std::string::npos || b.rfind("company:", 0) == 0)
      continue;
    ++checked;
    auto c = parse_config(b, "docs/configuration.md, yaml block " + std::to_string(i + 1));
    EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message) << "\n" << b;
  }
  EXPECT_GE(checked, 5u);
}

}  // namespace
}  // namespace kaisha::config::docs_examples_test
