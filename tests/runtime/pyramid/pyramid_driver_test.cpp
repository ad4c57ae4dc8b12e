#include "runtime/pyramid/pyramid_driver.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <map>

#include "runtime/llm/usage_estimate.hpp"
#include "tests/runtime/pyramid/pyramid_test_util.hpp"

namespace kaisha::pyramid {
namespace {

using namespace driver;

const char* kDriverLibrary = R"(agents:
  - name: judge_agent
    level: -1
    description: checks results
    responsibility: Check the result of task {task_id}.
    workflow: Read the files, then rule.
    available_tools: [file_read, dir_list, final_output]
  - name: worker
    level: 1
    description: writes files
    responsibility: Write what is asked.
    workflow: Write, then final_output.
    available_tools: [file_write, final_output]
    max_turns: 6
  - name: lead
    level: 2
    description: splits work between workers
    responsibility: Lead task {task_id}.
    workflow: Call worker for each part.
    available_tools: [worker, judge_agent, final_output]
)";

llm::ToolCall tc(std::string id, std::string name, json args) {
  return llm::ToolCall{std::move(id), std::move(name), args.dump()};
}

std::string final_args(const std::string& status, const std::string& output, json files = json::array()) {
  json j{{"status", status}, {"output", output}};
  if (status == "error") j["error_information"] = output;
  if (!files.empty()) j["files"] = files;
  return j.dump();
}

// Drives a PyramidDriver: collects the effects it returns and answers them.
struct Harness {
  PyramidSetup setup;
  QualityScores quality{0.8, 0.5};
  std::unique_ptr<PyramidDriver> driver;
  std::vector<Effect> all;    // every effect returned, in order
  std::deque<Ask> asks;       // not answered yet
  std::deque<RunTool> tools;  // not answered yet
  std::deque<Hire> hires;     // not answered yet
  std::optional<Finish> finished;

  explicit Harness(const std::string& library = kDriverLibrary, std::string entry = "lead") {
    setup.library = std::make_shared<const AgentLibrary>(value_or_throw(AgentLibrary::parse(library, "lib.yaml")));
    const std::string prompts = std::string(KAISHA_SOURCE_DIR) + "/prompts";
    setup.context = std::make_shared<const AgentContext>(value_or_throw(AgentContext::load(prompts)));
    setup.texts = std::make_shared<const LoopTexts>(value_or_throw(LoopTexts::load(prompts)));
    for (const std::string t : {"file_read", "file_write", "dir_list", "final_output", "check_files"})
      setup.level0[t] = llm::ToolSpec{t, "the " + t + " tool", json::object()};
    setup.cost_of = [](const std::string& model) {
      economy::ModelCost c;
      c.name = "mock";
      c.model_ref = model.empty() ? "mock:default" : model;
      c.type = "local";
      return c;
    };
    setup.count = llm::estimate_tokens;
    RouteDecision route;
    route.agent = std::move(entry);
    driver = std::make_unique<PyramidDriver>(setup, quality, "t-1", "Build the thing", route);
  }

