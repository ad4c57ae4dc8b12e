// HaloDriver's flow (halo.md §3-§7, §12 items 2, 4-9, 12, 18, 19), driven
// with scripted replies to every call: what it asks for, with which texts,
// and what it finishes with.
#include "runtime/halo/halo_driver.hpp"

#include <gtest/gtest.h>

#include <set>

#include "tests/runtime/halo/halo_script.hpp"

namespace kaisha::halo::halo_driver_test {
namespace {

using namespace testing;

const std::string kF[] = {"arithmetic", "add the numbers", "KD-7 exact integers"};
const std::string kQStar = "QSTAR add 2 and 3";
const std::string kRaw = "RAWQ What is 2 + 3?";

// The current subtask of a solve request (its last line block).
std::string subtask_of(const Ask& a) { return between(last_user(a.messages), "Current Subtask:\n", "\n"); }

// A planner that never says stop: subtask k is "step k".
std::string never_stop(const std::string& prompt) {
  return R"({"next subtask": "step )" + std::to_string(count_of(prompt, "[subtask ") + 1) + "\"}";
}

bool holds_f(const std::string& text) {
  for (const std::string& f : kF)
    if (text.find(f) == std::string::npos) return false;
  return true;
}

TEST(HaloDriverFlow, StageOneMakesFourCallsAndFReachesEveryLaterRequest) {
  HaloDriver d(test_setup(), test_task());
  Harness h(d, Script{});
  h.start();
  h.run();
  for (const char* p : {"halo.task_parser", "halo.prompt_template", "halo.prompt_optimizer", "halo.final_prompt"})
    EXPECT_EQ(h.calls(p).size(), 1u) << p;
  // The chain: each step sees the raw query and the previous step's output.
  EXPECT_NE(h.prompts("halo.task_parser")[0].find(kRaw), std::string::npos);
  EXPECT_TRUE(holds_f(h.prompts("halo.prompt_template")[0]));
  EXPECT_NE(h.prompts("halo.prompt_optimizer")[0].find("TEMPLATE-Q0"), std::string::npos);
  EXPECT_NE(h.prompts("halo.final_prompt")[0].find("OPTIMIZED-QOPT"), std::string::npos);
  // F and Q* in the planner, role designer, solve, judge and scorer requests.
  for (const char* p : {"halo.planner", "halo.role_design", "halo.judge", "halo.scorer"}) {
    ASSERT_FALSE(h.prompts(p).empty()) << p;
    for (const std::string& text : h.prompts(p)) {
      EXPECT_TRUE(holds_f(text)) << p << ": " << text;
      EXPECT_NE(text.find(kQStar), std::string::npos) << p;
    }
  }
  ASSERT_FALSE(h.all<Ask>().empty());
  for (const Ask& a : h.all<Ask>()) {
    EXPECT_TRUE(holds_f(last_user(a.messages)));
    EXPECT_NE(last_user(a.messages).find(kQStar), std::string::npos);
  }
  // The backbone's settings on every call, the model's seed included.
  for (const CallModel& c : h.all<CallModel>()) {
    EXPECT_EQ(c.request.temperature, 0.8);
    EXPECT_EQ(c.request.max_tokens, 2048);
    EXPECT_EQ(c.request.seed, 10);
  }
  const json refined = h.events(event::refined).at(0);
  EXPECT_EQ(refined["query"], kQStar);
  EXPECT_EQ(refined["key_details"], kF[2]);
  EXPECT_EQ(refined["refined"], true);
}

TEST(HaloDriverFlow, WithoutRefinementOnlyTheParserRunsAndTheRawQueryGoesDownstream) {
  HaloSetup s = test_setup();
  s.settings.use_prompt_refinement = false;
  HaloDriver d(s, test_task());
  Harness h(d, Script{});
  h.start();
  h.run();
  EXPECT_EQ(h.calls("halo.task_parser").size(), 1u);
  EXPECT_TRUE(h.calls("halo.prompt_template").empty());
  EXPECT_TRUE(h.calls("halo.prompt_optimizer").empty());
  EXPECT_TRUE(h.calls("halo.final_prompt").empty());
  for (const char* p : {"halo.planner", "halo.role_design", "halo.judge", "halo.scorer"})
    for (const std::string& text : h.prompts(p)) {
      EXPECT_NE(text.find(kRaw), std::string::npos) << p;
      EXPECT_EQ(text.find("QSTAR"), std::string::npos) << p;
      EXPECT_TRUE(holds_f(text)) << p;  // P1 still ran
    }
  for (const Ask& a : h.all<Ask>()) EXPECT_NE(last_user(a.messages).find(kRaw), std::string::npos);
  EXPECT_EQ(h.events(event::refined).at(0)["refined"], false);
  ASSERT_TRUE(h.finish());
  EXPECT_TRUE(h.finish()->ok);
}

TEST(HaloDriverFlow, ThreeRolesMakeNineBuilderCallsAndThreeHiresWithDistinctRho) {
  Script sc;
  sc.model["halo.role_design"] = [](const std::string&) {
    return std::string(R"({"agent roles": ["Solver", "Checker", "Critic"]})");
  };
  HaloDriver d(test_setup(), test_task());
  Harness h(d, sc);
  h.start();
  h.run();
  EXPECT_EQ(h.calls("halo.agent_prompt_template").size(), 3u);
  EXPECT_EQ(h.calls("halo.agent_prompt_optimizer").size(), 3u);
  EXPECT_EQ(h.calls("halo.agent_final_prompt").size(), 3u);
  // Each chain feeds its own previous output on.
  for (const std::string& p : h.prompts("halo.agent_final_prompt"))
    EXPECT_NE(p.find("OPT " + line_after(p, "Agent Role: ")), std::string::npos);
  const auto hires = h.all<Hire>();
  ASSERT_EQ(hires.size(), 3u);
  EXPECT_EQ(hires[0].spec.name, "halo-solver-1");
  EXPECT_EQ(hires[1].spec.name, "halo-checker-2");
  EXPECT_EQ(hires[2].spec.name, "halo-critic-3");
  EXPECT_EQ(hires[0].spec.system_prompt, "RHO Solver");
  EXPECT_EQ(hires[1].spec.system_prompt, "RHO Checker");
  EXPECT_EQ(hires[2].spec.system_prompt, "RHO Critic");
  for (const Hire& x : hires) {
    EXPECT_EQ(x.spec.model_ref, "mock:backbone");
    EXPECT_EQ(x.cost.model_ref, "mock:backbone");
    // The agents sample as HALO's own calls do, not at the employee defaults.
    EXPECT_EQ(x.spec.temperature, 0.8);
    EXPECT_EQ(x.spec.seed, 10);
  }
  // Every ask carries its agent's rho as the system message.
  ASSERT_FALSE(h.all<Ask>().empty());
  for (const Ask& a : h.all<Ask>()) {
    ASSERT_FALSE(a.messages.empty());
    EXPECT_EQ(a.messages[0].role, llm::Role::system);
    for (const Hire& x : hires) {
      if (x.spec.name == a.agent) {
        EXPECT_EQ(a.messages[0].content, x.spec.system_prompt);
      }
    }
  }
  EXPECT_EQ(h.events(event::roles).at(0)["roles"], json({"Solver", "Checker", "Critic"}));
}

TEST(HaloDriverFlow, TheKthPlannerRequestHoldsKMinusOneHistoryEntriesAndStopEndsTheLoop) {
  Script sc;
  sc.model["halo.planner"] = [](const std::string& p) {
    const size_t done = count_of(p, "[subtask ");
    return done < 3 ? R"({"next subtask": "step )" + std::to_string(done + 1) + "\"}"
                    : std::string(R"({"next subtask": "stop"})");
  };
  sc.agent = [](const Ask& a) { return "answer to " + subtask_of(a); };
  HaloDriver d(test_setup(), test_task());
  Harness h(d, sc);
  h.start();
  h.run();
  const auto planner = h.prompts("halo.planner");
  ASSERT_EQ(planner.size(), 4u);
  for (size_t k = 0; k < planner.size(); ++k) EXPECT_EQ(count_of(planner[k], "[subtask "), k) << planner[k];
  EXPECT_NE(planner[0].find("No subtask has been carried out yet."), std::string::npos);
  EXPECT_NE(planner[3].find("[subtask 2]\nsubtask name: step 2\nsubtask answer: answer to step 2\nsubtask result: "
                            "success"),
            std::string::npos)
      << planner[3];
  EXPECT_EQ(h.events(event::subtask).size(), 3u);
  ASSERT_TRUE(h.finish());
  EXPECT_TRUE(h.finish()->ok);
  EXPECT_EQ(h.finish()->text, "answer to step 3");  // planner stop: the last subtask's answer
  EXPECT_EQ(h.finish()->metadata["exit"], "planner_stop");
  EXPECT_EQ(h.finish()->metadata["subtasks"], 3);
}

TEST(HaloDriverFlow, ANeverStoppingPlannerWithDisagreeingAnswersRunsKSubtasksAndGivesTheFailureAnswer) {
  Script sc;
  sc.model["halo.planner"] = never_stop;
  sc.agent = [](const Ask& a) { return "answer to " + subtask_of(a); };
  HaloDriver d(test_setup(), test_task());
  Harness h(d, sc);
  h.start();
  h.run();
  EXPECT_EQ(h.calls("halo.planner").size(), 5u);
  EXPECT_EQ(h.events(event::subtask).size(), 5u);
  EXPECT_EQ(h.events(event::search_ended).size(), 5u);
  EXPECT_TRUE(h.events(event::early_stop).empty());
  ASSERT_TRUE(h.finish());
  EXPECT_FALSE(h.finish()->ok);
  EXPECT_EQ(h.finish()->text, "FAILED");
  EXPECT_EQ(h.finish()->metadata["exit"], "subtask_budget");
  EXPECT_EQ(h.finish()->metadata["answer"], "FAILED");
  EXPECT_EQ(h.finish()->metadata["history"].size(), 5u);
}

TEST(HaloDriverFlow, AnswersAThenBThenAStopEarlyWithA) {
  Script sc;
  sc.model["halo.planner"] = never_stop;
  sc.agent = [](const Ask& a) { return subtask_of(a) == "step 2" ? std::string("B") : std::string("A"); };
  HaloDriver d(test_setup(), test_task());
  Harness h(d, sc);
  h.start();
  h.run();
  // [A, B] does not stop; [A, B, A] does.
  EXPECT_EQ(h.calls("halo.planner").size(), 3u);
  const auto stop = h.events(event::early_stop);
  ASSERT_EQ(stop.size(), 1u);
  EXPECT_EQ(stop[0]["agreeing"], 2);
  EXPECT_EQ(stop[0]["total"], 3);
  ASSERT_TRUE(h.finish());
  EXPECT_TRUE(h.finish()->ok);
  EXPECT_EQ(h.finish()->text, "A");
  EXPECT_EQ(h.finish()->metadata["exit"], "early_stop");
  EXPECT_EQ(h.notes(event::early_stop).size(), 1u);
}

// With an answer format, the parser reads the choice out of each subtask's
// answer (one more call per subtask), and the choices are what agree.
TEST(HaloDriverFlow, AMultipleChoiceAnswerIsReadAfterEachSubtaskAndTheLettersAgree) {
  HaloSetup s = test_setup();
  s.settings.answer_format = AnswerFormat::multiple_choice;
  Script sc;
  sc.model["halo.planner"] = never_stop;
  sc.agent = [](const Ask& a) { return "In " + subtask_of(a) + " I choose option B, because it fits."; };
  sc.model["halo.answer_parser"] = [](const std::string& prompt) {
    return prompt.find("option B") != std::string::npos ? std::string(R"({"answer": "b"})") : std::string("no idea");
  };
  HaloDriver d(s, test_task());
  Harness h(d, sc);
  h.start();
  h.run();
  EXPECT_EQ(h.calls("halo.answer_parser").size(), 2u);  // the two texts differ; their letters agree
  ASSERT_TRUE(h.finish());
  EXPECT_TRUE(h.finish()->ok);
  EXPECT_EQ(h.finish()->text, "B");
  EXPECT_EQ(h.finish()->metadata["exit"], "early_stop");
  EXPECT_EQ(h.finish()->metadata["history"][0]["extracted"], "B");
}

// A math answer is compared LaTeX-normalised and an unreadable parser reply
// is HALO's default 0, noted as a problem.
TEST(HaloDriverFlow, AMathAnswerIsComparedAfterNormalisingAndAnUnreadableOneIsZero) {
  HaloSetup s = test_setup();
  s.settings.answer_format = AnswerFormat::math;
  s.settings.equivalence = answers::Equivalence::latex;
  Script sc;
  sc.model["halo.planner"] = never_stop;
  sc.agent = [](const Ask& a) { return "worked answer for " + subtask_of(a); };
  sc.model["halo.answer_parser"] = [](const std::string& prompt) {
    if (prompt.find("step 1") != std::string::npos) return std::string("the parser rambles");
    if (prompt.find("step 2") != std::string::npos) return std::string(R"({"answer": "boxed{\\dfrac12}"})");
    return std::string(R"({"answer": "boxed{\\frac{1}{2}}"})");
  };
  HaloDriver d(s, test_task());
  Harness h(d, sc);
  h.start();
  h.run();
  // [0, 1/2, 1/2] stops at the third with the first of the agreeing two.
  EXPECT_EQ(h.calls("halo.answer_parser").size(), 3u) << h.finish()->metadata.dump();
  ASSERT_TRUE(h.finish());
  EXPECT_EQ(h.finish()->text, "\\dfrac12");
  EXPECT_EQ(h.finish()->metadata["history"][0]["extracted"], "0");
  bool noted = false;
  for (const json& p : h.notes(event::problem)) noted |= p.dump().find("halo.answer_parser") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(HaloDriverFlow, WithoutThePlannerQStarIsTheOneSubtaskAndItsAnswerIsReturned) {
  HaloSetup s = test_setup();
  s.settings.use_planner = false;
  Script sc;
  sc.agent = [](const Ask& a) { return "answer to " + subtask_of(a); };
  HaloDriver d(s, test_task());
  Harness h(d, sc);
  h.start();
  h.run();
  EXPECT_TRUE(h.calls("halo.planner").empty());
  const auto subtasks = h.events(event::subtask);
  ASSERT_EQ(subtasks.size(), 1u);
  EXPECT_EQ(subtasks[0]["text"], kQStar);
  ASSERT_TRUE(h.finish());
  EXPECT_TRUE(h.finish()->ok);
  EXPECT_EQ(h.finish()->text, "answer to " + kQStar);
  EXPECT_EQ(h.finish()->metadata["exit"], "single_subtask");
}

TEST(HaloDriverFlow, APlannerStopBeforeAnySubtaskGivesTheFailureAnswer) {
  Script sc;
  sc.model["halo.planner"] = [](const std::string&) { return std::string(R"({"next subtask": " STOP "})"); };
  HaloDriver d(test_setup(), test_task());
  Harness h(d, sc);
  h.start();
  h.run();
  EXPECT_EQ(h.calls("halo.planner").size(), 1u);
  EXPECT_TRUE(h.calls("halo.role_design").empty());
  ASSERT_TRUE(h.finish());
  EXPECT_FALSE(h.finish()->ok);
  EXPECT_EQ(h.finish()->text, "FAILED");
  EXPECT_EQ(h.finish()->metadata["exit"], "planner_stop");
}

TEST(HaloDriverFlow, ASubtaskThatMerelyMentionsStopIsRun) {
  Script sc;
  sc.model["halo.planner"] = [](const std::string& p) {
    return count_of(p, "[subtask ") == 0 ? std::string(R"({"next subtask": "stop the leak"})")
                                         : std::string(R"({"next subtask": "stop"})");
  };
  HaloDriver d(test_setup(), test_task());
  Harness h(d, sc);
  h.start();
  h.run();
  ASSERT_EQ(h.events(event::subtask).size(), 1u);
  EXPECT_EQ(h.events(event::subtask)[0]["text"], "stop the leak");
  EXPECT_TRUE(h.finish()->ok);
}

TEST(HaloDriverFlow, ADepthTwoAgentIsShownTheDepthOneAnswerBeforeItsSolveRequest) {
  Script sc;
  // An agent's answer names its depth: its context entries plus one.
  sc.agent = [](const Ask& a) {
    size_t depth = 1;
    for (const auto& m : a.messages) depth += m.content.rfind("Here is the response", 0) == 0;
    return "DEPTH" + std::to_string(depth) + " by " + a.agent;
  };
  sc.model["halo.judge"] = [](const std::string& p) {
    return p.find("DEPTH1") != std::string::npos ? std::string(R"({"status": "continue"})")
                                                 : std::string(R"({"status": "success"})");
  };
  HaloDriver d(test_setup(), test_task());
  Harness h(d, sc);
  h.start();
  h.run();
  std::vector<std::string> contexts;
  for (const Ask& a : h.all<Ask>()) {
    if (a.messages.size() != 4) continue;
    contexts.push_back(a.messages[1].content);
    EXPECT_EQ(a.messages[0].role, llm::Role::system);
    EXPECT_EQ(a.messages[0].content.rfind("RHO ", 0), 0u);
    EXPECT_EQ(a.messages[1].role, llm::Role::user);
    EXPECT_TRUE(
        a.messages[1].content == "Here is the response from the agent role of Solver:\nDEPTH1 by halo-solver-1" ||
        a.messages[1].content == "Here is the response from the agent role of Checker:\nDEPTH1 by halo-checker-2")
        << a.messages[1].content;
    EXPECT_EQ(a.messages[2].role, llm::Role::assistant);
    EXPECT_EQ(a.messages[2].content, "Okey I should consider the response carefully.");
    EXPECT_EQ(a.messages[3].role, llm::Role::user);
    EXPECT_NE(a.messages[3].content.find("Current Subtask:\nstep 1"), std::string::npos);
    EXPECT_TRUE(a.tools.empty());
  }
  // The search's first child is role 0's, and the first rollout starts from it.
  ASSERT_FALSE(contexts.empty());
  EXPECT_EQ(contexts[0], "Here is the response from the agent role of Solver:\nDEPTH1 by halo-solver-1");
  // Depth-1 asks have no context.
  size_t depth_one = 0;
  for (const Ask& a : h.all<Ask>()) depth_one += a.messages.size() == 2;
  EXPECT_GE(depth_one, 2u);
}

TEST(HaloDriverFlow, TheScorerSeesTheJudgesLabel) {
  Script sc;
  sc.model["halo.judge"] = [](const std::string&) { return std::string(R"({"status": "fail"})"); };
  HaloDriver d(test_setup(), test_task());
  Harness h(d, sc);
  h.start();
  h.run();
  ASSERT_FALSE(h.prompts("halo.scorer").empty());
  for (const std::string& p : h.prompts("halo.scorer")) {
    EXPECT_NE(p.find("Judge Agent Output: fail"), std::string::npos);
    EXPECT_NE(p.find("Output of the Agent Role:\nANSWER 5"), std::string::npos);
    EXPECT_NE(p.find("Agent Role: "), std::string::npos);
  }
  for (const std::string& p : h.prompts("halo.judge")) EXPECT_NE(p.find("ANSWER 5"), std::string::npos);
}

TEST(HaloDriverFlow, EveryReportedSubKindIsListedAndTheJournaledOnesAreNotesToo) {
  Script sc;
  sc.model["halo.judge"] = [](const std::string& p) {
    return p.find("first") != std::string::npos ? std::string(R"({"status": "continue"})")
                                                : std::string(R"({"status": "success"})");
  };
  sc.agent = [](const Ask& a) { return a.messages.size() == 2 ? std::string("first") : std::string("second"); };
  sc.model["halo.scorer"] = [](const std::string&) { return std::string("no score"); };  // a problem too
  HaloDriver d(test_setup(), test_task());
  Harness h(d, sc);
  h.start();
  h.run();
  std::map<std::string, bool> listed;
  for (const auto& e : halo_events()) listed[e.name] = e.journaled;
  std::set<std::string> reported;
  for (size_t i = 0; i < h.effects.size(); ++i) {
    const auto* r = std::get_if<Report>(&h.effects[i]);
    if (!r || r->kind != msg::EventKind::strategy) continue;
    const std::string name = r->data.value("event", "");
    reported.insert(name);
    ASSERT_TRUE(listed.count(name)) << name;
    EXPECT_EQ(r->data["strategy"], "halo");
    const auto* j = i > 0 ? std::get_if<Journal>(&h.effects[i - 1]) : nullptr;
    const bool noted = j && j->kind == msg::EventKind::note && j->payload == r->data;
    EXPECT_EQ(noted, listed[name]) << name;
  }
  for (const char* name : {"refined", "subtask", "roles", "selection", "expansion", "rollout", "backpropagated",
                           "search_ended", "problem"})
    EXPECT_TRUE(reported.count(name)) << name;
  // The tree can be rebuilt from the notes: the expansion holds the answers.
  const json exp = h.notes(event::expansion).at(0);
  EXPECT_EQ(exp["subtask"], 1);
  EXPECT_EQ(exp["parent"], 0);
  EXPECT_EQ(exp["children"].size(), 2u);
  EXPECT_EQ(exp["children"][0]["answer"], "first");
  EXPECT_EQ(exp["children"][0]["role_name"], "Solver");
  const json ended = h.notes(event::search_ended).at(0);
  EXPECT_FALSE(ended["trajectory"].empty());
  EXPECT_EQ(ended["answer"], ended["trajectory"].back()["answer"]);
}

TEST(HaloDriverSetup, TheShippedPromptsLoadWithTheContextTexts) {
  Result<HaloPrompts> p = load_halo_prompts(KAISHA_SOURCE_DIR);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(missing_prompts(*p), "");
  EXPECT_EQ(p->context_acknowledgement, "Okey I should consider the response carefully.");
  auto said = p->context_response.render({{"role", "R"}, {"answer", "x"}});
  ASSERT_TRUE(said.ok());
  EXPECT_EQ(*said, "Here is the response from the agent role of R:\nx");
  EXPECT_FALSE(p->assistant_fallback.empty());
  Result<HaloPrompts> none = load_halo_prompts("/nonexistent-root");
  EXPECT_FALSE(none.ok());
}

TEST(HaloDriverSetup, AgentNamesAreSlugsOfTheRole) {
  EXPECT_EQ(HaloDriver::agent_name("Data Cleaning", 1), "halo-data-cleaning-1");
  EXPECT_EQ(HaloDriver::agent_name("  C++ / Rust expert!! ", 12), "halo-c-rust-expert-12");
  EXPECT_EQ(HaloDriver::agent_name("数学", 2), "halo-role-2");
  EXPECT_EQ(HaloDriver::agent_name(std::string(100, 'a'), 3), "halo-" + std::string(32, 'a') + "-3");
}

TEST(HaloDriverSetup, MissingPromptsOrBadSettingsFinishTheTaskAtOnceWithTheReason) {
  HaloSetup s = test_setup();
  auto partial = std::make_shared<HaloPrompts>(*shipped_prompts());
  partial->templates.erase(HaloPrompt::judge);
  s.prompts = partial;
  HaloDriver d(s, test_task());
  Effects e = d.start();
  ASSERT_EQ(e.size(), 1u);
  const Finish f = std::get<Finish>(e[0]);
  EXPECT_FALSE(f.ok);
  EXPECT_EQ(f.text, "HALO's prompts are missing: judge.md");

  HaloSetup bad = test_setup();
  bad.settings.search.max_depth = 0;
  HaloDriver d2(bad, test_task());
  e = d2.start();
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(std::get<Finish>(e[0]).text.find("max_depth"), std::string::npos);
  EXPECT_TRUE(d2.finished());
}

}  // namespace
}  // namespace kaisha::halo::halo_driver_test
