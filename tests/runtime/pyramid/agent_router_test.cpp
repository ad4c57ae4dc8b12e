#include "runtime/pyramid/agent_router.hpp"

#include <gtest/gtest.h>

#include "runtime/memory/hashed_ngram_embedder.hpp"
#include "tests/runtime/pyramid/pyramid_test_util.hpp"

namespace kaisha::pyramid::agent_router_test {
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
)",
                                 "twins.yaml");
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

// Scores within the tolerance of the best are a tie, which Q decides; a
// score further ahead wins whatever its Q. The listing stays by score.
TEST(AgentRouter, ScoresWithinTheTieToleranceGoToTheHigherQuality) {
  auto lib = AgentLibrary::parse(R"(agents:
  - {name: near_a, level: 1, description: a, available_tools: []}
  - {name: near_b, level: 1, description: b, available_tools: []}
)",
                                 "near.yaml");
  ASSERT_TRUE(lib.ok()) << lib.error().message;
  std::map<std::string, memory::Vector> v{{"near_a", {1, 0}}, {"near_b", {0, 1}}};
  auto router = AgentRouter::create(*lib, v, 0.1, 0.01);
  ASSERT_TRUE(router.ok());
  const std::map<std::string, double> b_is_better{{"near_a", 0.2}, {"near_b", 0.9}};
  RouteDecision tie = router->decide({{"near_a", 0.505}, {"near_b", 0.5}}, "model", b_is_better);
  EXPECT_EQ(tie.agent, "near_b");
  EXPECT_DOUBLE_EQ(tie.score, 0.5);
  RouteDecision ahead = router->decide({{"near_a", 0.52}, {"near_b", 0.5}}, "model", b_is_better);
  EXPECT_EQ(ahead.agent, "near_a");
  // Three-way: a chain of near scores is measured from the best, not step by step.
  auto three = AgentLibrary::parse(R"(agents:
  - {name: x, level: 1, description: a, available_tools: []}
  - {name: y, level: 1, description: b, available_tools: []}
  - {name: z, level: 1, description: c, available_tools: []}
)",
                                   "three.yaml");
  ASSERT_TRUE(three.ok());
  auto r3 = AgentRouter::create(*three, {{"x", {1}}, {"y", {1}}, {"z", {1}}}, 0.1, 0.01);
  ASSERT_TRUE(r3.ok());
  RouteDecision chain = r3->decide({{"x", 0.60}, {"y", 0.592}, {"z", 0.584}}, "model", {{"z", 1.0}});
  EXPECT_EQ(chain.agent, "x");  // z is 0.016 behind the best: not a tie
  // The threshold is the best score's: a tie winner just below it still routes.
  auto high = AgentRouter::create(*lib, v, 0.503, 0.01);
  ASSERT_TRUE(high.ok());
  RouteDecision near_threshold = high->decide({{"near_a", 0.505}, {"near_b", 0.5}}, "model", b_is_better);
  EXPECT_FALSE(near_threshold.new_task);
  EXPECT_EQ(near_threshold.agent, "near_b");
}

// An agent never audited counts as the initial Q, not 0; an agent with
// candidate models as the best of its candidates' scores.
TEST(AgentRouter, RoutingQualityUsesTheInitialQAndTheBestCandidate) {
  auto lib = AgentLibrary::parse(R"(agents:
  - {name: judge_agent, level: -1, description: judges, available_tools: []}
  - {name: solo, level: 1, description: a, available_tools: []}
  - {name: fresh, level: 1, description: b, available_tools: []}
  - {name: many, level: 1, description: c, candidates: [m1, m2], available_tools: []}
)",
                                 "q.yaml");
  ASSERT_TRUE(lib.ok()) << lib.error().message;
  QualityScores q(0.8, 0.5);
  q.seed("solo", 0.3, 4);
  q.seed("many@m1", 0.2, 3);
  q.seed("many@m2", 0.7, 3);
  const auto r = AgentRouter::routing_quality(*lib, q);
  EXPECT_EQ(r, (std::map<std::string, double>{{"fresh", 0.5}, {"many", 0.7}, {"solo", 0.3}}));
  // A never-audited agent beats one audited below Q0 on a tie.
  std::map<std::string, memory::Vector> v{{"solo", {1}}, {"fresh", {1}}, {"many", {1}}};
  auto router = AgentRouter::create(*lib, v, 0.1);
  ASSERT_TRUE(router.ok());
  EXPECT_EQ(router->decide({{"solo", 0.8}, {"fresh", 0.8}}, "model", r).agent, "fresh");
}