  void take(Effects effects) {
    for (auto& e : effects) {
      all.push_back(e);
      if (auto* a = std::get_if<Ask>(&e))
        asks.push_back(*a);
      else if (auto* t = std::get_if<RunTool>(&e))
        tools.push_back(*t);
      else if (auto* h = std::get_if<Hire>(&e))
        hires.push_back(*h);
      else if (auto* f = std::get_if<Finish>(&e))
        finished = *f;
    }
  }
  void start() { take(driver->start()); }
  // The task enters where `route` says instead.
  void reroute(RouteDecision route) {
    driver = std::make_unique<PyramidDriver>(setup, quality, "t-1", "Build the thing", std::move(route));
  }
  // The evolution triggers journaled so far, of `kind`.
  std::vector<json> triggers(const std::string& kind) const {
    std::vector<json> out;
    for (const auto& e : all)
      if (auto* j = std::get_if<Journal>(&e))
        if (j->payload.contains("trigger") && j->payload["trigger"]["kind"] == kind)
          out.push_back(j->payload["trigger"]);
    return out;
  }
  void hire_all() {
    while (!hires.empty()) {
      Hire h = hires.front();
      hires.pop_front();
      take(driver->on(HireAnswered{h.id, true, false, "", json::object()}));
    }
  }
  // Answers the oldest waiting turn of `agent` with `text` and `calls`.
  Ask answer(const std::string& agent, std::vector<llm::ToolCall> calls, std::string text = "") {
    hire_all();
    auto it = std::find_if(asks.begin(), asks.end(), [&](const Ask& a) { return a.agent == agent; });
    if (it == asks.end()) throw std::runtime_error("no turn of " + agent + " is waiting");
    Ask a = *it;
    asks.erase(it);
    AskAnswered r;
    r.id = a.id;
    r.ok = true;
    r.reply.agent = agent;
    r.reply.output = std::move(text);
    r.reply.tool_requests = std::move(calls);
    r.reply.usage = llm::Usage{100, 10, false};
    r.expense = 0.01;
    take(driver->on(r));
    return a;
  }
  // Answers the oldest waiting RunTool with `r`; returns it.
  RunTool answer_tool(company::ToolResult r) {
    RunTool t = tools.front();
    tools.pop_front();
    take(driver->on(ToolRan{t.id, std::move(r)}));
    return t;
  }
  RunTool tool_done(bool ok, std::string message) {
    RunTool t = tools.front();
    tools.pop_front();
    take(driver->on(ToolRan{t.id, ok ? company::ToolResult::success(message) : company::ToolResult::error(message)}));
    return t;
  }
  size_t count_asks(const std::string& agent) const {
    size_t n = 0;
    for (const auto& e : all)
      if (auto* a = std::get_if<Ask>(&e)) n += a->agent == agent;
    return n;
  }
  size_t count_hires(const std::string& agent) const {
    size_t n = 0;
    for (const auto& e : all)
      if (auto* h = std::get_if<Hire>(&e)) n += h->spec.name == agent;
    return n;
  }
};

// The last message of a turn with role `role`.
const llm::ChatMessage& last(const Ask& a, llm::Role role) {
  for (auto it = a.messages.rbegin(); it != a.messages.rend(); ++it)
    if (it->role == role) return *it;
  throw std::runtime_error("no such message");
}

bool mentions(const Ask& a, const std::string& text) {
  for (const auto& m : a.messages)
    if (m.content.find(text) != std::string::npos) return true;
  return false;
}

TEST(PyramidDriver, TheEntryAgentIsHiredOnceAndAskedTurnByTurnWithItsFourPartContext) {
  Harness h;
  h.start();
  ASSERT_EQ(h.hires.size(), 1u);
  EXPECT_EQ(h.hires.front().spec.name, "lead");
  EXPECT_NE(h.hires.front().spec.system_prompt.find("Lead task t-1."), std::string::npos);
  h.hire_all();
  ASSERT_EQ(h.asks.size(), 1u);
  const Ask& a = h.asks.front();
  ASSERT_GE(a.messages.size(), 3u);
  EXPECT_EQ(a.messages[0].role, llm::Role::system);
  EXPECT_NE(a.messages[0].content.find("Lead task t-1."), std::string::npos);
  EXPECT_NE(a.messages[1].content.find("Calls running now"), std::string::npos);
  EXPECT_EQ(a.messages.back().content, "Build the thing");
  std::vector<std::string> tools;
  for (const auto& t : a.tools) tools.push_back(t.name);
  EXPECT_EQ(tools, (std::vector<std::string>{"worker", "judge_agent", "final_output"}));
}

// §10 item 9: the parent gets the child's final_output JSON and nothing of
// its turns; item 16: calls of one turn run concurrently, results in call order.
// §10 item 11: a call's references are checked before the callee starts.
// A missing one answers the parent's call with the missing path, and the
// callee is neither hired nor asked; present ones reach the callee listed
// under its instruction.
TEST(PyramidDriver, AnAgentCallsReferencesAreCheckedBeforeTheCalleeStarts) {
  Harness h;
  h.setup.enforce_judge = false;
  h.start();
  const json refs = json::array({{{"path", "plan/川.md"}, {"description", "the plan"}}});
  h.answer("lead", {tc("c1", "worker", {{"task_id", "t-1"}, {"task_input", "part A"}, {"references", refs}})});
  ASSERT_EQ(h.tools.size(), 1u);
  EXPECT_EQ(h.tools.front().tool, kCheckFilesTool);
  EXPECT_EQ(json::parse(h.tools.front().arguments), (json{{"paths", {"plan/川.md"}}, {"list", "references"}}));
  EXPECT_EQ(h.count_hires("worker"), 0u) << "nobody is hired before the references are checked";
  h.tool_done(false, "these files named in this call's references do not exist in the task's workspace: plan/川.md");
  EXPECT_EQ(h.count_hires("worker"), 0u);
  ASSERT_EQ(h.asks.size(), 1u);
  const Ask& back = h.asks.front();
  EXPECT_EQ(back.agent, "lead");
  EXPECT_EQ(back.messages.back().tool_call_id, "c1");
  EXPECT_NE(back.messages.back().content.find("not run: these files named in this call's references"),
            std::string::npos)
      << back.messages.back().content;

  // Once the file is there, the same call goes through.
  h.answer("lead", {tc("c2", "worker", {{"task_id", "t-1"}, {"task_input", "part A"}, {"references", refs}})});
  h.tool_done(true, "every file exists");
  h.hire_all();
  ASSERT_EQ(h.asks.size(), 1u);
  EXPECT_EQ(h.asks.front().agent, "worker");
  EXPECT_EQ(h.asks.front().messages.back().content,
            "part A\n\nReferences (files in the task's workspace):\n- plan/川.md: the plan");
}

TEST(PyramidDriver, ChildCallsRunConcurrentlyAndTheParentGetsOnlyTheirFinalOutputsInCallOrder) {
  Harness h;
  h.setup.enforce_judge = false;
  h.start();
  h.answer("lead", {tc("c1", "worker", {{"task_id", "t-1"}, {"task_input", "part A"}}),
                    tc("c2", "worker", {{"task_id", "t-1"}, {"task_input", "part B"}})});
  // One hire for both calls of the shared child, two independent turns.
  EXPECT_EQ(h.count_hires("worker"), 1u);
  h.hire_all();
  ASSERT_EQ(h.asks.size(), 2u);
  EXPECT_EQ(h.asks[0].messages.back().content, "part A");
  EXPECT_EQ(h.asks[1].messages.back().content, "part B");
  // The second finishes first; the parent still sees A's result first.
  {
    auto it = h.asks.begin() + 1;
    AskAnswered r;
    r.id = it->id;
    r.ok = true;
    r.reply.output = "SECRET-B-THOUGHTS";
    r.reply.tool_requests = {tc("f", "final_output", json::parse(final_args("success", "B done")))};
    h.asks.erase(it);
    h.take(h.driver->on(r));
  }
  EXPECT_TRUE(h.asks.empty() || h.asks.front().agent == "worker");
  h.answer("worker", {tc("f", "final_output", json::parse(final_args("success", "A done")))}, "SECRET-A-THOUGHTS");
  ASSERT_EQ(h.asks.size(), 1u);
  const Ask& next = h.asks.front();
  EXPECT_EQ(next.agent, "lead");
  ASSERT_GE(next.messages.size(), 2u);
  const auto& ra = next.messages[next.messages.size() - 2];
  const auto& rb = next.messages.back();
  EXPECT_EQ(ra.tool_call_id, "c1");
  EXPECT_EQ(json::parse(ra.content)["output"], "A done");
  EXPECT_EQ(rb.tool_call_id, "c2");
  EXPECT_EQ(json::parse(rb.content)["output"], "B done");
  EXPECT_FALSE(mentions(next, "SECRET-A-THOUGHTS"));
  EXPECT_FALSE(mentions(next, "SECRET-B-THOUGHTS"));
  h.answer("lead", {tc("f", "final_output", json::parse(final_args("success", "all done")))});
  ASSERT_TRUE(h.finished);
  EXPECT_TRUE(h.finished->ok);
  EXPECT_EQ(h.finished->text, "all done");
  // Hired agents are fired at the end.
  size_t fires = 0;
  for (const auto& e : h.all) fires += std::holds_alternative<Fire>(e);
  EXPECT_EQ(fires, 2u);
}

// §10 item 42: a running sibling's branch shows in C_SM, a finished one's does not.
TEST(PyramidDriver, TheCallStackShowsRunningSiblingsOnly) {
  Harness h;
  h.setup.enforce_judge = false;
  h.start();
  h.answer("lead", {tc("c1", "worker", {{"task_id", "t-1"}, {"task_input", "part ALPHA"}}),
                    tc("c2", "worker", {{"task_id", "t-1"}, {"task_input", "part BETA"}})});
  h.hire_all();
  EXPECT_NE(h.asks[0].messages[1].content.find("part BETA"), std::string::npos);
  h.answer("worker", {tc("f", "final_output", json::parse(final_args("success", "alpha done")))});
  // BETA's next turn: ALPHA has ended and left the tree.
  h.answer("worker", {tc("w", "file_write", {{"file_path", "b.txt"}, {"content", "x"}})});
  h.tool_done(true, "written");
  ASSERT_EQ(h.asks.size(), 1u);
  EXPECT_EQ(h.asks.front().messages[1].content.find("part ALPHA"), std::string::npos);
  EXPECT_NE(h.asks.front().messages[1].content.find("part BETA"), std::string::npos);
}

// §10 item 2: a tool outside the list is not run; the model gets the list.
TEST(PyramidDriver, AToolOutsideTheAgentsListIsRefusedWithTheAllowedTools) {
  Harness h("" + std::string(kDriverLibrary), "worker");
  h.start();
  h.answer("worker", {tc("x", "dir_list", {{"path", "."}})});
  EXPECT_TRUE(h.tools.empty());
  ASSERT_EQ(h.asks.size(), 1u);
  const auto& result = last(h.asks.front(), llm::Role::tool);
  EXPECT_EQ(json::parse(result.content)["status"], "error");
  EXPECT_NE(result.content.find("file_write"), std::string::npos) << result.content;
}

// §10 item 66: five reminders, then final_output(error); never a hang.
TEST(PyramidDriver, AModelThatCallsNoToolGetsFiveRemindersThenTheCallFails) {
  Harness h(kDriverLibrary, "lead");
  h.start();
  for (int i = 0; i < 5; ++i) {
    h.answer("lead", {}, "I am thinking");
    ASSERT_EQ(h.asks.size(), 1u) << i;
    EXPECT_NE(last(h.asks.front(), llm::Role::user).content.find("reminders left"), std::string::npos);
  }
  h.answer("lead", {}, "still thinking");
  ASSERT_TRUE(h.finished);
  EXPECT_FALSE(h.finished->ok);
  EXPECT_NE(h.finished->text.find("called no tool after 5 reminders"), std::string::npos) << h.finished->text;
  EXPECT_EQ(h.count_asks("lead"), 6u);
}

// §10 items 36, 45: bounded turns and bounded final_output attempts.
TEST(PyramidDriver, ACallEndsAtItsTurnLimit) {
  Harness h(kDriverLibrary, "worker");  // max_turns 6
  h.start();
  for (int i = 0; i < 6; ++i) {
    h.answer("worker", {tc("w" + std::to_string(i), "file_write", {{"file_path", "a"}, {"content", "b"}})});
    if (!h.tools.empty()) h.tool_done(true, "ok");
  }
  ASSERT_TRUE(h.finished);
  EXPECT_NE(h.finished->text.find("limit of 6 turns"), std::string::npos) << h.finished->text;
  EXPECT_EQ(h.count_asks("worker"), 6u);
}

TEST(PyramidDriver, AnInvalidFinalOutputIsRefusedABoundedNumberOfTimes) {
  Harness h(kDriverLibrary, "worker");
  h.start();
  for (int i = 0; i < 3; ++i) {
    h.answer("worker", {tc("f", "final_output", {{"status", "done"}})});
    ASSERT_FALSE(h.finished) << i;
    EXPECT_NE(last(h.asks.front(), llm::Role::tool).content.find("status"), std::string::npos);
  }
  h.answer("worker", {tc("f", "final_output", {{"status", "done"}})});
  ASSERT_TRUE(h.finished);
  EXPECT_FALSE(h.finished->ok);
  EXPECT_NE(h.finished->text.find("no valid final_output after 4 attempts"), std::string::npos) << h.finished->text;
}

TEST(PyramidDriver, FinalOutputMustBeTheOnlyCallOfItsTurn) {
  Harness h(kDriverLibrary, "worker");
  h.start();
  h.answer("worker", {tc("w", "file_write", {{"file_path", "a"}, {"content", "b"}}),
                      tc("f", "final_output", json::parse(final_args("success", "x")))});
  EXPECT_TRUE(h.tools.empty()) << "nothing of that turn runs";
  ASSERT_EQ(h.asks.size(), 1u);
  EXPECT_NE(h.asks.front().messages.back().content.find("only tool call"), std::string::npos);
}

// Item 11: a turn hands out at most K_max (max_children) sub-tasks; the
// rest are answered "not run" and the call goes on.
TEST(PyramidDriver, ATurnHandsOutAtMostKMaxSubTasks) {
  const std::string library = "max_children: 2\n" + std::string(kDriverLibrary);
  Harness h(library, "lead");
  h.start();
  h.answer("lead", {tc("a", "worker", {{"task_input", "part 1"}}), tc("b", "worker", {{"task_input", "part 2"}}),
                    tc("c", "worker", {{"task_input", "part 3"}})});
  h.hire_all();
  EXPECT_EQ(h.count_asks("worker"), 2u);
  h.answer("worker", {tc("f", "final_output", json::parse(final_args("error", "one")))});
  h.answer("worker", {tc("f", "final_output", json::parse(final_args("error", "two")))});
  ASSERT_FALSE(h.asks.empty());
  const Ask& next = h.asks.front();
  EXPECT_EQ(next.agent, "lead");
  EXPECT_NE(next.messages.back().content.find("at most 2 sub-tasks"), std::string::npos)
      << next.messages.back().content;
}

// Item 40: after a child writes x.json with a description, the parent's
// next prompt holds that path and description; a file it wrote without one
// is indexed with where it came from.
TEST(PyramidDriver, TheParentsNextPromptIndexesTheChildsFiles) {
  Harness h(kDriverLibrary, "lead");
  h.setup.enforce_judge = false;
  h.start();
  h.answer("lead", {tc("a", "worker", {{"task_input", "compute the results"}})});
  h.answer("worker", {tc("w1", "file_write", {{"file_path", "out/x.json"}, {"content", "{}"}}),
                      tc("w2", "file_write", {{"file_path", "out/scratch.txt"}, {"content", "notes"}})});
  h.tool_done(true, "written");
  h.tool_done(true, "written");
  h.answer("worker",
           {tc("f", "final_output",
               json::parse(final_args("success", "computed",
                                      json::array({{{"path", "out/x.json"}, {"description", "the 結果 as JSON"}}}))))});
  h.tool_done(true, "every file exists");
  ASSERT_FALSE(h.asks.empty());
  ASSERT_EQ(h.asks.front().agent, "lead");
  std::string prompt;
  for (const auto& m : h.asks.front().messages) prompt += m.content + "\n";
  EXPECT_NE(prompt.find("out/x.json: the 結果 as JSON"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("out/scratch.txt: written by worker (no description given)"), std::string::npos) << prompt;
}

// Item 28: the judge's execute_code runs as the read-only judge_execute_code.
TEST(PyramidDriver, TheJudgesProgramsRunReadOnly) {
  const std::string library =
      std::string(kDriverLibrary) +
      "  - {name: runner, level: 1, description: runs, available_tools: [execute_code, final_output]}\n";
  std::string judged = library;
  judged.replace(judged.find("available_tools: [file_read, dir_list, final_output]"),
                 std::string("available_tools: [file_read, dir_list, final_output]").size(),
                 "available_tools: [file_read, dir_list, execute_code, final_output]");
  Harness h(judged, "runner");
  h.setup.level0["execute_code"] = llm::ToolSpec{"execute_code", "runs code", json::object()};
  h.start();
  h.answer("runner", {tc("x", "execute_code", {{"file_path", "main.py"}})});
  EXPECT_EQ(h.tool_done(true, "ran").tool, "execute_code");  // the agent's own run
  h.answer("runner", {tc("f", "final_output", json::parse(final_args("success", "ran it")))});
  h.answer("judge_agent", {tc("x", "execute_code", {{"file_path", "main.py"}})});
  EXPECT_EQ(h.tool_done(true, "ran").tool, kJudgeExecuteTool);
}

// Item 23: the judge's first message holds the original instruction and the
// claimed result, with its output and its (addr, desc) list.
TEST(PyramidDriver, TheJudgeIsGivenTheInstructionAndTheClaimedResult) {
  Harness h(kDriverLibrary, "worker");
  h.start();
  h.answer("worker", {tc("w", "file_write", {{"file_path", "notes/川.md"}, {"content", "水"}})});
  h.tool_done(true, "written");
  h.answer("worker", {tc("f", "final_output",
                         json::parse(final_args(
                             "success", "Wrote the river note",
                             json::array({{{"path", "notes/川.md"}, {"description", "a note about the river"}}}))))});
  h.tool_done(true, "every file exists");
  h.hire_all();
  ASSERT_EQ(h.asks.front().agent, "judge_agent");
  const std::string first = h.asks.front().messages.back().content;
  for (const char* part :
       {"Original instruction:\nBuild the thing", "Wrote the river note", "notes/川.md", "a note about the river"})
    EXPECT_NE(first.find(part), std::string::npos) << part << "\n" << first;
}

// §10 items 25–26, 30: the runtime audits an unaudited success; a rejection
// goes back to the agent; after 3 retries (4 audits) the parent gets an error.
TEST(PyramidDriver, EveryRejectedSuccessIsRetriedThenEndsAsAnErrorAfterFourAudits) {
  Harness h(kDriverLibrary, "worker");
  h.start();
  for (int round = 0; round < 4; ++round) {
    h.answer("worker", {tc("f" + std::to_string(round), "final_output", json::parse(final_args("success", "done")))});
    ASSERT_FALSE(h.finished) << round;
    h.hire_all();
    ASSERT_EQ(h.asks.front().agent, "judge_agent");
    EXPECT_NE(h.asks.front().messages.back().content.find("Original instruction:\nBuild the thing"), std::string::npos);
    h.answer("judge_agent", {tc("v", "final_output", json::parse(final_args("error", "main.py is missing")))});
  }
  ASSERT_TRUE(h.finished);
  EXPECT_FALSE(h.finished->ok);
  EXPECT_EQ(h.count_asks("judge_agent"), 4u);
  EXPECT_EQ(h.count_hires("judge_agent"), 1u);
  EXPECT_NE(h.finished->text.find("main.py is missing"), std::string::npos) << h.finished->text;
  // Q after four rejections from 0.5 with alpha 0.8: 0.5 * 0.8^4.
  EXPECT_NEAR(h.quality.of("worker"), 0.5 * 0.8 * 0.8 * 0.8 * 0.8, 1e-9);
}

// Item 31: Q crossing below pyramid.poor_quality raises one "poor
// performance" trigger with its reason; further rejections do not repeat it.
// From 0.5 with alpha 0.8, rejections give 0.4, 0.32, 0.256 (crossing 0.3), 0.2048.
TEST(PyramidDriver, AQualityScoreFallingBelowTheThresholdRaisesOnePoorPerformanceTrigger) {
  Harness h(kDriverLibrary, "worker");
  h.setup.wall_ms = [] { return int64_t{1700000000000}; };
  h.start();
  for (int round = 0; round < 4; ++round) {
    h.answer("worker", {tc("f" + std::to_string(round), "final_output", json::parse(final_args("success", "done")))});
    h.answer("judge_agent", {tc("v", "final_output", json::parse(final_args("error", "wrong")))});
    EXPECT_EQ(h.triggers("poor_performance").size(), round < 2 ? 0u : 1u) << round;
  }
  auto t = h.triggers("poor_performance");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0]["agent"], "worker");
  EXPECT_NEAR(t[0]["q"].get<double>(), 0.256, 1e-9);
  EXPECT_NE(t[0]["reason"].get<std::string>().find("fell to 0.256, below 0.3"), std::string::npos) << t[0];
  // The history keeps each verdict with its time.
  const auto& history = h.quality.history("worker");
  ASSERT_EQ(history.size(), 4u);
  EXPECT_FALSE(history[2].success);
  EXPECT_NEAR(history[2].q, 0.256, 1e-9);
  EXPECT_EQ(history[2].at_ms, 1700000000000);
}

