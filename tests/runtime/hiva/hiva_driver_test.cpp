// HivaDriver's forward pass, loss and endings (hiva.md §4-§5, §7.1, §14
// items 4, 5, 9, 10, 12, 20, 23, the caps and cancel), driven with scripted
// replies to every call: what it asks for, in which order, with which texts,
// and what it finishes with.
#include "runtime/hiva/hiva_driver.hpp"

#include <gtest/gtest.h>

#include <set>

#include "runtime/hiva/graph/graph_json.hpp"
#include "tests/runtime/hiva/hiva_script.hpp"

namespace kaisha::hiva::hiva_driver_test {
namespace {

using namespace driver_testing;
using Edge = std::pair<std::string, std::string>;

bool is_ask_to(const Effect& e, const std::string& agent) {
  const auto* a = std::get_if<Ask>(&e);
  return a && a->agent == agent;
}

// Every (from, to) of a forward_pass event's "routed".
std::set<Edge> routed_edges(const json& forward_pass) {
  std::set<Edge> out;
  for (const json& e : forward_pass.at("routed")) out.emplace(e.at(0).get<std::string>(), e.at(1).get<std::string>());
  return out;
}

AgentGraph diamond() {
  return graph_of({"a", "b"}, {{"source", "a"}, {"source", "b"}, {"a", "aggregator"}, {"b", "aggregator"}});
}

TEST(HivaDriverForward, ASingletonPassAsksTheSourceThenTheAggregatorAndReturnsItsAnswer) {
  HivaDriver d(test_setup(), test_task(), singleton_graph(), 0);
  Harness h(d, Script{});
  h.start();
  h.run();
  EXPECT_EQ(h.hired(), (std::vector<std::string>{"hiva-source", "hiva-aggregator"}));
  const auto asks = h.all<Ask>();
  ASSERT_EQ(asks.size(), 2u);
  EXPECT_EQ(asks[0].agent, "hiva-source");
  EXPECT_EQ(asks[1].agent, "hiva-aggregator");
  // The source is asked with its prompt over the task; the aggregator over
  // the source's output.
  EXPECT_EQ(first_system(asks[0].messages), "You are agent source of the team.");
  EXPECT_TRUE(contains(last_user(asks[0].messages), "Instruction: What is 2 + 3?"));
  EXPECT_EQ(first_system(asks[1].messages), "You are agent aggregator of the team.");
  EXPECT_TRUE(contains(last_user(asks[1].messages), "OUT of hiva-source"));
  EXPECT_TRUE(contains(last_user(asks[1].messages), "Original instruction: What is 2 + 3?"));
  // The only successor is the aggregator: no instruction, and with no
  // iteration nothing but the two asks.
  EXPECT_TRUE(h.all<CallModel>().empty());
  EXPECT_TRUE(h.all<RunTool>().empty());
  EXPECT_TRUE(h.all<SaveState>().empty());
  ASSERT_TRUE(h.finish());
  EXPECT_TRUE(h.finish()->ok);
  EXPECT_EQ(h.finish()->text, "FINAL ANSWER");
  const auto fired = h.fired();
  EXPECT_EQ(std::multiset<std::string>(fired.begin(), fired.end()),
            (std::multiset<std::string>{"hiva-source", "hiva-aggregator"}));
  const json m = h.finish()->metadata;
  EXPECT_EQ(m["exit"], "done");
  EXPECT_EQ(m["answer"], "FINAL ANSWER");
  EXPECT_EQ(m["graph"], to_json(d.graph()));
  EXPECT_EQ(m["agents"], 2);
  EXPECT_TRUE(m["iterations"].empty());
  EXPECT_TRUE(d.finished());
  // The edge the source routed along counts one routing.
  EXPECT_EQ(d.graph().find_edge("source", "aggregator")->routed, 1);
}

TEST(HivaDriverForward, BothBranchesOfADiamondAreAskedBeforeEitherAnswersAndTheJoinWaitsForBoth) {
  HivaSetup s = test_setup();
  s.settings.use_kabb = false;
  HivaDriver d(s, test_task(), diamond(), 0);
  Harness h(d, Script{});
  h.start();
  // Everything answered but the branches' asks.
  h.run_only([](const Effect& e) { return !is_ask_to(e, "hiva-a") && !is_ask_to(e, "hiva-b"); });
  EXPECT_EQ(h.calls("instruction").size(), 2u);
  std::set<std::string> waiting;
  for (const Effect& e : h.in_flight()) waiting.insert(describe(e));
  EXPECT_EQ(waiting, (std::set<std::string>{"ask hiva-a", "ask hiva-b"}));
  // Each branch got its own instruction.
  EXPECT_TRUE(contains(last_user(h.asks("hiva-a").at(0).messages), "Instruction: INSTR source->a"));
  EXPECT_TRUE(contains(last_user(h.asks("hiva-b").at(0).messages), "Instruction: INSTR source->b"));

  // One branch answering is not enough for the join.
  h.run_only([](const Effect& e) { return is_ask_to(e, "hiva-a"); });
  EXPECT_TRUE(h.asks("hiva-aggregator").empty());
  EXPECT_EQ(h.when("emit hire hiva-aggregator"), std::string::npos);
  h.run();
  ASSERT_EQ(h.asks("hiva-aggregator").size(), 1u);
  EXPECT_LT(h.when("answer ask hiva-b"), h.when("emit ask hiva-aggregator"));
  const std::string agg = last_user(h.asks("hiva-aggregator")[0].messages);
  EXPECT_TRUE(contains(agg, "OUT of hiva-a"));
  EXPECT_TRUE(contains(agg, "OUT of hiva-b"));
  ASSERT_TRUE(h.finish());
  EXPECT_TRUE(h.finish()->ok);
}

// k = 1, θ the posterior mean: the branch with the far better posterior is
// the one routed to, and the other costs nothing.
void expect_only_branch(const std::string& chosen, const std::string& other) {
  HivaSetup s = test_setup();
  s.settings.routing.k = 1;
  s.settings.routing.mode = ThetaMode::mean;
  AgentGraph g = diamond();
  g.agent(chosen).alpha = 50;
  g.agent(other).beta = 50;
  HivaDriver d(s, test_task(), g, 0);
  Harness h(d, Script{});
  h.start();
  h.run();
  const auto routed = h.events(event::routed);
  ASSERT_FALSE(routed.empty());
  EXPECT_EQ(routed[0]["agent"], "source");
  EXPECT_EQ(routed[0]["chosen"], json({chosen}));
  EXPECT_EQ(h.asks("hiva-" + chosen).size(), 1u);
  EXPECT_TRUE(h.asks("hiva-" + other).empty());
  for (const std::string& name : h.hired()) EXPECT_NE(name, "hiva-" + other);
  ASSERT_EQ(h.calls("instruction").size(), 1u);
  EXPECT_EQ(h.calls("instruction")[0].purpose, "instruction source->" + chosen);
  for (const CallModel& c : h.all<CallModel>()) EXPECT_FALSE(contains(c.purpose, "->" + other)) << c.purpose;
  const auto pass = h.events(event::forward_pass);
  ASSERT_EQ(pass.size(), 1u);
  EXPECT_EQ(pass[0]["skipped"], json({other}));
  const std::string agg = last_user(h.asks("hiva-aggregator").at(0).messages);
  EXPECT_TRUE(contains(agg, "OUT of hiva-" + chosen));
  EXPECT_FALSE(contains(agg, "OUT of hiva-" + other));
  ASSERT_TRUE(h.finish());
  EXPECT_TRUE(h.finish()->ok);
}

TEST(HivaDriverForward, AnUnroutedBranchMakesNoCall) {
  expect_only_branch("a", "b");
  expect_only_branch("b", "a");
}

TEST(HivaDriverForward, AnAgentsToolRunsFirstAndItsResultReachesTheAgent) {
  AgentGraph g = singleton_graph();
  g.agent("source").tool_code = "def tool_function(input_data, **kwargs):\n    return 42\n";
  g.agent("source").tool_description = "answers 42";
  g.agent("source").tool_version = 1;
  HivaDriver d(test_setup(), test_task(), g, 0);
  Harness h(d, Script{});
  h.start();
  h.run();
  const auto runs = h.tools(kAgentTool);
  ASSERT_EQ(runs.size(), 1u);
  const json args = json::parse(runs[0].arguments);
  EXPECT_EQ(args["code"], g.agent("source").tool_code);
  EXPECT_EQ(args["input"], "What is 2 + 3?");
  EXPECT_LT(h.when("emit tool hiva.agent_tool"), h.when("emit ask hiva-source"));
  EXPECT_LT(h.when("answer tool hiva.agent_tool"), h.when("emit ask hiva-source"));
  const std::string asked = last_user(h.asks("hiva-source").at(0).messages);
  EXPECT_TRUE(contains(asked, "Tooluse Result: TOOL RESULT 42")) << asked;
  EXPECT_FALSE(contains(asked, "Tool execution failed"));
  ASSERT_TRUE(h.finish());
  EXPECT_TRUE(h.finish()->ok);
}

TEST(HivaDriverForward, AFailedToolWarnsTheAgentAndTheRunGoesOn) {
  AgentGraph g = singleton_graph();
  g.agent("source").tool_code = "def tool_function(input_data, **kwargs):\n    return 1 / 0\n";
  g.agent("source").tool_version = 1;
  Script sc;
  sc.tool = [](const RunTool&) { return company::ToolResult::error("ZeroDivisionError: division by zero"); };
  HivaDriver d(test_setup(), test_task(), g, 0);
  Harness h(d, sc);
  h.start();
  h.run();
  ASSERT_EQ(h.tools(kAgentTool).size(), 1u);
  const std::string asked = last_user(h.asks("hiva-source").at(0).messages);
  EXPECT_TRUE(contains(asked, "Warning: Tool execution failed. ZeroDivisionError: division by zero")) << asked;
  EXPECT_TRUE(contains(asked, "Instruction: What is 2 + 3?"));
  EXPECT_FALSE(contains(asked, "Tooluse Result"));
  ASSERT_EQ(h.asks("hiva-aggregator").size(), 1u);
  ASSERT_TRUE(h.finish());
  EXPECT_TRUE(h.finish()->ok);
  EXPECT_EQ(h.finish()->text, "FINAL ANSWER");
}

TEST(HivaDriverForward, InstructionCallsEqualTheChosenSuccessorsOtherThanTheAggregator) {
  // The source has three agents and the aggregator to choose two from; the
  // seed decides which, so across seeds both kinds of choice occur.
  const AgentGraph g = graph_of({"a", "b", "c"}, {{"source", "a"},
                                                  {"source", "b"},
                                                  {"source", "aggregator"},
                                                  {"source", "c"},
                                                  {"a", "aggregator"},
                                                  {"b", "aggregator"},
                                                  {"c", "aggregator"}});
  bool saw_aggregator = false, saw_two_agents = false;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    HivaSetup s = test_setup();
    s.settings.seed = seed;
    HivaDriver d(s, test_task(), g, 0);
    Harness h(d, Script{});
    h.start();
    h.run();
    size_t expected = 0;
    std::multiset<std::string> chosen_pairs;
    for (const json& r : h.events(event::routed))
      for (const json& c : r["chosen"])
        if (c != "aggregator") {
          ++expected;
          chosen_pairs.insert(r["agent"].get<std::string>() + "->" + c.get<std::string>());
        }
    std::multiset<std::string> instructed;
    for (const CallModel& c : h.calls("instruction")) {
      instructed.insert(subject_of(c.purpose, "instruction"));
      // Fig. 6's inputs: the successor's id and prompt.
      const std::string to = c.purpose.substr(c.purpose.find("->") + 2);
      EXPECT_TRUE(contains(last_user(c.request.messages), "SUCCESSOR AGENT ID: " + to));
      EXPECT_TRUE(contains(last_user(c.request.messages), "You are agent " + to + " of the team."));
      EXPECT_EQ(c.request.temperature, 1.0);
      EXPECT_EQ(c.request.max_tokens, 1000);
      EXPECT_EQ(c.request.seed, int64_t(seed));  // the model's seed is HiVA's
    }
    // Each agent is hired with its kind of call's sampling and the seed.
    for (const Hire& x : h.all<Hire>()) {
      EXPECT_EQ(x.spec.temperature, x.spec.name == "hiva-aggregator" ? 0.3 : 0.7) << x.spec.name;
      EXPECT_EQ(x.spec.seed, int64_t(seed)) << x.spec.name;
    }
    EXPECT_EQ(h.calls("instruction").size(), expected) << "seed " << seed;
    EXPECT_EQ(instructed, chosen_pairs) << "seed " << seed;
    const json source_choice = h.events(event::routed).at(0)["chosen"];
    EXPECT_EQ(source_choice.size(), 2u);
    const bool with_aggregator =
        std::find(source_choice.begin(), source_choice.end(), "aggregator") != source_choice.end();
    saw_aggregator |= with_aggregator;
    saw_two_agents |= !with_aggregator;
  }
  EXPECT_TRUE(saw_aggregator);
  EXPECT_TRUE(saw_two_agents);
}

TEST(HivaDriverForward, OnlyTheOutputsOfAgentsThatRoutedToTheAggregatorReachIt) {
  // b feeds c, which feeds the aggregator; a feeds the aggregator.
  HivaSetup s = test_setup();
  s.settings.use_kabb = false;
  HivaDriver d(s, test_task(),
               graph_of({"a", "b", "c"},
                        {{"source", "a"}, {"source", "b"}, {"a", "aggregator"}, {"b", "c"}, {"c", "aggregator"}}),
               0);
  Harness h(d, Script{});
  h.start();
  h.run();
  ASSERT_EQ(h.asks("hiva-aggregator").size(), 1u);
  const std::string agg = last_user(h.asks("hiva-aggregator")[0].messages);
  EXPECT_TRUE(contains(agg, "OUT of hiva-a"));
  EXPECT_TRUE(contains(agg, "OUT of hiva-c"));
  EXPECT_FALSE(contains(agg, "OUT of hiva-b")) << agg;
  EXPECT_FALSE(contains(agg, "OUT of hiva-source")) << agg;
  // b's output went to c through its instruction call instead.
  ASSERT_EQ(h.calls("instruction b->c").size(), 1u);
  EXPECT_TRUE(contains(h.prompts("instruction b->c")[0], "OUT of hiva-b"));
}

TEST(HivaDriverForward, WithoutKabbEveryOutEdgeOfTheAgentsThatRanIsRouted) {
  HivaSetup s = test_setup();
  s.settings.use_kabb = false;
  s.settings.routing.k = 1;  // ignored without KABB
  const AgentGraph g = graph_of({"a", "b"}, {{"source", "a"},
                                             {"source", "b"},
                                             {"source", "aggregator"},
                                             {"a", "b"},
                                             {"a", "aggregator"},
                                             {"b", "aggregator"}});
  HivaDriver d(s, test_task(), g, 0);
  Harness h(d, Script{});
  h.start();
  h.run();
  const auto pass = h.events(event::forward_pass);
  ASSERT_EQ(pass.size(), 1u);
  std::set<Edge> out_edges;
  for (const std::string& a : pass[0]["executed"].get<std::vector<std::string>>())
    for (const std::string& to : g.successors(a)) out_edges.emplace(a, to);
  EXPECT_EQ(pass[0]["executed"].size(), 4u);
  EXPECT_EQ(routed_edges(pass[0]), out_edges);
  EXPECT_EQ(out_edges.size(), g.edges().size());
  for (const GraphEdge& e : d.graph().edges()) EXPECT_EQ(e.routed, 1) << e.from << "->" << e.to;
  // b is instructed by both a and the source (its last writer counts).
  EXPECT_EQ(h.calls("instruction").size(), 3u);
}

TEST(HivaDriverForward, AFailedAskStillGivesAnAggregatedAnswer) {
  HivaSetup s = test_setup();
  s.settings.use_kabb = false;
  Script sc;
  sc.ask_fails = [](const Ask& a) { return a.agent == "hiva-a"; };
  HivaDriver d(s, test_task(), diamond(), 0);
  Harness h(d, sc);
  h.start();
  h.run();
  ASSERT_EQ(h.asks("hiva-aggregator").size(), 1u);
  const std::string agg = last_user(h.asks("hiva-aggregator")[0].messages);
  EXPECT_TRUE(contains(agg, "OUT of hiva-b"));
  EXPECT_TRUE(contains(agg, "agent a failed")) << agg;
  bool journaled = false;
  for (const json& p : h.events(event::problem)) journaled |= p["call"] == "agent a";
  EXPECT_TRUE(journaled);
  ASSERT_TRUE(h.finish());
  EXPECT_TRUE(h.finish()->ok);
  EXPECT_EQ(h.finish()->text, "FINAL ANSWER");
}

TEST(HivaDriverLoss, WithoutTheEnvironmentNoEnvironmentToolRunsAndTheAggregatorCritiquesItself) {
  HivaSetup s = test_setup();
  s.settings.iterations = 1;
  s.settings.use_environment = false;
  s.environment_items["What is 2 + 3?"] = "item-7";
  HivaDriver d(s, test_task(), singleton_graph(), 0);
  Harness h(d, Script{});
  h.start();
  h.run();
  EXPECT_TRUE(h.tools(kEnvironmentTool).empty());
  ASSERT_EQ(h.calls("self-critique").size(), 1u);
  EXPECT_TRUE(contains(h.prompts("self-critique")[0], "Final answer: FINAL ANSWER"));
  ASSERT_EQ(h.calls("system feedback").size(), 1u);
  EXPECT_TRUE(contains(h.prompts("system feedback")[0], "SUCCESSOR FEEDBACK: CRITIQUE be more precise"));
  ASSERT_TRUE(h.finish());
  EXPECT_TRUE(h.finish()->ok);
}

TEST(HivaDriverLoss, AnEnvironmentItemIsCheckedOnceAndItsFeedbackReachesTheSystemFeedback) {
  HivaSetup s = test_setup();
  s.settings.iterations = 1;
  s.environment_items["What is 2 + 3?"] = "item-7";
  HivaDriver d(s, test_task(), singleton_graph(), 0);
  Harness h(d, Script{});
  h.start();
  h.run();
  const auto env = h.tools(kEnvironmentTool);
  ASSERT_EQ(env.size(), 1u);
  EXPECT_EQ(json::parse(env[0].arguments),
            (json{{"item", "item-7"}, {"answer", "FINAL ANSWER"}, {"answers", {"FINAL ANSWER"}}}));
  EXPECT_TRUE(h.calls("self-critique").empty());
  ASSERT_EQ(h.calls("system feedback").size(), 1u);
  EXPECT_TRUE(contains(h.prompts("system feedback")[0], "SUCCESSOR FEEDBACK: ENV says the answer is wrong"));
  const auto loss = h.events(event::loss);
  ASSERT_EQ(loss.size(), 1u);
  EXPECT_EQ(loss[0]["success"], false);
  ASSERT_TRUE(h.finish());
  EXPECT_EQ(h.finish()->metadata["success"], false);

  // A task that is no item critiques itself.
  HivaDriver other(s, test_task("What is 3 + 4?"), singleton_graph(), 0);
  Harness h2(other, Script{});
  h2.start();
  h2.run();
  EXPECT_TRUE(h2.tools(kEnvironmentTool).empty());
  EXPECT_EQ(h2.calls("self-critique").size(), 1u);
}

// A 3-turn interactive episode: the graph answers each of the environment's
// replies with another forward pass over the task and the episode so far,
// the environment judges the whole episode (its answers so far each time),
// and the one backward pass learns from that verdict.
TEST(HivaDriverLoss, AnInteractiveEpisodeIsPlayedToItsEndAndJudgedWhole) {
  HivaSetup s = test_setup();
  s.settings.iterations = 1;
  s.environment_items["What is 2 + 3?"] = "room";
  Script sc;
  int turn = 0;
  sc.agent = [&turn](const Ask& a) {
    if (a.agent == "hiva-aggregator") return "ANSWER " + std::to_string(++turn);
    return "OUT of " + a.agent;
  };
  sc.tool = [](const RunTool& t) {
    const json args = json::parse(t.arguments);
    const size_t n = args["answers"].size();
    if (n < 3)
      return company::ToolResult::success(
          "obs", json{{"text", "OBS" + std::to_string(n)}, {"success", nullptr}, {"continues", true}});
    return company::ToolResult::success("won", json{{"text", "You won."}, {"success", true}, {"continues", false}});
  };
  HivaDriver d(s, test_task(), singleton_graph(), 0);
  Harness h(d, sc);
  h.start();
  h.run();
  const auto env = h.tools(kEnvironmentTool);
  ASSERT_EQ(env.size(), 3u);
  EXPECT_EQ(json::parse(env[0].arguments)["answers"], json({"ANSWER 1"}));
  EXPECT_EQ(json::parse(env[1].arguments)["answers"], json({"ANSWER 1", "ANSWER 2"}));
  EXPECT_EQ(json::parse(env[2].arguments)["answers"], json({"ANSWER 1", "ANSWER 2", "ANSWER 3"}));
  // Three forward passes: turn 2 and 3 see the task and the episode so far.
  const auto source = h.asks("hiva-source");
  ASSERT_EQ(source.size(), 3u);
  EXPECT_FALSE(contains(last_user(source[0].messages), "OBS1"));
  EXPECT_TRUE(contains(last_user(source[1].messages), "What is 2 + 3?"));
  EXPECT_TRUE(contains(last_user(source[1].messages), "You answered:\nANSWER 1"));
  EXPECT_TRUE(contains(last_user(source[1].messages), "The environment replied:\nOBS1"));
  EXPECT_TRUE(contains(last_user(source[2].messages), "OBS2"));
  EXPECT_TRUE(contains(last_user(h.asks("hiva-aggregator")[2].messages), "OBS2"));
  EXPECT_EQ(h.events(event::forward_pass).size(), 3u);
  // One loss for the whole episode, with its verdict and its turns.
  const auto loss = h.events(event::loss);
  ASSERT_EQ(loss.size(), 1u);
  EXPECT_EQ(loss[0]["success"], true);
  const std::string feedback = loss[0]["feedback"];
  EXPECT_TRUE(contains(feedback, "An episode of 3 turns, which ended: You won.")) << feedback;
  EXPECT_TRUE(contains(feedback, "ANSWER 2")) << feedback;
  ASSERT_EQ(h.calls("system feedback").size(), 1u);
  EXPECT_TRUE(contains(h.prompts("system feedback")[0], "An episode of 3 turns"));
  EXPECT_EQ(h.events(event::iteration).size(), 1u);
  ASSERT_TRUE(h.finish());
  EXPECT_EQ(h.finish()->text, "ANSWER 3");
  EXPECT_EQ(h.finish()->metadata["success"], true);
}

TEST(HivaDriverCaps, AModelCallCapStopsTheTaskWithACapEvent) {
  HivaSetup s = test_setup();
  s.settings.iterations = 1;
  s.settings.max_model_calls = 3;  // source, aggregator, self-critique
  HivaDriver d(s, test_task(), singleton_graph(), 0);
  Harness h(d, Script{});
  h.start();
  h.run();
  EXPECT_EQ(h.all<CallModel>().size() + h.all<Ask>().size(), 3u);
  EXPECT_TRUE(h.calls("system feedback").empty());
  const auto cap = h.events(event::cap_reached);
  ASSERT_EQ(cap.size(), 1u);
  EXPECT_EQ(cap[0]["cap"], "max_model_calls");
  EXPECT_EQ(cap[0]["limit"], 3);
  ASSERT_TRUE(h.finish());
  // The forward pass had answered: that answer is returned.
  EXPECT_TRUE(h.finish()->ok);
  EXPECT_EQ(h.finish()->text, "FINAL ANSWER");
  EXPECT_EQ(h.finish()->metadata["exit"], "cap_reached");
  EXPECT_EQ(h.fired().size(), 2u);

  // A cap before the aggregator: no answer.
  s.settings.max_model_calls = 1;
  HivaDriver early(s, test_task(), singleton_graph(), 0);
  Harness h2(early, Script{});
  h2.start();
  h2.run();
  EXPECT_EQ(h2.all<Ask>().size(), 1u);
  ASSERT_TRUE(h2.finish());
  EXPECT_FALSE(h2.finish()->ok);
  EXPECT_EQ(h2.finish()->metadata["exit"], "cap_reached");
  EXPECT_EQ(h2.events(event::cap_reached).size(), 1u);
}

TEST(HivaDriverCaps, AUsdCapStopsTheTaskBeforeTheCallThatWouldGoOver) {
  HivaSetup s = test_setup();
  s.settings.iterations = 1;
  s.settings.max_usd = 1.0;
  Script sc;
  sc.expense = 0.5;  // the source's and the aggregator's asks reach the cap
  HivaDriver d(s, test_task(), singleton_graph(), 0);
  Harness h(d, sc);
  h.start();
  h.run();
  EXPECT_EQ(h.all<Ask>().size(), 2u);
  EXPECT_TRUE(h.all<CallModel>().empty());
  const auto cap = h.events(event::cap_reached);
  ASSERT_EQ(cap.size(), 1u);
  EXPECT_EQ(cap[0]["cap"], "max_usd");
  ASSERT_TRUE(h.finish());
  EXPECT_EQ(h.finish()->metadata["exit"], "cap_reached");
  EXPECT_EQ(h.finish()->metadata["usd"], 1.0);
  EXPECT_EQ(h.finish()->text, "FINAL ANSWER");
}

TEST(HivaDriverHiring, ARefusedHireEndsTheTaskAndFiresWhoWasHired) {
  HivaSetup s = test_setup();
  s.settings.use_kabb = false;
  Script sc;
  sc.hire_refused = [](const Hire& h) { return h.spec.name == "hiva-b"; };
  HivaDriver d(s, test_task(), diamond(), 0);
  Harness h(d, sc);
  h.start();
  h.run();
  ASSERT_TRUE(h.finish());
  EXPECT_FALSE(h.finish()->ok);
  EXPECT_EQ(h.finish()->metadata["exit"], "hire_refused");
  EXPECT_TRUE(contains(h.finish()->text, "hiva-b")) << h.finish()->text;
  EXPECT_TRUE(contains(h.finish()->text, "the budget has no room"));
  const auto fired = h.fired();
  EXPECT_EQ(std::multiset<std::string>(fired.begin(), fired.end()),
            (std::multiset<std::string>{"hiva-source", "hiva-a"}));
  EXPECT_TRUE(h.asks("hiva-aggregator").empty());
  // The hire was read from the agent: its prompt and the agents' model.
  const auto hires = h.all<Hire>();
  ASSERT_FALSE(hires.empty());
  EXPECT_EQ(hires[0].spec.system_prompt, "You are agent source of the team.");
  EXPECT_EQ(hires[0].spec.model_ref, "mock:backbone");
  EXPECT_EQ(hires[0].cost.model_ref, "mock:backbone");
}

TEST(HivaDriverCancel, CancelFiresTheHiredAgentsFinishesNotOkAndIgnoresLateAnswers) {
  HivaSetup s = test_setup();
  s.settings.use_kabb = false;
  HivaDriver d(s, test_task(), diamond(), 0);
  Harness h(d, Script{});
  h.start();
  h.run_only([](const Effect& e) { return !is_ask_to(e, "hiva-a") && !is_ask_to(e, "hiva-b"); });
  ASSERT_EQ(h.in_flight().size(), 2u);
  const Effect late = h.in_flight().front();
  h.cancel("the user canceled");
  ASSERT_TRUE(h.finish());
  EXPECT_FALSE(h.finish()->ok);
  EXPECT_EQ(h.finish()->text, "the user canceled");
  EXPECT_EQ(h.finish()->metadata["exit"], "canceled");
  const auto fired = h.fired();
  EXPECT_EQ(std::multiset<std::string>(fired.begin(), fired.end()),
            (std::multiset<std::string>{"hiva-source", "hiva-a", "hiva-b"}));
  EXPECT_TRUE(d.finished());
  const size_t before = h.effects.size();
  AskAnswered answer;
  answer.id = std::get<Ask>(late).id;
  answer.ok = true;
  answer.reply.output = "too late";
  h.feed(answer);
  EXPECT_EQ(h.effects.size(), before);
  h.cancel("again");
  EXPECT_EQ(h.effects.size(), before);
}

}  // namespace
}  // namespace kaisha::hiva::hiva_driver_test
