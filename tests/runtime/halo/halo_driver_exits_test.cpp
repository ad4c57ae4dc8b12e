// HaloDriver's hires and fires on every exit, its caps, cancel, malformed
// and failed replies, an adversarial judge, and determinism across arrival
// orders (halo.md §12 items 3, 16, 19, 25).
#include <gtest/gtest.h>

#include <algorithm>

#include "runtime/halo/halo_driver.hpp"
#include "tests/runtime/halo/halo_script.hpp"

namespace kaisha::halo::halo_driver_exits_test {
namespace {

using namespace testing;

std::string solve_subtask(const Ask& a) { return between(last_user(a.messages), "Current Subtask:\n", "\n"); }

// Fires come right before the Finish, which is the last effect.
void expect_fires_then_finish(const Harness& h, const std::vector<std::string>& agents) {
  ASSERT_FALSE(h.effects.empty());
  EXPECT_TRUE(std::holds_alternative<Finish>(h.effects.back()));
  const size_t n = agents.size();
  ASSERT_GE(h.effects.size(), n + 1);
  std::vector<std::string> fired;
  for (size_t i = h.effects.size() - 1 - n; i + 1 < h.effects.size(); ++i)
    if (const auto* f = std::get_if<Fire>(&h.effects[i])) fired.push_back(f->agent);
  EXPECT_EQ(fired, agents);
  EXPECT_EQ(h.fired(), agents);  // and no fire anywhere else
}

TEST(HaloDriverHiring, ARoleIsHiredOncePerTaskAndFiredAtTheEnd) {
  Script sc;
  // Two subtasks, same roles and the same rho: the agents are asked again.
  sc.model["halo.planner"] = [](const std::string& p) {
    return count_of(p, "[subtask ") < 2
               ? R"({"next subtask": "step )" + std::to_string(count_of(p, "[subtask ") + 1) + "\"}"
               : std::string(R"({"next subtask": "stop"})");
  };
  sc.agent = [](const Ask& a) { return "answer to " + solve_subtask(a); };
  HaloDriver d(test_setup(), test_task());
  Harness h(d, sc);
  h.start();
  h.run();
  EXPECT_EQ(h.hired(), (std::vector<std::string>{"halo-solver-1", "halo-checker-2"}));
  EXPECT_EQ(h.events(event::subtask).size(), 2u);
  size_t second = 0;
  for (const Ask& a : h.all<Ask>())
    if (solve_subtask(a) == "step 2") {
      ++second;
      EXPECT_TRUE(a.agent == "halo-solver-1" || a.agent == "halo-checker-2") << a.agent;
    }
  EXPECT_GT(second, 0u);
  ASSERT_TRUE(h.finish());
  EXPECT_TRUE(h.finish()->ok);
  EXPECT_EQ(h.finish()->metadata["agents_hired"], 2);
  expect_fires_then_finish(h, {"halo-solver-1", "halo-checker-2"});
}

TEST(HaloDriverHiring, TheSameRoleWithAnotherRhoIsAnotherAgent) {
  Script sc;
  sc.model["halo.planner"] = [](const std::string& p) {
    return count_of(p, "[subtask ") < 2
               ? R"({"next subtask": "step )" + std::to_string(count_of(p, "[subtask ") + 1) + "\"}"
               : std::string(R"({"next subtask": "stop"})");
  };
  sc.model["halo.agent_final_prompt"] = [](const std::string& p) {
    return R"({"Final Prompt": )" +
           json_string("RHO " + line_after(p, "Agent Role: ") + " for " + between(p, "Subtask:\n", "\n")) + "}";
  };
  sc.agent = [](const Ask& a) { return "answer to " + solve_subtask(a); };
  HaloDriver d(test_setup(), test_task());
  Harness h(d, sc);
  h.start();
  h.run();
  EXPECT_EQ(h.hired(),
            (std::vector<std::string>{"halo-solver-1", "halo-checker-2", "halo-solver-3", "halo-checker-4"}));
  for (const Ask& a : h.all<Ask>())
    EXPECT_EQ(a.agent.back() >= '3', solve_subtask(a) == "step 2") << a.agent << " " << solve_subtask(a);
  expect_fires_then_finish(h, {"halo-solver-1", "halo-checker-2", "halo-solver-3", "halo-checker-4"});
}

TEST(HaloDriverHiring, ARefusedHireFiresWhatWasHiredAndFailsTheTask) {
  Script sc;
  sc.hire = [](const Hire& x) {
    return x.spec.name == "halo-checker-2" ? HireAnswered{x.id, false, true, "Not enough resource budget", {}}
                                           : HireAnswered{x.id, true, false, "", json::object()};
  };
  HaloDriver d(test_setup(), test_task());
  Harness h(d, sc);
  h.start();
  h.run();
  ASSERT_TRUE(h.finish());
  EXPECT_FALSE(h.finish()->ok);
  EXPECT_EQ(h.finish()->text, "Could not hire HALO's agent halo-checker-2: Not enough resource budget");
  EXPECT_EQ(h.finish()->metadata["exit"], "hire_refused");
  EXPECT_TRUE(h.all<Ask>().empty());  // no search ran
  expect_fires_then_finish(h, {"halo-solver-1"});
  bool refusal = false;
  for (const Journal& j : h.all<Journal>()) refusal |= j.kind == msg::EventKind::refusal;
  EXPECT_TRUE(refusal);
}

TEST(HaloDriverCaps, AModelCallCapEndsWithTheBestAnswerSoFarAndJournalsWhy) {
  HaloSetup s = test_setup();
  // 4 stage 1 + planner + roles + 6 builders + 2 asks, 2 judges, 2 scores
  // = 18; the cap falls in the rollout.
  // Two rollouts go out at once (asks 19 and 20); the first one's judge
  // would be the 21st call.
  s.settings.max_model_calls = 20;
  s.settings.search.attempts = 2;
  Script sc;
  sc.model["halo.judge"] = [](const std::string&) { return std::string(R"({"status": "continue"})"); };
  sc.agent = [](const Ask& a) { return "partial by " + a.agent; };
  HaloDriver d(s, test_task());
  Harness h(d, sc);
  h.start();
  h.run_until([](const Effect& e) { return std::holds_alternative<Finish>(e); });
  EXPECT_EQ(h.all<CallModel>().size() + h.all<Ask>().size(), 20u);
  ASSERT_TRUE(h.finish());
  EXPECT_TRUE(h.finish()->ok);
  EXPECT_EQ(h.finish()->text, "partial by halo-solver-1");  // the greedy trajectory's (ties to the first child)
  EXPECT_EQ(h.finish()->metadata["exit"], "cap_reached");
  EXPECT_EQ(h.finish()->metadata["model_calls"], 20);
  const auto cap = h.notes(event::cap_reached);
  ASSERT_EQ(cap.size(), 1u);
  EXPECT_EQ(cap[0]["cap"], "max_model_calls");
  EXPECT_EQ(cap[0]["answer"], "partial by halo-solver-1");
  const auto ended = h.notes(event::search_ended);
  ASSERT_EQ(ended.size(), 1u);
  EXPECT_EQ(ended[0]["reason"], "stopped");
  expect_fires_then_finish(h, {"halo-solver-1", "halo-checker-2"});
  // The calls still in flight are answered in vain.
  EXPECT_GT(h.in_flight(), 0u);
  const size_t before = h.effects.size();
  h.run();
  EXPECT_EQ(h.effects.size(), before);
}

TEST(HaloDriverCaps, AUsdCapBeforeAnyAnswerGivesTheFailureAnswer) {
  HaloSetup s = test_setup();
  s.settings.max_usd = 0.05;
  Script sc;
  sc.expense = 0.01;
  HaloDriver d(s, test_task());
  Harness h(d, sc);
  h.start();
  h.run();
  // Five answers cost $0.05: the role designer is never asked.
  EXPECT_EQ(h.all<CallModel>().size(), 5u);
  EXPECT_TRUE(h.calls("halo.role_design").empty());
  ASSERT_TRUE(h.finish());
  EXPECT_FALSE(h.finish()->ok);
  EXPECT_EQ(h.finish()->text, "FAILED");
  EXPECT_NEAR(h.finish()->metadata["usd"].get<double>(), 0.05, 1e-12);
  EXPECT_EQ(h.notes(event::cap_reached).at(0)["cap"], "max_usd");
  EXPECT_TRUE(h.fired().empty());  // nobody was hired
}

TEST(HaloDriverCaps, ACapAfterASubtaskReturnsThatSubtasksAnswer) {
  HaloSetup s = test_setup();
  // One subtask with a success judge costs 4 + 1 + 1 + 6 + 6 = 18 calls;
  // the second subtask's planner call is the 19th, its role design the cap.
  s.settings.max_model_calls = 19;
  Script sc;
  sc.model["halo.planner"] = [](const std::string& p) {
    return R"({"next subtask": "step )" + std::to_string(count_of(p, "[subtask ") + 1) + "\"}";
  };
  sc.agent = [](const Ask& a) { return "answer to " + solve_subtask(a); };
  HaloDriver d(s, test_task());
  Harness h(d, sc);
  h.start();
  h.run();
  ASSERT_TRUE(h.finish());
  EXPECT_TRUE(h.finish()->ok);
  EXPECT_EQ(h.finish()->text, "answer to step 1");
  EXPECT_EQ(h.finish()->metadata["exit"], "cap_reached");
  EXPECT_EQ(h.calls("halo.role_design").size(), 1u);
}

TEST(HaloDriverCancel, CancelStopsTheSearchFiresEveryAgentAndNothingFollows) {
  Script sc;
  sc.model["halo.judge"] = [](const std::string&) { return std::string(R"({"status": "continue"})"); };
  HaloDriver d(test_setup(), test_task());
  Harness h(d, sc);
  h.start();
  h.run_until([](const Effect& e) { return std::holds_alternative<Ask>(e); });
  ASSERT_FALSE(h.all<Ask>().empty());
  h.absorb(d.cancel("canceled by the user"));
  ASSERT_TRUE(h.finish());
  EXPECT_FALSE(h.finish()->ok);
  EXPECT_EQ(h.finish()->text, "canceled by the user");
  EXPECT_EQ(h.finish()->metadata["exit"], "canceled");
  EXPECT_EQ(h.notes(event::search_ended).at(0)["reason"], "stopped");
  expect_fires_then_finish(h, {"halo-solver-1", "halo-checker-2"});
  const size_t before = h.effects.size();
  h.run();  // late answers
  EXPECT_EQ(h.effects.size(), before);
  EXPECT_TRUE(d.cancel("again").empty());
}

TEST(HaloDriverCancel, CancelBeforeAnyHireFinishesWithoutFires) {
  HaloDriver d(test_setup(), test_task());
  Harness h(d, Script{});
  h.start();
  h.step();
  h.absorb(d.cancel("stop"));
  ASSERT_TRUE(h.finish());
  EXPECT_EQ(h.finish()->text, "stop");
  EXPECT_TRUE(h.fired().empty());
}

TEST(HaloDriverReplies, MalformedRepliesFromEveryAgentFallBackToTheDefaultsAndAreJournaled) {
  Script sc;
  for (auto& [purpose, reply] : sc.model) reply = [](const std::string&) { return std::string("not json {at all"); };
  sc.agent = [](const Ask&) { return std::string("garbage"); };
  HaloDriver d(test_setup(), test_task());
  Harness h(d, sc);
  h.start();
  h.run();
  ASSERT_TRUE(h.finish());
  // Every call's reply had a problem, each journaled.
  EXPECT_EQ(h.notes(event::problem).size(), h.all<CallModel>().size());
  EXPECT_EQ(h.finish()->metadata["reply_problems"], h.all<CallModel>().size());
  // F and Q* fall back to the raw query, the planner's subtask to Q*, the
  // roles to ["assistant"], rho to the generic assistant prompt.
  const json refined = h.events(event::refined).at(0);
  EXPECT_EQ(refined["task_type"], "RAWQ What is 2 + 3?");
  EXPECT_EQ(refined["query"], "RAWQ What is 2 + 3?");
  EXPECT_EQ(h.events(event::subtask).at(0)["text"], "RAWQ What is 2 + 3?");
  EXPECT_EQ(h.events(event::roles).at(0)["roles"], json({"assistant"}));
  ASSERT_EQ(h.all<Hire>().size(), 1u);
  EXPECT_EQ(h.all<Hire>()[0].spec.system_prompt, shipped_prompts()->assistant_fallback);
  // The judge's default is continue, the scorer's 0.5.
  const json exp = h.notes(event::expansion).at(0);
  EXPECT_EQ(exp["children"][0]["label"], "continue");
  EXPECT_EQ(exp["children"][0]["value"], 0.5);
  // "garbage" twice agrees: the task stops early with it.
  EXPECT_TRUE(h.finish()->ok);
  EXPECT_EQ(h.finish()->text, "garbage");
  EXPECT_EQ(h.finish()->metadata["exit"], "early_stop");
}

TEST(HaloDriverReplies, FailedCallsAreReadAsEmptyRepliesWithTheirDefaults) {
  HaloDriver d(test_setup(), test_task());
  Harness h(d, Script{});
  const ReadBudget budget = std::get<ReadBudget>(d.start().at(0));  // the budget is read first
  const Effects e = d.on(BudgetRead{budget.id, Script{}.budget});
  const CallModel parser = std::get<CallModel>(e.at(0));
  ModelAnswered failed;
  failed.id = parser.id;
  failed.ok = false;
  failed.error = "provider down";
  h.absorb(d.on(failed));
  const auto problems = h.notes(event::problem);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0]["problem"].get<std::string>().find("the call failed (provider down)"), std::string::npos);
  // The chain goes on with F = the raw query.
  const auto next = h.calls("halo.prompt_template");
  ASSERT_EQ(next.size(), 1u);
  EXPECT_NE(last_user(next[0].request.messages).find("Task Type: RAWQ What is 2 + 3?"), std::string::npos);
}

