// The versioned JSON of a HiVA graph: round trips and every refusal, named
// by its path.
#include "runtime/hiva/graph/graph_json.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tests/runtime/hiva/graph/graph_fixture.hpp"

namespace kaisha::hiva {
namespace graph_json_test {

using fixture::agent_ids;
using fixture::graph_of;
using Ids = std::vector<std::string>;

// Every field away from its default, Japanese text included.
AgentGraph rich() {
  AgentGraph g = graph_of({"analyst_1", "検索"}, {{"source", "analyst_1"},
                                                  {"source", "検索"},
                                                  {"analyst_1", "aggregator"},
                                                  {"検索", "aggregator"},
                                                  {"analyst_1", "検索"}});
  GraphAgent& a = g.agent("analyst_1");
  a.role = "財務分析";
  a.prompt = "You analyse filings.\nQuote \"figures\".";
  a.prompt_version = 4;
  a.tool_code = "def tool_function(input_data, **kwargs):\n    return input_data\n";
  a.tool_description = "echo";
  a.tool_version = 2;
  a.alpha = 3.25;
  a.beta = 0.1;
  a.visits = 9;
  a.last_update = 7;
  a.last_gradient = "SYSTEM_PROMPT_FEEDBACK: cite sources.";
  a.created = 2;
  g.agent("検索").tool_version = 0;
  GraphEdge& e = *g.find_edge("analyst_1", "検索");
  e.synergy = 0.1 + 0.2;  // not exactly representable in short decimal
  e.alpha = 1e-3;
  e.beta = 12345.678;
  e.uses = 6;
  e.successes = 4;
  e.routed = 1;
  return g;
}

Error refusal(const json& j) {
  Result<AgentGraph> g = graph_from_json(j);
  if (g) return Error{"", "(accepted)"};
  return g.error();
}

TEST(HivaGraphJson, RoundTripsEveryFieldAndOrder) {
  const AgentGraph g = rich();
  Result<AgentGraph> back = graph_from_json(to_json(g));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_TRUE(*back == g);
  Result<AgentGraph> through_text = graph_from_json(json::parse(to_json(g).dump()));
  ASSERT_TRUE(through_text) << through_text.error().message;
  EXPECT_TRUE(*through_text == g);
}

TEST(HivaGraphJson, WritesTheDocumentedShape) {
  json j = to_json(AgentGraph::singleton(GraphAgent{}, GraphAgent{}));
  EXPECT_EQ(j["format"], "kaisha.hiva.graph");
  EXPECT_EQ(j["version"], 3);
  ASSERT_EQ(j["agents"].size(), 2u);
  EXPECT_EQ(j["agents"][0]["id"], "source");
  EXPECT_EQ(j["agents"][0].size(), 15u);
  EXPECT_EQ(j["agents"][0]["history"], json::array());
  EXPECT_EQ(j["agents"][0]["tool_versions"], json::array());
  EXPECT_EQ(j["agents"][0]["tool_version"], 1);
  ASSERT_EQ(j["edges"].size(), 1u);
  EXPECT_EQ(j["edges"][0], (json{{"from", "source"},
                                 {"to", "aggregator"},
                                 {"synergy", 0.0},
                                 {"alpha", 1.0},
                                 {"beta", 1.0},
                                 {"uses", 0},
                                 {"successes", 0},
                                 {"routed", 0}}));
}

TEST(HivaGraphJson, SourceAndAggregatorComeFirstWhateverTheFileOrder) {
  json j = to_json(graph_of({"a", "b"}, {{"source", "a"}, {"a", "b"}, {"b", "aggregator"}}));
  json agents = j["agents"];
  j["agents"] = json::array({agents[3], agents[1], agents[2], agents[0]});  // b, aggregator, a, source
  Result<AgentGraph> g = graph_from_json(j);
  ASSERT_TRUE(g) << g.error().message;
  EXPECT_EQ(agent_ids(*g), (Ids{"source", "aggregator", "b", "a"}));
}

TEST(HivaGraphJson, AGraphWithoutTheSourceToAggregatorEdgeStaysSo) {
  AgentGraph g = graph_of({"a"}, {{"source", "a"}, {"a", "aggregator"}});
  Result<AgentGraph> back = graph_from_json(to_json(g));
  ASSERT_TRUE(back);
  EXPECT_FALSE(back->has_edge("source", "aggregator"));
}

TEST(HivaGraphJson, ANewerVersionIsRefusedWithTheWayOut) {
  json j = to_json(rich());
  j["version"] = 4;
  j["something_new"] = true;  // a newer file may have more: the version speaks first
  Error e = refusal(j);
  EXPECT_EQ(e.code, "hiva_graph");
  EXPECT_EQ(e.message, "graph format version 4 is newer than this kaisha reads (3); upgrade kaisha");
}

TEST(HivaGraphJson, AnAgentsTaskHistoryRoundTripsAndAVersion1FileHasNone) {
  AgentGraph g = rich();
  GraphAgent& a = g.agent("source");
  remember_task(a, "Write add(a, b) 足し算", 1.0);
  remember_task(a, "Write mul(a, b)", 0.0);
  json j = to_json(g);
  EXPECT_EQ(
      j["agents"][0]["history"],
      json::parse(
          R"j([{"task": "Write add(a, b) 足し算", "success": 1.0}, {"task": "Write mul(a, b)", "success": 0.0}])j"));
  Result<AgentGraph> back = graph_from_json(j);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_TRUE(*back == g);

  // A version 1 file (written before histories were kept) reads with none.
  json v1 = to_json(rich());
  v1["version"] = 1;
  for (json& agent : v1["agents"]) {
    agent.erase("history");
    agent.erase("tool_versions");
  }
  Result<AgentGraph> old = graph_from_json(v1);
  ASSERT_TRUE(old) << old.error().message;
  EXPECT_TRUE(*old == rich());

  j["agents"][0]["history"][1]["success"] = 1.5;
  EXPECT_EQ(refusal(j).message, "agents[0].history[1].success: expected a number in [0, 1], got 1.5");
  j["agents"][0]["history"][1] = json{{"task", 3}, {"success", 1}};
  EXPECT_EQ(refusal(j).message, "agents[0].history[1].task: expected a string, got an integer");
  j["agents"][0]["history"] = "none";
  EXPECT_EQ(refusal(j).message, "agents[0].history: expected an array, got a string");
}

TEST(HivaGraphJson, ToolVersionsRoundTripTheCurrentCodeOnceAndAVersion2FileHasNone) {
  AgentGraph g = rich();
  GraphAgent& a = g.agent("analyst_1");
  const std::string v2 = a.tool_code;
  const std::string v3 = "def tool_function(input_data, **kwargs):\n    return input_data.upper()\n";
  const company::ToolVersion& now = register_tool_version(a, v3);
  EXPECT_EQ(now.version, 3);
  EXPECT_EQ(a.tool_version, 3);
  EXPECT_EQ(a.tool_code, v3);
  ASSERT_EQ(a.tool_versions.all().size(), 2u);
  EXPECT_EQ(a.tool_versions.all()[0].version, 2);  // the tool it had, kept
  EXPECT_EQ(a.tool_versions.all()[0].code, v2);
  json j = to_json(g);
  const json& written = j["agents"][2]["tool_versions"];
  ASSERT_EQ(written.size(), 2u) << j["agents"][2].dump();
  EXPECT_EQ(written[0], (json{{"version", 2}, {"code_hash", company::tool_code_hash(v2)}, {"code", v2}}));
  EXPECT_EQ(written[1], (json{{"version", 3}, {"code_hash", company::tool_code_hash(v3)}}));  // its code is tool_code
  Result<AgentGraph> back = graph_from_json(json::parse(j.dump()));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_TRUE(*back == g);

  // A version 2 file (before tool versions were kept) reads with none; the
  // next rewrite keeps its tool as the version before.
  json old = to_json(rich());
  old["version"] = 2;
  for (json& agent : old["agents"]) agent.erase("tool_versions");
  Result<AgentGraph> v2file = graph_from_json(old);
  ASSERT_TRUE(v2file) << v2file.error().message;
  EXPECT_TRUE(*v2file == rich());
  EXPECT_TRUE(v2file->agent("analyst_1").tool_versions.empty());

  json bad = j;
  bad["agents"][2]["tool_versions"][0]["code_hash"] = "0000000000000000";
  EXPECT_NE(refusal(bad).message.find("agents[2].tool_versions[0]: version 2: code_hash 0000000000000000 is not the "
                                      "hash of its code"),
            std::string::npos)
      << refusal(bad).message;
  bad = j;
  bad["agents"][2]["tool_version"] = 4;
  bad["agents"][2]["tool_versions"][1].erase("code_hash");
  EXPECT_EQ(refusal(bad).message, "agents[2].tool_versions[1].code_hash: expected a string");
  bad = j;
  bad["agents"][2]["tool_version"] = 4;
  EXPECT_EQ(refusal(bad).message, "agents[2].tool_versions: the last version is 3 but tool_version is 4");
}

TEST(HivaGraphJson, FittedKnowledgeWeightsRoundTripAndBadOnesAreNamed) {
  AgentGraph g = rich();
  EXPECT_FALSE(to_json(g).contains("knowledge_weights"));  // none fitted: the configured ones
  g.set_knowledge_weights({0.5, 0.5, 0.0, 0.0});
  json j = to_json(g);
  EXPECT_EQ(j["knowledge_weights"], json({0.5, 0.5, 0.0, 0.0}));
  Result<AgentGraph> back = graph_from_json(j);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_TRUE(*back == g);
  j["knowledge_weights"] = json({0.5, 0.5, 0.5, 0.0});
  EXPECT_EQ(refusal(j).message, "knowledge_weights: [0.5,0.5,0.5,0.0] sums to 1.5; the weights must sum to 1");
  j["knowledge_weights"] = json({0.5, 0.5, -0.5, 0.5});
  EXPECT_EQ(refusal(j).message, "knowledge_weights[2]: expected a number >= 0, got -0.5");
  j["knowledge_weights"] = json({1.0});
  EXPECT_EQ(refusal(j).message, "knowledge_weights: expected a list of four numbers, got [1.0]");
}

TEST(HivaGraphJson, RememberingATaskKeepsTheNewestRecordsAndCutsLongTexts) {
  GraphAgent a;
  for (size_t i = 0; i < kMaxTaskRecords + 3; ++i) remember_task(a, "task " + std::to_string(i), i % 2);
  ASSERT_EQ(a.history.size(), kMaxTaskRecords);
  EXPECT_EQ(a.history.front().task, "task 3");
  EXPECT_EQ(a.history.back().task, "task " + std::to_string(kMaxTaskRecords + 2));
  // Cut at a code point: "あ" is 3 bytes, so 299 bytes of "x" + 150 of them keep the "x"s only.
  std::string long_task(299, 'x');
  for (int i = 0; i < 150; ++i) long_task += "あ";
  remember_task(a, long_task, 1.0);
  EXPECT_EQ(a.history.back().task, std::string(299, 'x'));
}

TEST(HivaGraphJson, HeaderFaultsAreNamed) {
  EXPECT_EQ(refusal(json::array()).message, "graph: expected an object, got an array");
  json j = to_json(rich());
  j.erase("format");
  EXPECT_EQ(refusal(j).message, "format: missing");
  j["format"] = "kaisha.halo.tree";
  EXPECT_EQ(refusal(j).message, "format: expected \"kaisha.hiva.graph\", got \"kaisha.halo.tree\"");
  j["format"] = "kaisha.hiva.graph";
  j["version"] = 0;
  EXPECT_EQ(refusal(j).message, "version: expected an integer >= 1, got 0");
  j["version"] = "1";
  EXPECT_EQ(refusal(j).message, "version: expected an integer >= 1, got a string");
  j["version"] = 1;
  j["extra"] = 1;
  EXPECT_EQ(refusal(j).message, "extra: unknown field");
  j.erase("extra");
  j["agents"] = json::object();
  EXPECT_EQ(refusal(j).message, "agents: expected an array, got an object");
  j.erase("agents");
  EXPECT_EQ(refusal(j).message, "agents: missing");
}

struct FieldCase {
  std::string pointer;  // JSON pointer into to_json(rich())
  json value;           // null: remove the field
  std::string message;
};

TEST(HivaGraphJson, FieldFaultsAreNamedByTheirPath) {
  // rich(): agents source, aggregator, analyst_1, 検索; edges s→a1, s→検索,
  // a1→agg, 検索→agg, a1→検索.
  const std::vector<FieldCase> cases = {
      {"/agents/2/alpha", "x", "agents[2].alpha: expected a number > 0, got a string"},
      {"/agents/2/alpha", 0, "agents[2].alpha: expected a number > 0, got 0"},
      {"/agents/3/beta", -1.5, "agents[3].beta: expected a number > 0, got -1.5"},
      {"/agents/2/alpha", std::numeric_limits<double>::quiet_NaN(), "agents[2].alpha: expected a number > 0, got NaN"},
      {"/agents/2/beta", std::numeric_limits<double>::infinity(),
       "agents[2].beta: expected a number > 0, got an infinity"},
      {"/agents/0/prompt", nullptr, "agents[0].prompt: missing"},
      {"/agents/1/visits", 1.5, "agents[1].visits: expected an integer >= 0, got a number"},
      {"/agents/1/visits", -1, "agents[1].visits: expected an integer >= 0, got -1"},
      {"/agents/2/visits", 3000000000u, "agents[2].visits: expected an integer <= 2147483647, got 3000000000"},
      {"/agents/2/prompt_version", 0, "agents[2].prompt_version: expected an integer >= 1, got 0"},
      {"/agents/2/tool_version", -1, "agents[2].tool_version: expected an integer >= 0, got -1"},
      {"/agents/2/id", "", "agents[2].id: expected a non-empty string"},
      {"/agents/2/role", 7, "agents[2].role: expected a string, got an integer"},
      {"/agents/2/tool_code", json::array(), "agents[2].tool_code: expected a string, got an array"},
      {"/agents/2/colour", "red", "agents[2].colour: unknown field"},
      {"/agents/2", 5, "agents[2]: expected an object, got an integer"},
      {"/agents/3/id", "analyst_1", "agents[3].id: \"analyst_1\" is also the id of agents[2]"},
      {"/agents/1/id", "sink", "agents: no agent with id \"aggregator\""},
      {"/agents/0/id", "start", "agents: no agent with id \"source\""},
      {"/edges/0/synergy", -0.5, "edges[0].synergy: expected a number >= 0, got -0.5"},
      {"/edges/4/successes", 7, "edges[4].successes: 7 is more than the edge's uses (6)"},
      {"/edges/1/to", "zz", "edges[1]: edge \"source\" → \"zz\": no agent \"zz\""},
      {"/edges/1/from", nullptr, "edges[1].from: missing"},
      {"/edges/2/to", "検索", "edges[4]: edge \"analyst_1\" → \"検索\" already exists"},
      {"/edges/2/to", "analyst_1",
       "edges[2]: edge \"analyst_1\" → \"analyst_1\": an agent cannot be its own successor"},
      {"/edges/3/from", "aggregator",
       "edges[3]: edge \"aggregator\" → \"aggregator\": an agent cannot be its own successor"},
      {"/edges/3/to", "source", "edges[3]: edge \"検索\" → \"source\": the source has no predecessors"},
      {"/edges/4/from", "検索", "edges[4]: edge \"検索\" → \"検索\": an agent cannot be its own successor"},
      {"/edges/4", json::array(), "edges[4]: expected an object, got an array"},
      {"/edges/0/weight", 1, "edges[0].weight: unknown field"},
  };
  for (const FieldCase& c : cases) {
    json j = to_json(rich());
    json::json_pointer at(c.pointer);
    if (c.value.is_null())
      j[at.parent_pointer()].erase(at.back());
    else
      j[at] = c.value;
    EXPECT_EQ(refusal(j).message, c.message) << c.pointer;
  }
}

TEST(HivaGraphJson, ACycleIsRefused) {
  json j = to_json(rich());
  j["edges"].push_back({{"from", "検索"},
                        {"to", "analyst_1"},
                        {"synergy", 0},
                        {"alpha", 1},
                        {"beta", 1},
                        {"uses", 0},
                        {"successes", 0},
                        {"routed", 0}});
  EXPECT_EQ(refusal(j).message,
            "edges: the graph has a cycle: no topological order for \"aggregator\", \"analyst_1\", \"検索\"");
}

TEST(HivaGraphJson, ASixthSuccessorIsRefused) {
  AgentGraph g = graph_of({"a1", "a2", "a3", "a4", "a5", "a6"}, {});
  json j = to_json(g);
  for (int i = 1; i <= 6; ++i)
    j["edges"].push_back({{"from", "source"},
                          {"to", "a" + std::to_string(i)},
                          {"synergy", 0},
                          {"alpha", 1},
                          {"beta", 1},
                          {"uses", 0},
                          {"successes", 0},
                          {"routed", 0}});
  EXPECT_EQ(refusal(j).message,
            "edges[5]: edge \"source\" → \"a6\": \"source\" already has 5 successors, the most an agent may have");
}

TEST(HivaGraphJson, TextMustBeUtf8) {
  json j = to_json(rich());
  j["agents"][2]["prompt"] = std::string("bad \xC3\x28 byte");
  EXPECT_EQ(refusal(j).message, "agents[2].prompt: is not valid UTF-8");
  j = to_json(rich());
  j["agents"][2][std::string("\xFF")] = 1;
  EXPECT_EQ(refusal(j).message, "agents[2].\xEF\xBF\xBD: unknown field");
}

TEST(HivaGraphJson, ToolCodeIsNotJudgedHere) {
  AgentGraph g = rich();
  g.agent("analyst_1").tool_code = "import os\nos.system('rm -rf /')";
  Result<AgentGraph> back = graph_from_json(to_json(g));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->agent("analyst_1").tool_code, "import os\nos.system('rm -rf /')");
}

}  // namespace graph_json_test
}  // namespace kaisha::hiva
