// Progress events of each strategy → session/update payloads and stop reasons.
#include "protocols/agent_client/turn_updates.hpp"

#include <gtest/gtest.h>

namespace kaisha::agent_client {
namespace {

using K = msg::EventKind;

msg::ProgressEvent event(K kind, std::string text, json data = json::object(), std::string agent = "CEO") {
  msg::ProgressEvent e;
  e.session_id = "s";
  e.task_id = "t";
  e.kind = kind;
  e.text = std::move(text);
  e.data = std::move(data);
  e.agent = std::move(agent);
  return e;
}

TEST(TurnUpdates, ToolCallsBecomeToolCallAndItsUpdate) {
  TurnUpdates u;
  auto call =
      u.on_event(event(K::tool_call, "Invoking `WriteFile`",
                       json{{"tool", "WriteFile"}, {"arguments", R"({"file_path":"a.txt"})"}, {"call_id", "c1"}}));
  ASSERT_EQ(call.size(), 1u);
  EXPECT_EQ(call[0]["sessionUpdate"], "tool_call");
  EXPECT_EQ(call[0]["kind"], "edit");
  EXPECT_EQ(call[0]["status"], "in_progress");
  EXPECT_EQ(call[0]["rawInput"]["file_path"], "a.txt");
  const std::string id = call[0]["toolCallId"];
  EXPECT_EQ(u.open_tool_call("CEO", "WriteFile"), id);

  auto done = u.on_event(event(K::tool_result, "Tool responded",
                               json{{"tool", "WriteFile"},
                                    {"call_id", "c1"},
                                    {"result", {{"status", "error"}, {"message", "refused permission"}}}}));
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0]["sessionUpdate"], "tool_call_update");
  EXPECT_EQ(done[0]["toolCallId"], id);
  EXPECT_EQ(done[0]["status"], "failed");
  EXPECT_EQ(done[0]["content"][0]["content"]["text"], "refused permission");
  EXPECT_EQ(u.open_tool_call("CEO", "WriteFile"), "");
}

TEST(TurnUpdates, AnEmployeesToolCallIsNamedAfterItAndPairedByAgent) {
  TurnUpdates u;
  auto a =
      u.on_event(event(K::tool_call, "", json{{"tool", "ReadFile"}, {"call_id", "1"}, {"agent", "Coder"}}, "Coder"));
  auto b = u.on_event(event(K::tool_call, "", json{{"tool", "ReadFile"}, {"call_id", "1"}}, "CEO"));
  EXPECT_EQ(a[0]["title"], "ReadFile (Coder)");
  EXPECT_EQ(a[0]["kind"], "read");
  auto done = u.on_event(event(K::tool_result, "",
                               json{{"tool", "ReadFile"},
                                    {"call_id", "1"},
                                    {"agent", "Coder"},
                                    {"result", {{"status", "success"}, {"message", "ok"}}}}));
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0]["toolCallId"], a[0]["toolCallId"]);
  EXPECT_EQ(done[0]["status"], "completed");
  EXPECT_EQ(u.open_tool_call("CEO", "ReadFile"), b[0]["toolCallId"]);
}

TEST(TurnUpdates, AsksOfEmployeesAreToolCallsAndAskAgentIsNotShownTwice) {
  TurnUpdates u;
  EXPECT_TRUE(u.on_event(event(K::tool_call, "", json{{"tool", "AskAgent"}, {"call_id", "9"}})).empty());
  auto ask = u.on_event(event(K::ask, "CEO -> Writer: draft it", json{{"agent", "Writer"}, {"prompt", "draft it"}}));
  ASSERT_EQ(ask.size(), 1u);
  EXPECT_EQ(ask[0]["title"], "Ask Writer");
  auto answer = u.on_event(event(K::answer, "Writer: the draft", json{{"agent", "Writer"}}, "Writer"));
  ASSERT_EQ(answer.size(), 1u);
  EXPECT_EQ(answer[0]["toolCallId"], ask[0]["toolCallId"]);
  EXPECT_EQ(answer[0]["status"], "completed");
  EXPECT_EQ(answer[0]["content"][0]["content"]["text"], "the draft");
  EXPECT_TRUE(u.on_event(event(K::tool_result, "", json{{"tool", "AskAgent"}, {"call_id", "9"}})).empty());
}