TEST(HaloDriverReplies, AFailedAskIsEvaluatedAsFailWithoutJudgeOrScorer) {
  Script sc;
  sc.ask_fails = [](const Ask& a) { return a.agent == "halo-solver-1"; };
  sc.agent = [](const Ask& a) { return "answer by " + a.agent; };
  HaloDriver d(test_setup(), test_task());
  Harness h(d, sc);
  h.start();
  h.run();
  EXPECT_EQ(h.calls("halo.judge").size(), 1u);
  EXPECT_EQ(h.calls("halo.scorer").size(), 1u);
  const json exp = h.notes(event::expansion).at(0);
  EXPECT_EQ(exp["children"][0]["label"], "fail");
  EXPECT_EQ(exp["children"][0]["value"], 0.0);
  EXPECT_EQ(exp["children"][0]["answer"], "");
  EXPECT_EQ(exp["children"][1]["label"], "success");
  ASSERT_TRUE(h.finish());
  EXPECT_TRUE(h.finish()->ok);
  EXPECT_EQ(h.finish()->text, "answer by halo-checker-2");
  EXPECT_FALSE(h.notes(event::problem).empty());
}

TEST(HaloDriverReplies, AnAlwaysContinueJudgeEndsWithinTheCaps) {
  HaloSetup s = test_setup();
  s.settings.search.max_depth = 3;
  s.settings.search.attempts = 2;
  s.settings.search.max_iterations = 4;
  s.settings.search.max_evaluations = 25;
  Script sc;
  sc.model["halo.judge"] = [](const std::string&) { return std::string(R"({"status": "continue"})"); };
  sc.model["halo.planner"] = [](const std::string& p) {
    return R"({"next subtask": "step )" + std::to_string(count_of(p, "[subtask ") + 1) + "\"}";
  };
  sc.agent = [](const Ask& a) { return "try " + solve_subtask(a); };
  HaloDriver d(s, test_task());
  Harness h(d, sc);
  h.start();
  h.run(200000);
  ASSERT_TRUE(h.finish());
  const auto ended = h.notes(event::search_ended);
  ASSERT_EQ(ended.size(), 5u);
  for (const json& e : ended) {
    EXPECT_LE(e["evaluations"].get<int>(), 25);
    EXPECT_LE(e["iterations"].get<int>(), 4);
    EXPECT_FALSE(e["success"].get<bool>());
  }
  // Per subtask: planner, roles, 6 builders, and at most 25 evaluations.
  EXPECT_LE(h.all<CallModel>().size() + h.all<Ask>().size(), 4u + 5u * (8u + 25u * 3u));
  EXPECT_EQ(h.finish()->text, "FAILED");
}

