// The employee's tool loop as a pure driver, fed scripted outcomes: which
// effects it returns, in which order, with which texts; and a resumed loop
// fed its kept outcomes under the strategies' resume policy.
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "runtime/driver/resume_policy.hpp"
#include "runtime/employee/kept_steps.hpp"
#include "runtime/employee/tool_loop_driver.hpp"

namespace kaisha::employee {
namespace {

using driver::Effects;

// One line per effect, for order checks: "model 1", "tool 2 add",
// "journal tool_result", "report refusal", "finish ok: text".
std::string line(const driver::Effect& e) {
  if (auto* j = std::get_if<driver::Journal>(&e)) return "journal " + std::string(msg::event_kind_name(j->kind));
  if (auto* r = std::get_if<driver::Report>(&e)) return "report " + std::string(msg::event_kind_name(r->kind));
  if (auto* c = std::get_if<driver::CallModel>(&e)) return "model " + std::to_string(c->id);
  if (auto* t = std::get_if<driver::RunTool>(&e)) return "tool " + std::to_string(t->id) + " " + t->tool;
  if (auto* f = std::get_if<driver::Finish>(&e))
    return std::string("finish ") + (f->ok ? "ok" : "failed") + ": " + f->text;
  return "?";
}

std::vector<std::string> lines(const Effects& effects) {
  std::vector<std::string> out;
  for (const auto& e : effects) out.push_back(line(e));
  return out;
}

// The last effect's line ("" when there is none).
std::string last(const Effects& effects) { return effects.empty() ? "" : line(effects.back()); }

template <class T>
T only(const Effects& effects) {
  std::vector<T> found;
  for (const auto& e : effects)
    if (auto* x = std::get_if<T>(&e)) found.push_back(*x);
  EXPECT_EQ(found.size(), 1u) << ::testing::PrintToString(lines(effects));
  return found.empty() ? T{} : found.front();
}

driver::Journal journal(const Effects& effects, msg::EventKind kind) {
  for (const auto& e : effects)
    if (auto* j = std::get_if<driver::Journal>(&e); j && j->kind == kind) return *j;
  ADD_FAILURE() << "no journal step " << kind << " in " << ::testing::PrintToString(lines(effects));
  return {};
}

llm::ToolCall call(std::string id, std::string name, std::string arguments) {
  return {std::move(id), std::move(name), std::move(arguments)};
}

driver::ModelAnswered answer(driver::CallId id, std::string text, std::vector<llm::ToolCall> calls = {}) {
  driver::ModelAnswered a;
  a.id = id;
  a.ok = true;
  a.response.message.role = llm::Role::assistant;
  a.response.message.content = std::move(text);
  a.response.message.tool_calls = std::move(calls);
  a.response.usage = {120, 30, false};
  return a;
}

driver::ToolRan ran(driver::CallId id, company::ToolResult r) { return driver::ToolRan{id, std::move(r)}; }

class ToolLoopDriverTest : public ::testing::Test {
 protected:
  ToolLoopDriverTest() {
    settings.agent = "MathWiz";
    settings.system_prompt = "You add numbers.";
    settings.prompt = "What is 2+3+4?";
    settings.max_tool_iterations = 4;
    settings.max_malformed_tool_calls = 2;
    settings.temperature = 0.3;
    settings.max_output_tokens = 256;
    settings.listening = [this] { return listening; };
  }

  ToolLoopDriver& make() {
    d = std::make_unique<ToolLoopDriver>(settings);
    return *d;
  }