// Item 14: a task no agent matches goes to the top agent, and the "new
// task" trigger is journaled with the best candidate's score.
TEST(PyramidDriver, AnUnmatchedTaskRaisesTheNewTaskTrigger) {
  Harness h;
  RouteDecision route;
  route.agent = "lead";
  route.new_task = true;
  route.scores = {{"worker", 0.04}, {"lead", 0.02}};
  h.reroute(route);
  h.start();
  auto t = h.triggers("new_task");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_NE(t[0]["reason"].get<std::string>().find("best worker at 0.04"), std::string::npos) << t[0];
  EXPECT_EQ(h.count_asks("lead"), 0u);  // not yet hired
  h.hire_all();
  EXPECT_EQ(h.asks.front().agent, "lead");

  Harness matched;
  matched.start();
  EXPECT_TRUE(matched.triggers("new_task").empty());
}

// Item 13: with pyramid.router = model, the task is routed by the scores a
// model gives every candidate before any agent is hired; the journal keeps
// the decision and how it was made. An unusable answer keeps the
// embedding's decision and says why.
TEST(PyramidDriver, TheRoutingModelsScoresChooseTheEntryAgent) {
  for (const bool usable : {true, false}) {
    Harness h;
    std::map<std::string, memory::Vector> vectors;
    for (const auto& a : h.setup.library->agents())
      if (a.level >= 1) vectors[a.name] = memory::Vector{1.0f, 0.0f};
    h.setup.router =
        std::make_shared<const AgentRouter>(value_or_throw(AgentRouter::create(*h.setup.library, vectors, 0.1)));
    h.setup.route_method = RouteMethod::model;
    RouteDecision by_embedding = h.setup.router->route(memory::Vector{1.0f, 0.0f});
    ASSERT_EQ(by_embedding.agent, "lead");  // equal scores: the higher level
    h.reroute(by_embedding);
    h.start();
    ASSERT_EQ(h.all.size(), 1u);
    const auto* call = std::get_if<CallModel>(&h.all[0]);
    ASSERT_NE(call, nullptr);
    EXPECT_EQ(call->purpose, "route");
    const std::string prompt = call->request.messages.at(0).content;
    EXPECT_NE(prompt.find("- worker (level 1): writes files"), std::string::npos) << prompt;
    EXPECT_NE(prompt.find("Build the thing"), std::string::npos);
    EXPECT_TRUE(call->request.tools.empty());

    ModelAnswered a;
    a.id = call->id;
    a.ok = true;
    a.response.message.content = usable ? R"({"scores": {"worker": 0.8, "lead": 0.3}})" : "worker, surely";
    h.take(h.driver->on(a));
    h.hire_all();
    ASSERT_FALSE(h.asks.empty());
    EXPECT_EQ(h.asks.front().agent, usable ? "worker" : "lead");
    EXPECT_EQ(h.driver->route().method, usable ? "model" : "embedding");
    json journaled;
    for (const auto& e : h.all)
      if (auto* j = std::get_if<Journal>(&e))
        if (j->payload.contains("route")) journaled = j->payload["route"];
    EXPECT_EQ(journaled["agent"], usable ? "worker" : "lead") << journaled;
    if (usable) {
      EXPECT_FALSE(journaled.contains("fallback"));
      EXPECT_DOUBLE_EQ(journaled["score"].get<double>(), 0.8);
    } else {
      EXPECT_NE(journaled["fallback"].get<std::string>().find("the routing model's answer is unusable: "),
                std::string::npos)
          << journaled;
    }
  }
}

// With an embedder that cannot answer at once (a provider's model), the
// driver embeds the task's input with a RunTool before routing; an
// embedding that failed sends the task to the top agent and says why.
TEST(PyramidDriver, AnEmbeddingTheDriverAsksForRoutesTheTask) {
  for (const bool embedded : {true, false}) {
    Harness h;
    std::map<std::string, memory::Vector> vectors{{"worker", {1.0f, 0.0f}}, {"lead", {0.0f, 1.0f}}};
    h.setup.router =
        std::make_shared<const AgentRouter>(value_or_throw(AgentRouter::create(*h.setup.library, vectors, 0.1)));
    RouteDecision pending;
    pending.method = kRouteByEmbedding;
    h.reroute(pending);
    h.start();
    ASSERT_EQ(h.tools.size(), 1u);
    EXPECT_EQ(h.tools[0].tool, kEmbedQueryTool);
    EXPECT_EQ(json::parse(h.tools[0].arguments)["text"], "Build the thing");
    EXPECT_TRUE(h.asks.empty());
    EXPECT_TRUE(h.hires.empty());  // nobody is hired before the task is routed
    ToolRan r;
    r.id = h.tools[0].id;
    r.result = embedded ? company::ToolResult::success("", json{{"vector", {0.9, 0.1}}})
                        : company::ToolResult::error("connection refused");
    h.take(h.driver->on(r));
    h.hire_all();
    ASSERT_FALSE(h.asks.empty());
    EXPECT_EQ(h.asks.front().agent, embedded ? "worker" : "lead");
    EXPECT_EQ(h.driver->route().method, "embedding");
    if (embedded)
      EXPECT_TRUE(h.driver->route().fallback.empty());
    else
      EXPECT_EQ(h.driver->route().fallback, "the embedder failed: connection refused; entered at the top agent");
  }
}