// A world whose replies depend only on the request: the agent's answer
// names it and its depth, the judge decides by depth, the scorer by length.
Script deterministic_world() {
  Script sc;
  sc.model["halo.role_design"] = [](const std::string&) {
    return std::string(R"({"agent roles": ["Solver", "Checker", "Critic"]})");
  };
  sc.model["halo.planner"] = [](const std::string& p) {
    return count_of(p, "[subtask ") < 2
               ? R"({"next subtask": "step )" + std::to_string(count_of(p, "[subtask ") + 1) + "\"}"
               : std::string(R"({"next subtask": "stop"})");
  };
  sc.agent = [](const Ask& a) {
    size_t depth = 1;
    std::string after;
    for (const auto& m : a.messages)
      if (m.content.rfind("Here is the response", 0) == 0) {
        ++depth;
        after += "|" + std::to_string(m.content.size());
      }
    return a.agent + " d" + std::to_string(depth) + " " + solve_subtask(a) + after;
  };
  sc.model["halo.judge"] = [](const std::string& p) {
    const std::string out = between(p, "Output of the Agent Role:\n", "\n");
    if (out.find(" d3 ") != std::string::npos) return std::string(R"({"status": "success"})");
    if (out.find("checker") != std::string::npos && out.find(" d2 ") != std::string::npos)
      return std::string(R"({"status": "fail"})");
    return std::string(R"({"status": "continue"})");
  };
  sc.model["halo.scorer"] = [](const std::string& p) {
    const std::string out = between(p, "Output of the Agent Role:\n", "\n");
    return R"({"score": )" + std::to_string(double(out.size() % 10) / 10.0) + "}";
  };
  return sc;
}

