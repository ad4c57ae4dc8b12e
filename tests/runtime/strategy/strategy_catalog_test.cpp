#include "runtime/strategy/strategy_catalog.hpp"

#include <set>

#include <gtest/gtest.h>

namespace kaisha::strategy {
namespace {

using nlohmann::json;

std::string plain(const json& v) { return v.dump(); }

TEST(StrategyCatalog, NamesComeFromTheEntriesInOrder) {
  EXPECT_EQ(strategy_names(), (std::vector<std::string>{"hashiru", "effgen", "auto"}));
  EXPECT_EQ(strategy_names_text(), "hashiru, effgen or auto");
  ASSERT_NE(find_strategy("effgen"), nullptr);
  EXPECT_EQ(find_strategy("effgen")->config_section, "effgen");
  EXPECT_EQ(find_strategy("pyramid"), nullptr);
  EXPECT_EQ(find_strategy(""), nullptr);
}

TEST(StrategyCatalog, EveryStrategyRunsOnStrategiesThatRunThemselves) {
  std::set<std::string> sections;
  for (const auto& s : strategies()) {
    ASSERT_FALSE(s.runs_on.empty()) << s.name;
    EXPECT_FALSE(s.help.empty()) << s.name;
    for (const auto& r : s.runs_on) {
      const StrategyInfo* runner = find_strategy(r);
      ASSERT_NE(runner, nullptr) << s.name << " runs on unknown " << r;
      EXPECT_EQ(runner->runs_on, std::vector<std::string>{r}) << r << " must run its own tasks";
    }
    if (!s.config_section.empty()) EXPECT_TRUE(sections.insert(s.config_section).second) << s.config_section;
  }
}

TEST(StrategyCatalog, EffgenSummarisesItsMetadata) {
  json m = {{"strategy", "effgen"}, {"routing_strategy", "parallel"}, {"num_subtasks", 3},
            {"num_sub_agents", 2},   {"speedup", 1.5},                {"judge_calls", 1},
            {"prompt_tokens_original", 120}, {"prompt_tokens_optimized", 80}, {"fallback", false}};
  EXPECT_EQ(summarise_result(m, plain),
            "effgen: parallel, 3 subtasks on 2 workers, speedup 1.5, judge calls 1, prompt tokens 120 -> 80");
  m["fallback"] = true;
  EXPECT_NE(summarise_result(m, plain).find(", fell back to one agent"), std::string::npos);
}

TEST(StrategyCatalog, MetadataOfAnyShapeNeverThrows) {
  EXPECT_EQ(summarise_result(json(), plain), "");
  EXPECT_EQ(summarise_result(json::array({1, 2}), plain), "");
  EXPECT_EQ(summarise_result(json{{"strategy", 7}}, plain), "");
  EXPECT_EQ(summarise_result(json{{"strategy", "nonesuch"}}, plain), "");
  EXPECT_EQ(summarise_result(json{{"strategy", "hashiru"}}, plain), "");  // nothing to say
  // Wrong types in effgen's fields read as their defaults.
  std::string line = summarise_result(json{{"strategy", "effgen"}, {"num_subtasks", "many"}, {"fallback", 3}}, plain);
  EXPECT_EQ(line.rfind("effgen: ?, 0 subtasks", 0), 0u) << line;
}

}  // namespace
}  // namespace kaisha::strategy