// Item 20: an agent with three candidate models runs each call three
// times at once, each candidate hired as its own employee and working on its
// own branch (its tools, and the judge auditing it, run there); the first
// success in candidate order is merged and the caller gets it with all three
// branches' outcomes.
TEST(PyramidDriver, CandidateModelsRunOnBranchesAndTheFirstSuccessIsMerged) {
  const std::string library = R"(agents:
  - {name: judge_agent, level: -1, description: checks, available_tools: [file_read, final_output]}
  - name: drafter
    level: 1
    description: drafts
    available_tools: [file_write, final_output]
    candidates: [mock:a, mock:b, mock:c]
  - {name: boss, level: 2, description: leads, available_tools: [drafter, final_output]}
)";
  Harness h(library, "boss");
  h.start();
  h.answer("boss", {tc("d", "drafter", {{"task_input", "Draft it"}})});
  // Take the waiting RunTool of `tool` (in `branch`, when given).
  auto take_tool = [&](const std::string& tool, const std::string& branch = "*") {
    auto it = std::find_if(h.tools.begin(), h.tools.end(),
                           [&](const RunTool& t) { return t.tool == tool && (branch == "*" || t.branch == branch); });
    if (it == h.tools.end()) throw std::runtime_error("no " + tool + " in " + branch + " waits");
    RunTool t = *it;
    h.tools.erase(it);
    return t;
  };
  auto answer_tool = [&](const RunTool& t, company::ToolResult r) {
    h.take(h.driver->on(ToolRan{t.id, std::move(r)}));
  };

  // Three branches are made from the task's directory before anyone is hired.
  ASSERT_EQ(h.tools.size(), 3u);
  EXPECT_TRUE(h.hires.empty());
  for (int i = 1; i <= 3; ++i) {
    RunTool open = take_tool(kBranchOpenTool);
    const json args = json::parse(open.arguments);
    EXPECT_EQ(args["branch"], "f1-" + std::to_string(i));
    EXPECT_EQ(args["from"], "");
    answer_tool(open, company::ToolResult::success("copied", json{{"brief.md", "00aa"}}));
  }
  ASSERT_EQ(h.hires.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(h.hires[i].spec.name, "drafter__" + std::to_string(i + 1));
    EXPECT_EQ(h.hires[i].spec.model_ref, std::string("mock:") + char('a' + i));
  }
  h.answer("drafter__1", {tc("f", "final_output", json::parse(final_args("error", "cannot draft")))});
  h.answer("drafter__2", {tc("w", "file_write", {{"file_path", "draft.md"}, {"content", "b's draft"}})});
  answer_tool(take_tool("file_write", "f1-2"), company::ToolResult::success("written"));
  h.answer("drafter__2",
           {tc("f", "final_output",
               json::parse(final_args("success", "drafted",
                                      json::array({{{"path", "draft.md"}, {"description", "the draft"}}}))))});
  answer_tool(take_tool(kCheckFilesTool, "f1-2"), company::ToolResult::success("every file exists"));
  h.answer("drafter__3", {tc("f", "final_output", json::parse(final_args("success", "drafted in my head")))});
  // Each success is audited; the judge reads the branch it audits.
  Ask audit = h.answer("judge_agent", {tc("r", "file_read", {{"file_path", "draft.md"}})});
  RunTool read = take_tool("file_read");
  EXPECT_EQ(read.branch, "f1-2");  // the oldest audit is drafter__2's
  answer_tool(read, company::ToolResult::success("b's draft"));
  h.answer("judge_agent", {tc("v", "final_output", json::parse(final_args("success", "fine")))});
  h.answer("judge_agent", {tc("v", "final_output", json::parse(final_args("success", "fine")))});

  // All three are done: each branch is closed to learn what it changed.
  ASSERT_EQ(h.tools.size(), 3u);
  for (int i = 1; i <= 3; ++i) {
    RunTool close = take_tool(kBranchCloseTool);
    const json args = json::parse(close.arguments);
    EXPECT_EQ(args["branch"], "f1-" + std::to_string(i));
    EXPECT_EQ(args["merge"], false) << i;
    EXPECT_FALSE(args.contains("record"));
    EXPECT_EQ(args["base"], json({{"brief.md", "00aa"}}));
    json changes{{"added", i == 2 ? json::array({"draft.md"}) : json::array()},
                 {"modified", json::array()},
                 {"removed", json::array()},
                 {"hashes", i == 2 ? json{{"draft.md", "bb"}} : json::object()},
                 {"merged", false}};
    answer_tool(close, company::ToolResult::success("closed", changes));
  }
  // Both accepted change sets are merged (mock:c's is empty); mock:b's is a
  // commit of the task's history.
  ASSERT_EQ(h.tools.size(), 1u);
  RunTool merge = take_tool(kBranchCloseTool);
  const json margs = json::parse(merge.arguments);
  EXPECT_EQ(margs["branch"], "f1-2");
  EXPECT_EQ(margs["merge"], true);
  EXPECT_EQ(margs["record"]["model"], "mock:b");
  EXPECT_EQ(margs["record"]["agent"], "drafter__2");
  EXPECT_EQ(margs["record"]["verdict"]["output"], "fine");
  answer_tool(merge, company::ToolResult::success("merged", json{{"added", json::array({"draft.md"})},
                                                                 {"modified", json::array()},
                                                                 {"removed", json::array()},
                                                                 {"merged", true},
                                                                 {"commit", 2}}));
  // mock:a changed nothing: no rejected commit; the branches are dropped.
  ASSERT_EQ(h.tools.size(), 1u);
  RunTool drop = take_tool(kBranchDropTool);
  EXPECT_EQ(json::parse(drop.arguments)["branches"], json({"f1-1", "f1-2", "f1-3"}));
  answer_tool(drop, company::ToolResult::success("dropped"));
  ASSERT_FALSE(h.asks.empty());
  const json result = json::parse(last(h.asks.front(), llm::Role::tool).content);
  EXPECT_EQ(result["status"], "success") << result;
  EXPECT_EQ(result["output"], "drafted");
  ASSERT_EQ(result["branches"].size(), 3u);
  EXPECT_EQ(result["branches"][0]["status"], "error");
  EXPECT_EQ(result["branches"][0]["model"], "mock:a");
  EXPECT_EQ(result["branches"][1]["merged"], true);
  EXPECT_EQ(result["branches"][1]["commit"], 2);
  EXPECT_EQ(result["branches"][1]["changes"]["added"], json({"draft.md"}));
  EXPECT_FALSE(result["branches"][1]["changes"].contains("hashes"));
  EXPECT_EQ(result["branches"][2]["status"], "success");
  EXPECT_EQ(result["branches"][2]["merged"], true);
  // Each candidate has its own quality score; the merged file is in the index.
  EXPECT_GT(h.quality.of("drafter@mock:b"), 0.5);
  EXPECT_GT(h.quality.of("drafter@mock:c"), 0.5);
  EXPECT_NE(h.driver->index().render(1000).find("draft.md"), std::string::npos);
  (void)audit;
}

// No candidate succeeds: the caller gets an error naming each one's failure,
// and nothing is merged.
TEST(PyramidDriver, WhenNoCandidateSucceedsNothingIsMerged) {
  const std::string library = R"(agents:
  - {name: drafter, level: 1, description: drafts, available_tools: [final_output], candidates: [mock:a, mock:b]}
)";
  Harness h(library, "drafter");
  h.setup.enforce_judge = false;
  h.start();
  ASSERT_EQ(h.tools.size(), 2u);
  for (int i = 0; i < 2; ++i)
    EXPECT_EQ(h.answer_tool(company::ToolResult::success("copied", json::object())).tool, kBranchOpenTool);
  h.answer("drafter__1", {tc("f", "final_output", json::parse(final_args("error", "no idea")))});
  h.answer("drafter__2", {tc("f", "final_output", json::parse(final_args("error", "out of ink")))});
  ASSERT_EQ(h.tools.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    RunTool close = h.tools.front();
    h.tools.pop_front();
    EXPECT_EQ(json::parse(close.arguments)["merge"], false);
    h.take(h.driver->on(ToolRan{close.id, company::ToolResult::success("closed", json::object())}));
  }
  ASSERT_EQ(h.tools.size(), 1u);
  EXPECT_EQ(h.answer_tool(company::ToolResult::success("dropped")).tool, kBranchDropTool);
  ASSERT_TRUE(h.finished);
  EXPECT_FALSE(h.finished->ok);
  EXPECT_NE(
      h.finished->text.find("none of drafter's 2 candidate models succeeded: mock:a: no idea; mock:b: out of ink"),
      std::string::npos)
      << h.finished->text;
}

