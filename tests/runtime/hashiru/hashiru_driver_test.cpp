// The HASHIRU CEO's driver fed scripted outcomes: which effects it returns,
// in which order, with which texts.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "runtime/company/tool_spec_file.hpp"
#include "runtime/core/json_msgpack.hpp"
#include "runtime/hashiru/hashiru_driver.hpp"

namespace kaisha::hashiru {
namespace {

using driver::Effects;

// One line per effect, for order checks: "journal tool_call", "report ask",
// "hire Helper", "ask Helper", "model ceo_model", "finish ok: text", ...
std::string line(const driver::Effect& e) {
  if (auto* j = std::get_if<driver::Journal>(&e)) return "journal " + std::string(msg::event_kind_name(j->kind));
  if (auto* r = std::get_if<driver::Report>(&e)) return "report " + std::string(msg::event_kind_name(r->kind));
  if (auto* c = std::get_if<driver::CallModel>(&e)) return "model " + c->purpose;
  if (auto* h = std::get_if<driver::Hire>(&e)) return "hire " + h->spec.name;
  if (auto* f = std::get_if<driver::Fire>(&e)) return "fire " + f->agent;
  if (auto* a = std::get_if<driver::Ask>(&e)) return "ask " + a->agent;
  if (std::get_if<driver::Audit>(&e)) return "audit";
  if (auto* t = std::get_if<driver::RunTool>(&e)) return "tool " + t->tool;
  if (std::get_if<driver::ReadBudget>(&e)) return "budget";
  if (auto* r = std::get_if<driver::Recall>(&e)) return "recall " + r->query;
  if (auto* f = std::get_if<driver::Finish>(&e))
    return std::string("finish ") + (f->ok ? "ok" : "failed") + ": " + f->text;
  if (auto* r = std::get_if<driver::Reply>(&e)) return "reply " + std::to_string(r->request);
  return "?";
}

std::vector<std::string> lines(const Effects& effects) {
  std::vector<std::string> out;
  for (const auto& e : effects) out.push_back(line(e));
  return out;
}

template <class T>
std::vector<T> all(const Effects& effects) {
  std::vector<T> out;
  for (const auto& e : effects)
    if (auto* x = std::get_if<T>(&e)) out.push_back(*x);
  return out;
}

template <class T>
T only(const Effects& effects) {
  std::vector<T> found = all<T>(effects);
  EXPECT_EQ(found.size(), 1u) << ::testing::PrintToString(lines(effects));
  return found.empty() ? T{} : found.front();
}

// The tool_result journal steps' results, in the order they were journaled.
std::vector<json> tool_results(const Effects& effects) {
  std::vector<json> out;
  for (const auto& j : all<driver::Journal>(effects))
    if (j.kind == msg::EventKind::tool_result) out.push_back(j.payload["result"]);
  return out;
}

llm::ToolCall call(std::string id, std::string name, json args) {
  return {std::move(id), std::move(name), args.dump()};
}

driver::ModelAnswered answer(driver::CallId id, std::string text, std::vector<llm::ToolCall> calls = {}) {
  driver::ModelAnswered a;
  a.id = id;
  a.ok = true;
  a.response.message.role = llm::Role::assistant;
  a.response.message.content = std::move(text);
  a.response.message.tool_calls = std::move(calls);
  a.response.usage = {120, 30, false};
  a.expense = 0.001;
  a.budget = json{{"current_remaining_resource_budget", 90.0}, {"current_remaining_expense_budget", 9.5}};
  return a;
}

json budget(double resource, double expense) {
  return json{{"current_remaining_resource_budget", resource}, {"current_remaining_expense_budget", expense}};
}

class HashiruDriverTest : public ::testing::Test {
 protected:
  HashiruDriverTest() {
    auto specs = company::load_tool_specs(std::string(KAISHA_SOURCE_DIR) + "/data/tools/hashiru_ceo_tools.json");
    EXPECT_TRUE(specs.ok());
    if (specs.ok()) setup.tool_specs = *specs;
    auto table = std::make_shared<economy::CostTable>();
    table->set({"helper", "mock:helper", "local", 10, 0, 0.01, 0.1, 0.2, "a helper", {}});
    table->set({"cloudy", "mock:cloudy", "cloud", 5, 0, 0.02, 0.1, 0.2, "a cloud model", {}});
    setup.system_prompt = "You are the CEO.";
    setup.model_ref = "mock:ceo";
    setup.cost_table = table;
    setup.check_model = [this](const std::string& ref) -> Status {
      if (ref == broken_model) return Error{"model", "no such model at the provider"};
      return Status::Ok();
    };
    setup.other_tools = [this] { return other_tools; };
    setup.roster = [this]() -> const company::AgentRoster& { return roster; };
    setup.hired = [this](const std::string& a) { return hired.count(a) > 0; };
    setup.listening = [this] { return listening; };
  }

  HashiruDriver& make() {
    d = std::make_unique<HashiruDriver>(setup);
    return *d;
  }