TEST(AgentRouter, AMissingDescriptionVectorIsAnError) {
  Fixture f;
  auto v = f.vectors();
  v.erase("writer_agent");
  auto router = AgentRouter::create(f.lib, v, 0.2);
  ASSERT_FALSE(router.ok());
  EXPECT_NE(router.error().message.find("writer_agent"), std::string::npos);
}

// Item 13: a model's scores route alone (model) or averaged with the
// embedding's (both); the decision says how it was made, and the same
// answer routes the same way.
TEST(AgentRouter, AModelsScoresRouteAloneOrWithTheEmbedding) {
  Fixture f;
  auto router = AgentRouter::create(f.lib, f.vectors(), 0.2);
  ASSERT_TRUE(router.ok());
  RouteDecision by_embedding = router->route(f.embedder.embed_one("write python code and run the scripts"));
  ASSERT_EQ(by_embedding.agent, "code_builder_agent");
  const double embedding_score = by_embedding.score;

  auto scores = router->read_model_scores(
      "Here you are:\n```json\n{\"scores\": {\"planner_agent\": 0.9, \"code_builder_agent\": 0.6}}\n```");
  ASSERT_TRUE(scores.ok()) << scores.error().message;
  RouteDecision by_model = router->rescore(by_embedding, *scores, RouteMethod::model);
  EXPECT_EQ(by_model.agent, "planner_agent");
  EXPECT_EQ(by_model.method, "model");
  EXPECT_DOUBLE_EQ(by_model.score, 0.9);
  EXPECT_EQ(by_model.scores.back().second, 0.0);  // the agents the answer left out score 0
  EXPECT_EQ(router->rescore(by_embedding, *scores, RouteMethod::model).to_json(), by_model.to_json());

  RouteDecision by_both = router->rescore(by_embedding, *scores, RouteMethod::both);
  EXPECT_EQ(by_both.method, "both");
  double code_builder = -1;
  for (const auto& [name, s] : by_both.scores)
    if (name == "code_builder_agent") code_builder = s;
  EXPECT_NEAR(code_builder, (embedding_score + 0.6) / 2, 1e-12);
  EXPECT_EQ(router->rescore(by_embedding, *scores, RouteMethod::embedding).to_json(), by_embedding.to_json());

  // Every score low: the top agent takes it as a new task.
  RouteDecision low = router->rescore(by_embedding, {{"writer_agent", 0.1}}, RouteMethod::model);
  EXPECT_TRUE(low.new_task);
  EXPECT_EQ(low.agent, "idea_agent");
}

TEST(AgentRouter, AnUnusableModelAnswerSaysWhatIsWrong) {
  Fixture f;
  auto router = AgentRouter::create(f.lib, f.vectors(), 0.2);
  ASSERT_TRUE(router.ok());
  auto error_of = [&](const std::string& answer) {
    auto r = router->read_model_scores(answer);
    return r.ok() ? std::string("ok") : r.error().message;
  };
  EXPECT_NE(error_of("I would pick the coder.").find("JSON"), std::string::npos) << error_of("I would pick the coder.");
  EXPECT_NE(error_of(R"({"agent": "writer_agent"})").find("no \"scores\" object"), std::string::npos);
  EXPECT_EQ(error_of(R"({"scores": {"poet_agent": 0.9}})"), "scores.poet_agent: no such agent to route to");
  EXPECT_EQ(error_of(R"({"scores": {"judge_agent": 0.9}})"), "scores.judge_agent: no such agent to route to");
  EXPECT_EQ(error_of(R"({"scores": {"writer_agent": 7}})"),
            "scores.writer_agent: expected a number between 0 and 1, got 7");
  EXPECT_EQ(error_of(R"({"scores": {"writer_agent": "high"}})"),
            "scores.writer_agent: expected a number between 0 and 1, got \"high\"");
  EXPECT_EQ(error_of(R"({"scores": {}})"), "the answer scores no agent");
  EXPECT_EQ(error_of(R"({"scores": {"writer_agent": 1, "idea_agent": 0}})"), "ok");
}

TEST(AgentRouter, TheCandidatesAreListedForTheModelWithTheirLevels) {
  Fixture f;
  auto router = AgentRouter::create(f.lib, f.vectors(), 0.2);
  ASSERT_TRUE(router.ok());
  const std::string text = router->candidates_text();
  EXPECT_NE(text.find("- code_builder_agent (level 1): writes python code and runs scripts\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("- idea_agent (level 3): "), std::string::npos);
  EXPECT_EQ(text.find("judge_agent"), std::string::npos);
}

}  // namespace
}  // namespace kaisha::pyramid::agent_router_test