// The first success cannot be merged (its merge fails): the next success
// in candidate order is merged instead, and a branch that could not be made
// is a failed candidate.
TEST(PyramidDriver, AFailedMergeFallsToTheNextSuccess) {
  const std::string library = R"(agents:
  - {name: drafter, level: 1, description: drafts, available_tools: [final_output], candidates: [mock:a, mock:b, mock:c]}
)";
  Harness h(library, "drafter");
  h.setup.enforce_judge = false;
  h.start();
  ASSERT_EQ(h.tools.size(), 3u);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(h.answer_tool(i == 2 ? company::ToolResult::error("branch_open: disk full")
                                   : company::ToolResult::success("copied", json::object()))
                  .tool,
              kBranchOpenTool);
  ASSERT_EQ(h.hires.size(), 2u);  // mock:c never got a branch
  h.answer("drafter__1", {tc("f", "final_output", json::parse(final_args("success", "a's")))});
  h.answer("drafter__2", {tc("f", "final_output", json::parse(final_args("success", "b's")))});
  ASSERT_EQ(h.tools.size(), 2u);
  auto pop = [&] {
    RunTool t = h.tools.front();
    h.tools.pop_front();
    return t;
  };
  // Each closes with its own file: no conflict, both are to be merged.
  for (const char* file : {"a.md", "b.md"}) {
    RunTool close = pop();
    EXPECT_EQ(json::parse(close.arguments)["merge"], false);
    h.take(h.driver->on(ToolRan{
        close.id, company::ToolResult::success("closed", json{{"added", json::array({file})},
                                                              {"hashes", json{{file, std::string(file) + "#"}}}})}));
  }
  ASSERT_EQ(h.tools.size(), 1u);  // merges run one after another
  RunTool first = pop();
  EXPECT_EQ(json::parse(first.arguments)["branch"], "f1-1");
  EXPECT_EQ(json::parse(first.arguments)["merge"], true);
  h.take(h.driver->on(
      ToolRan{first.id, company::ToolResult::error("branch_close: merging f1-1: disk full; nothing was written")}));
  ASSERT_EQ(h.tools.size(), 1u);  // b is merged now
  RunTool retry = pop();
  EXPECT_EQ(json::parse(retry.arguments)["branch"], "f1-2");
  EXPECT_EQ(json::parse(retry.arguments)["merge"], true);
  EXPECT_FALSE(h.finished);
  h.take(h.driver->on(ToolRan{retry.id, company::ToolResult::success("merged", json{{"merged", true}})}));
  ASSERT_EQ(h.tools.size(), 1u);
  RunTool drop = pop();
  EXPECT_EQ(drop.tool, kBranchDropTool);
  h.take(h.driver->on(ToolRan{drop.id, company::ToolResult::success("dropped")}));
  ASSERT_TRUE(h.finished);
  EXPECT_TRUE(h.finished->ok);
  EXPECT_EQ(h.finished->text, "b's");
  const json branches = h.finished->metadata["final_output"]["branches"];
  EXPECT_EQ(branches[0]["merged"], false);
  EXPECT_NE(branches[0]["error_information"].get<std::string>().find("could not be merged"), std::string::npos);
  EXPECT_EQ(branches[1]["merged"], true);
  EXPECT_NE(branches[2]["error_information"].get<std::string>().find("disk full"), std::string::npos) << branches[2];
}

// Item 34: a planner whose workflow requires a summary file and the judge's
// approval is flagged, and re-prompted, when it claims success without them.
TEST(PyramidDriver, AnAgentThatSkipsItsReviewStepsIsFlaggedAndReprompted) {
  const std::string library = std::string(kDriverLibrary) +
                              "  - name: planner\n"
                              "    level: 1\n"
                              "    description: writes designs\n"
                              "    responsibility: Plan task {task_id}.\n"
                              "    available_tools: [file_write, judge_agent, final_output]\n"
                              "    review:\n"
                              "      - file: designs/summary.md\n"
                              "      - call: judge_agent\n";
  Harness h(library, "planner");
  h.start();
  h.answer("planner", {tc("w", "file_write", {{"file_path", "designs/a.md"}, {"content", "a"}})});
  h.tool_done(true, "written");
  Ask refused_turn = h.answer(
      "planner", {tc("f1", "final_output",
                     json::parse(final_args("success", "designed",
                                            json::array({{{"path", "designs/a.md"}, {"description", "a"}}}))))});
  (void)refused_turn;
  ASSERT_FALSE(h.finished);
  ASSERT_FALSE(h.asks.empty());
  const std::string refusal = last(h.asks.front(), llm::Role::tool).content;
  EXPECT_NE(refusal.find("review steps are not done yet: write designs/summary.md; call judge_agent with success"),
            std::string::npos)
      << refusal;
  bool flagged = false;
  for (const auto& e : h.all)
    if (auto* j = std::get_if<Journal>(&e)) flagged = flagged || j->payload.contains("review_skipped");
  EXPECT_TRUE(flagged);

  // Done: the summary written (as "./designs/summary.md") and the judge's approval.
  h.answer("planner", {tc("w2", "file_write", {{"file_path", "./designs/summary.md"}, {"content", "s"}})});
  h.tool_done(true, "written");
  h.answer("planner", {tc("j", "judge_agent", {{"task_input", "Check designs/"}})});
  h.answer("judge_agent", {tc("v", "final_output", json::parse(final_args("success", "fine")))});
  h.answer("planner",
           {tc("f2", "final_output",
               json::parse(final_args("success", "designed",
                                      json::array({{{"path", "designs/summary.md"}, {"description", "summary"}}}))))});
  while (!h.tools.empty()) h.tool_done(true, "every file exists");
  ASSERT_TRUE(h.finished);
  EXPECT_TRUE(h.finished->ok) << h.finished->text;
}

// A turn's tool calls are bounded: past max_calls_per_turn they are not run
// and each gets an error result, in call order with the others.
TEST(PyramidDriver, ATurnRunsAtMostMaxCallsPerTurnToolCalls) {
  Harness h(kDriverLibrary, "worker");
  h.setup.enforce_judge = false;
  h.setup.max_calls_per_turn = 2;
  h.start();
  std::vector<llm::ToolCall> calls;
  for (int i = 0; i < 5; ++i)
    calls.push_back(
        tc("w" + std::to_string(i), "file_write", {{"file_path", "f" + std::to_string(i)}, {"content", "x"}}));
  h.answer("worker", calls);
  EXPECT_EQ(h.tools.size(), 2u);  // only two ran
  h.tool_done(true, "written");
  h.tool_done(true, "written");
  ASSERT_FALSE(h.asks.empty());
  std::vector<std::string> results;
  for (const auto& m : h.asks.front().messages)
    if (m.role == llm::Role::tool) results.push_back(m.content);
  ASSERT_EQ(results.size(), 5u);
  EXPECT_NE(results[1].find("written"), std::string::npos) << results[1];
  for (size_t i = 2; i < 5; ++i)
    EXPECT_NE(results[i].find("not run: this turn made 5 tool calls and at most 2 run at once"), std::string::npos)
        << results[i];
}

// Item 48: every tool result a model reads is {status, output,
// error_information} and nothing else — a success with a message only, one
// with structured output, a tool's error, and the driver's own refusal.
TEST(PyramidDriver, EveryToolResultTheModelReadsHasTheThreeFields) {
  Harness h(kDriverLibrary, "worker");
  h.start();
  h.answer("worker",
           {tc("a", "file_write", {{"file_path", "a.md"}, {"content", "x"}}),
            tc("b", "file_write", {{"file_path", "b.md"}, {"content", "y"}}),
            tc("c", "file_write", {{"file_path", "c.md"}, {"content", "z"}}), tc("d", "dir_list", {{"path", "."}})});
  ASSERT_EQ(h.tools.size(), 3u);
  h.answer_tool(company::ToolResult::success("written"));
  h.answer_tool(company::ToolResult::success("", json{{"bytes", 1}, {"file_path", "b.md"}}));
  h.answer_tool(company::ToolResult::error("disk full ✗"));
  ASSERT_FALSE(h.asks.empty());
  std::vector<json> results;
  for (const auto& m : h.asks.front().messages)
    if (m.role == llm::Role::tool) results.push_back(json::parse(m.content));
  ASSERT_EQ(results.size(), 4u);
  for (const json& r : results) {
    ASSERT_TRUE(r.is_object()) << r;
    EXPECT_EQ(r.size(), 3u) << r;
    ASSERT_TRUE(r.contains("status") && r.contains("output") && r.contains("error_information")) << r;
    const std::string status = r["status"];
    EXPECT_TRUE(status == "success" || status == "error") << r;
    ASSERT_TRUE(r["error_information"].is_string()) << r;
    EXPECT_EQ(r["error_information"].get<std::string>().empty(), status == "success") << r;
  }
  EXPECT_EQ(results[0]["output"], "written");
  EXPECT_EQ(results[1]["output"]["bytes"], 1);
  EXPECT_EQ(results[2]["error_information"], "disk full ✗");
  EXPECT_EQ(results[3]["status"], "error");  // dir_list is not the worker's
}

// Item 40: files a program made are in the task's index once the call
// ends, described as such, without being required in its final_output.
TEST(PyramidDriver, FilesAProgramMadeAreIndexed) {
  std::string library = kDriverLibrary;
  library.replace(library.find("available_tools: [file_write, final_output]"), 43,
                  "available_tools: [file_write, execute_code, final_output]");
  Harness h(library, "worker");
  h.setup.level0["execute_code"] = llm::ToolSpec{"execute_code", "runs code", json::object()};
  h.setup.enforce_judge = false;
  h.start();
  h.answer("worker", {tc("x", "execute_code", {{"code", "print(1)"}})});
  h.answer_tool(company::ToolResult::success("ran", json{{"stdout", "1\n"}, {"files_changed", {"code_run/plot.png"}}}));
  h.answer("worker", {tc("f", "final_output", json::parse(final_args("success", "ran it")))});
  ASSERT_TRUE(h.finished);
  EXPECT_TRUE(h.finished->ok);
  const std::string* d = h.driver->index().description("code_run/plot.png");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(*d, "made by a program of worker (no description given)");
}

TEST(PyramidDriver, AnApprovedSuccessCarriesTheVerdict) {
  Harness h(kDriverLibrary, "worker");
  h.start();
  h.answer("worker", {tc("f", "final_output", json::parse(final_args("success", "done")))});
  h.answer("judge_agent", {tc("v", "final_output", json::parse(final_args("success", "verified")))});
  ASSERT_TRUE(h.finished);
  EXPECT_TRUE(h.finished->ok);
  EXPECT_EQ(h.finished->metadata["final_output"]["judge"]["output"], "verified");
  EXPECT_NEAR(h.quality.of("worker"), 0.8 * 0.5 + 0.2, 1e-9);
}