struct Observed {
  std::vector<std::string> requests;  // sorted
  std::vector<std::string> events;    // in order
  std::vector<std::string> hires;
  std::string answer;
};

Observed observe(Order order) {
  HaloSetup s = test_setup();
  s.settings.search.max_depth = 3;
  s.settings.search.attempts = 3;
  HaloDriver d(s, test_task());
  Harness h(d, deterministic_world(), order);
  h.start();
  h.run();
  Observed o;
  for (const CallModel& c : h.all<CallModel>()) o.requests.push_back(c.purpose + "\n" + last_user(c.request.messages));
  for (const Ask& a : h.all<Ask>()) {
    std::string text = "ask " + a.agent;
    for (const auto& m : a.messages) text += "\n" + m.content;
    o.requests.push_back(text);
  }
  std::sort(o.requests.begin(), o.requests.end());
  for (const json& e : h.events()) o.events.push_back(e.dump());
  o.hires = h.hired();
  if (h.finish()) o.answer = h.finish()->text;
  return o;
}

TEST(HaloDriverDeterminism, TwoArrivalOrdersIssueTheSameRequestsAndTheSameEvents) {
  const Observed fifo = observe(Order::fifo);
  const Observed lifo = observe(Order::lifo);
  EXPECT_FALSE(fifo.answer.empty());
  EXPECT_EQ(fifo.answer, lifo.answer);
  EXPECT_EQ(fifo.hires, lifo.hires);
  EXPECT_EQ(fifo.requests, lifo.requests);
  EXPECT_EQ(fifo.events, lifo.events);
  // The runs did have rollouts beyond depth 1 to reorder.
  size_t rollouts = 0;
  for (const std::string& e : fifo.events) rollouts += e.find("\"event\":\"rollout\"") != std::string::npos;
  EXPECT_GT(rollouts, 3u);
  // And the same order twice gives the same run.
  const Observed again = observe(Order::fifo);
  EXPECT_EQ(again.events, fifo.events);
}

}  // namespace
}  // namespace kaisha::halo::halo_driver_exits_test

