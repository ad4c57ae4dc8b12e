// The configuration examples users copy from docs/ load (a key renamed or
// removed in the loader fails here until the page follows), and the reference
// is complete: every key a loader accepts in a section the examples show
// appears in one of them, so a key cannot be added without its example.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "runtime/config/config_loader.hpp"
#include "runtime/config/yaml/yaml_reader.hpp"

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

// The environment variables the examples name.
void set_example_environment() {
  ::setenv("GROQ_API_KEY", "key-for-the-docs-test", 0);
  ::setenv("SEARCH_MCP_TOKEN", "token-for-the-docs-test", 0);
  ::setenv("TRACKER_SECRET", "secret-for-the-docs-test", 0);
}

// Cost tables and cluster files have loaders of their own.
bool is_other_file(const std::string& block) {
  return block.rfind("models:", 0) == 0 || block.find("\ncluster:") != std::string::npos ||
         block.rfind("company:", 0) == 0;
}

TEST(DocsConfigurationExamples, EveryKaishaConfigExampleLoads) {
  const std::string path = std::string(KAISHA_SOURCE_DIR) + "/docs/configuration.md";
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << path;
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  const auto blocks = yaml_blocks(text);
  ASSERT_GE(blocks.size(), 5u);
  set_example_environment();
  size_t checked = 0;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const std::string& b = blocks[i];
    // A cost table (models:) and a cluster file (company:, cluster:) are other files.
    if (is_other_file(b)) continue;
    ++checked;
    auto c = parse_config(b, "docs/configuration.md, yaml block " + std::to_string(i + 1));
    EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message) << "\n" << b;
  }
  EXPECT_GE(checked, 5u);
}

using Sections = std::map<std::string, std::set<std::string>>;

std::string join(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

// The keys an example shows, by the path of their section (as the loaders name it).
void shown_keys(const YAML::Node& n, const std::string& path, Sections& out) {
  if (n.IsMap()) {
    for (auto it = n.begin(); it != n.end(); ++it) {
      const std::string key = it->first.as<std::string>();
      out[path].insert(key);
      shown_keys(it->second, join(path, key), out);
    }
  } else if (n.IsSequence()) {
    for (size_t i = 0; i < n.size(); ++i) shown_keys(n[i], path + "[]", out);
  }
}

// "mcp_servers[2].auth" → "mcp_servers[].auth": a list's items share one section.
std::string unindexed(const std::string& path) {
  std::string out;
  for (size_t i = 0; i < path.size(); ++i) {
    out += path[i];
    if (path[i] == '[') {
      while (i + 1 < path.size() && path[i + 1] != ']') ++i;
    }
  }
  return out;
}

std::string parent_of(const std::string& path) {
  const size_t at = path.find_last_of(".[");
  return at == std::string::npos ? "" : path.substr(0, at);
}

TEST(DocsConfigurationKeys, EveryKeyOfEveryShownSectionHasAnExample) {
  set_example_environment();
  Sections shown;
  KeyCatalog accepted;
  size_t configs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(KAISHA_SOURCE_DIR) + "/docs")) {
    if (entry.path().extension() != ".md") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    for (const std::string& b : yaml_blocks(text)) {
      if (is_other_file(b)) continue;
      YAML::Node doc;
      try {
        doc = YAML::Load(b);
      } catch (const YAML::Exception&) {
        continue;
      }
      // An example may name files this machine lacks (a key file): what the
      // loader checked before that still counts, and its keys are shown.
      if (parse_config(b, entry.path().filename().string()).ok()) ++configs;
      shown_keys(doc, "", shown);
    }
  }
  ASSERT_GE(configs, 10u);
  std::vector<std::string> missing;
  Sections sections;
  for (const auto& [path, keys] : accepted.sections()) sections[unindexed(path)].insert(keys.begin(), keys.end());
  for (const auto& [path, keys] : sections) {
    // Entries a user names (providers.ollama, mcp_servers.search) share
    // their siblings' examples.
    std::set<std::string> documented;
    for (const auto& [other, other_keys] : sections)
      if (parent_of(other) == parent_of(path) && other_keys == keys)
        if (auto it = shown.find(other); it != shown.end()) documented.insert(it->second.begin(), it->second.end());
    for (const std::string& k : keys)
      if (!documented.count(k)) missing.push_back(join(path, k));
  }
  // Older names, still read: named in the reference's list of them instead.
  std::ifstream in(std::string(KAISHA_SOURCE_DIR) + "/docs/configuration.md", std::ios::binary);
  const std::string reference((std::istreambuf_iterator<char>(in)), {});
  for (const char* older :
       {"effgen.judge", "effgen.judge_model", "effgen.max_judge_retries", "tools.web_search.backend"}) {
    auto it = std::find(missing.begin(), missing.end(), older);
    if (it == missing.end()) continue;
    EXPECT_NE(reference.find(std::string("`") + older + "`"), std::string::npos) << older;
    missing.erase(it);
  }
  std::sort(missing.begin(), missing.end());
  missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
  std::string list;
  for (const auto& m : missing) list += "  " + m + "\n";
  EXPECT_TRUE(missing.empty()) << "keys the loader accepts with no example in docs/*.md:\n" << list;
}

}  // namespace
}  // namespace kaisha::config::docs_examples_test
