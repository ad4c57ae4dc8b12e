// HivaDriver's evolution steps (hiva.md §4, §6.3, §6.5, §7, §8, §14 items
// 13-17 and 21): the backward pass, rewards and posteriors, the semantic and
// topological updates, the per-iteration snapshots, and the same run
// whatever order concurrent replies arrive in.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "runtime/hiva/graph/graph_diff.hpp"
#include "runtime/hiva/graph/graph_json.hpp"
#include "runtime/hiva/hiva_driver.hpp"
#include "runtime/hiva/routing/bandit_update.hpp"
#include "tests/runtime/hiva/hiva_script.hpp"

namespace kaisha::hiva::hiva_driver_evolution_test {
namespace {

using namespace driver_testing;

Script::ModelReply always(std::string text) {
  return [text](const std::string&, const std::string&) { return text; };
}

std::vector<std::string> purposes_starting(const Harness& h, const std::string& prefix) {
  std::vector<std::string> out;
  for (const CallModel& c : h.all<CallModel>())
    if (c.purpose.rfind(prefix, 0) == 0) out.push_back(c.purpose);
  return out;
}

// The Dist a routing event gave `candidate`.
// The Dist `router` gave `candidate` (in `iteration`, when given: Ψ3 makes
// it change as the agents' records grow).
double dist_in(const std::vector<json>& routed, const std::string& router, const std::string& candidate,
               int iteration = 0) {
  for (const json& r : routed)
    if (r["agent"] == router && (iteration == 0 || r["iteration"] == iteration))
      for (const json& s : r["scores"])
        if (s["agent"] == candidate) return s["dist"].get<double>();
  ADD_FAILURE() << "no score for " << router << " -> " << candidate;
  return 0;
}

TEST(HivaDriverBackward, GradientsFlowBackAlongAChainEachWithItsSuccessorsFeedback) {
  HivaSetup s = test_setup();
  s.settings.iterations = 1;
  HivaDriver d(s, test_task(), graph_of({"a", "b"}, {{"source", "a"}, {"a", "b"}, {"b", "aggregator"}}), 0);
  Harness h(d, Script{});
  h.start();
  h.run();
  EXPECT_EQ(purposes_starting(h, "agent feedback"),
            (std::vector<std::string>{"agent feedback b", "agent feedback a", "agent feedback source"}));
  EXPECT_LT(h.when("answer call system feedback"), h.when("emit call agent feedback b"));
  EXPECT_LT(h.when("answer call agent feedback b"), h.when("emit call agent feedback a"));
  EXPECT_LT(h.when("answer call agent feedback a"), h.when("emit call agent feedback source"));
  const std::string b = h.prompts("agent feedback b").at(0);
  const std::string a = h.prompts("agent feedback a").at(0);
  const std::string src = h.prompts("agent feedback source").at(0);
  EXPECT_TRUE(contains(b, "SYSFB fix the final answer")) << b;
  EXPECT_TRUE(contains(b, "Current Agent Output: OUT of hiva-b"));
  EXPECT_TRUE(contains(b, "Current Agent Role: You are agent b of the team."));
  EXPECT_TRUE(contains(a, "SPF-b"));
  EXPECT_TRUE(contains(a, "OVF-b"));
  EXPECT_FALSE(contains(a, "SYSFB")) << a;  // only its own successor's
  EXPECT_TRUE(contains(src, "SPF-a"));
  EXPECT_FALSE(contains(src, "SPF-b")) << src;
  // Each agent's gradient is the one it was given.
  EXPECT_TRUE(contains(d.graph().agent("a").last_gradient, "SPF-a"));
  EXPECT_TRUE(contains(d.graph().agent("aggregator").last_gradient, "SYSFB"));
  std::vector<std::string> gradients;
  for (const json& g : h.events(event::gradient)) gradients.push_back(g["agent"]);
  EXPECT_EQ(gradients, (std::vector<std::string>{"aggregator", "b", "a", "source"}));
  ASSERT_TRUE(h.finish());
  EXPECT_TRUE(h.finish()->ok);
  EXPECT_EQ(h.finish()->text, "FINAL ANSWER");
}

TEST(HivaDriverBandit, RewardsFromTheClassifierMoveThePosteriorsAsUpdateArmAndUpdateEdgeSay) {
  HivaSetup s = test_setup();
  s.settings.iterations = 2;
  s.settings.use_semantic = false;
  s.settings.use_topology = false;
  Script sc;
  sc.model["reward a"] = always("Classification: **CRITICAL**");
  sc.model["reward aggregator"] = always("NEUTRAL");
  HivaDriver d(s, test_task(), graph_of({"a"}, {{"source", "a"}, {"a", "aggregator"}}), 0);
  Harness h(d, sc);
  h.start();
  h.run();
  ASSERT_TRUE(h.finish());
  ASSERT_TRUE(h.finish()->ok);
  std::map<std::string, int> rewards;
  for (const json& r : h.events(event::reward)) rewards[r["agent"]] = r["reward"];
  EXPECT_EQ(rewards, (std::map<std::string, int>{{"source", 1}, {"a", 0}, {"aggregator", 1}}));
  const auto iterations = h.events(event::iteration);
  ASSERT_EQ(iterations.size(), 2u);
  EXPECT_EQ(iterations[0]["rewards"], (json{{"source", 1.0}, {"a", 0.0}, {"aggregator", 1.0}}));

  const auto routed = h.events(event::routed);
  const BanditSettings& b = s.settings.bandit;
  auto arm = [&](const std::string& id, const std::string& router, double r) {
    Posterior p;
    for (int t = 1; t <= 2; ++t) {
      const double synergy = 1.0 - std::clamp(dist_in(routed, router, id, t), 0.0, 1.0);
      auto next = update_arm(p, ArmFeedback{true, r, synergy}, t, b);
      EXPECT_TRUE(next.ok());
      p = *next;
    }
    return p;
  };
  const Posterior pa = arm("a", "source", 0.0);
  const Posterior pg = arm("aggregator", "a", 1.0);
  EXPECT_NEAR(d.graph().agent("a").alpha, pa.alpha, 1e-12);
  EXPECT_NEAR(d.graph().agent("a").beta, pa.beta, 1e-12);
  EXPECT_NEAR(d.graph().agent("aggregator").alpha, pg.alpha, 1e-12);
  EXPECT_NEAR(d.graph().agent("aggregator").beta, pg.beta, 1e-12);
  EXPECT_EQ(d.graph().agent("a").last_update, 2);
  EXPECT_EQ(d.graph().agent("a").visits, 2);
  // A critical gradient lowers the mean, a neutral one raises it.
  EXPECT_LT(pa.alpha / (pa.alpha + pa.beta), 0.5);
  EXPECT_GT(pg.alpha / (pg.alpha + pg.beta), 0.5);

  // Each edge, routed once per iteration, rewarded by its downstream agent,
  // decays over one iteration at a time.
  auto edge = [&](double r) {
    EdgeState e;
    for (int t = 1; t <= 2; ++t) {
      auto next = update_edge(e, EdgeFeedback{1.0, r}, t, b);
      EXPECT_TRUE(next.ok());
      e = *next;
      e.posterior.updated_at = t;
    }
    return e;
  };
  const EdgeState ea = edge(0.0), eg = edge(1.0);
  const GraphEdge* sa = d.graph().find_edge("source", "a");
  const GraphEdge* ag = d.graph().find_edge("a", "aggregator");
  ASSERT_TRUE(sa && ag);
  EXPECT_NEAR(sa->alpha, ea.posterior.alpha, 1e-12);
  EXPECT_NEAR(sa->beta, ea.posterior.beta, 1e-12);
  EXPECT_NEAR(sa->synergy, ea.synergy, 1e-12);
  EXPECT_NEAR(ag->alpha, eg.posterior.alpha, 1e-12);
  EXPECT_NEAR(ag->beta, eg.posterior.beta, 1e-12);
  EXPECT_NEAR(ag->synergy, eg.synergy, 1e-12);
  EXPECT_EQ(sa->uses, 2);
  EXPECT_EQ(sa->successes, 0);
  EXPECT_EQ(ag->successes, 2);
}

TEST(HivaDriverSemantic, APromptUpdateBumpsTheVersionAndTheNextIterationAsksWithIt) {
  HivaSetup s = test_setup();
  s.settings.iterations = 2;
  s.settings.use_topology = false;
  s.settings.prompt_weight = 1;
  HivaDriver d(s, test_task(), singleton_graph(), 0);
  Harness h(d, Script{});
  h.start();
  h.run();
  const auto asks = h.asks("hiva-source");
  ASSERT_EQ(asks.size(), 2u);
  EXPECT_EQ(first_system(asks[0].messages), "You are agent source of the team.");
  EXPECT_EQ(first_system(asks[1].messages), "You are agent source of the team. Be precise.");
  EXPECT_EQ(first_system(h.asks("hiva-aggregator").at(1).messages),
            "You are agent aggregator of the team. Be precise.");
  EXPECT_EQ(d.graph().agent("source").prompt_version, 3);
  EXPECT_EQ(d.graph().agent("source").prompt, "You are agent source of the team. Be precise. Be precise.");
  EXPECT_EQ(h.events(event::prompt_updated).size(), 4u);
  EXPECT_EQ(h.hired().size(), 2u);  // hired once, asked with each prompt
  // The rewrite is asked with the agent's SYSTEM_PROMPT_FEEDBACK.
  EXPECT_TRUE(contains(h.prompts("prompt update source").at(0), "Gradients: SPF-source"));

  // w/o SEV: nothing is rewritten.
  s.settings.use_semantic = false;
  HivaDriver frozen(s, test_task(), singleton_graph(), 0);
  Harness h2(frozen, Script{});
  h2.start();
  h2.run();
  EXPECT_TRUE(h2.calls("prompt update").empty());
  EXPECT_TRUE(h2.calls("tool").empty());
  EXPECT_EQ(frozen.graph().agent("source").prompt_version, 1);
  EXPECT_EQ(first_system(h2.asks("hiva-source").at(1).messages), "You are agent source of the team.");
}

AgentGraph tooled_singleton() {
  AgentGraph g = singleton_graph();
  GraphAgent& src = g.agent("source");
  src.tool_code = "def tool_function(input_data, **kwargs):\n    return 42\n";
  src.tool_description = "answers 42";
  src.tool_version = 1;
  return g;
}

struct ToolRun {
  AgentGraph graph;
  std::vector<json> rejected, updated;
  std::vector<RunTool> validations;
  std::vector<std::string> tool_prompts;
  size_t source_prompt_updates = 0;
};

ToolRun run_tool_update(const AgentGraph& g, double prompt_weight, const std::string& code_reply,
                        bool validation_ok = true) {
  HivaSetup s = test_setup();
  s.settings.iterations = 1;
  s.settings.use_topology = false;
  s.settings.prompt_weight = prompt_weight;
  Script sc;
  sc.model["agent feedback source"] = always(agent_feedback_reply("source", "handle zero"));
  sc.model["tool"] = always(code_reply);
  sc.tool = [validation_ok](const RunTool& t) {
    if (t.tool == kValidateTool)
      return validation_ok ? company::ToolResult::success("valid")
                           : company::ToolResult::error("SyntaxError: invalid syntax (line 2)");
    return company::ToolResult::success("ran", "TOOL RESULT 42");
  };
  HivaDriver d(s, test_task(), g, 0);
  Harness h(d, sc);
  h.start();
  h.run();
  EXPECT_TRUE(h.finish() && h.finish()->ok);
  return ToolRun{d.graph(),
                 h.events(event::tool_rejected),
                 h.events(event::tool_updated),
                 h.tools(kValidateTool),
                 h.prompts("tool source"),
                 h.calls("prompt update source").size()};
}

TEST(HivaDriverSemantic, AToolThatImportsOsIsRejectedWithoutTheSandboxAndTheOldToolStays) {
  const AgentGraph g = tooled_singleton();
  const ToolRun r = run_tool_update(
      g, 0, "```python\nimport os\ndef tool_function(input_data, **kwargs):\n    return os.getcwd()\n```");
  ASSERT_EQ(r.tool_prompts.size(), 1u);
  // Fig. 13: the refinement sees the current code and the TOOL_FEEDBACK.
  EXPECT_TRUE(contains(r.tool_prompts[0], "return 42"));
  EXPECT_TRUE(contains(r.tool_prompts[0], "(Textual Gradient):** handle zero"));
  EXPECT_EQ(r.source_prompt_updates, 0u);
  ASSERT_EQ(r.rejected.size(), 1u);
  EXPECT_EQ(r.rejected[0]["agent"], "source");
  EXPECT_TRUE(contains(r.rejected[0]["error"], "os")) << r.rejected[0];
  EXPECT_TRUE(r.validations.empty());
  EXPECT_TRUE(r.updated.empty());
  EXPECT_EQ(r.graph.agent("source").tool_code, g.agent("source").tool_code);
  EXPECT_EQ(r.graph.agent("source").tool_version, 1);
}

TEST(HivaDriverSemantic, AValidToolGoesThroughTheSandboxAndBumpsTheVersion) {
  const AgentGraph g = tooled_singleton();
  const ToolRun r = run_tool_update(g, 0, kValidTool);
  ASSERT_EQ(r.validations.size(), 1u);
  const std::string code = json::parse(r.validations[0].arguments)["code"];
  EXPECT_TRUE(contains(code, "def tool_function(input_data, **kwargs):"));
  EXPECT_TRUE(contains(code, "upper()"));
  EXPECT_TRUE(r.rejected.empty());
  ASSERT_EQ(r.updated.size(), 1u);
  EXPECT_EQ(r.updated[0]["version"], 2);
  EXPECT_EQ(r.graph.agent("source").tool_code, code);
  EXPECT_EQ(r.graph.agent("source").tool_version, 2);
  EXPECT_EQ(r.graph.agent("source").tool_description, "answers 42");
  // Registered as the next version, the one before kept with its hash.
  const company::ToolVersions& versions = r.graph.agent("source").tool_versions;
  ASSERT_EQ(versions.all().size(), 2u);
  EXPECT_EQ(versions.all()[0].version, 1);
  EXPECT_EQ(versions.all()[0].code, g.agent("source").tool_code);
  EXPECT_EQ(versions.all()[1].code_hash, company::tool_code_hash(code));
  EXPECT_EQ(r.updated[0]["code_hash"], company::tool_code_hash(code));
  EXPECT_EQ(r.updated[0]["previous_hash"], company::tool_code_hash(g.agent("source").tool_code));

  // The sandbox refusing it keeps the old tool.
  const ToolRun refused = run_tool_update(g, 0, kValidTool, false);
  EXPECT_EQ(refused.validations.size(), 1u);
  ASSERT_EQ(refused.rejected.size(), 1u);
  EXPECT_TRUE(contains(refused.rejected[0]["error"], "SyntaxError"));
  EXPECT_EQ(refused.graph.agent("source").tool_version, 1);
  EXPECT_EQ(refused.graph.agent("source").tool_code, g.agent("source").tool_code);
  EXPECT_TRUE(refused.graph.agent("source").tool_versions.empty());

  // prompt_weight 1: the prompt is rewritten, the tool left alone.
  const ToolRun prompt = run_tool_update(g, 1, kValidTool);
  EXPECT_TRUE(prompt.tool_prompts.empty());
  EXPECT_EQ(prompt.source_prompt_updates, 1u);
  EXPECT_EQ(prompt.graph.agent("source").tool_version, 1);
  EXPECT_EQ(prompt.graph.agent("source").prompt_version, 2);
}

TEST(HivaDriverSemantic, AnAgentWithoutAToolGetsOneSynthesisedFromItsToolFeedback) {
  const ToolRun r = run_tool_update(singleton_graph(), 0, kValidTool);
  ASSERT_EQ(r.tool_prompts.size(), 1u);
  EXPECT_TRUE(contains(r.tool_prompts[0], "**Tool Description:** handle zero")) << r.tool_prompts[0];
  ASSERT_EQ(r.validations.size(), 1u);
  EXPECT_EQ(r.graph.agent("source").tool_version, 1);
  EXPECT_EQ(r.graph.agent("source").tool_description, "handle zero");
  EXPECT_TRUE(contains(r.graph.agent("source").tool_code, "upper()"));
}

struct TopologyRun {
  AgentGraph graph;
  std::vector<json> edits, problems, passes;
  size_t parallelizability_calls = 0, topology_calls = 0, new_agent_calls = 0;
  std::string topology_prompt;
};

TopologyRun run_topology(const std::string& parallel, const std::string& decision, bool use_topology = true) {
  HivaSetup s = test_setup();
  s.settings.iterations = 1;
  s.settings.use_semantic = false;
  s.settings.use_topology = use_topology;
  Script sc;
  sc.model["parallelizability"] = always(parallel);
  sc.model["topology"] = always(decision);
  HivaDriver d(s, test_task(), singleton_graph(), 0);
  Harness h(d, sc);
  h.start();
  h.run();
  EXPECT_TRUE(h.finish() && h.finish()->ok);
  TopologyRun r{
      d.graph(), h.events(event::topology_edit), h.events(event::problem), h.events(event::forward_pass), 0, 0, 0, ""};
  r.parallelizability_calls = h.calls("parallelizability").size();
  r.topology_calls = h.calls("topology").size();
  r.new_agent_calls = h.calls("new agent for").size();
  if (!h.prompts("topology").empty()) r.topology_prompt = h.prompts("topology")[0];
  return r;
}

TEST(HivaDriverTopology, AParallelizableAddParallelAddsAnAgentAfterTheIteration) {
  const TopologyRun r = run_topology(kHighParallel, "ADD_PARALLEL: Data retrieval agent");
  EXPECT_EQ(r.parallelizability_calls, 1u);  // the source's; the aggregator never edits
  EXPECT_EQ(r.topology_calls, 1u);
  EXPECT_EQ(r.new_agent_calls, 1u);
  EXPECT_TRUE(contains(r.topology_prompt, "Task Parallelizability: 0.")) << r.topology_prompt;
  EXPECT_TRUE(contains(r.topology_prompt, "Successor Count: 1 (at most 5)"));
  // The pass itself ran on the old graph.
  ASSERT_EQ(r.passes.size(), 1u);
  EXPECT_EQ(r.passes[0]["graph"]["agents"].size(), 2u);
  ASSERT_EQ(r.graph.agents().size(), 3u);
  const GraphAgent& added = r.graph.agents()[2];
  EXPECT_EQ(added.role, "Data retrieval agent");
  EXPECT_EQ(added.prompt, "You are a new helper of source.");
  EXPECT_EQ(added.created, 1);
  EXPECT_TRUE(r.graph.has_edge("source", added.id));
  EXPECT_TRUE(r.graph.has_edge(added.id, "aggregator"));
  EXPECT_TRUE(r.graph.has_edge("source", "aggregator"));
  ASSERT_EQ(r.edits.size(), 1u);
  EXPECT_EQ(r.edits[0]["op"], "ADD_PARALLEL");
  EXPECT_EQ(r.edits[0]["applied"], true);
  EXPECT_EQ(r.edits[0]["added_agents"], json({added.id}));
}

TEST(HivaDriverTopology, ALowParallelizabilityAddParallelIsJournaledNotApplied) {
  const TopologyRun r = run_topology(kLowParallel, "ADD_PARALLEL: Data retrieval agent");
  EXPECT_EQ(r.new_agent_calls, 0u);
  EXPECT_EQ(r.graph.agents().size(), 2u);
  ASSERT_EQ(r.edits.size(), 1u);
  EXPECT_EQ(r.edits[0]["op"], "ADD_PARALLEL");
  EXPECT_EQ(r.edits[0]["applied"], false);
  EXPECT_TRUE(contains(r.edits[0]["reason"], "parallelizability")) << r.edits[0];
}

TEST(HivaDriverTopology, WithoutTopologyNoTopologyCallIsMadeAndTheGraphKeepsItsShape) {
  const TopologyRun r = run_topology(kHighParallel, "ADD_PARALLEL: Data retrieval agent", false);
  EXPECT_EQ(r.parallelizability_calls, 0u);
  EXPECT_EQ(r.topology_calls, 0u);
  EXPECT_EQ(r.new_agent_calls, 0u);
  EXPECT_TRUE(r.edits.empty());
  EXPECT_EQ(r.graph.agents().size(), 2u);
  EXPECT_EQ(r.graph.edges().size(), 1u);
}

TEST(HivaDriverTopology, AMalformedDecisionIsNoChangeWithAProblem) {
  const TopologyRun r = run_topology(kHighParallel, "I think we should maybe grow the team somehow");
  EXPECT_EQ(r.new_agent_calls, 0u);
  EXPECT_EQ(r.graph.agents().size(), 2u);
  ASSERT_EQ(r.edits.size(), 1u);
  EXPECT_EQ(r.edits[0]["op"], "NO_CHANGE");
  bool found = false;
  for (const json& p : r.problems) found |= p["call"] == "topology source";
  EXPECT_TRUE(found);
}

TEST(HivaDriverBackward, FailedModelCallsInTheBackwardPassFallBackToTheDefaultsAndTheIterationEnds) {
  HivaSetup s = test_setup();
  s.settings.iterations = 1;
  Script sc;
  sc.model["parallelizability"] = always(kHighParallel);
  sc.model["topology"] = always("ADD_PARALLEL: Data retrieval agent");
  sc.call_fails = [](const CallModel& c) {
    return c.purpose.rfind("reward ", 0) == 0 || c.purpose.rfind("topology ", 0) == 0 ||
           c.purpose.rfind("prompt update ", 0) == 0;
  };
  HivaDriver d(s, test_task(), singleton_graph(), 0);
  Harness h(d, sc);
  h.start();
  h.run();
  ASSERT_TRUE(h.finish());
  EXPECT_TRUE(h.finish()->ok);
  EXPECT_EQ(h.finish()->text, "FINAL ANSWER");
  // A failed reward is 1 (no evidence of failure); a failed decision is
  // NO_CHANGE; a failed rewrite leaves the prompt.
  for (const json& r : h.events(event::reward)) EXPECT_EQ(r["reward"], 1) << r;
  EXPECT_EQ(h.events(event::reward).size(), 2u);
  EXPECT_EQ(d.graph().agents().size(), 2u);
  EXPECT_EQ(d.graph().agent("source").prompt_version, 1);
  EXPECT_EQ(d.graph().agent("aggregator").prompt_version, 1);
  std::set<std::string> journaled;
  for (const json& p : h.events(event::problem)) journaled.insert(p["call"]);
  for (const char* call : {"reward source", "reward aggregator", "topology source", "prompt update source"})
    EXPECT_TRUE(journaled.count(call)) << call;
  EXPECT_EQ(h.events(event::iteration).size(), 1u);
}

TEST(HivaDriverSnapshots, TheSnapshotsRebuildTheEvolutionAndTheLastIsTheFinalGraph) {
  HivaSetup s = test_setup();
  s.settings.iterations = 2;
  s.settings.save_as = "evo";
  Script sc;
  sc.model["parallelizability source"] = always(kHighParallel);
  sc.model["topology source"] = always("ADD_SERIAL: Checker agent");
  const AgentGraph start = singleton_graph();
  HivaDriver d(s, test_task(), start, 0);
  Harness h(d, sc);
  h.start();
  h.run();
  ASSERT_TRUE(h.finish());
  EXPECT_TRUE(h.finish()->ok);
  const auto saves = h.all<SaveState>();
  const auto iterations = h.events(event::iteration);
  ASSERT_EQ(saves.size(), 2u);
  ASSERT_EQ(iterations.size(), 2u);
  AgentGraph previous = start;
  for (size_t i = 0; i < saves.size(); ++i) {
    const int t = static_cast<int>(i) + 1;
    EXPECT_EQ(saves[i].key, "graph/evo");
    EXPECT_EQ(saves[i].change, "iteration " + std::to_string(t));
    EXPECT_EQ(saves[i].value["iteration"], t);
    EXPECT_EQ(saves[i].value["task"], "t1");
    EXPECT_EQ(iterations[i]["iteration"], t);
    EXPECT_EQ(iterations[i]["graph"], saves[i].value["graph"]);
    auto g = graph_from_json(saves[i].value["graph"]);
    ASSERT_TRUE(g.ok()) << g.error().message;
    // Δs_t: what changed between snapshots t-1 and t, prompts included.
    const json diff = to_json(diff_graphs(previous, *g));
    EXPECT_EQ(saves[i].value["diff"], diff) << "iteration " << t;
    EXPECT_EQ(iterations[i]["diff"], diff) << "iteration " << t;
    EXPECT_FALSE(diff["prompts_changed"].empty()) << diff;
    EXPECT_FALSE(diff["agents_added"].empty()) << diff;
    previous = std::move(g).value();
  }
  EXPECT_EQ(saves.back().value["graph"], to_json(d.graph()));
  EXPECT_EQ(h.finish()->metadata["graph"], to_json(d.graph()));
  EXPECT_EQ(h.finish()->metadata["saved_as"], "evo");
  EXPECT_EQ(h.finish()->metadata["iterations"].size(), 2u);
  EXPECT_EQ(d.graph().agents().size(), 4u);  // two checkers, one per iteration
}

TEST(HivaDriverSnapshots, AGraphSavedAtIterationFiveGoesOnAtSix) {
  HivaSetup s = test_setup();
  s.settings.iterations = 1;
  s.settings.save_as = "evo";
  HivaDriver d(s, test_task(), singleton_graph(), 5);
  Harness h(d, Script{});
  h.start();
  h.run();
  const auto saves = h.all<SaveState>();
  ASSERT_EQ(saves.size(), 1u);
  EXPECT_EQ(saves[0].change, "iteration 6");
  EXPECT_EQ(h.events(event::iteration).at(0)["iteration"], 6);
  for (const json& r : h.events(event::routed)) EXPECT_EQ(r["iteration"], 6);
  EXPECT_EQ(h.asks("hiva-source").at(0).job, "hiva i6 source");
  ASSERT_TRUE(h.finish());
  EXPECT_EQ(h.finish()->metadata["first_iteration"], 6);
  EXPECT_EQ(h.finish()->metadata["last_iteration"], 6);
  EXPECT_EQ(d.graph().agent("source").last_update, 6);
}

// A world whose replies depend only on the request: two branches that join
// before the aggregator (so one agent has two instruction writers), tools,
// tool and prompt rewrites drawn per agent, a parallel split, and an
// environment.
struct Observed {
  std::vector<std::string> requests;  // sorted
  json graph;
  std::string answer;
  size_t agents = 0;
};

Observed observe(Order order) {
  HivaSetup s = test_setup();
  s.settings.iterations = 2;
  s.settings.prompt_weight = 0.5;
  s.environment_items["What is 2 + 3?"] = "item-1";
  AgentGraph g =
      graph_of({"a", "b", "c"}, {{"source", "a"}, {"source", "b"}, {"a", "c"}, {"b", "c"}, {"c", "aggregator"}});
  for (const char* id : {"a", "b"}) {
    g.agent(id).tool_code = "def tool_function(input_data, **kwargs):\n    return 7\n";
    g.agent(id).tool_description = "answers 7";
    g.agent(id).tool_version = 1;
  }
  Script sc;
  sc.model["agent feedback"] = [](const std::string& purpose, const std::string&) {
    const std::string who = subject_of(purpose, "agent feedback");
    return agent_feedback_reply(who, "handle errors in " + who);
  };
  sc.model["parallelizability a"] = always(kHighParallel);
  sc.model["topology a"] = always("ADD_PARALLEL: Second opinion agent");
  sc.agent = [](const Ask& a) {
    if (a.agent == "hiva-aggregator") return std::string("FINAL ANSWER");
    return "OUT of " + a.agent + " on " + between(last_user(a.messages), "Instruction: ", "\n");
  };
  sc.tool = [](const RunTool& t) {
    if (t.tool == kEnvironmentTool)
      return company::ToolResult::success("checked", json{{"success", false}, {"text", "ENV wrong"}});
    if (t.tool == kValidateTool) return company::ToolResult::success("valid");
    return company::ToolResult::success("ran", "TOOL " + json::parse(t.arguments)["input"].get<std::string>());
  };
  HivaDriver d(s, test_task(), g, 0);
  Harness h(d, sc, order);
  h.start();
  h.run();
  Observed o;
  for (const CallModel& c : h.all<CallModel>()) {
    std::string text = "call " + c.purpose;
    for (const auto& m : c.request.messages) text += "\n" + m.content;
    o.requests.push_back(text);
  }
  for (const Ask& a : h.all<Ask>()) {
    std::string text = "ask " + a.agent;
    for (const auto& m : a.messages) text += "\n" + m.content;
    o.requests.push_back(text);
  }
  for (const RunTool& t : h.all<RunTool>()) o.requests.push_back("tool " + t.tool + "\n" + t.arguments);
  for (const Hire& x : h.all<Hire>()) o.requests.push_back("hire " + x.spec.name + "\n" + x.spec.system_prompt);
  std::sort(o.requests.begin(), o.requests.end());
  o.graph = to_json(d.graph());
  o.agents = d.graph().agents().size();
  if (h.finish()) o.answer = h.finish()->text;
  return o;
}

TEST(HivaDriverDeterminism, TwoArrivalOrdersIssueTheSameRequestsAndEndWithTheSameGraph) {
  const Observed fifo = observe(Order::fifo);
  const Observed lifo = observe(Order::lifo);
  EXPECT_EQ(fifo.answer, "FINAL ANSWER");
  EXPECT_EQ(fifo.answer, lifo.answer);
  EXPECT_EQ(fifo.requests.size(), lifo.requests.size());
  std::vector<std::string> only_fifo, only_lifo;
  std::set_difference(fifo.requests.begin(), fifo.requests.end(), lifo.requests.begin(), lifo.requests.end(),
                      std::back_inserter(only_fifo));
  std::set_difference(lifo.requests.begin(), lifo.requests.end(), fifo.requests.begin(), fifo.requests.end(),
                      std::back_inserter(only_lifo));
  EXPECT_TRUE(only_fifo.empty()) << "first only in FIFO:\n" << (only_fifo.empty() ? "" : only_fifo[0]);
  EXPECT_TRUE(only_lifo.empty()) << "first only in LIFO:\n" << (only_lifo.empty() ? "" : only_lifo[0]);
  EXPECT_EQ(fifo.graph, lifo.graph);
  // The run did evolve: the split happened, and both kinds of rewrite and
  // the environment ran.
  EXPECT_GT(fifo.agents, 5u);
  auto count = [&](const std::string& prefix) {
    return std::count_if(fifo.requests.begin(), fifo.requests.end(),
                         [&](const std::string& r) { return r.rfind(prefix, 0) == 0; });
  };
  EXPECT_GT(count("call tool "), 0);
  EXPECT_GT(count("tool hiva.validate_tool"), 0);
  EXPECT_GT(count("call prompt update "), 0);
  EXPECT_EQ(count("tool hiva.environment"), 2);
  // And the same order twice gives the same run.
  const Observed again = observe(Order::fifo);
  EXPECT_EQ(again.requests, fifo.requests);
  EXPECT_EQ(again.graph, fifo.graph);
}

}  // namespace
}  // namespace kaisha::hiva::hiva_driver_evolution_test