namespace kaisha::halo::halo_driver_budget_test {
namespace {

using namespace testing;

// A search the remaining budget cannot start ends before its first call,
// with the figures; the same budget with room goes ahead.
TEST(HaloDriverBudget, ABudgetThatCannotPayForTheFirstSearchRefusesBeforeAnyCall) {
  HaloSetup s = test_setup();
  s.agent_cost.invoke_expense_cost = 2.5;   // $ per 1M input tokens
  s.agent_cost.output_expense_cost = 10.0;  // $ per 1M output tokens
  Script sc;
  sc.budget["current_remaining_expense_budget"] = 0.01;  // 11 calls of up to 2,048 tokens out need more
  HaloDriver d(s, test_task());
  Harness h(d, sc);
  h.start();
  h.run();
  EXPECT_TRUE(h.all<CallModel>().empty());
  EXPECT_TRUE(h.all<Hire>().empty());
  ASSERT_TRUE(h.finish());
  EXPECT_FALSE(h.finish()->ok);
  EXPECT_NE(h.finish()->text.find("HALO cannot start: its first search needs up to $"), std::string::npos)
      << h.finish()->text;
  EXPECT_NE(h.finish()->text.find("only $0.01 of the expense budget is remaining"), std::string::npos)
      << h.finish()->text;
  EXPECT_EQ(h.finish()->metadata["exit"], "unaffordable");

  Script enough;
  enough.budget["current_remaining_expense_budget"] = 5.0;
  HaloDriver d2(s, test_task());
  Harness h2(d2, enough);
  h2.start();
  h2.run();
  ASSERT_TRUE(h2.finish());
  EXPECT_TRUE(h2.finish()->ok) << h2.finish()->text;
  EXPECT_GT(h2.finish()->metadata.value("first_search_worst_case_expense", 0.0), 0.01);
}

TEST(HaloDriverBudget, NoRoomForOneRoleAgentRefusesBeforeAnyCall) {
  HaloSetup s = test_setup();
  s.agent_cost.create_resource_cost = 10;
  Script sc;
  sc.budget["current_remaining_resource_budget"] = 5.0;
  HaloDriver d(s, test_task());
  Harness h(d, sc);
  h.start();
  h.run();
  EXPECT_TRUE(h.all<CallModel>().empty());
  ASSERT_TRUE(h.finish());
  EXPECT_FALSE(h.finish()->ok);
  EXPECT_NE(h.finish()->text.find("resource units but only 5 are free"), std::string::npos) << h.finish()->text;
}

}  // namespace
}  // namespace kaisha::halo::halo_driver_budget_test

