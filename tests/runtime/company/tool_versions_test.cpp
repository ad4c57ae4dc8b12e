// Tool versions: new code is the next version and the old one is kept with
// its hash; the same code registers nothing; the bound forgets the oldest
// but the numbering goes on; the JSON form reads back, and a broken entry is
// named by its path. Tool metadata: categories by origin and their names.
#include <gtest/gtest.h>

#include "runtime/company/tool_metadata.hpp"
#include "runtime/company/tool_versions.hpp"

namespace kaisha::company {
namespace {

TEST(ToolVersions, NewCodeIsTheNextVersionAndTheOldOneIsKept) {
  ToolVersions v;
  EXPECT_EQ(v.latest(), nullptr);
  EXPECT_EQ(v.add("def tool_function(x): return 1").version, 1);
  EXPECT_EQ(v.add("def tool_function(x): return 2").version, 2);
  ASSERT_EQ(v.all().size(), 2u);
  EXPECT_EQ(v.find(1)->code, "def tool_function(x): return 1");
  EXPECT_EQ(v.find(1)->code_hash, tool_code_hash("def tool_function(x): return 1"));
  EXPECT_NE(v.find(1)->code_hash, v.find(2)->code_hash);
  EXPECT_EQ(v.latest()->version, 2);
}

TEST(ToolVersions, TheLatestCodeAgainRegistersNothing) {
  ToolVersions v;
  v.add("a");
  EXPECT_EQ(v.add("a").version, 1);
  EXPECT_EQ(v.all().size(), 1u);
  // Code seen before, but not the latest: a new version all the same.
  v.add("b");
  EXPECT_EQ(v.add("a").version, 3);
}

TEST(ToolVersions, FirstVersionIsTheCallersWhenNoneWasRegistered) {
  ToolVersions v;
  EXPECT_EQ(v.add("x", 4).version, 4);
  EXPECT_EQ(v.add("y", 9).version, 5);
}

TEST(ToolVersions, BoundForgetsTheOldestAndNumberingGoesOn) {
  ToolVersions v(3);
  for (int i = 0; i < 5; ++i) v.add("code " + std::to_string(i));
  ASSERT_EQ(v.all().size(), 3u);
  EXPECT_EQ(v.all().front().version, 3);
  EXPECT_EQ(v.latest()->version, 5);
  EXPECT_EQ(v.find(1), nullptr);
}

TEST(ToolVersions, JsonRoundTripsAndBrokenEntriesAreNamed) {
  ToolVersions v;
  v.add("one");
  v.add("two");
  auto back = ToolVersions::from_json(v.to_json(), "tools.X");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, v);

  json bad = v.to_json();
  bad[1]["code_hash"] = "0000000000000000";
  auto r = ToolVersions::from_json(bad, "tools.X");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("tools.X[1]"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("not the hash of its code"), std::string::npos) << r.error().message;

  json backwards = v.to_json();
  std::swap(backwards[0], backwards[1]);
  r = ToolVersions::from_json(backwards, "tools.X");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("does not come after"), std::string::npos) << r.error().message;

  r = ToolVersions::from_json(json::array({json{{"version", "1"}}}), "tools.X");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("tools.X[0].version: expected an integer"), std::string::npos) << r.error().message;
}

TEST(ToolVersions, HashIsTheToolIndexHash) {
  // The tool index's content_hash of "" (its basis): hashes on disk stay valid.
  EXPECT_EQ(tool_code_hash(""), "14650fb0739d0383");
  EXPECT_EQ(tool_code_hash("x").size(), 16u);
}

TEST(ToolMetadata, CategoriesByOriginAndNames) {
  EXPECT_EQ(category_of_origin("builtin"), ToolCategory::builtin);
  EXPECT_EQ(category_of_origin("user"), ToolCategory::created);
  EXPECT_EQ(category_of_origin("mcp:github"), ToolCategory::mcp);
  EXPECT_EQ(category_of_origin("hiva"), ToolCategory::strategy);
  for (ToolCategory c :
       {ToolCategory::builtin, ToolCategory::sandbox, ToolCategory::created, ToolCategory::mcp, ToolCategory::strategy})
    EXPECT_EQ(parse_tool_category(tool_category_name(c)), c);
  EXPECT_EQ(parse_tool_category("python"), std::nullopt);
  ToolMetadata m{ToolCategory::created, 3, "abc", 10000};
  EXPECT_EQ(m.to_json(), (json{{"category", "created"}, {"version", 3}, {"code_hash", "abc"}, {"timeout_ms", 10000}}));
  EXPECT_EQ(ToolMetadata{}.to_json(), (json{{"category", "builtin"}, {"version", 1}}));
}

}  // namespace
}  // namespace kaisha::company