  ToolLoopSettings settings;
  std::unique_ptr<ToolLoopDriver> d;
  bool listening = true;
};

TEST_F(ToolLoopDriverTest, ATurnWithTwoToolCallsRunsThemInOrderAndAnswers) {
  ToolLoopDriver& loop = make();
  Effects started = loop.start();
  ASSERT_EQ(lines(started), (std::vector<std::string>{"model 1"}));
  const auto first = only<driver::CallModel>(started);
  ASSERT_EQ(first.request.messages.size(), 2u);
  EXPECT_EQ(first.request.messages[0].content, "You add numbers.");
  EXPECT_EQ(first.request.messages[1].content, "What is 2+3+4?");
  EXPECT_TRUE(first.request.tools.empty());  // the executor offers the tools the employee has then
  EXPECT_EQ(first.request.temperature, 0.3);
  EXPECT_EQ(first.request.max_tokens, 256);

  Effects answered =
      loop.on(answer(1, "", {call("c1", "add", R"({"a":2,"b":3})"), call("c2", "add", R"({"a":5,"b":4})")}));
  EXPECT_EQ(lines(answered), (std::vector<std::string>{"journal llm_response", "tool 2 add"}));
  const auto response = journal(answered, msg::EventKind::llm_response);
  EXPECT_EQ(response.agent, "MathWiz");
  EXPECT_EQ(response.tokens_in, 120);
  EXPECT_EQ(response.payload["tool_calls"].size(), 2u);
  EXPECT_EQ(only<driver::RunTool>(answered).arguments, R"({"a":2,"b":3})");
  ASSERT_NE(loop.tool_call(2), nullptr);
  EXPECT_EQ(loop.tool_call(2)->id, "c1");

  Effects first_tool = loop.on(ran(2, company::ToolResult::success("added", 5)));
  EXPECT_EQ(lines(first_tool), (std::vector<std::string>{"journal tool_result", "report tool_result", "tool 3 add"}));
  EXPECT_EQ(journal(first_tool, msg::EventKind::tool_result).payload,
            (json{{"tool", "add"},
                  {"call_id", "c1"},
                  {"result", {{"status", "success"}, {"message", "added"}, {"output", 5}}}}));
  EXPECT_EQ(loop.tool_call(3)->id, "c2");

  Effects second_tool = loop.on(ran(3, company::ToolResult::success("added", 9)));
  EXPECT_EQ(lines(second_tool), (std::vector<std::string>{"journal tool_result", "report tool_result", "model 4"}));
  // The model hears both results, in order, under the calls they answer.
  const auto again = only<driver::CallModel>(second_tool).request.messages;
  ASSERT_EQ(again.size(), 5u);
  EXPECT_EQ(again[3].role, llm::Role::tool);
  EXPECT_EQ(again[3].tool_call_id, "c1");
  EXPECT_EQ(again[4].tool_call_id, "c2");

  Effects done = loop.on(answer(4, "9"));
  EXPECT_EQ(lines(done), (std::vector<std::string>{"journal llm_response", "finish ok: 9"}));
  EXPECT_TRUE(loop.finished());
  EXPECT_EQ(loop.tool_calls(), 2);
  EXPECT_TRUE(loop.on(answer(4, "again")).empty());
}

TEST_F(ToolLoopDriverTest, NobodyListeningMeansNoToolResultEvents) {
  listening = false;
  ToolLoopDriver& loop = make();
  loop.start();
  loop.on(answer(1, "", {call("c1", "add", "{}")}));
  EXPECT_EQ(lines(loop.on(ran(2, company::ToolResult::success("ok")))),
            (std::vector<std::string>{"journal tool_result", "model 3"}));
}

TEST_F(ToolLoopDriverTest, MalformedToolCallsGoBackToTheModelUpToTheLimit) {
  ToolLoopDriver& loop = make();
  loop.start();
  driver::CallId next = 1;
  for (int i = 0; i < settings.max_malformed_tool_calls; ++i) {
    // Each unreadable call still runs (the registry answers it with an error
    // the model can correct itself from).
    Effects tool = loop.on(answer(next, "", {call("m" + std::to_string(i), "add", "{not json")}));
    ASSERT_EQ(last(tool), "tool " + std::to_string(next + 1) + " add");
    Effects model = loop.on(ran(next + 1, company::ToolResult::error("arguments are not JSON")));
    ASSERT_EQ(last(model), "model " + std::to_string(next + 2));
    next += 2;
  }
  Effects stopped = loop.on(answer(next, "", {call("m9", "add", "{still not json")}));
  EXPECT_EQ(lines(stopped),
            (std::vector<std::string>{"journal llm_response", "journal error",
                                      "finish ok: MathWiz stopped before a final answer: the model kept sending "
                                      "malformed tool-call arguments (3 answers, limit 2)"}));
  EXPECT_EQ(journal(stopped, msg::EventKind::error).payload["call"], "employee_tool_loop");
}

TEST_F(ToolLoopDriverTest, MaxIterationsStopsTheLoopWithWhatStoppedIt) {
  ToolLoopDriver& loop = make();
  loop.start();
  int model_calls = 1;
  driver::CallId next = 1;
  Effects stopped;
  for (int i = 0; i < settings.max_tool_iterations; ++i) {
    stopped = loop.on(answer(next, "", {call("c" + std::to_string(i), "add", "{}")}));
    if (loop.finished()) break;
    Effects model = loop.on(ran(next + 1, company::ToolResult::success("ok")));
    model_calls += static_cast<int>(last(model).rfind("model ", 0) == 0);
    next += 2;
  }
  EXPECT_EQ(model_calls, settings.max_tool_iterations);
  EXPECT_EQ(last(stopped),
            "finish ok: MathWiz stopped before a final answer: no final answer after 4 model calls "
            "(employee.max_tool_iterations)");
  EXPECT_EQ(loop.tool_calls(), 3);
}

TEST_F(ToolLoopDriverTest, AToolErrorGoesBackToTheModelAndTheLoopGoesOn) {
  ToolLoopDriver& loop = make();
  loop.start();
  loop.on(answer(1, "", {call("c1", "divide", R"({"a":1,"b":0})")}));
  Effects after = loop.on(ran(2, company::ToolResult::error("division by zero")));
  EXPECT_EQ(journal(after, msg::EventKind::tool_result).payload["result"]["status"], "error");
  const auto request = only<driver::CallModel>(after).request;
  EXPECT_NE(request.messages.back().content.find("division by zero"), std::string::npos);
  EXPECT_EQ(last(loop.on(answer(3, "cannot divide by zero"))), "finish ok: cannot divide by zero");
}

// Retries: a transient error of a tool safe to repeat is asked for again,
// after a delay the executor waits; the model hears the last result only.
class ToolLoopRetryTest : public ToolLoopDriverTest {
 protected:
  ToolLoopRetryTest() {
    settings.retry = company::ToolRetryPolicy{3, 100, 1000, 0};  // no jitter: exact waits
    settings.repeatable = [this](const std::string& tool) { return safe.count(tool) > 0; };
  }
  std::set<std::string> safe{"fetch"};
};

TEST_F(ToolLoopRetryTest, ATransientErrorIsRetriedAfterTheBackoffAndTheModelHearsTheSuccess) {
  ToolLoopDriver& loop = make();
  loop.start();
  loop.on(answer(1, "", {call("c1", "fetch", R"({"url":"x"})")}));
  Effects failed = loop.on(ran(2, company::ToolResult::error("Service temporarily unavailable")));
  EXPECT_EQ(lines(failed), (std::vector<std::string>{"journal tool_result", "report tool_result", "journal note",
                                                     "report retry", "tool 3 fetch"}));
  const json note = journal(failed, msg::EventKind::note).payload;
  EXPECT_EQ(note, (json{{"tool_retry", "fetch"},
                        {"call_id", "c1"},
                        {"attempt", 2},
                        {"error_class", "transient"},
                        {"delay_ms", 100},
                        {"error", "Service temporarily unavailable"}}));
  const auto again = only<driver::RunTool>(failed);
  EXPECT_EQ(again.delay_ms, 100);
  EXPECT_EQ(again.arguments, R"({"url":"x"})");
  ASSERT_NE(loop.tool_call(3), nullptr);
  EXPECT_EQ(loop.tool_call(3)->id, "c1");  // the model's call it answers

  Effects second = loop.on(ran(3, company::ToolResult::error("HTTP 503 from x")));
  EXPECT_EQ(only<driver::RunTool>(second).delay_ms, 200);  // doubled
  Effects ok = loop.on(ran(4, company::ToolResult::success("fetched", "page")));
  const auto request = only<driver::CallModel>(ok).request;
  EXPECT_NE(request.messages.back().content.find("fetched"), std::string::npos);
  for (const auto& m : request.messages) EXPECT_EQ(m.content.find("unavailable"), std::string::npos) << m.content;
  EXPECT_EQ(loop.tool_calls(), 1);  // one call of the model's, whatever the attempts
}

TEST_F(ToolLoopRetryTest, AttemptsAreBoundedAndTheModelHearsTheLastError) {
  settings.retry.max_attempts = 2;
  ToolLoopDriver& loop = make();
  loop.start();
  loop.on(answer(1, "", {call("c1", "fetch", "{}")}));
  EXPECT_EQ(last(loop.on(ran(2, company::ToolResult::error("connection refused")))), "tool 3 fetch");
  Effects given_up = loop.on(ran(3, company::ToolResult::error("connection refused again")));
  EXPECT_EQ(last(given_up), "model 4");
  EXPECT_NE(only<driver::CallModel>(given_up).request.messages.back().content.find("refused again"), std::string::npos);
}

TEST_F(ToolLoopRetryTest, NoRetryForAToolNotSafeToRepeatOrAnErrorThatIsNotTransient) {
  ToolLoopDriver& loop = make();
  loop.start();
  loop.on(answer(1, "", {call("c1", "append", "{}")}));
  EXPECT_EQ(last(loop.on(ran(2, company::ToolResult::error("temporarily unavailable")))), "model 3");
  loop.on(answer(3, "", {call("c2", "fetch", "{}")}));
  EXPECT_EQ(last(loop.on(ran(4, company::ToolResult::error("ZeroDivisionError")))), "model 5");
  loop.on(answer(5, "", {call("c3", "fetch", "{}")}));
  EXPECT_EQ(last(loop.on(ran(6, company::ToolResult::error("timed out after 10 s")))), "model 7");
}

// With jitter, the wait is the backoff less a share drawn from the task,
// the agent, the call and the attempt: a new driver fed the same outcomes
// (a resume) asks for the same wait, and the note journals that wait.
TEST_F(ToolLoopRetryTest, TheJitteredWaitIsTheSameForTheSameCallAndSpreadsAcrossTasks) {
  settings.retry.jitter = 0.5;
  settings.task_id = "task-1";
  auto first_wait = [this](const std::string& task) {
    settings.task_id = task;
    ToolLoopDriver& loop = make();
    loop.start();
    loop.on(answer(1, "", {call("c1", "fetch", "{}")}));
    Effects failed = loop.on(ran(2, company::ToolResult::error("HTTP 503")));
    const int64_t wait = only<driver::RunTool>(failed).delay_ms;
    EXPECT_EQ(journal(failed, msg::EventKind::note).payload["delay_ms"], wait);
    Effects again = loop.on(ran(3, company::ToolResult::error("HTTP 503")));
    const int64_t second = only<driver::RunTool>(again).delay_ms;
    EXPECT_GE(second, 100);  // attempt 3: the backoff doubled, at most half taken off
    EXPECT_LE(second, 200);
    return wait;
  };
  const int64_t wait = first_wait("task-1");
  EXPECT_GE(wait, 50);
  EXPECT_LE(wait, 100);
  EXPECT_EQ(first_wait("task-1"), wait);  // the same task resumed: the same wait
  std::set<int64_t> waits;
  for (int i = 0; i < 20; ++i) waits.insert(first_wait("task-" + std::to_string(i)));
  EXPECT_GT(waits.size(), 5u);  // other tasks failing at once do not retry at once
}

TEST_F(ToolLoopDriverTest, CancelMidLoopStopsItAndDropsTheToolsAnswer) {
  ToolLoopDriver& loop = make();
  loop.start();
  loop.on(answer(1, "", {call("c1", "add", "{}"), call("c2", "add", "{}")}));
  Effects cancelled = loop.cancel("the task was cancelled");
  EXPECT_EQ(lines(cancelled), (std::vector<std::string>{"journal error",
                                                        "finish ok: MathWiz stopped before a final answer: the task "
                                                        "was cancelled"}));
  EXPECT_TRUE(loop.on(ran(2, company::ToolResult::success("late"))).empty());
  EXPECT_TRUE(loop.cancel("again").empty());
}

TEST_F(ToolLoopDriverTest, ABudgetRefusalEndsTheLoopWithTheRefusal) {
  ToolLoopDriver& loop = make();
  loop.start();
  loop.on(answer(1, "", {call("c1", "add", "{}")}));
  loop.on(ran(2, company::ToolResult::success("ok")));
  driver::ModelAnswered refused;
  refused.id = 3;
  refused.refused = true;
  refused.error = "the expense budget is exhausted";
  Effects out = loop.on(refused);
  EXPECT_EQ(lines(out), (std::vector<std::string>{"journal refusal", "report refusal", "journal error",
                                                  "finish ok: MathWiz stopped before a final answer: the expense "
                                                  "budget is exhausted"}));
  EXPECT_EQ(journal(out, msg::EventKind::refusal).payload,
            (json{{"error", "the expense budget is exhausted"}, {"call", "employee_model"}}));
}

TEST_F(ToolLoopDriverTest, AFailedFirstCallFailsTheAskAndALaterOneStopsTheLoop) {
  driver::ModelAnswered failed;
  failed.id = 1;
  failed.error = "HTTP 500";
  ToolLoopDriver& first = make();
  first.start();
  EXPECT_EQ(lines(first.on(failed)), (std::vector<std::string>{"journal error", "finish failed: HTTP 500"}));

  ToolLoopDriver& loop = make();
  loop.start();
  loop.on(answer(1, "", {call("c1", "add", "{}")}));
  loop.on(ran(2, company::ToolResult::success("ok")));
  failed.id = 3;
  EXPECT_EQ(last(loop.on(failed)), "finish ok: MathWiz stopped before a final answer: the model call failed: HTTP 500");
}

TEST_F(ToolLoopDriverTest, AnEmptyAnswerStopsTheLoop) {
  ToolLoopDriver& loop = make();
  loop.start();
  EXPECT_EQ(last(loop.on(answer(1, "  "))),
            "finish ok: MathWiz stopped before a final answer: the model returned an empty answer");
}

TEST_F(ToolLoopDriverTest, OutcomesItDoesNotWaitForAreIgnored) {
  ToolLoopDriver& loop = make();
  loop.start();
  EXPECT_TRUE(loop.on(answer(7, "stray")).empty());
  EXPECT_TRUE(loop.on(ran(1, company::ToolResult::success("wrong kind"))).empty());
  EXPECT_EQ(last(loop.on(answer(1, "fine"))), "finish ok: fine");
}

// ------------------------------------------------------------------ resume

// What a runner does on a resume (actors/agents/employee_tool_loop.cpp,
// as DriverRunner::resume): the new driver's effects go through the resume
// policy, the kept outcomes are fed in order, then what the policy made up.
struct Resumed {
  std::vector<std::string> all;       // every effect the driver asked for
  std::vector<std::string> executed;  // those the policy left to run
  std::vector<json> notes;
  llm::ChatRequest last_request;  // of the last model call asked for
};

driver::CallId id_of_effect(const driver::Effect& e) {
  if (auto* c = std::get_if<driver::CallModel>(&e)) return c->id;
  if (auto* t = std::get_if<driver::RunTool>(&e)) return t->id;
  return 0;
}

Resumed resume(ToolLoopDriver& loop, driver::ReplayLog log, bool repeatable) {
  auto shared = std::make_shared<driver::ReplayLog>(std::move(log));
  driver::ResumePolicy policy(shared, [repeatable](const std::string&) { return repeatable; });
  Resumed r;
  bool replaying = true;
  std::vector<driver::Outcome> deferred;
  auto run = [&](const Effects& effects) {
    for (const auto& e : effects) {
      r.all.push_back(line(e));
      if (auto* c = std::get_if<driver::CallModel>(&e)) r.last_request = c->request;
      auto step = policy.step(e, id_of_effect(e), replaying);
      EXPECT_TRUE(step.ok()) << step.error().message;
      if (!step.ok()) continue;
      if (!step->note.is_null()) r.notes.push_back(step->note);
      if (step->deferred) deferred.push_back(*step->deferred);
      if (!step->handled) r.executed.push_back(line(e));
    }
  };
  run(loop.start());
  for (const auto& o : shared->outcomes()) run(loop.on(o));
  replaying = false;
  for (const auto& o : deferred) run(loop.on(o));
  return r;
}

// A loop killed while the second of its answer's two tool calls ran: the
// model's answer and the first tool's result were kept.
class ToolLoopResumeTest : public ToolLoopDriverTest {
 protected:
  ToolLoopResumeTest() {
    ToolLoopDriver& first = make();
    for (const auto& e : first.start()) before.push_back(line(e));
    kept.push_back(driver::AskStep{driver::AskStep::Kind::model,
                                   answer(1, "", {call("c1", "add", "{}"), call("c2", "append", "{}")}).response,
                                   false,
                                   "",
                                   "",
                                   {},
                                   0});
    kept.push_back(driver::AskStep{
        driver::AskStep::Kind::tool, {}, false, "c1", "add", company::ToolResult::success("added", 5).to_json(), 0.01});
    for (size_t n = 0; n < kept.size(); ++n)
      for (const auto& e : first.on(kept_outcome(kept[n], n))) before.push_back(line(e));
  }