// An agent that had the judge approve its work itself is not audited again.
TEST(PyramidDriver, AnAgentThatCalledTheJudgeItselfIsNotAuditedAgain) {
  Harness h;
  h.start();
  h.answer("lead", {tc("j", "judge_agent", {{"task_id", "t-1"}, {"task_input", "check it"}})});
  h.answer("judge_agent", {tc("v", "final_output", json::parse(final_args("success", "fine")))});
  h.answer("lead", {tc("f", "final_output", json::parse(final_args("success", "done")))});
  ASSERT_TRUE(h.finished);
  EXPECT_TRUE(h.finished->ok);
  EXPECT_EQ(h.count_asks("judge_agent"), 1u);
}

// §10 item 38: references are checked; a dangling one goes back to the sender.
TEST(PyramidDriver, ADanglingFileReferenceIsReportedToTheSender) {
  Harness h(kDriverLibrary, "worker");
  h.setup.enforce_judge = false;
  h.start();
  h.answer("worker",
           {tc("f", "final_output",
               json::parse(final_args("success", "done",
                                      json::array({{{"path", "out/x.json"}, {"description", "the data"}}}))))});
  ASSERT_EQ(h.tools.size(), 1u);
  EXPECT_EQ(h.tools.front().tool, kCheckFilesTool);
  h.tool_done(false, "missing: out/x.json");
  ASSERT_FALSE(h.finished);
  EXPECT_NE(h.asks.front().messages.back().content.find("missing: out/x.json"), std::string::npos);
  // Once the file exists, the reference goes into the task's index.
  h.answer("worker",
           {tc("f2", "final_output",
               json::parse(final_args("success", "done",
                                      json::array({{{"path", "out/x.json"}, {"description", "the data"}}}))))});
  h.tool_done(true, "all present");
  ASSERT_TRUE(h.finished);
  ASSERT_NE(h.driver->index().description("out/x.json"), nullptr);
  EXPECT_EQ(*h.driver->index().description("out/x.json"), "the data");
}

// §10 item 27: a child's error is an ordinary tool result; the parent goes on.
TEST(PyramidDriver, AChildsErrorReachesTheParentAsAToolResult) {
  Harness h;
  h.setup.enforce_judge = false;
  h.start();
  h.answer("lead", {tc("c1", "worker", {{"task_id", "t-1"}, {"task_input", "part A"}})});
  h.answer("worker", {tc("f", "final_output", json::parse(final_args("error", "disk full")))});
  ASSERT_FALSE(h.finished);
  ASSERT_EQ(h.asks.front().agent, "lead");
  EXPECT_EQ(json::parse(h.asks.front().messages.back().content)["status"], "error");
}

// §10 item 64: a call's usage rolls up into its caller's.
TEST(PyramidDriver, UsageRollsUpToTheCaller) {
  Harness h;
  h.setup.enforce_judge = false;
  h.start();
  h.answer("lead", {tc("c1", "worker", {{"task_id", "t-1"}, {"task_input", "A"}})});
  h.answer("worker", {tc("f", "final_output", json::parse(final_args("success", "A")))});
  h.answer("lead", {tc("f", "final_output", json::parse(final_args("success", "done")))});
  ASSERT_TRUE(h.finished);
  // The lead's answer step holds its two turns and the worker's one.
  int64_t lead_in = -1;
  for (const auto& e : h.all)
    if (auto* j = std::get_if<Journal>(&e); j && j->kind == msg::EventKind::answer && j->agent == "lead")
      lead_in = j->tokens_in;
  EXPECT_EQ(lead_in, 300);
}

TEST(PyramidDriver, AFailedHireEndsTheCallsWaitingForIt) {
  Harness h;
  h.start();
  Hire hire = h.hires.front();
  h.hires.clear();
  h.take(h.driver->on(HireAnswered{hire.id, false, true, "over budget", json::object()}));
  ASSERT_TRUE(h.finished);
  EXPECT_FALSE(h.finished->ok);
  EXPECT_NE(h.finished->text.find("over budget"), std::string::npos);
}

TEST(PyramidDriver, CancelFiresTheAgentsAndFinishes) {
  Harness h;
  h.start();
  h.hire_all();
  h.take(h.driver->cancel("stop"));
  ASSERT_TRUE(h.finished);
  EXPECT_EQ(h.finished->text, "stop");
  EXPECT_TRUE(std::holds_alternative<Fire>(h.all[h.all.size() - 2]));
  // A late answer is ignored.
  AskAnswered late;
  late.id = h.asks.front().id;
  late.ok = true;
  EXPECT_TRUE(h.driver->on(late).empty());
}

TEST(QualityScores, FollowEquationFive) {
  QualityScores q(0.8, 0.5);
  EXPECT_NEAR(q.update("a", true), 0.6, 1e-12);
  EXPECT_NEAR(q.update("a", false), 0.48, 1e-12);
  EXPECT_NEAR(q.update("a", true), 0.584, 1e-12);
  EXPECT_NEAR(q.of("never"), 0.5, 1e-12);
}

TEST(QualityScores, ContinueFromASeedAndSayWhichChanged) {
  QualityScores q(0.8, 0.5);
  q.seed("a", 0.9, 7);
  q.seed("b", 0.1, 2);
  EXPECT_TRUE(q.changed().empty());  // a seed is what is stored already
  EXPECT_NEAR(q.update("a", false, 10), 0.72, 1e-12);
  q.update("a", true, 20);
  q.update("c", true, 30);
  auto changed = q.changed();
  ASSERT_EQ(changed.size(), 2u);
  EXPECT_EQ(changed[0].agent, "a");
  EXPECT_EQ(changed[0].audits, 9);
  EXPECT_NEAR(changed[0].q, 0.776, 1e-12);
  EXPECT_EQ(changed[1].agent, "c");
  EXPECT_EQ(changed[1].audits, 1);
  EXPECT_TRUE(q.changed().empty());
  EXPECT_NEAR(q.of("b"), 0.1, 1e-12);
  ASSERT_EQ(q.history("a").size(), 2u);
  EXPECT_EQ(q.history("a")[1].at_ms, 20);
  EXPECT_TRUE(q.history("b").empty());
}

TEST(QualityScores, KeepABoundedHistory) {
  QualityScores q;
  for (int i = 0; i < 200; ++i) q.update("a", i % 2 == 0, i);
  ASSERT_EQ(q.history("a").size(), QualityScores::kHistory);
  EXPECT_EQ(q.history("a").front().at_ms, 200 - static_cast<int64_t>(QualityScores::kHistory));
  EXPECT_EQ(q.history("a").back().at_ms, 199);
}

}  // namespace
}  // namespace kaisha::pyramid