TEST(TurnUpdates, EffgensSubtasksArePlanEntriesWithTheirStatus) {
  TurnUpdates u;
  auto plan = u.on_event(event(K::plan, "2 subtasks",
                               json{{"subtasks", json::array({json{{"id", "st_1"}, {"description", "Research"}},
                                                              json{{"id", "st_2"}, {"description", "Write"}}})}},
                               "Planner"));
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_EQ(plan[0]["sessionUpdate"], "plan");
  ASSERT_EQ(plan[0]["entries"].size(), 2u);
  EXPECT_EQ(plan[0]["entries"][0]["content"], "Research");
  EXPECT_EQ(plan[0]["entries"][0]["status"], "pending");
  EXPECT_EQ(plan[0]["entries"][0]["priority"], "medium");
  auto running = u.on_event(event(K::subtask, "", json{{"subtask", "st_1"}, {"state", "running"}}));
  EXPECT_EQ(running[0]["entries"][0]["status"], "in_progress");
  auto done = u.on_event(event(K::subtask, "", json{{"subtask", "st_1"}, {"state", "completed"}}));
  EXPECT_EQ(done[0]["entries"][0]["status"], "completed");
  EXPECT_EQ(done[0]["entries"][1]["status"], "pending");
  // Effgen's asks (agent + job) are tool calls too.
  auto ask = u.on_event(event(K::ask, "Planner -> w [st_2]", json{{"agent", "w"}, {"job", "st_2"}}, "Planner"));
  auto refused = u.on_event(event(K::refusal, "w: over budget", json{{"job", "st_2"}}, "Planner"));
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(refused[0]["toolCallId"], ask[0]["toolCallId"]);
  EXPECT_EQ(refused[0]["status"], "failed");
  EXPECT_TRUE(u.saw_refusal());
}

TEST(TurnUpdates, HalosSubtasksAndThePyramidsCallsArePlanEntries) {
  TurnUpdates halo;
  halo.on_event(event(K::strategy, "subtask 1", json{{"strategy", "halo"}, {"event", "subtask"}, {"text", "Find it"}}));
  auto second = halo.on_event(
      event(K::strategy, "subtask 2", json{{"strategy", "halo"}, {"event", "subtask"}, {"text", "Check"}}));
  ASSERT_EQ(second[0]["entries"].size(), 2u);
  EXPECT_EQ(second[0]["entries"][0]["status"], "completed");
  EXPECT_EQ(second[0]["entries"][1]["status"], "in_progress");
  auto end = halo.on_event(event(K::final, "done", json{{"wall_ms", 5}}));
  ASSERT_EQ(end.size(), 1u);
  EXPECT_EQ(end[0]["entries"][1]["status"], "completed");
  EXPECT_TRUE(halo.on_event(event(K::strategy, "", json{{"strategy", "halo"}, {"event", "rollout"}})).empty());

  TurnUpdates pyramid;
  auto ask = pyramid.on_event(event(K::ask, "Lead: build it", json{{"call", 1}, {"parent", 0}}, "Lead"));
  ASSERT_EQ(ask.size(), 2u);
  EXPECT_EQ(ask[1]["entries"][0]["content"], "Lead: build it");
  EXPECT_EQ(ask[1]["entries"][0]["status"], "in_progress");
  auto answer = pyramid.on_event(event(K::answer, "Lead: success: built", json{{"call", 1}}, "Lead"));
  ASSERT_EQ(answer.size(), 2u);
  EXPECT_EQ(answer[0]["toolCallId"], ask[0]["toolCallId"]);
  EXPECT_EQ(answer[1]["entries"][0]["status"], "completed");
}

TEST(TurnUpdates, StopReasonsAreExact) {
  msg::TaskResult ok;
  msg::TaskResult canceled;
  canceled.ok = false;
  canceled.canceled = true;
  msg::TaskResult failed;
  failed.ok = false;

  TurnUpdates plain;
  plain.on_event(event(K::thinking, "let me think"));
  EXPECT_EQ(plain.stop_reason(ok), StopReason::end_turn);
  EXPECT_EQ(plain.stop_reason(canceled), StopReason::cancelled);
  EXPECT_EQ(plain.stop_reason(failed), StopReason::end_turn);

  TurnUpdates refused;
  refused.on_event(event(K::refusal, "Budget exceeded"));
  EXPECT_EQ(refused.stop_reason(failed), StopReason::refusal);
  EXPECT_EQ(refused.stop_reason(canceled), StopReason::cancelled);

  TurnUpdates cut;
  cut.on_event(event(K::usage, "CEO model call", json{{"finish_reason", "length"}}));
  EXPECT_EQ(cut.stop_reason(ok), StopReason::max_tokens);
  cut.on_event(event(K::usage, "CEO model call", json{{"finish_reason", "stop"}}));
  EXPECT_EQ(cut.stop_reason(ok), StopReason::end_turn);

  auto thought = plain.on_event(event(K::thinking, "hmm"));
  ASSERT_EQ(thought.size(), 1u);
  EXPECT_EQ(thought[0]["sessionUpdate"], "agent_thought_chunk");
  EXPECT_EQ(thought[0]["content"]["text"], "hmm");
}

}  // namespace
}  // namespace kaisha::agent_client