  // Hires `name` as the kit would once the ledger said yes.
  void hire(const std::string& name) {
    msg::AgentSpec spec;
    spec.name = name;
    spec.base_model = "helper";
    spec.type = "local";
    roster.add(spec);
    hired.insert(name);
  }

  // Starts task `input` and answers its first model call with `calls`.
  Effects first_turn(const std::string& input, std::vector<llm::ToolCall> calls, std::string text = "") {
    Effects started = d->start(input);
    return d->on(answer(only<driver::CallModel>(started).id, std::move(text), std::move(calls)));
  }

  HashiruSetup setup;
  std::unique_ptr<HashiruDriver> d;
  company::AgentRoster roster;
  std::set<std::string> hired;
  std::vector<llm::ToolSpec> other_tools{{"Calculator", "adds", json{{"type", "object"}}}};
  std::string broken_model = "none";
  bool listening = true;
};

TEST_F(HashiruDriverTest, StartCallsTheModelWithTheConversationAndEveryTool) {
  make();
  Effects e = d->start("What is 2+2?");
  EXPECT_EQ(lines(e), (std::vector<std::string>{"journal llm_request", "model ceo_model"}));
  const auto request = only<driver::Journal>(e).payload;
  EXPECT_EQ(request["model_ref"], "mock:ceo");
  EXPECT_EQ(request["messages"], 2);
  EXPECT_EQ(request["last_message"], "What is 2+2?");
  EXPECT_EQ(request["tools"], 7);  // the six, then the providers' Calculator
  driver::CallModel c = only<driver::CallModel>(e);
  EXPECT_TRUE(c.await_settle);
  ASSERT_EQ(c.request.tools.size(), 7u);
  EXPECT_EQ(c.request.tools.front().name, "AgentCreator");
  EXPECT_EQ(c.request.tools.back().name, "Calculator");
  EXPECT_EQ(c.request.max_tokens.value_or(0), 4096);
  EXPECT_EQ(c.request.messages.front().content, "You are the CEO.");
}

TEST_F(HashiruDriverTest, AnAnswerWithoutToolCallsFinishesTheTask) {
  make();
  Effects started = d->start("What is 2+2?");
  Effects e = d->on(answer(only<driver::CallModel>(started).id, "4"));
  EXPECT_EQ(lines(e), (std::vector<std::string>{"report usage", "journal llm_response", "finish ok: 4"}));
  EXPECT_EQ(all<driver::Report>(e)[0].text, "CEO model call: 120 in / 30 out tokens");
  EXPECT_EQ(all<driver::Report>(e)[0].data["budget"], budget(90, 9.5));
  const driver::Journal response = all<driver::Journal>(e)[0];
  EXPECT_EQ(response.payload["text"], "4");
  EXPECT_EQ(response.tokens_in, 120);
  EXPECT_EQ(response.tokens_out, 30);
  EXPECT_FALSE(d->running());
  // The answer of an effect of a finished task is ignored.
  EXPECT_TRUE(d->on(answer(only<driver::CallModel>(started).id, "again")).empty());
}

TEST_F(HashiruDriverTest, TwoToolCallsRunInCallOrderAndTheirResultsGoBackInCallOrder) {
  make();
  hire("Alice");
  hire("Bob");
  Effects e = first_turn("Ask both",
                         {call("c1", "AskAgent", {{"agent_name", "Alice"}, {"prompt", "a?"}}),
                          call("c2", "AskAgent", {{"agent_name", "Bob"}, {"prompt", "b?"}})},
                         "asking");
  EXPECT_EQ(lines(e), (std::vector<std::string>{"report usage", "journal llm_response", "report thinking",
                                                "report tool_call", "journal tool_call", "report ask", "ask Alice",
                                                "report tool_call", "journal tool_call", "report ask", "ask Bob"}));
  std::vector<driver::Ask> asks = all<driver::Ask>(e);
  EXPECT_EQ(asks[0].prompt, "a?");
  EXPECT_TRUE(asks[0].await_settle);
  EXPECT_EQ(all<driver::Report>(e)[3].text, "CEO -> Alice: a?");

  // Bob answers first: nothing goes to the model until Alice has answered too.
  driver::AskAnswered bob{asks[1].id, true, false, "", {}, 0.002, budget(80, 9)};
  bob.reply.output = "from Bob";
  bob.reply.usage = {10, 5, false};
  Effects after_bob = d->on(bob);
  EXPECT_EQ(lines(after_bob),
            (std::vector<std::string>{"journal answer", "report answer", "report tool_result", "journal tool_result"}));
  const driver::Journal answer_step = all<driver::Journal>(after_bob)[0];
  EXPECT_EQ(answer_step.agent, "Bob");
  EXPECT_EQ(answer_step.payload["chars"], 8);
  EXPECT_DOUBLE_EQ(answer_step.usd, 0.002);
  EXPECT_EQ(tool_results(after_bob)[0], (json{{"status", "success"},
                                              {"message", "Agent Bob answered"},
                                              {"output", "from Bob"},
                                              {"remaining_resource_budget", 80.0},
                                              {"remaining_expense_budget", 9.0}}));

  driver::AskAnswered alice{asks[0].id, true, false, "", {}, 0.001, budget(70, 8)};
  alice.reply.output = "from Alice";
  Effects after_alice = d->on(alice);
  driver::CallModel next = only<driver::CallModel>(after_alice);
  const auto& m = next.request.messages;
  ASSERT_GE(m.size(), 2u);
  EXPECT_EQ(m[m.size() - 2].tool_call_id, "c1");
  EXPECT_EQ(m[m.size() - 1].tool_call_id, "c2");
  EXPECT_NE(m[m.size() - 2].content.find("from Alice"), std::string::npos);
}

TEST_F(HashiruDriverTest, AnAskWaitsForTheHireOfItsAgentInTheSameAnswer) {
  make();
  Effects e = first_turn("Hire and ask", {call("c1", "AgentCreator",
                                               {{"agent_name", "Helper"},
                                                {"base_model", "helper"},
                                                {"system_prompt", "You help."},
                                                {"description", "helps"}}),
                                          call("c2", "AskAgent", {{"agent_name", "Helper"}, {"prompt", "hi"}})});
  EXPECT_TRUE(all<driver::Ask>(e).empty());
  driver::Hire h = only<driver::Hire>(e);
  EXPECT_EQ(h.spec.model_ref, "mock:helper");
  EXPECT_EQ(h.spec.type, "local");
  EXPECT_EQ(h.spec.system_prompt, "You help.");
  EXPECT_DOUBLE_EQ(h.cost.create_resource_cost, 10);
  hire("Helper");
  Effects hired_now = d->on(driver::HireAnswered{h.id, true, false, "", budget(90, 9.99)});
  EXPECT_EQ(lines(hired_now),
            (std::vector<std::string>{"journal hire", "report hire", "report tool_result", "journal tool_result",
                                      "report tool_call", "journal tool_call", "report ask", "ask Helper"}));
  EXPECT_EQ(all<driver::Report>(hired_now)[0].text, "Helper (helper, local)");
  EXPECT_EQ(tool_results(hired_now)[0]["message"], "Agent Helper created");
  EXPECT_EQ(tool_results(hired_now)[0]["remaining_resource_budget"], 90.0);
}

TEST_F(HashiruDriverTest, AgentCreatorWithAnUnknownModelIsAnErrorWithoutAHire) {
  make();
  Effects e = first_turn(
      "Hire",
      {call("c1", "AgentCreator",
            {{"agent_name", "Helper"}, {"base_model", "gpt-9"}, {"system_prompt", "x"}, {"description", "y"}})});
  EXPECT_TRUE(all<driver::Hire>(e).empty());
  ASSERT_EQ(tool_results(e).size(), 1u);
  EXPECT_EQ(
      tool_results(e)[0],
      (json{{"status", "error"}, {"message", "Model gpt-9 not found in the cost manager."}, {"output", nullptr}}));
  // The result goes straight back to the model.
  EXPECT_EQ(lines(e).back(), "model ceo_model");
}

TEST_F(HashiruDriverTest, AgentCreatorChecksTheRosterTheSwitchesAndTheModel) {
  make();
  hire("Helper");
  auto creator = [](std::string name, std::string model) {
    return call("c", "AgentCreator",
                {{"agent_name", name}, {"base_model", model}, {"system_prompt", "x"}, {"description", "y"}});
  };
  Effects taken = first_turn("Hire", {creator("Helper", "helper")});
  EXPECT_EQ(tool_results(taken)[0]["message"], "Agent Helper already exists");

  broken_model = "mock:cloudy";
  d->on(answer(only<driver::CallModel>(taken).id, "done"));
  Effects unusable = first_turn("Hire", {creator("Cloud", "cloudy")});
  EXPECT_EQ(tool_results(unusable)[0]["message"], "Model cloudy cannot be used: no such model at the provider");

  d->set_switch("cloud_agents", false);
  d->on(answer(only<driver::CallModel>(unusable).id, "done"));
  Effects off = first_turn("Hire", {creator("Cloud", "cloudy")});
  EXPECT_EQ(tool_results(off)[0]["message"], "Cloud invocation mode is disabled.");

  EXPECT_TRUE(d->set_switch("agent_creation", false));
  EXPECT_FALSE(d->set_switch("no_such_switch", true));
  d->on(answer(only<driver::CallModel>(off).id, "done"));
  Effects disabled = first_turn("Hire", {creator("Other", "helper")});
  EXPECT_EQ(tool_results(disabled)[0]["message"], "Agent creation mode is disabled.");
  EXPECT_TRUE(all<driver::Hire>(disabled).empty());
}

TEST_F(HashiruDriverTest, ARefusedHireIsJournaledAndReported) {
  make();
  Effects e = first_turn(
      "Hire",
      {call("c1", "AgentCreator",
            {{"agent_name", "Helper"}, {"base_model", "helper"}, {"system_prompt", "x"}, {"description", "y"}})});
  Effects refused = d->on(driver::HireAnswered{only<driver::Hire>(e).id, false, true, "Do not have enough budget", {}});
  EXPECT_EQ(lines(refused),
            (std::vector<std::string>{"journal refusal", "report refusal", "report tool_result", "journal tool_result",
                                      "journal llm_request", "model ceo_model"}));
  EXPECT_EQ(all<driver::Journal>(refused)[0].payload,
            (json{{"tool", "AgentCreator"}, {"agent", "Helper"}, {"error", "Do not have enough budget"}}));
  EXPECT_EQ(tool_results(refused)[0]["message"], "Do not have enough budget");
}

TEST_F(HashiruDriverTest, AskAndFireOfAnAgentNotHired) {
  make();
  Effects e = first_turn("Go", {call("c1", "AskAgent", {{"agent_name", "Ghost"}, {"prompt", "hi"}}),
                                call("c2", "FireAgent", {{"agent_name", "Ghost"}})});
  EXPECT_TRUE(all<driver::Ask>(e).empty());
  EXPECT_TRUE(all<driver::Fire>(e).empty());
  ASSERT_EQ(tool_results(e).size(), 2u);
  EXPECT_EQ(tool_results(e)[0]["message"], "Agent Ghost does not exists");
  EXPECT_EQ(tool_results(e)[1]["message"], "Agent Ghost does not exists");
}

TEST_F(HashiruDriverTest, FireAgentFiresAndReturnsTheRemainingBudgets) {
  make();
  hire("Helper");
  Effects e = first_turn("Fire", {call("c1", "FireAgent", {{"agent_name", "Helper"}})});
  driver::Fire f = only<driver::Fire>(e);
  EXPECT_EQ(f.agent, "Helper");
  Effects fired = d->on(driver::FireAnswered{f.id, true, false, "", budget(100, 9)});
  EXPECT_EQ(lines(fired), (std::vector<std::string>{"journal fire", "report fire", "report tool_result",
                                                    "journal tool_result", "journal llm_request", "model ceo_model"}));
  EXPECT_EQ(tool_results(fired)[0], (json{{"status", "success"},
                                          {"message", "Agent Helper fired"},
                                          {"output", nullptr},
                                          {"remaining_resource_budget", 100.0},
                                          {"remaining_expense_budget", 9.0}}));
}

TEST_F(HashiruDriverTest, OtherToolsRunAsRunToolAndBadArgumentsNeverReachAHandler) {
  make();
  Effects e = first_turn("Go", {call("c1", "Calculator", {{"a", 1}}), {"c2", "AskAgent", "{not json"}});
  driver::RunTool t = only<driver::RunTool>(e);
  EXPECT_EQ(t.tool, "Calculator");
  EXPECT_EQ(t.arguments, R"({"a":1})");
  ASSERT_EQ(tool_results(e).size(), 1u);  // the malformed AskAgent answered at once
  EXPECT_EQ(tool_results(e)[0]["message"],
            "The arguments of AskAgent are not valid JSON. Call the tool again with a JSON object matching its "
            "parameters. Received: {not json");
  Effects ran = d->on(driver::ToolRan{t.id, company::ToolResult::success("ok", 2)});
  EXPECT_EQ(tool_results(ran)[0]["output"], 2);
  EXPECT_EQ(only<driver::CallModel>(ran).request.messages.size(), 5u);  // system, user, assistant, two results
}

// The CEO's own tool calls are retried as an employee's are: a transient
// failure of a tool safe to repeat is journaled (its tool_result and a
// tool_retry note), reported, and asked for again as a RunTool with the
// backoff's delay; the model hears the last attempt only. Not retried: a
// tool not safe to repeat, or an error that is not transient.
TEST_F(HashiruDriverTest, ATransientToolFailureIsRetriedAfterTheBackoff) {
  setup.tool_retry = company::ToolRetryPolicy{3, 100, 1000, 0};
  setup.repeatable = [](const std::string& tool) { return tool == "Calculator"; };
  setup.task_id = [] { return std::string("t-1"); };
  other_tools.push_back({"Other", "does other things", json{{"type", "object"}}});
  make();
  Effects e = first_turn("Go", {call("c1", "Calculator", {{"a", 1}})});
  const driver::RunTool first = only<driver::RunTool>(e);
  EXPECT_EQ(first.delay_ms, 0);
  Effects failed = d->on(driver::ToolRan{first.id, company::ToolResult::error("Service temporarily unavailable")});
  EXPECT_EQ(lines(failed), (std::vector<std::string>{"journal tool_result", "journal note", "report retry",
                                                     "journal tool_call", "tool Calculator"}));
  const driver::RunTool again = only<driver::RunTool>(failed);
  EXPECT_EQ(again.delay_ms, 100);
  EXPECT_EQ(again.arguments, R"({"a":1})");
  EXPECT_NE(again.id, first.id);
  const auto journaled = all<driver::Journal>(failed);
  EXPECT_EQ(journaled[0].payload["call_id"], "c1");
  EXPECT_EQ(journaled[1].payload, (json{{"tool_retry", "Calculator"},
                                        {"call_id", "c1"},
                                        {"attempt", 2},
                                        {"error_class", "transient"},
                                        {"delay_ms", 100},
                                        {"error", "Service temporarily unavailable"}}));
  EXPECT_EQ(journaled[2].payload["attempt"], 2);
  EXPECT_EQ(only<driver::Report>(failed).data["agent"], "CEO");

  Effects second = d->on(driver::ToolRan{again.id, company::ToolResult::error("HTTP 503")});
  EXPECT_EQ(only<driver::RunTool>(second).delay_ms, 200);  // doubled
  Effects ok = d->on(driver::ToolRan{only<driver::RunTool>(second).id, company::ToolResult::success("ok", 2)});
  ASSERT_EQ(tool_results(ok).size(), 1u);
  EXPECT_EQ(tool_results(ok)[0]["output"], 2);
  const auto request = only<driver::CallModel>(ok).request;
  for (const auto& m : request.messages) {
    EXPECT_EQ(m.content.find("unavailable"), std::string::npos) << m.content;
    EXPECT_EQ(m.content.find("503"), std::string::npos) << m.content;
  }

  // Not safe to repeat, or not transient: the model hears the error at once.
  Effects next = d->on(answer(only<driver::CallModel>(ok).id, "", {call("c2", "Other", {{"a", 1}})}));
  Effects unsafe =
      d->on(driver::ToolRan{only<driver::RunTool>(next).id, company::ToolResult::error("temporarily unavailable")});
  EXPECT_TRUE(all<driver::RunTool>(unsafe).empty()) << ::testing::PrintToString(lines(unsafe));
  EXPECT_EQ(all<driver::CallModel>(unsafe).size(), 1u);
  Effects third = d->on(answer(only<driver::CallModel>(unsafe).id, "", {call("c3", "Calculator", {{"a", 1}})}));
  Effects permanent =
      d->on(driver::ToolRan{only<driver::RunTool>(third).id, company::ToolResult::error("ZeroDivisionError")});
  EXPECT_TRUE(all<driver::RunTool>(permanent).empty()) << ::testing::PrintToString(lines(permanent));
}

// With the default jitter the wait depends on the task and the call only:
// the same in a fresh driver (a resume), and never above the backoff.
TEST_F(HashiruDriverTest, TheRetrysWaitIsTheSameForTheSameTaskAndCall) {
  setup.tool_retry = company::ToolRetryPolicy{3, 1000, 8000, 0.5};
  setup.repeatable = [](const std::string&) { return true; };
  std::string task = "t-1";
  setup.task_id = [&task] { return task; };
  auto wait = [this] {
    make();
    Effects e = first_turn("Go", {call("c1", "Calculator", {{"a", 1}})});
    Effects failed = d->on(driver::ToolRan{only<driver::RunTool>(e).id, company::ToolResult::error("HTTP 503")});
    return only<driver::RunTool>(failed).delay_ms;
  };
  const int64_t first = wait();
  EXPECT_GE(first, 500);
  EXPECT_LE(first, 1000);
  EXPECT_EQ(wait(), first);
  std::set<int64_t> waits;
  for (int i = 0; i < 20; ++i) {
    task = "t-" + std::to_string(i);
    waits.insert(wait());
  }
  EXPECT_GT(waits.size(), 5u);
}

TEST_F(HashiruDriverTest, NobodyListeningMeansNoChattyEvents) {
  listening = false;
  make();
  hire("Helper");
  Effects e = first_turn("Ask", {call("c1", "AskAgent", {{"agent_name", "Helper"}, {"prompt", "hi"}})});
  EXPECT_EQ(lines(e),
            (std::vector<std::string>{"report usage", "journal llm_response", "journal tool_call", "ask Helper"}));
}

TEST_F(HashiruDriverTest, MaxTurnsEndsTheTask) {
  setup.limits.max_turns = 1;
  make();
  Effects e = first_turn("Loop", {call("c1", "GetAgents", json::object())});
  EXPECT_EQ(lines(e), (std::vector<std::string>{
                          "report usage", "journal llm_response", "journal error",
                          "finish failed: CEO stopped: no final answer after 1 model calls (ceo.max_turns)"}));
  EXPECT_EQ(all<driver::Journal>(e)[1].payload["error"], "no final answer after 1 model calls (ceo.max_turns)");
}

TEST_F(HashiruDriverTest, ARefusedOrFailedModelCallEndsTheTask) {
  make();
  Effects started = d->start("Hi");
  driver::ModelAnswered refused;
  refused.id = only<driver::CallModel>(started).id;
  refused.refused = true;
  refused.error = "Do not have enough expense budget";
  Effects e = d->on(refused);
  EXPECT_EQ(lines(e), (std::vector<std::string>{"journal refusal", "report refusal",
                                                "finish failed: The CEO's own model call was refused: Do not have "
                                                "enough expense budget. Authorise an increase (kaisha budget "
                                                "--raise-expense USD) and retry."}));
  started = d->start("Hi again");
  driver::ModelAnswered failed;
  failed.id = only<driver::CallModel>(started).id;
  failed.error = "timeout";
  EXPECT_EQ(lines(d->on(failed)),
            (std::vector<std::string>{"journal error", "finish failed: The CEO's model call failed: timeout"}));
}

TEST_F(HashiruDriverTest, AJudgeRejectionIsAnsweredAgainThenAccepted) {
  setup.audit = true;
  setup.max_judge_retries = 1;
  make();
  Effects started = d->start("Write hello.py");
  Effects claimed = d->on(answer(only<driver::CallModel>(started).id, "done, it prints"));
  driver::Audit a = only<driver::Audit>(claimed);
  EXPECT_EQ(a.producer, "CEO");
  EXPECT_EQ(a.instruction, "Write hello.py");
  EXPECT_EQ(a.claim, "done, it prints");
  EXPECT_TRUE(all<driver::Finish>(claimed).empty());

  driver::JudgeRuled no;
  no.id = a.id;
  no.verdict = {planning::VerdictStatus::error, "prints nothing", "missing print", false};
  Effects retry = d->on(no);
  EXPECT_EQ(lines(retry), (std::vector<std::string>{"report retry", "journal llm_request", "model ceo_model"}));
  EXPECT_EQ(all<driver::Report>(retry)[0].text, "the judge rejected the answer; answering again");
  const std::string feedback = only<driver::CallModel>(retry).request.messages.back().content;
  EXPECT_NE(feedback.find("The judge rejected your result"), std::string::npos);
  EXPECT_NE(feedback.find("missing print"), std::string::npos);

  Effects again = d->on(answer(only<driver::CallModel>(retry).id, "fixed"));
  driver::JudgeRuled yes;
  yes.id = only<driver::Audit>(again).id;
  yes.verdict = {planning::VerdictStatus::success, "ok", "", false};
  EXPECT_EQ(lines(d->on(yes)), (std::vector<std::string>{"finish ok: fixed"}));
}

TEST_F(HashiruDriverTest, AFinalRejectionEndsTheTaskWithTheJudgesText) {
  setup.audit = true;
  setup.max_judge_retries = 0;
  make();
  Effects claimed = d->on(answer(only<driver::CallModel>(d->start("Task")).id, "claim"));
  driver::JudgeRuled no;
  no.id = only<driver::Audit>(claimed).id;
  no.verdict = {planning::VerdictStatus::error, "report", "wrong", false};
  EXPECT_EQ(lines(d->on(no)), (std::vector<std::string>{"finish failed: The judge rejected the final answer: wrong"}));

  Effects claimed2 = d->on(answer(only<driver::CallModel>(d->start("Task 2")).id, "claim"));
  driver::JudgeRuled failed;
  failed.id = only<driver::Audit>(claimed2).id;
  failed.kind = driver::JudgeRuled::Kind::judge_failed;
  failed.error = "judge broke";
  EXPECT_EQ(lines(d->on(failed)),
            (std::vector<std::string>{"finish failed: The judge could not audit the answer: judge broke"}));
}

TEST_F(HashiruDriverTest, AFinalRejectionWithErrorReflectionLetsTheCeoWriteACritiqueFirst) {
  setup.audit = true;
  setup.max_judge_retries = 0;
  auto reflection =
      memory::ErrorReflection::load(std::string(KAISHA_SOURCE_DIR) + "/prompts/memory/error_reflection.md");
  ASSERT_TRUE(reflection.ok());
  setup.error_reflection = std::make_shared<const memory::ErrorReflection>(*reflection);
  make();
  Effects claimed = d->on(answer(only<driver::CallModel>(d->start("What is 2+2?")).id, "5"));
  driver::JudgeRuled no;
  no.id = only<driver::Audit>(claimed).id;
  no.verdict = {planning::VerdictStatus::error, "2+2 is 4", "wrong sum", false};
  Effects reflect = d->on(no);
  EXPECT_EQ(lines(reflect),
            (std::vector<std::string>{"journal note", "report reflection", "journal llm_request", "model ceo_model"}));
  EXPECT_EQ(all<driver::Journal>(reflect)[0].payload, memory::ErrorReflection::verdict_note("wrong sum", "judge"));
  const std::string prompt = only<driver::CallModel>(reflect).request.messages.back().content;
  EXPECT_NE(prompt.find("What is 2+2?"), std::string::npos);
  EXPECT_NE(prompt.find("wrong sum"), std::string::npos);
  // Whatever the reflection turn answers, the task fails with the judge's text.
  Effects done = d->on(answer(only<driver::CallModel>(reflect).id, "critique stored"));
  EXPECT_EQ(lines(done).back(), "finish failed: The judge rejected the final answer: wrong sum");

  // With the memory switch off there is no reflection.
  d->set_switch("memory", false);
  Effects claimed2 = d->on(answer(only<driver::CallModel>(d->start("Again")).id, "5"));
  no.id = only<driver::Audit>(claimed2).id;
  EXPECT_EQ(lines(d->on(no)),
            (std::vector<std::string>{"finish failed: The judge rejected the final answer: wrong sum"}));
}

TEST_F(HashiruDriverTest, MemoriesAreRecalledBeforeTheFirstTurn) {
  setup.recall = true;
  make();
  Effects e = d->start("Capital of France?");
  EXPECT_EQ(lines(e), (std::vector<std::string>{"recall Capital of France?"}));
  json found{
      {"injection", "Memories: Paris"}, {"transcript", "Memories: [Paris]"}, {"memories", json::array({"Paris"})}};
  Effects turn = d->on(driver::Recalled{only<driver::Recall>(e).id, found});
  EXPECT_EQ(lines(turn),
            (std::vector<std::string>{"journal note", "report memories", "journal llm_request", "model ceo_model"}));
  EXPECT_EQ(all<driver::Report>(turn)[0].text, "Memories: [Paris]");
  EXPECT_EQ(only<driver::CallModel>(turn).request.messages.back().content, "Memories: Paris");

  // A failed retrieval is reported and the turn goes on; memory off: no recall.
  d->on(answer(only<driver::CallModel>(turn).id, "Paris"));
  Effects e2 = d->start("Again?");
  Effects turn2 = d->on(driver::Recalled{only<driver::Recall>(e2).id, json{{"error", "no embedder"}}});
  EXPECT_EQ(lines(turn2),
            (std::vector<std::string>{"journal error", "report error", "journal llm_request", "model ceo_model"}));
  EXPECT_EQ(all<driver::Report>(turn2)[0].text, "memory retrieval failed: no embedder");
  d->on(answer(only<driver::CallModel>(turn2).id, "ok"));
  d->set_switch("memory", false);
  EXPECT_EQ(lines(d->start("Third")), (std::vector<std::string>{"journal llm_request", "model ceo_model"}));
}

TEST_F(HashiruDriverTest, CancelFinishesWithTheReasonAndDropsWhatTheTaskAwaited) {
  make();
  hire("Helper");
  Effects e = first_turn("Ask", {call("c1", "AskAgent", {{"agent_name", "Helper"}, {"prompt", "hi"}})});
  EXPECT_EQ(lines(d->cancel("canceled on request")), (std::vector<std::string>{"finish failed: canceled on request"}));
  EXPECT_TRUE(d->cancel("twice").empty());
  driver::AskAnswered late{only<driver::Ask>(e).id, true, false, "", {}, 0, budget(1, 1)};
  EXPECT_TRUE(d->on(late).empty());
}

TEST_F(HashiruDriverTest, ADirectCallIsAnsweredWithAReplyWhetherATaskRunsOrNot) {
  make();
  hire("Helper");
  Effects agents = d->call_directly(7, "GetAgents", "{}");
  EXPECT_EQ(lines(agents), (std::vector<std::string>{"journal tool_call", "journal tool_result", "reply 7"}));
  EXPECT_EQ(all<driver::Journal>(agents)[0].payload,
            (json{{"tool", "GetAgents"}, {"arguments", "{}"}, {"direct", true}}));
  json reply = only<driver::Reply>(agents).value;
  EXPECT_EQ(reply["message"], "Agents retrieved");
  EXPECT_TRUE(reply["agents"].contains("Helper"));

  // A budget read started by a direct call during a task is answered after the task ended.
  Effects started = d->start("Hi");
  Effects read = d->call_directly(8, "GetBudget", "");
  driver::ReadBudget b = only<driver::ReadBudget>(read);
  d->on(answer(only<driver::CallModel>(started).id, "bye"));
  EXPECT_FALSE(d->running());
  Effects answered = d->on(driver::BudgetRead{b.id, json{{"total_expense_budget", 10.0}}});
  EXPECT_EQ(lines(answered), (std::vector<std::string>{"journal tool_result", "reply 8"}));
  EXPECT_EQ(only<driver::Reply>(answered).value, (json{{"status", "success"},
                                                       {"message", "Budget retrieved"},
                                                       {"output", {{"total_expense_budget", 10.0}}},
                                                       {"total_expense_budget", 10.0}}));

  // Any other tool is the actor's.
  Effects other = d->call_directly(9, "Calculator", R"({"a":1})");
  Effects ran =
      d->on(driver::ToolRan{only<driver::RunTool>(other).id, company::ToolResult::error("Tool Calculator failed")});
  EXPECT_EQ(only<driver::Reply>(ran).value["status"], "error");
  EXPECT_TRUE(d->owns("AskAgent"));
  EXPECT_FALSE(d->owns("Calculator"));
}

TEST_F(HashiruDriverTest, ALongConversationIsSummarisedBeforeTheNextCall) {
  config::ShortTermConfig stm;
  stm.context_tokens = 200;
  stm.keep_recent = 2;
  auto summarizer = memory::ConversationSummarizer::create(stm, std::string(KAISHA_SOURCE_DIR) + "/prompts");
  ASSERT_TRUE(summarizer.ok()) << summarizer.error().message;
  setup.summarizer = std::make_shared<const memory::ConversationSummarizer>(*summarizer);
  make();
  Effects started = d->start(std::string(400, 'x') + " first question");
  EXPECT_EQ(lines(started), (std::vector<std::string>{"journal llm_request", "model ceo_model"}));
  d->on(answer(only<driver::CallModel>(started).id, std::string(400, 'y')));
  Effects second = d->start("second question");
  driver::CallModel summary = only<driver::CallModel>(second);
  EXPECT_EQ(summary.purpose, "summary");
  EXPECT_EQ(summary.request.max_tokens.value_or(0), 1024);
  EXPECT_TRUE(summary.request.tools.empty());
  Effects after = d->on(answer(summary.id, "The user asked about x; the CEO answered y."));
  EXPECT_EQ(lines(after),
            (std::vector<std::string>{"journal note", "report summary", "journal llm_request", "model ceo_model"}));
  EXPECT_EQ(all<driver::Journal>(after)[0].payload["event"], "SUMMARIZATION_TRIGGER");
  EXPECT_EQ(all<driver::Journal>(after)[0].tokens_in, 120);
  EXPECT_EQ(only<driver::CallModel>(after).request.messages.back().content, "second question");
}

}  // namespace
}  // namespace kaisha::hashiru