namespace kaisha::halo::halo_driver_resource_cap_test {
namespace {

using namespace testing;

// The role agents hold their hires' resource units until the task ends: a
// subtask whose new agents would hold more than max_resource_units hires
// none of them and ends the task at the cap.
TEST(HaloDriverCaps, AResourceCapIsCheckedBeforeASubtasksHires) {
  HaloSetup s = test_setup();  // each agent's hire holds 1 unit; two roles per subtask
  s.settings.max_resource_units = 1;
  HaloDriver d(s, test_task());
  Harness h(d, Script{});
  h.start();
  h.run();
  EXPECT_TRUE(h.all<Hire>().empty());
  ASSERT_TRUE(h.finish());
  EXPECT_FALSE(h.finish()->ok);
  EXPECT_EQ(h.finish()->text, "FAILED");
  EXPECT_EQ(h.notes(event::cap_reached).at(0)["cap"], "max_resource_units");

  s.settings.max_resource_units = 2;  // room for both: the task runs to its answer
  HaloDriver d2(s, test_task());
  Harness h2(d2, Script{});
  h2.start();
  h2.run();
  EXPECT_EQ(h2.all<Hire>().size(), 2u);
  ASSERT_TRUE(h2.finish());
  EXPECT_TRUE(h2.finish()->ok) << h2.finish()->text;
}

}  // namespace
}  // namespace kaisha::halo::halo_driver_resource_cap_test
