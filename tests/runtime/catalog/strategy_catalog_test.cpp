#include "runtime/catalog/strategy_catalog.hpp"

#include <set>

#include <gtest/gtest.h>

#include "runtime/config/config_loader.hpp"

namespace kaisha::strategy {
namespace {

using nlohmann::json;

std::string plain(const json& v) { return v.dump(); }

TEST(StrategyCatalog, NamesComeFromTheEntriesInOrder) {
  EXPECT_EQ(strategy_names(), (std::vector<std::string>{"hashiru", "effgen", "pyramid", "halo", "hiva", "auto"}));
  EXPECT_EQ(strategy_names_text(), "hashiru, effgen, pyramid, halo, hiva or auto");
  ASSERT_NE(find_strategy("effgen"), nullptr);
  EXPECT_EQ(find_strategy("effgen")->config_section, "effgen");
  ASSERT_NE(find_strategy("pyramid"), nullptr);
  EXPECT_EQ(find_strategy("pyramid")->config_section, "pyramid");
  ASSERT_NE(find_strategy("halo"), nullptr);
  EXPECT_EQ(find_strategy("halo")->config_section, "halo");
  EXPECT_EQ(find_strategy("no-such-strategy"), nullptr);
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
    if (!s.config_section.empty()) {
      EXPECT_TRUE(sections.insert(s.config_section).second) << s.config_section;
    }
  }
}

TEST(StrategyCatalog, EffgenSummarisesItsMetadata) {
  json m = {{"strategy", "effgen"},
            {"routing_strategy", "parallel"},
            {"num_subtasks", 3},
            {"num_sub_agents", 2},
            {"speedup", 1.5},
            {"judge_calls", 1},
            {"prompt_tokens_original", 120},
            {"prompt_tokens_optimized", 80},
            {"fallback", false}};
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

msg::ProgressEvent event(msg::EventKind kind, std::string text, json data = json::object()) {
  msg::ProgressEvent e;
  e.agent = "Planner";
  e.kind = kind;
  e.text = std::move(text);
  e.data = std::move(data);
  return e;
}

TEST(StrategyCatalog, EachStrategysOwnEventIsRenderedByExactlyOneEntry) {
  for (const auto& k : msg::event_kinds()) {
    if (k.kind == msg::EventKind::strategy) continue;  // rendered by the entry its data names (below)
    int owners = 0;
    for (const auto& s : strategies())
      if (s.render && !s.render(event(k.kind, "x"), plain).empty()) ++owners;
    const int expected = k.group == msg::EventGroup::strategy ? 1 : 0;
    EXPECT_EQ(owners, expected) << k.name << (expected ? " must be rendered by one strategy" : " is the printer's");
  }
}

TEST(StrategyCatalog, EffgenRendersItsPlanSubtasksAndRoutingFactors) {
  EXPECT_EQ(render_event(event(msg::EventKind::plan, "3 subtasks, parallel"), plain),
            "[Planner] plan: 3 subtasks, parallel\n");
  // A subtask line is one line, cut at a character boundary.
  std::string long_text = "第一行\n" + std::string(300, 'x');
  std::string line = render_event(event(msg::EventKind::subtask, long_text), plain);
  EXPECT_EQ(line.rfind("  ◦ 第一行 x", 0), 0u) << line;
  EXPECT_EQ(line.find('\n'), line.size() - 1);
  json routing = {{"score", {{"factors", {{"length", 0.5}}}}}};
  EXPECT_EQ(render_event(event(msg::EventKind::routing, "decompose"), plain), "[Planner] routing: decompose\n");
  EXPECT_EQ(render_event(event(msg::EventKind::routing, "decompose", routing), plain),
            "[Planner] routing: decompose\n    factors: length=0.5\n");
  // Data of the wrong shape never throws.
  EXPECT_EQ(render_event(event(msg::EventKind::routing, "r", json{{"score", 3}}), plain), "[Planner] routing: r\n");
  EXPECT_EQ(render_event(event(msg::EventKind::routing, "r", json::array()), plain), "[Planner] routing: r\n");
}

TEST(StrategyCatalog, HashiruRendersItsMemoriesAndNothingGeneric) {
  EXPECT_EQ(render_event(event(msg::EventKind::memories, "two memories\nrecalled"), plain),
            "[Planner] two memories recalled\n");
  EXPECT_EQ(render_event(event(msg::EventKind::hire, "Poet"), plain), "");
}

TEST(StrategyCatalog, PyramidRendersEachCandidatesBranch) {
  json branches =
      json::array({{{"branch", "f1-1"},
                    {"model", "ollama:qwen3:1.7b"},
                    {"status", "error"},
                    {"error_information", "書けない"},
                    {"changes", {{"added", {"a.md"}}, {"modified", json::array()}, {"removed", json::array()}}},
                    {"merged", false}},
                   {{"branch", "f1-2"},
                    {"model", "openai:gpt-4o"},
                    {"status", "success"},
                    {"changes", {{"added", {"a.md", "b.md"}}, {"modified", {"c.md"}}, {"removed", json::array()}}},
                    {"merged", true}}});
  EXPECT_EQ(render_event(event(msg::EventKind::branches, "writer: 2 candidate branches, merged openai:gpt-4o",
                               json{{"branches", branches}}),
                         plain),
            "[Planner] branches: writer: 2 candidate branches, merged openai:gpt-4o\n"
            "    f1-1 ollama:qwen3:1.7b: error (書けない), 1 added, 0 modified, 0 removed\n"
            "    f1-2 openai:gpt-4o: success, 2 added, 1 modified, 0 removed, merged\n");
}

}  // namespace
}  // namespace kaisha::strategy

namespace kaisha::strategy::strategy_switches_test {
namespace {

// Every switch an entry declares is one its config key sets: a config file
// turning each one off loads, and a misspelt one is refused.
TEST(StrategySwitches, EachDeclaredSwitchIsAConfigKey) {
  size_t switches = 0;
  for (const StrategyInfo& s : strategies()) {
    for (const StrategySwitch& w : s.switches) {
      ++switches;
      const auto dot = w.config_key.find('.');
      ASSERT_NE(dot, std::string::npos) << w.config_key;
      const std::string yaml = w.config_key.substr(0, dot) + ":\n  " + w.config_key.substr(dot + 1) + ": " +
                               (w.on ? "false" : "true") + "\n";
      auto c = config::parse_config(yaml, "switch.yaml");
      EXPECT_TRUE(c.ok()) << s.name << " " << w.name << ": " << (c.ok() ? "" : c.error().message);
      EXPECT_FALSE(w.help.empty()) << w.name;
    }
  }
  EXPECT_GE(switches, 8u);  // hashiru's eight at least
  EXPECT_FALSE(config::parse_config("switches:\n  memroy: false\n", "switch.yaml").ok());
}

}  // namespace
}  // namespace kaisha::strategy::strategy_switches_test
