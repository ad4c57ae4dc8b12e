#include "runtime/pyramid/agent_router.hpp"

#include <gtest/gtest.h>

#include "runtime/memory/hashed_ngram_embedder.hpp"
#include "tests/runtime/pyramid/pyramid_test_util.hpp"

namespace kaisha::pyramid {
namespace {

const char* kLibrary = R"(agents:
  - {name: judge_agent, level: -1, description: verifies results, available_tools: [file_read]}
  - {name: code_builder_agent, level: 1, description: writes python code and runs scripts, available_tools: [final_output]}
  - {name: writer_agent, level: 1, description: "writes prose, essays and poems about nature", available_tools: [final_output]}
  - {name: planner_agent, level: 2, description: plans projects and designs software architecture, available_tools: [code_builder_agent, writer_agent]}
  - {name: idea_agent, level: 3, description: research idea generation and paper writing, available_tools: [planner_agent]}
)";

struct Fixture {
  AgentLibrary lib = value_or_throw(AgentLibrary::parse(kLibrary, "lib.yaml"));
  memory::HashedNgramEmbedder embedder{384};
  std::map<std::string, memory::Vector> vectors() const {
    std::map<std::string, memory::Vector> v;
    for (const auto& a : lib.agents())
      if (a.level >= 1) v[a.name] = embedder.embed_one(AgentRouter::description_text(a));
    return v;
  }
};

// infiagent.md §10 item 12: a leaf whose description matches is chosen
// directly, with no descent through the planners.
TEST(AgentRouter, AQueryGoesStraightToTheBestMatchingAgentAtAnyLevel) {
  Fixture f;
  auto router = AgentRouter::create(f.lib, f.vectors(), 0.2);
  ASSERT_TRUE(router.ok()) << router.error().message;
  EXPECT_EQ(router->top(), "idea_agent");
  RouteDecision d = router->route(f.embedder.embed_one("write python code and run the scripts"));
  EXPECT_EQ(d.agent, "code_builder_agent");
  EXPECT_FALSE(d.new_task);
  ASSERT_EQ(d.scores.size(), 4u);  // the judge is never a route
  EXPECT_EQ(d.scores.front().first, "code_builder_agent");
  EXPECT_GT(d.scores[0].second, d.scores[1].second);
  // Deterministic: the same query routes the same way.
  EXPECT_EQ(router->route(f.embedder.embed_one("write python code and run the scripts")).to_json(), d.to_json());
}

// Item 14: below the threshold the top agent takes it as a new task.
TEST(AgentRouter, AnUnmatchedQueryGoesToTheTopAsANewTask) {
  Fixture f;
  auto router = AgentRouter::create(f.lib, f.vectors(), 0.9);
  ASSERT_TRUE(router.ok());
  RouteDecision d = router->route(f.embedder.embed_one("量子もつれの実験装置を較正する"));
  EXPECT_EQ(d.agent, "idea_agent");
  EXPECT_TRUE(d.new_task);
  EXPECT_EQ(d.to_json()["new_task"], true);
}

// Item 15: equal scores go to the higher Q.
TEST(AgentRouter, EqualScoresGoToTheHigherQuality) {
  auto lib = AgentLibrary::parse(R"(agents:
  - {name: twin_a, level: 1, description: same words, available_tools: []}
  - {name: twin_b, level: 1, description: same words, available_tools: []}
)", "twins.yaml");
  ASSERT_TRUE(lib.ok()) << lib.error().message;
  memory::HashedNgramEmbedder e(64);
  std::map<std::string, memory::Vector> v{{"twin_a", e.embed_one("same words")}, {"twin_b", e.embed_one("same words")}};
  auto router = AgentRouter::create(*lib, v, 0.1);
  ASSERT_TRUE(router.ok());
  const auto q = e.embed_one("same words");
  EXPECT_EQ(router->route(q, {{"twin_a", 0.4}, {"twin_b", 0.9}}).agent, "twin_b");
  EXPECT_EQ(router->route(q, {{"twin_a", 0.9}, {"twin_b", 0.4}}).agent, "twin_a");
  EXPECT_EQ(router->route(q).agent, "twin_a");  // no Q: the name decides, the same way every time
}

TEST(AgentRouter, AMissingDescriptionVectorIsAnError) {
  Fixture f;
  auto v = f.vectors();
  v.erase("writer_agent");
  auto router = AgentRouter::create(f.lib, v, 0.2);
  ASSERT_FALSE(router.ok());
  EXPECT_NE(router.error().message.find("writer_agent"), std::string::npos);
}

}  // namespace
}  // namespace kaisha::pyramid
