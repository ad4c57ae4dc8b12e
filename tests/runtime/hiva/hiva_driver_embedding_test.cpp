// HivaDriver with a provider's embedder (HivaSetup::embed null): the texts
// the routing compares are embedded through RunTool hiva.embed before each
// forward pass, the vectors that come back are the ones the knowledge cost
// uses, texts already embedded are not asked for again, and a failed
// embedding is a journaled problem, not the end of the task.
#include <gtest/gtest.h>

#include "runtime/hiva/hiva_driver.hpp"
#include "tests/runtime/hiva/hiva_script.hpp"

namespace kaisha::hiva::hiva_driver_embedding_test {
namespace {

using namespace driver_testing;

AgentGraph diamond() {
  return graph_of({"a", "b"}, {{"source", "a"}, {"source", "b"}, {"a", "aggregator"}, {"b", "aggregator"}});
}

// hiva.embed answered with the built-in embedder's vectors, as a provider
// would answer with its own.
Script embedding_script() {
  Script sc;
  const auto fallback = sc.tool;
  sc.tool = [fallback](const RunTool& t) {
    if (t.tool != kEmbedTool) return fallback(t);
    const json args = json::parse(t.arguments);
    json vectors = json::array();
    for (const json& text : args["texts"]) vectors.push_back(shipped_embed()(text.get<std::string>()));
    return company::ToolResult::success("embedded", json{{"vectors", vectors}});
  };
  return sc;
}

// Every routed event's scores, by "router->candidate".
std::map<std::string, double> dists(const Harness& h) {
  std::map<std::string, double> out;
  for (const json& r : h.events(event::routed))
    for (const json& s : r["scores"])
      out[r["agent"].get<std::string>() + "->" + s["agent"].get<std::string>()] = s["dist"];
  return out;
}

TEST(HivaDriverEmbedding, TheTaskAndTheAgentsAreEmbeddedInOneCallBeforeTheForwardPassAndTheirVectorsAreUsed) {
  HivaSetup remote = test_setup();
  remote.embed = nullptr;
  HivaDriver d(remote, test_task(), diamond(), 0);
  Harness h(d, embedding_script());
  h.start();
  // Nothing is hired or asked before the vectors are back.
  ASSERT_EQ(h.effects.size(), 1u);
  ASSERT_EQ(h.tools(kEmbedTool).size(), 1u);
  EXPECT_EQ(json::parse(h.tools(kEmbedTool)[0].arguments)["texts"],
            json({"What is 2 + 3?", "You are agent source of the team.", "You are agent aggregator of the team.",
                  "You are agent a of the team.", "You are agent b of the team."}));
  h.run();
  ASSERT_TRUE(h.finish());
  EXPECT_TRUE(h.finish()->ok);
  EXPECT_EQ(h.tools(kEmbedTool).size(), 1u);

  // The same routing as with the embedder in process: the vectors are the ones used.
  HivaDriver local(test_setup(), test_task(), diamond(), 0);
  Harness l(local, Script{});
  l.start();
  l.run();
  ASSERT_FALSE(dists(l).empty());
  EXPECT_EQ(dists(h), dists(l));
  EXPECT_TRUE(l.tools(kEmbedTool).empty());  // the built-in embedder answers in process
}

TEST(HivaDriverEmbedding, ANextIterationEmbedsOnlyThePromptsTheSemanticUpdateRewrote) {
  HivaSetup remote = test_setup();
  remote.embed = nullptr;
  remote.settings.iterations = 2;
  remote.settings.use_topology = false;
  HivaDriver d(remote, test_task(), diamond(), 0);
  Harness h(d, embedding_script());
  h.start();
  h.run();
  ASSERT_TRUE(h.finish());
  // Iterations 1 and 2 need vectors; the third forward pass is not run (the
  // task ends after its second update), so two calls.
  const auto embeds = h.tools(kEmbedTool);
  ASSERT_EQ(embeds.size(), 2u);
  const json second = json::parse(embeds[1].arguments).at("texts");
  ASSERT_FALSE(second.empty());
  for (const json& t : second) {
    EXPECT_TRUE(contains(t.get<std::string>(), "Be precise.")) << t;  // only rewritten prompts
    EXPECT_NE(t, "What is 2 + 3?");
  }
}

TEST(HivaDriverEmbedding, AFailedEmbeddingIsAProblemAndTheTaskStillAnswers) {
  HivaSetup remote = test_setup();
  remote.embed = nullptr;
  Script sc;
  const auto fallback = sc.tool;
  sc.tool = [fallback](const RunTool& t) {
    if (t.tool == kEmbedTool) return company::ToolResult::error("hiva.embed: embedding model openai:e: HTTP 503");
    return fallback(t);
  };
  HivaDriver d(remote, test_task(), diamond(), 0);
  Harness h(d, sc);
  h.start();
  h.run();
  EXPECT_EQ(h.tools(kEmbedTool).size(), 1u);  // not asked again within the task
  bool said = false;
  for (const json& p : h.events(event::problem))
    said |= p["call"] == "embed" && contains(p["problem"].get<std::string>(), "HTTP 503");
  EXPECT_TRUE(said);
  ASSERT_TRUE(h.finish());
  EXPECT_TRUE(h.finish()->ok);
  EXPECT_EQ(h.finish()->text, "FINAL ANSWER");
}

}  // namespace
}  // namespace kaisha::hiva::hiva_driver_embedding_test