namespace kaisha::hashiru {
namespace {

// Resuming rebuilds the CEO's conversation from the outcomes the journal
// kept: a fresh driver, started on the same task and fed the first k
// outcomes a live driver was fed, holds exactly the conversation the live
// one held after k — at every k, with the effects of a turn answered in a
// random order (several seeds).
TEST_F(HashiruDriverTest, FedTheKeptOutcomesAFreshDriverRebuildsTheConversationAtEveryPoint) {
  const std::string task = "Ask Alice and Bob, add it up, ask again 🔁";
  // The CEO's answers, turn by turn.
  const std::vector<std::pair<std::string, std::vector<llm::ToolCall>>> turns = {
      {"asking both",
       {call("c1", "AskAgent", {{"agent_name", "Alice"}, {"prompt", "a?"}}),
        call("c2", "AskAgent", {{"agent_name", "Bob"}, {"prompt", "b?"}})}},
      {"", {call("c3", "Calculator", {{"expression", "1+2"}}), call("c4", "GetBudget", json::object())}},
      {"once more", {call("c5", "AskAgent", {{"agent_name", "Alice"}, {"prompt", "と?"}})}},
      {"合計は 3 です", {}},
  };
  for (unsigned seed : {1u, 2u, 3u, 4u, 5u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    roster = {};
    hired.clear();
    hire("Alice");
    hire("Bob");
    std::mt19937 rng(seed);
    make();
    std::vector<driver::Outcome> fed;
    std::vector<json> live;  // the conversation after each outcome fed
    std::vector<driver::Effect> pending;
    size_t turn = 0;
    auto take = [&](Effects e) {
      for (auto& x : e)
        if (!std::holds_alternative<driver::Journal>(x) && !std::holds_alternative<driver::Report>(x))
          pending.push_back(std::move(x));
    };
    take(d->start(task));
    while (!pending.empty()) {
      std::uniform_int_distribution<size_t> pick(0, pending.size() - 1);
      const size_t i = pick(rng);
      driver::Effect e = std::move(pending[i]);
      pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
      driver::Outcome o;
      if (auto* c = std::get_if<driver::CallModel>(&e)) {
        ASSERT_LT(turn, turns.size());
        o = answer(c->id, turns[turn].first, turns[turn].second);
        ++turn;
      } else if (auto* a = std::get_if<driver::Ask>(&e)) {
        driver::AskAnswered r{a->id, true, false, "", {}, 0.001, budget(80, 9)};
        r.reply.output = a->agent + " says " + a->prompt;
        o = r;
      } else if (auto* t = std::get_if<driver::RunTool>(&e)) {
        o = driver::ToolRan{t->id, company::ToolResult::success("3", 3)};
      } else if (auto* b = std::get_if<driver::ReadBudget>(&e)) {
        o = driver::BudgetRead{b->id, budget(70, 8)};
      } else if (std::holds_alternative<driver::Finish>(e)) {
        continue;
      } else {
        FAIL() << "an effect this test does not answer: " << line(e);
      }
      fed.push_back(o);
      take(d->on(o));
      live.push_back(struct_json(d->conversation().messages()));
    }
    ASSERT_EQ(turn, turns.size());
    ASSERT_FALSE(d->running());
    // system, user, then each turn's answer and its tool results
    ASSERT_EQ(live.back().size(), 2u + 3 + 3 + 2 + 1) << live.back().dump();
    for (size_t k = 0; k < fed.size(); ++k) {
      HashiruDriver rebuilt(setup);
      rebuilt.start(task);
      for (size_t j = 0; j <= k; ++j) rebuilt.on(fed[j]);
      EXPECT_EQ(struct_json(rebuilt.conversation().messages()), live[k]) << "after outcome " << k + 1;
    }
  }
}

}  // namespace
}  // namespace kaisha::hashiru