namespace kaisha::pyramid {
namespace {

using namespace driver;

// C_ENV's budget τ at 1,000 tokens of a fake tokenizer (a token per 4 bytes),
// with no audits in the way.
void limit_context(Harness& h) {
  h.setup.enforce_judge = false;
  h.setup.env_budget_tokens = 1000;
  h.setup.count = [](std::string_view t) { return static_cast<int64_t>(t.size() / 4); };
}

// A prompt's C_ENV in those tokens: everything after the system and shared messages.
int64_t env_tokens(const Ask& a) {
  int64_t env = 0;
  for (size_t m = 2; m < a.messages.size(); ++m) {
    env += a.messages[m].content.size() / 4;
    for (const auto& t : a.messages[m].tool_calls) env += t.arguments.size() / 4;
  }
  return env;
}

// Answers the waiting summary request (a compression) with `summary`.
void answer_summary(Harness& h, const std::string& summary) {
  Ask s = h.asks.front();
  h.asks.pop_front();
  AskAnswered r;
  r.id = s.id;
  r.ok = true;
  r.reply.output = summary;
  h.take(h.driver->on(r));
}

// The latest interaction is kept verbatim only while it fits: a tool result
// larger than τ by itself is cut so that C_ENV still stays within τ.
TEST(PyramidDriverContext, ALatestInteractionLargerThanTauIsCutToFit) {
  Harness h(kDriverLibrary, "worker");
  limit_context(h);
  h.start();
  h.answer("worker", {tc("w", "file_write", {{"file_path", "big.md"}, {"content", "x"}})});
  h.tool_done(true, std::string(40000, 'y') + "END");
  for (int guard = 0; guard < 5 && !h.asks.empty() && h.asks.front().tools.empty(); ++guard)
    answer_summary(h, "wrote big.md");
  ASSERT_EQ(h.asks.size(), 1u);
  const Ask& a = h.asks.front();
  const int64_t env = env_tokens(a);
  EXPECT_LE(env, 1000);
  EXPECT_GT(env, 500);  // cut to fit, not emptied
  EXPECT_EQ(a.messages[2].content, "Build the thing");
  EXPECT_EQ(a.messages.back().content.find("END"), std::string::npos);  // the tail went
  EXPECT_EQ(a.messages.back().content.rfind("{\"error_information\"", 0), 0u)
      << a.messages.back().content.substr(0, 80);
}

// A tool call's own arguments larger than τ (a long file written) are cut
// too, and stay a JSON object, as providers require of a tool call.
TEST(PyramidDriverContext, ToolCallArgumentsLargerThanTauAreCutToAJsonObject) {
  Harness h(kDriverLibrary, "worker");
  limit_context(h);
  h.start();
  h.answer("worker", {tc("w", "file_write", {{"file_path", "big.md"}, {"content", std::string(40000, 'z')}})});
  h.tool_done(true, "written");
  ASSERT_EQ(h.asks.size(), 1u);
  const Ask& a = h.asks.front();
  for (size_t m = 2; m < a.messages.size(); ++m)
    for (const auto& t : a.messages[m].tool_calls) {
      const json args = json::parse(t.arguments);
      EXPECT_TRUE(args.is_object() && args.contains("shortened")) << t.arguments.substr(0, 80);
    }
  EXPECT_LE(env_tokens(a), 1000);
}

// §10 items 41 and 43: with a fake tokenizer (a token per 4 bytes) and
// τ = 1,000, after 200 tool calls every prompt's C_ENV is at most τ, the
// conversation was compressed more than once, the first instruction and the
// latest interaction stayed verbatim, and the largest prompt stays bounded
// while everything said grows.

TEST(PyramidDriverContext, ALongCallIsCompressedSoItsConversationStaysWithinTau) {
  std::string library = kDriverLibrary;
  library.replace(library.find("max_turns: 6"), 12, "max_turns: 1000");
  Harness h(library, "worker");
  limit_context(h);
  h.start();
  int compressions_answered = 0;
  for (int i = 0; i < 200; ++i) {
    h.hire_all();
    ASSERT_EQ(h.asks.size(), 1u) << i;
    while (h.asks.front().tools.empty()) {  // a summary request
      answer_summary(h, "wrote files 0 to " + std::to_string(i) + "; nothing failed");
      ++compressions_answered;
      ASSERT_EQ(h.asks.size(), 1u);
    }
    const Ask& a = h.asks.front();
    EXPECT_LE(env_tokens(a), 1000) << "turn " << i;
    EXPECT_EQ(a.messages[2].content, "Build the thing") << "the first instruction stays verbatim";
    h.answer("worker", {tc("w" + std::to_string(i), "file_write",
                           {{"file_path", "f" + std::to_string(i)}, {"content", std::string(400, 'x')}})});
    h.tool_done(true, "written " + std::string(300, 'y') + std::to_string(i));
  }
  EXPECT_GT(compressions_answered, 1);
  EXPECT_EQ(h.driver->compressions(), compressions_answered);
  EXPECT_GT(h.driver->history_tokens(), 20 * h.driver->largest_prompt_tokens());
  // The latest interaction is verbatim: the last tool result is the newest.
  const Ask& last_turn = h.asks.front();
  EXPECT_NE(last_turn.messages.back().content.find("199"), std::string::npos);
  // Item 33: each compression is journaled with its tokens before and after.
  int logged = 0;
  for (const auto& e : h.all)
    if (auto* j = std::get_if<Journal>(&e); j && j->payload.contains("compressed")) {
      ++logged;
      EXPECT_GT(j->payload["compressed"]["before_tokens"].get<int64_t>(), h.setup.env_budget_tokens);
      EXPECT_LT(j->payload["compressed"]["after_tokens"].get<int64_t>(),
                j->payload["compressed"]["before_tokens"].get<int64_t>());
    }
  EXPECT_EQ(logged, compressions_answered);
}

// The whole prompt of a turn in the fake tokenizer's tokens: the system
// prompt, the shared context (C_SM) and the conversation (C_ENV).
int64_t prompt_tokens(const Ask& a) {
  int64_t n = 0;
  for (const auto& m : a.messages) {
    n += m.content.size() / 4;
    for (const auto& t : m.tool_calls) n += t.arguments.size() / 4;
  }
  return n;
}

// §10 item 43 as the checklist states it: 1,000 tool calls across nested
// agents (a lead calling a worker 167 times, each call writing four files
// and ending with final_output), and every prompt of the run — the lead's
// and every worker call's — stays under one bound set by the settings alone,
// while everything said grows far past it: the system prompt (fixed per
// agent), the shared message (the workspace's files within C_LM's budget,
// and the calls running now) and the conversation within τ.
TEST(PyramidDriverContext, AThousandNestedToolCallsKeepEveryPromptUnderOneBound) {
  std::string library = kDriverLibrary;
  library.replace(library.find("max_turns: 6"), 12, "max_turns: 1000");
  library += "    max_turns: 1000\n";  // the lead's
  Harness h(library, "lead");
  limit_context(h);
  h.setup.index_budget_tokens = 500;  // C_LM
  h.start();
  // Answers every waiting summary request (a compression), of any agent.
  auto summaries = [&h](const std::string& what) {
    for (bool found = true; found;) {
      found = false;
      h.hire_all();
      for (auto it = h.asks.begin(); it != h.asks.end(); ++it)
        if (it->tools.empty()) {
          AskAnswered r;
          r.id = it->id;
          r.ok = true;
          r.reply.output = what;
          h.asks.erase(it);
          h.take(h.driver->on(r));
          found = true;
          break;
        }
    }
  };
  int tool_calls = 0;
  int call = 0;
  for (; tool_calls < 1000; ++call) {
    summaries("parts 0 to " + std::to_string(call) + " are written");
    ASSERT_EQ(h.asks.size(), 1u) << "call " << call;
    ASSERT_EQ(h.asks.front().agent, "lead") << "call " << call;
    h.answer("lead", {tc("c" + std::to_string(call), "worker",
                         {{"task_id", "t-1"}, {"task_input", "part " + std::to_string(call) + " 🧩"}})});
    ++tool_calls;
    json files = json::array();
    for (int k = 0; k < 4; ++k) {
      summaries("wrote " + std::to_string(k) + " files of part " + std::to_string(call));
      const std::string path = "part" + std::to_string(call) + "/f" + std::to_string(k) + ".md";
      h.answer("worker",
               {tc("w" + std::to_string(k), "file_write", {{"file_path", path}, {"content", std::string(400, 'x')}})});
      h.tool_done(true, "written " + path + " " + std::string(300, 'y'));
      files.push_back({{"path", path}, {"description", "a piece"}});
      ++tool_calls;
    }
    summaries("wrote part " + std::to_string(call));
    h.answer("worker",
             {tc("f", "final_output", json::parse(final_args("success", "part " + std::to_string(call), files)))});
    ++tool_calls;
    h.tool_done(true, "every file exists");  // the driver's check of the files named
  }
  EXPECT_GE(tool_calls, 1000);
  ASSERT_FALSE(h.finished) << h.finished->text;

  // The calls running now are the lead's and at most one worker's: a few
  // lines, whatever the run's length.
  constexpr int64_t kCallsTokens = 150;
  std::map<std::string, size_t> system_bytes;
  int64_t largest = 0, asked = 0;
  for (size_t i = 0; i < h.all.size(); ++i) {
    const auto* a = std::get_if<Ask>(&h.all[i]);
    if (!a || a->tools.empty()) continue;  // summary requests are bounded by their own budget
    ++asked;
    ASSERT_GE(a->messages.size(), 3u);
    auto [it, first] = system_bytes.emplace(a->agent, a->messages[0].content.size());
    EXPECT_EQ(a->messages[0].content.size(), it->second) << "ask " << i << ": the system prompt is fixed";
    EXPECT_LE(static_cast<int64_t>(a->messages[1].content.size() / 4), h.setup.index_budget_tokens + kCallsTokens)
        << "ask " << i << ": the shared message";
    EXPECT_LE(env_tokens(*a), h.setup.env_budget_tokens) << "ask " << i << ": the conversation";
    largest = std::max(largest, prompt_tokens(*a));
  }
  EXPECT_GT(asked, 1000);
  int64_t largest_system = 0;
  for (const auto& [agent, bytes] : system_bytes) largest_system = std::max<int64_t>(largest_system, bytes / 4);
  EXPECT_LE(largest, largest_system + h.setup.index_budget_tokens + kCallsTokens + h.setup.env_budget_tokens);
  EXPECT_GT(h.driver->history_tokens(), 50 * largest)
      << "everything said grows far past every prompt (" << largest << ")";
}

}  // namespace
}  // namespace kaisha::pyramid

