// Ψ3, the historical mismatch, in HivaDriver (hiva.md §6.2): every agent that
// ran records (task, reward) in the graph at the update, and a later task's
// routing reads those records through the same embedder, so an agent that
// failed on this very task costs more than one that succeeded on it.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/hiva/hiva_driver.hpp"
#include "tests/runtime/hiva/hiva_script.hpp"

namespace kaisha::hiva::hiva_driver_history_test {
namespace {

using namespace driver_testing;

AgentGraph diamond() {
  return graph_of({"a", "b"}, {{"source", "a"}, {"source", "b"}, {"a", "aggregator"}, {"b", "aggregator"}});
}

TEST(HivaDriverHistory, EveryAgentThatRanRecordsTheTaskAndItsRewardAndTheOthersDoNot) {
  HivaSetup s = test_setup();
  s.settings.iterations = 1;
  s.settings.use_topology = false;
  s.settings.use_semantic = false;
  s.settings.routing.k = 1;  // the source picks one of a and b
  Script sc;
  sc.model["reward"] = [](const std::string& purpose, const std::string&) {
    return std::string(purpose == "reward source" ? "NEGATIVE" : "POSITIVE");
  };
  HivaDriver d(s, test_task(), diamond(), 0);
  Harness h(d, sc);
  h.start();
  h.run();
  ASSERT_TRUE(h.finish());
  const auto pass = h.events(event::forward_pass);
  ASSERT_EQ(pass.size(), 1u);
  const auto ran = pass[0]["executed"].get<std::vector<std::string>>();
  ASSERT_EQ(ran.size(), 3u);  // source, one of a and b, aggregator
  for (const GraphAgent& a : d.graph().agents()) {
    const bool did = std::find(ran.begin(), ran.end(), a.id) != ran.end();
    if (!did) {
      EXPECT_TRUE(a.history.empty()) << a.id;
      continue;
    }
    ASSERT_EQ(a.history.size(), 1u) << a.id;
    EXPECT_EQ(a.history[0].task, "What is 2 + 3?");
    EXPECT_EQ(a.history[0].success, a.id == "source" ? 0.0 : 1.0) << a.id;
  }
}

TEST(HivaDriverHistory, AnAgentThatFailedOnThisTaskCostsMoreByTheHandComputedPsi3) {
  // a and b alike but for their records on this very task: a succeeded
  // three times, b failed three times. Ψ1, Ψ2 and Ψ4 are the same for both,
  // so Dist(b) − Dist(a) = ln(1 + d_I) · ω3 · (Ψ3(b) − Ψ3(a)) = ln(1 + d_I) · 0.25 · (1 − 0).
  AgentGraph g = diamond();
  for (const char* id : {"a", "b"}) g.agent(id).prompt = "You are a careful arithmetic helper.";
  for (int i = 0; i < 3; ++i) {
    remember_task(g.agent("a"), "What is 2 + 3?", 1.0);
    remember_task(g.agent("b"), "What is 2 + 3?", 0.0);
  }
  remember_task(g.agent("b"), "Translate a poem into French", 1.0);  // not similar: not read
  HivaSetup s = test_setup();
  s.settings.routing.mode = ThetaMode::mean;  // θ = 1/2 for both: Dist decides
  s.settings.routing.k = 1;
  HivaDriver d(s, test_task(), g, 0);
  Harness h(d, Script{});
  h.start();
  h.run();
  const auto routed = h.events(event::routed);
  json source;
  for (const json& r : routed)
    if (r["agent"] == "source") source = r;
  ASSERT_TRUE(source.is_object());
  std::map<std::string, double> dist;
  for (const json& sc : source["scores"]) dist[sc["agent"].get<std::string>()] = sc["dist"].get<double>();
  auto task = task_profile_of("What is 2 + 3?", *s.knowledge, s.embed);
  ASSERT_TRUE(task.ok());
  EXPECT_NEAR(dist.at("b") - dist.at("a"), std::log1p(double(task->depth)) * 0.25, 1e-9);
  EXPECT_EQ(source["chosen"], json({"a"}));

  // Without records both cost the same (Ψ3 neutral for each).
  AgentGraph fresh = diamond();
  for (const char* id : {"a", "b"}) fresh.agent(id).prompt = "You are a careful arithmetic helper.";
  HivaDriver d2(s, test_task(), fresh, 0);
  Harness h2(d2, Script{});
  h2.start();
  h2.run();
  std::map<std::string, double> plain;
  for (const json& r : h2.events(event::routed))
    if (r["agent"] == "source")
      for (const json& sc : r["scores"]) plain[sc["agent"].get<std::string>()] = sc["dist"].get<double>();
  EXPECT_DOUBLE_EQ(plain.at("a"), plain.at("b"));
  EXPECT_NEAR(plain.at("a") - dist.at("a"), std::log1p(double(task->depth)) * 0.25 * 0.5, 1e-9);
}

}  // namespace
}  // namespace kaisha::hiva::hiva_driver_history_test