  std::vector<driver::AskStep> kept;
  std::vector<std::string> before;  // the effects of the first run, up to the kill
};

TEST_F(ToolLoopResumeTest, ANewDriverFedTheKeptOutcomesAsksForTheSameEffectsAndRunsOnlyTheCallInFlight) {
  auto log = kept_log(kept);
  ASSERT_TRUE(log.ok()) << log.error().message;
  ToolLoopDriver& again = make();
  Resumed r = resume(again, std::move(log).value(), /*repeatable=*/true);
  EXPECT_EQ(r.all, before);
  // The model call and the first tool are not made again: only the tool in flight.
  EXPECT_EQ(r.executed, (std::vector<std::string>{"tool 3 append"}));
  EXPECT_EQ(r.notes, (std::vector<json>{json{{"rerun", "tool append"}, {"call", 3}}}));
  // It goes on from there as the first run would have.
  EXPECT_EQ(last(again.on(ran(3, company::ToolResult::success("appended")))), "model 4");
  EXPECT_EQ(again.tool_calls(), 2);
}

TEST_F(ToolLoopResumeTest, AToolNotSafeToRepeatIsNotRunAgainAndTheModelHearsSo) {
  auto log = kept_log(kept);
  ASSERT_TRUE(log.ok());
  ToolLoopDriver& again = make();
  Resumed r = resume(again, std::move(log).value(), /*repeatable=*/false);
  // Nothing of the first run is made again: the tool's answer is the error
  // the model is given, journaled as its result, and the loop goes on.
  EXPECT_EQ(r.executed, (std::vector<std::string>{"journal tool_result", "report tool_result", "model 4"}));
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_EQ(r.notes[0], (json{{"not_repeated", "append"}, {"call", 3}}));
  EXPECT_NE(r.last_request.messages.back().content.find("not marked safe to repeat"), std::string::npos);
  auto done = again.on(answer(4, "checked"));
  EXPECT_EQ(last(done), "finish ok: checked");
}

TEST_F(ToolLoopResumeTest, KeptStepsReadBackAsTheOutcomesTheyStandFor) {
  std::vector<std::string> texts;
  for (const auto& s : kept) texts.push_back(driver::encode(s));
  texts.push_back("{not a step");
  texts.push_back(texts[0]);
  const auto read = read_kept_steps(texts);
  ASSERT_EQ(read.size(), 2u);  // up to the first it cannot read
  const auto tool = std::get<driver::ToolRan>(kept_outcome(read[1], 1));
  EXPECT_EQ(tool.id, 2u);
  EXPECT_EQ(tool.result.to_json(), kept[1].result);
  const auto model = std::get<driver::ModelAnswered>(kept_outcome(read[0], 0));
  EXPECT_EQ(model.id, 1u);
  EXPECT_TRUE(model.ok);
  EXPECT_EQ(model.response.message.tool_calls.size(), 2u);
}

TEST(KeptToolResultTest, ATimesResultReadsTheSameAgain) {
  company::ToolResult r = company::ToolResult::error("no budget", json{{"left", 0}});
  r.extra = json{{"remaining_budget", 1.5}};
  EXPECT_EQ(tool_result_from(r.to_json()).to_json(), r.to_json());
  EXPECT_FALSE(tool_result_from(json("text")).ok);
}

TEST_F(ToolLoopRetryTest, AResumedLoopReplaysTheKeptFailureAndRunsOnlyTheRetryInFlight) {
  // First run: the call failed once and the process died while its retry ran.
  ToolLoopDriver& first = make();
  std::vector<std::string> before;
  std::vector<driver::AskStep> kept;
  for (const auto& e : first.start()) before.push_back(line(e));
  kept.push_back(driver::AskStep{
      driver::AskStep::Kind::model, answer(1, "", {call("c1", "fetch", "{}")}).response, false, "", "", {}, 0});
  kept.push_back(driver::AskStep{driver::AskStep::Kind::tool,
                                 {},
                                 false,
                                 "c1",
                                 "fetch",
                                 company::ToolResult::error("temporarily unavailable").to_json(),
                                 0.01});
  for (size_t n = 0; n < kept.size(); ++n)
    for (const auto& e : first.on(kept_outcome(kept[n], n))) before.push_back(line(e));
  auto log = kept_log(kept);
  ASSERT_TRUE(log.ok()) << log.error().message;
  ToolLoopDriver& again = make();
  Resumed r = resume(again, std::move(log).value(), /*repeatable=*/true);
  EXPECT_EQ(r.all, before);
  // The failed attempt (and what it cost) is not paid again: only the retry runs.
  EXPECT_EQ(r.executed, (std::vector<std::string>{"tool 3 fetch"}));
  EXPECT_EQ(last(again.on(ran(3, company::ToolResult::success("fetched")))), "model 4");
}

}  // namespace
}  // namespace kaisha::employee