namespace kaisha::pyramid {
namespace {

using namespace driver;

// §10 item 32: a call that wrote files and names none is asked again.
TEST(PyramidDriverOutput, ASuccessThatNamesNoneOfTheFilesItWroteIsRefused) {
  Harness h(kDriverLibrary, "worker");
  h.setup.enforce_judge = false;
  h.start();
  h.answer("worker", {tc("w", "file_write", {{"file_path", "out/report.md"}, {"content", "x"}})});
  h.tool_done(true, "written");
  h.answer("worker", {tc("f", "final_output", json::parse(final_args("success", "done")))});
  ASSERT_FALSE(h.finished);
  EXPECT_NE(h.asks.front().messages.back().content.find("out/report.md"), std::string::npos);
  h.answer("worker",
           {tc("f2", "final_output",
               json::parse(final_args("success", "done",
                                      json::array({{{"path", "out/report.md"}, {"description", "the report"}}}))))});
  h.tool_done(true, "every file exists");
  ASSERT_TRUE(h.finished);
  EXPECT_TRUE(h.finished->ok);
}

// ------------------------------------------------------------ evolution

const char* kTwoCandidates = R"(agents:
  - {name: drafter, level: 1, description: drafts, available_tools: [file_write, final_output], candidates: [mock:a, mock:b]}
)";

// Opens the fork's branches, has every candidate succeed without writing, and
// answers each inspecting close with `changes[i]`.
void run_two_candidates(Harness& h, const std::vector<json>& changes,
                        const std::vector<std::string>& staff = {"drafter__1", "drafter__2"}) {
  h.setup.enforce_judge = false;
  h.start();
  const size_t n = h.tools.size();
  for (size_t i = 0; i < n; ++i) h.answer_tool(company::ToolResult::success("copied", json::object()));
  for (size_t i = 0; i < n; ++i)
    h.answer(staff[i], {tc("f", "final_output", json::parse(final_args("success", "by " + staff[i])))});
  for (size_t i = 0; i < n; ++i) {
    EXPECT_EQ(json::parse(h.tools.front().arguments)["merge"], false);
    h.answer_tool(company::ToolResult::success("closed", changes[i]));
  }
}

size_t index_of(const Harness& h, const std::function<bool(const Effect&)>& match) {
  for (size_t i = 0; i < h.all.size(); ++i)
    if (match(h.all[i])) return i;
  return h.all.size();
}

// Item 51: two accepted change sets write the same file differently: the
// higher Q wins (even against candidate order), the other is kept as a
// rejected commit; the plan is journaled before the merge runs.
TEST(PyramidEvolution, ConflictingAcceptedChangeSetsAreResolvedByQ) {
  Harness h(kTwoCandidates, "drafter");
  h.quality.seed("drafter@mock:a", 0.4, 3);
  h.quality.seed("drafter@mock:b", 0.9, 3);
  run_two_candidates(
      h, {json{{"added", {"draft.md", "a-notes.md"}}, {"hashes", {{"draft.md", "aa"}, {"a-notes.md", "n"}}}},
          json{{"added", {"draft.md"}}, {"hashes", {{"draft.md", "bb"}}}}});
  ASSERT_EQ(h.tools.size(), 1u);
  RunTool merge = h.tools.front();
  const json margs = json::parse(merge.arguments);
  EXPECT_EQ(margs["branch"], "f1-2");
  EXPECT_EQ(margs["merge"], true);
  EXPECT_DOUBLE_EQ(margs["record"]["q"].get<double>(), 0.9);
  const size_t planned = index_of(h, [](const Effect& e) {
    auto* j = std::get_if<Journal>(&e);
    return j && j->payload.value("event", "") == "merge_plan";
  });
  const size_t merged = index_of(h, [&](const Effect& e) {
    auto* t = std::get_if<RunTool>(&e);
    return t && t->id == merge.id;
  });
  EXPECT_LT(planned, merged);
  h.answer_tool(company::ToolResult::success("merged", json{{"added", {"draft.md"}}, {"merged", true}, {"commit", 2}}));
  // The loser is recorded, not merged.
  ASSERT_EQ(h.tools.size(), 1u);
  const json rargs = json::parse(h.tools.front().arguments);
  EXPECT_EQ(rargs["branch"], "f1-1");
  EXPECT_EQ(rargs["merge"], false);
  EXPECT_NE(rargs["record"]["why"].get<std::string>().find("conflict with mock:b's"), std::string::npos) << rargs;
  h.answer_tool(company::ToolResult::success("closed", json{{"added", {"draft.md"}}, {"commit", 3}}));
  ASSERT_EQ(h.tools.size(), 1u);
  EXPECT_EQ(h.answer_tool(company::ToolResult::success("dropped")).tool, kBranchDropTool);
  ASSERT_TRUE(h.finished);
  EXPECT_EQ(h.finished->text, "by drafter__2");
  const json branches = h.finished->metadata["final_output"]["branches"];
  EXPECT_EQ(branches[0]["merged"], false);
  EXPECT_EQ(branches[0]["commit"], 3);
  EXPECT_NE(branches[0]["rejected"].get<std::string>().find("over draft.md"), std::string::npos);
  EXPECT_EQ(branches[1]["merged"], true);
}

// Item 54 in the driver: a pruned candidate gets no branch, and every call's
// change to the pool is saved as the pyramid's state (SaveState "pool/<agent>").
TEST(PyramidEvolution, APrunedCandidateDoesNotRunAndThePoolIsSavedAsState) {
  EvolutionSettings settings;
  settings.min_calls = 2;
  settings.dominance = 0.9;
  CandidatePool pool(settings);
  pool.seed("pool/drafter", json{{"pruned", {"mock:a"}}});
  Harness h(R"(agents:
  - {name: drafter, level: 1, description: drafts, available_tools: [final_output], candidates: [mock:a, mock:b, mock:c]}
)",
            "drafter");
  RouteDecision route;
  route.agent = "drafter";
  h.driver = std::make_unique<PyramidDriver>(h.setup, h.quality, "t-1", "Build the thing", route, nullptr, &pool);
  run_two_candidates(h, {json::object(), json::object()}, {"drafter__2", "drafter__3"});
  ASSERT_EQ(h.hires.size() + h.count_hires("drafter__2") + h.count_hires("drafter__3"), 2u);
  EXPECT_EQ(h.count_hires("drafter__1"), 0u);
  EXPECT_EQ(h.answer_tool(company::ToolResult::success("dropped")).tool, kBranchDropTool);
  ASSERT_TRUE(h.finished);
  std::vector<SaveState> saves;
  for (const auto& e : h.all)
    if (auto* st = std::get_if<SaveState>(&e)) saves.push_back(*st);
  ASSERT_EQ(saves.size(), 1u);
  EXPECT_EQ(saves[0].key, "pool/drafter");
  EXPECT_EQ(saves[0].change, "fork 1");
  EXPECT_EQ(saves[0].value["answered"], json({"mock:b"}));
  EXPECT_EQ(saves[0].value["pruned"], json({"mock:a"}));
}

const char* kSelfJudging = R"(agents:
  - {name: judge_agent, level: -1, description: checks, available_tools: [file_read, final_output]}
  - {name: maker, level: 1, description: makes, available_tools: [file_write, judge_agent, final_output]}
)";

size_t count_verdicts(const Harness& h, const std::string& asked_by) {
  size_t n = 0;
  for (const auto& e : h.all)
    if (auto* j = std::get_if<Journal>(&e); j && j->payload.contains("verdict") && j->payload["asked_by"] == asked_by)
      ++n;
  return n;
}

// The judge an agent calls itself takes the audit's path: its rejection
// lowers Q and is journaled like a runtime audit's.
TEST(PyramidJudge, ASelfCalledJudgesRejectionMovesQLikeAnAudit) {
  Harness h(kSelfJudging, "maker");
  h.start();
  h.answer("maker", {tc("j", "judge_agent", {{"task_id", "t-1"}, {"task_input", "check"}})});
  h.answer("judge_agent", {tc("v", "final_output", json::parse(final_args("error", "wrong name")))});
  EXPECT_NEAR(h.quality.of("maker"), 0.8 * 0.5, 1e-9);
  EXPECT_EQ(count_verdicts(h, "agent"), 1u);
  // Its success is still audited: the judge never approved it.
  h.answer("maker", {tc("f", "final_output", json::parse(final_args("success", "done")))});
  h.answer("judge_agent", {tc("v", "final_output", json::parse(final_args("success", "fine")))});
  ASSERT_TRUE(h.finished);
  EXPECT_EQ(count_verdicts(h, "runtime"), 1u);
  EXPECT_NEAR(h.quality.of("maker"), 0.8 * 0.4 + 0.2, 1e-9);
}

// An approval counts only when it came after the call's last write.
TEST(PyramidJudge, AnApprovalFollowedByAWriteDoesNotCount) {
  Harness h(kSelfJudging, "maker");
  h.start();
  h.answer("maker", {tc("j", "judge_agent", {{"task_id", "t-1"}, {"task_input", "check"}})});
  h.answer("judge_agent", {tc("v", "final_output", json::parse(final_args("success", "fine")))});
  h.answer("maker", {tc("w", "file_write", {{"file_path", "late.md"}, {"content", "x"}})});
  h.tool_done(true, "written");
  h.answer(
      "maker",
      {tc("f", "final_output",
          json::parse(final_args("success", "done", json::array({{{"path", "late.md"}, {"description", "late"}}}))))});
  h.tool_done(true, "every file exists");
  ASSERT_FALSE(h.finished);  // audited again
  EXPECT_EQ(h.count_asks("judge_agent"), 2u);
  h.answer("judge_agent", {tc("v", "final_output", json::parse(final_args("success", "still fine")))});
  ASSERT_TRUE(h.finished);
  EXPECT_EQ(h.finished->metadata["final_output"]["judge"]["output"], "still fine");
}

// An approval after the last write is attached as the result's verdict.
TEST(PyramidJudge, AnApprovalAfterTheLastWriteIsAttached) {
  Harness h(kSelfJudging, "maker");
  h.start();
  h.answer("maker", {tc("j", "judge_agent", {{"task_id", "t-1"}, {"task_input", "check"}})});
  h.answer("judge_agent", {tc("v", "final_output", json::parse(final_args("success", "approved by me")))});
  h.answer("maker", {tc("f", "final_output", json::parse(final_args("success", "done")))});
  ASSERT_TRUE(h.finished);
  EXPECT_EQ(h.count_asks("judge_agent"), 1u);
  EXPECT_EQ(h.finished->metadata["final_output"]["judge"]["output"], "approved by me");
  EXPECT_NEAR(h.quality.of("maker"), 0.6, 1e-9);
}

// A judge that fails (its model errs) is no rejection: Q stays, no retry is
// used (with no retries allowed, the next audit still counts).
TEST(PyramidJudge, AJudgeThatFailsIsNotARejection) {
  Harness h(kDriverLibrary, "worker");
  h.setup.max_judge_retries = 0;
  h.start();
  h.answer("worker", {tc("f", "final_output", json::parse(final_args("success", "done")))});
  h.hire_all();
  Ask turn = h.asks.front();
  ASSERT_EQ(turn.agent, "judge_agent");
  h.asks.pop_front();
  AskAnswered failed;
  failed.id = turn.id;
  failed.ok = false;
  failed.error = "HTTP 500";
  h.take(h.driver->on(failed));
  EXPECT_NEAR(h.quality.of("worker"), 0.5, 1e-9);
  ASSERT_FALSE(h.finished);
  h.answer("judge_agent", {tc("v", "final_output", json::parse(final_args("success", "fine")))});
  ASSERT_TRUE(h.finished);
  EXPECT_TRUE(h.finished->ok);
  EXPECT_NEAR(h.quality.of("worker"), 0.6, 1e-9);
}

// A judge that keeps failing ends the call, saying it is no rejection.
TEST(PyramidJudge, AJudgeThatKeepsFailingEndsTheCallWithoutARejection) {
  Harness h(kDriverLibrary, "worker");
  h.setup.max_judge_failures = 1;
  h.start();
  h.answer("worker", {tc("f", "final_output", json::parse(final_args("success", "done")))});
  for (int i = 0; i < 2; ++i) {
    h.hire_all();
    ASSERT_FALSE(h.asks.empty());
    Ask turn = h.asks.front();
    h.asks.pop_front();
    AskAnswered failed;
    failed.id = turn.id;
    failed.ok = false;
    failed.error = "HTTP 500";
    h.take(h.driver->on(failed));
  }
  ASSERT_TRUE(h.finished);
  EXPECT_FALSE(h.finished->ok);
  EXPECT_NE(h.finished->text.find("not a rejection"), std::string::npos) << h.finished->text;
  EXPECT_NEAR(h.quality.of("worker"), 0.5, 1e-9);
}

}  // namespace
}  // namespace kaisha::pyramid
