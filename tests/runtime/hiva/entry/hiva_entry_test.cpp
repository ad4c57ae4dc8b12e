// HiVA's catalog entry: the hiva: section read into HivaSettings (the
// paper's defaults, every key, each wrong value refused where it is
// written), the configuration example of docs/hiva.md, its switches, the
// transcript lines of its events and the tree built from a task's journal.
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "runtime/core/data_paths.hpp"
#include "runtime/hiva/entry/hiva_entry.hpp"
#include "runtime/hiva/entry/hiva_settings_reader.hpp"
#include "runtime/hiva/entry/hiva_view.hpp"
#include "runtime/messages/strategy_event.hpp"

namespace kaisha::hiva::hiva_entry_test {
namespace {

Result<HivaSettings> read(const std::string& yaml) {
  auto doc = config::parse_yaml(yaml, "config.yaml");
  if (!doc) return doc.error();
  return read_hiva_settings((*doc)["hiva"], config::YamlReader("config.yaml"));
}

std::string error_of(const std::string& yaml) {
  auto h = read(yaml);
  EXPECT_FALSE(h.ok()) << yaml;
  return h.ok() ? std::string() : h.error().message;
}

TEST(HivaSettingsReader, NoSectionGivesThePapersDefaults) {
  auto h = read("strategy: hiva\n");
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_EQ(h->iterations, 0);
  EXPECT_EQ(h->seed, 42u);
  EXPECT_EQ(h->routing.k, 2);
  EXPECT_EQ(h->routing.mode, ThetaMode::thompson);
  EXPECT_DOUBLE_EQ(h->bandit.decay, 0.6);
  EXPECT_DOUBLE_EQ(h->prune_below, 0.3);
  EXPECT_DOUBLE_EQ(h->parallelizability_threshold, 0.5);
  EXPECT_DOUBLE_EQ(h->prompt_weight, 0.7);
  EXPECT_DOUBLE_EQ(h->instruction.temperature, 1.0);
  EXPECT_EQ(h->instruction.max_tokens, 1000);
  EXPECT_DOUBLE_EQ(h->code.temperature, 0.3);
  EXPECT_TRUE(h->use_kabb && h->use_semantic && h->use_topology && h->use_environment);
}

TEST(HivaSettingsReader, ReadsEveryKey) {
  auto h = read(
      "hiva:\n"
      "  model: openai:gpt-4o-mini\n"
      "  agent_model: ollama:qwen3:8b\n"
      "  iterations: 3\n"
      "  graph: コーダー\n"
      "  save_as: coders\n"
      "  task_set: tasks.jsonl\n"
      "  seed: 7\n"
      "  use_kabb: false\n"
      "  use_semantic: false\n"
      "  use_topology: false\n"
      "  use_environment: false\n"
      "  top_k: 3\n"
      "  routing: mean\n"
      "  lambda: 0.5\n"
      "  eta: 2\n"
      "  knowledge_graph: kg.json\n"
      "  decay: 0.9\n"
      "  decay_is_gamma: true\n"
      "  delta: 0.25\n"
      "  rho_overlap: 0.5\n"
      "  synergy_rate: 0.2\n"
      "  prune_below: 0.4\n"
      "  parallelizability_threshold: 0.6\n"
      "  prompt_weight: 1\n"
      "  max_model_calls: 100\n"
      "  max_usd: 0.5\n"
      "  tool_timeout_s: 5\n"
      "  tool_retries: 0\n");
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_EQ(h->model, "openai:gpt-4o-mini");
  EXPECT_EQ(h->agent_model, "ollama:qwen3:8b");
  EXPECT_EQ(h->iterations, 3);
  EXPECT_EQ(h->graph, "コーダー");
  EXPECT_EQ(h->save_as, "coders");
  EXPECT_EQ(h->task_set, "tasks.jsonl");
  EXPECT_EQ(h->seed, 7u);
  EXPECT_FALSE(h->use_kabb || h->use_semantic || h->use_topology || h->use_environment);
  EXPECT_EQ(h->routing.k, 3);
  EXPECT_EQ(h->routing.mode, ThetaMode::mean);
  EXPECT_DOUBLE_EQ(h->routing.lambda, 0.5);
  EXPECT_DOUBLE_EQ(h->routing.eta, 2);
  EXPECT_EQ(h->knowledge_graph, "kg.json");
  EXPECT_DOUBLE_EQ(h->bandit.decay, 0.9);
  EXPECT_TRUE(h->bandit.decay_is_gamma);
  EXPECT_DOUBLE_EQ(h->bandit.delta, 0.25);
  EXPECT_DOUBLE_EQ(h->bandit.rho_overlap, 0.5);
  EXPECT_DOUBLE_EQ(h->bandit.synergy_rate, 0.2);
  EXPECT_DOUBLE_EQ(h->prune_below, 0.4);
  EXPECT_DOUBLE_EQ(h->parallelizability_threshold, 0.6);
  EXPECT_DOUBLE_EQ(h->prompt_weight, 1);
  EXPECT_EQ(h->max_model_calls, 100);
  EXPECT_DOUBLE_EQ(h->max_usd, 0.5);
  EXPECT_EQ(h->tool_timeout_s, 5);
  EXPECT_EQ(h->tool_retries, 0);
}

TEST(HivaSettingsReader, AWrongValueIsRefusedWhereItIsWritten) {
  EXPECT_EQ(error_of("hiva:\n  top_k: 0\n"), "config.yaml:2: hiva.top_k: expected an integer >= 1, got 0");
  EXPECT_EQ(error_of("hiva:\n  iterations: -1\n"), "config.yaml:2: hiva.iterations: expected an integer >= 0, got -1");
  EXPECT_NE(error_of("hiva:\n  routing: greedy\n").find("hiva.routing"), std::string::npos);
  EXPECT_NE(error_of("hiva:\n  prune_below: 1.5\n").find("config.yaml:2: hiva.prune_below"), std::string::npos);
  EXPECT_NE(error_of("hiva:\n  decay: 2\n  decay_is_gamma: true\n").find("hiva.decay"), std::string::npos);
  const std::string typo = error_of("hiva:\n  use_kab: false\n");
  EXPECT_NE(typo.find("unknown key 'use_kab'"), std::string::npos) << typo;
  EXPECT_NE(typo.find("use_kabb"), std::string::npos) << typo;
}

TEST(HivaSettingsReader, PastTasksPsi3ReadsAreConfigurable) {
  auto h = read("hiva:\n  history_k: 3\n");
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_EQ(h->knowledge.history_k, 3);
  EXPECT_EQ(read("strategy: hiva\n")->knowledge.history_k, 5);
  EXPECT_EQ(error_of("hiva:\n  history_k: 0\n"), "config.yaml:2: hiva.history_k: expected an integer >= 1, got 0");
}

TEST(HivaSettingsReader, KnowledgeWeightsAreFourNumbersAtLeastZeroSummingToOne) {
  auto h = read("hiva:\n  knowledge_weights: [0.4, 0.3, 0.2, 0.1]\n  fit_weights_min_outcomes: 50\n");
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_EQ(h->knowledge.weights, (std::array<double, 4>{0.4, 0.3, 0.2, 0.1}));
  EXPECT_EQ(h->fit_weights_min_outcomes, 50u);
  auto d = read("strategy: hiva\n");
  EXPECT_EQ(d->knowledge.weights, (std::array<double, 4>{0.25, 0.25, 0.25, 0.25}));
  EXPECT_EQ(d->fit_weights_min_outcomes, 30u);
  EXPECT_EQ(error_of("hiva:\n  seed: 1\n  knowledge_weights: [0.5, 0.5, 0.5, 0]\n"),
            "config.yaml:3: hiva.knowledge_weights: the four weights sum to 1.5; they must sum to 1");
  EXPECT_EQ(error_of("hiva:\n  knowledge_weights:\n    - 0.5\n    - 0.75\n    - -0.25\n    - 0\n"),
            "config.yaml:5: hiva.knowledge_weights[2]: expected a number >= 0, got -0.25");
  EXPECT_EQ(error_of("hiva:\n  knowledge_weights: [1]\n"),
            "config.yaml:2: hiva.knowledge_weights: expected a list of four numbers (ω1..ω4 of Ψ1..Ψ4), e.g. [0.25, "
            "0.25, 0.25, 0.25]");
  EXPECT_NE(error_of("hiva:\n  knowledge_weights: [a, 0, 0, 1]\n").find("config.yaml:2: hiva.knowledge_weights[0]"),
            std::string::npos);
  EXPECT_EQ(error_of("hiva:\n  fit_weights_min_outcomes: -1\n"),
            "config.yaml:2: hiva.fit_weights_min_outcomes: expected an integer >= 0, got -1");
}

// The configuration block of docs/hiva.md is a config a user may copy.
TEST(HivaSettingsReader, TheDocsPageExampleLoads) {
  std::ifstream f(data_file("docs/hiva.md"));
  ASSERT_TRUE(f.good());
  std::stringstream all;
  all << f.rdbuf();
  const std::string page = all.str();
  const size_t start = page.find("```yaml\nstrategy: hiva\n");
  ASSERT_NE(start, std::string::npos);
  const size_t body = start + 8;
  const std::string yaml = page.substr(body, page.find("```", body) - body);
  auto h = read(yaml);
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_EQ(h->model, "openai:gpt-4o-mini");
}

TEST(HivaEntry, DeclaresThePapersFourAblationsAsConfigKeys) {
  const strategy::StrategyInfo info = catalog_entry();
  EXPECT_EQ(info.name, "hiva");
  EXPECT_EQ(info.config_section, "hiva");
  ASSERT_EQ(info.switches.size(), 4u);
  for (const auto& w : info.switches) {
    EXPECT_EQ(w.config_key, "hiva." + w.name);
    auto off = read("hiva:\n  " + w.name + ": false\n");
    EXPECT_TRUE(off.ok()) << w.name;
  }
  EXPECT_EQ(info.events.size(), 13u);
}

TEST(HivaEntry, RendersItsOwnEventsOnly) {
  msg::ProgressEvent e;
  e.agent = "HiVA";
  e.text = "source -> aggregator, 検証係 🔍";
  e.data = msg::strategy_event_data("hiva", "routed", json::object());
  EXPECT_EQ(strategy::render_hiva_event(e, nullptr), "[HiVA] routed: source -> aggregator, 検証係 🔍\n");
  e.data = msg::strategy_event_data("halo", "routed", json::object());
  EXPECT_EQ(strategy::render_hiva_event(e, nullptr), "");
  EXPECT_EQ(strategy::summarise_hiva_result(json{{"strategy", "hiva"},
                                                 {"exit", "done"},
                                                 {"first_iteration", 2},
                                                 {"last_iteration", 4},
                                                 {"agents", 5},
                                                 {"model_calls", 41}},
                                            nullptr),
            "hiva: done, iterations 2-4, 5 agents, 41 model calls");
  EXPECT_EQ(strategy::summarise_hiva_result(json{{"strategy", "halo"}}, nullptr), "");
}

strategy::TaskStep note(json payload, int64_t tokens_in = 0) {
  strategy::TaskStep s;
  s.kind = "note";
  s.payload = std::move(payload);
  s.tokens_in = tokens_in;
  return s;
}

TEST(HivaTree, ShowsEachIterationsGraphWithTheRoutedEdgesMarked) {
  strategy::TaskRecord task;
  task.id = "t-1";
  task.input = "川";
  json graph{{"agents", json::array({{{"id", "source"}, {"role", "source"}},
                                     {{"id", "aggregator"}, {"role", "aggregator"}},
                                     {{"id", "checker_1"}, {"role", "検証係"}},
                                     {{"id", "idle_1"}, {"role", "unused"}}})},
             {"edges", json::array({{{"from", "source"}, {"to", "checker_1"}},
                                    {{"from", "source"}, {"to", "idle_1"}},
                                    {{"from", "checker_1"}, {"to", "aggregator"}},
                                    {{"from", "idle_1"}, {"to", "aggregator"}}})}};
  json pass = msg::strategy_event_data(
      "hiva", "forward_pass",
      json{{"iteration", 1},
           {"graph", graph},
           {"executed", json::array({"source", "checker_1", "aggregator"})},
           {"skipped", json::array({"idle_1"})},
           {"routed", json::array({json::array({"source", "checker_1"}), json::array({"checker_1", "aggregator"})})},
           {"answer", "答え"}});
  strategy::TaskStep call;
  call.kind = "llm_response";
  call.tokens_in = 7;
  std::vector<strategy::TaskStep> steps{call, note(pass)};
  std::string text = strategy::render_tree_text(strategy::hiva_tree(task, steps));
  EXPECT_NE(text.find("iteration 1: 答え"), std::string::npos) << text;
  EXPECT_NE(text.find("source (source) -> checker_1*, idle_1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("idle_1 (unused) -> aggregator [skipped]"), std::string::npos) << text;
  EXPECT_NE(text.find("checker_1 (検証係) -> aggregator*"), std::string::npos) << text;
  // The graph as the dashboard draws it: each agent keyed, the edges into it, the routed ones marked.
  const json j = strategy::tree_to_json(strategy::hiva_tree(task, steps));
  const json& agents = j["children"][0]["children"];
  ASSERT_EQ(agents.size(), 4u) << j.dump();
  EXPECT_EQ(agents[0]["key"], "source");
  EXPECT_FALSE(agents[0].contains("after"));
  EXPECT_EQ(agents[1]["key"], "aggregator");
  EXPECT_EQ(agents[1]["after"], json::array({"checker_1", "idle_1"}));
  EXPECT_EQ(agents[1]["routed"], json::array({"checker_1"}));
  EXPECT_EQ(agents[3]["after"], json::array({"source"}));
  EXPECT_FALSE(agents[3].contains("routed"));
  // Garbage in the journal never throws.
  std::vector<strategy::TaskStep> bad{note(msg::strategy_event_data("hiva", "forward_pass", json{{"graph", 3}})),
                                      note(json::array({1, 2}))};
  EXPECT_NO_THROW(strategy::hiva_tree(task, bad));
}

}  // namespace
}  // namespace kaisha::hiva::hiva_entry_test
