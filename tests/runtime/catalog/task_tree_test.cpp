// The task trees of `kaisha history TASK --tree`, built from journal steps
// written by hand in the shapes each strategy journals (see the comments at
// the top of runtime/<strategy>/entry/<strategy>_tree.cpp).
#include "runtime/strategy/task_tree.hpp"

#include <gtest/gtest.h>

#include "runtime/core/utf8.hpp"
#include "runtime/catalog/strategy_catalog.hpp"
#include "runtime/effgen/entry/effgen_view.hpp"
#include "runtime/strategy/generic_tree.hpp"
#include "runtime/hashiru/entry/hashiru_view.hpp"
#include "runtime/pyramid/entry/pyramid_view.hpp"

namespace kaisha::strategy {
namespace {

using nlohmann::json;

// Steps numbered in order, `at` given per step (ms).
struct Steps {
  std::vector<TaskStep> v;
  Steps& add(const std::string& agent, const std::string& kind, json payload, int64_t at, int64_t in = 0,
             int64_t out = 0, double usd = 0) {
    v.push_back({int64_t(v.size() + 1), agent, kind, std::move(payload), in, out, usd, at});
    return *this;
  }
};

TaskRecord task_of(const std::string& strategy, const std::string& input = "do it") {
  TaskRecord t;
  t.id = "t-1";
  t.input = input;
  t.status = "done";
  t.strategy = strategy;
  t.wall_ms = 5000;
  t.tokens_in = 9999;
  t.tokens_out = 888;
  t.usd = 0.5;
  return t;
}

// The child of `n` whose label starts with `prefix` (fails the test if none).
const TaskTree& child(const TaskTree& n, const std::string& prefix) {
  for (const auto& c : n.children)
    if (c.label.rfind(prefix, 0) == 0) return c;
  ADD_FAILURE() << "no child '" << prefix << "' under '" << n.label << "':\n" << render_tree_text(n);
  static const TaskTree none;
  return none;
}

void expect_valid_labels(const TaskTree& n) {
  EXPECT_TRUE(utf8::valid(n.label)) << n.label;
  EXPECT_EQ(n.label.find('\n'), std::string::npos) << n.label;
  for (const auto& c : n.children) expect_valid_labels(c);
}

size_t count_nodes(const TaskTree& n) {
  size_t k = 1;
  for (const auto& c : n.children) k += count_nodes(c);
  return k;
}

std::string args(json a) { return a.dump(); }

// ---------------------------------------------------------------- hashiru

Steps hashiru_steps() {
  Steps s;
  s.add("CEO", "llm_request", {{"last_message", "do it"}, {"messages", 2}}, 1000)
      .add("CEO", "llm_response", {{"text", "hiring"}, {"tool_calls", json::array({1})}}, 1100, 500, 50)
      .add("CEO", "tool_call",
           {{"tool", "AgentCreator"},
            {"call_id", "c1"},
            {"arguments", args({{"agent_name", "Poet"}, {"base_model", "llama3.2"}})}},
           1100)
      .add("CEO", "hire", {{"agent", "Poet"}, {"base_model", "llama3.2"}}, 1110)
      .add("CEO", "tool_result", {{"tool", "AgentCreator"}, {"call_id", "c1"}, {"result", {{"status", "success"}}}},
           1120)
      .add("CEO", "llm_request", {{"last_message", "created"}}, 1200)
      .add("CEO", "llm_response", {{"text", ""}, {"tool_calls", json::array({1, 2})}}, 1300, 600, 60)
      .add("CEO", "tool_call",
           {{"tool", "AskAgent"},
            {"call_id", "c2"},
            {"arguments", args({{"agent_name", "Poet"}, {"prompt", "川について詩を書いて 🌊"}})}},
           1300)
      .add("CEO", "tool_call",
           {{"tool", "AskAgent"}, {"call_id", "c3"}, {"arguments", args({{"agent_name", "Ghost"}, {"prompt", "boo"}})}},
           1300)
      .add("Poet", "llm_request", {{"prompt", "川について詩を書いて 🌊"}}, 1310)
      .add("Poet", "tool_call", {{"tool", "web_search"}, {"call_id", "p1"}, {"arguments", "{\"q\":\"川\"}"}}, 1400)
      .add("CEO", "refusal", {{"agent", "Ghost"}, {"error", "no budget"}}, 1410)
      .add("CEO", "tool_result", {{"tool", "AskAgent"}, {"call_id", "c3"}, {"result", {{"status", "error"}}}}, 1420)
      .add("Poet", "tool_result", {{"tool", "web_search"}, {"call_id", "p1"}, {"result", {{"status", "success"}}}},
           1700)
      .add("Poet", "llm_response", {{"text", "川は流れる"}}, 2000, 100, 20)
      .add("Poet", "answer", {{"agent", "Poet"}, {"chars", 15}}, 2000, 300, 40, 0.25)
      .add("CEO", "tool_result", {{"tool", "AskAgent"}, {"call_id", "c2"}, {"result", {{"status", "success"}}}}, 2010)
      .add("CEO", "llm_request", {{"last_message", "answered"}}, 2100)
      .add("CEO", "tool_call",
           {{"tool", "FireAgent"}, {"call_id", "c4"}, {"arguments", args({{"agent_name", "Poet"}})}}, 2150)
      .add("CEO", "fire", {{"agent", "Poet"}}, 2160)
      .add("CEO", "llm_response", {{"text", "Here:\n川は流れる"}, {"tool_calls", json::array()}}, 2200, 700, 70);
  return s;
}

TEST(HashiruTree, TurnsHoldTheCeosToolCallsAndAsksHoldTheEmployeesTools) {
  const TaskTree t = hashiru_tree(task_of("hashiru"), hashiru_steps().v);
  // The root is the task row, not a sum of the steps.
  EXPECT_EQ(t.kind, "task");
  EXPECT_EQ(t.tokens_in, 9999);
  EXPECT_EQ(t.tokens_out, 888);
  EXPECT_DOUBLE_EQ(t.usd, 0.5);
  EXPECT_EQ(t.ms, 5000);
  ASSERT_EQ(t.children.size(), 3u) << render_tree_text(t);

  const TaskTree& t1 = t.children[0];
  EXPECT_EQ(t1.kind, "turn");
  EXPECT_EQ(t1.label, "CEO turn 1: 1 tool call");
  ASSERT_EQ(t1.children.size(), 1u) << render_tree_text(t);  // the hire step is the AgentCreator node
  EXPECT_EQ(t1.children[0].kind, "hire");
  EXPECT_EQ(t1.children[0].label, "hire Poet (llama3.2)");
  EXPECT_EQ(t1.tokens_in, 500);
  EXPECT_EQ(t1.ms, 120);  // request at 1000, the hire's result at 1120

  const TaskTree& t2 = t.children[1];
  ASSERT_EQ(t2.children.size(), 2u) << render_tree_text(t);
  const TaskTree& ask = t2.children[0];
  EXPECT_EQ(ask.kind, "ask");
  EXPECT_EQ(ask.agent, "Poet");
  EXPECT_EQ(ask.label, "ask Poet: \"川について詩を書いて 🌊\"");
  EXPECT_EQ(ask.status, "");
  // The answer step's cost, not the employee's model calls again.
  EXPECT_EQ(ask.tokens_in, 300);
  EXPECT_EQ(ask.tokens_out, 40);
  EXPECT_DOUBLE_EQ(ask.usd, 0.25);
  EXPECT_EQ(ask.ms, 710);  // 1300 -> the CEO's tool result at 2010
  ASSERT_EQ(ask.children.size(), 1u) << render_tree_text(t);
  EXPECT_EQ(ask.children[0].kind, "tool");
  EXPECT_EQ(ask.children[0].agent, "Poet");
  EXPECT_EQ(ask.children[0].label, "tool web_search {\"q\":\"川\"}");
  EXPECT_EQ(ask.children[0].ms, 300);

  const TaskTree& refused = t2.children[1];
  EXPECT_EQ(refused.agent, "Ghost");
  EXPECT_EQ(refused.status, "refused");
  EXPECT_NE(refused.label.find("no budget"), std::string::npos) << refused.label;
  // The turn's numbers are its own model call and the asks under it.
  EXPECT_EQ(t2.tokens_in, 600 + 300);
  EXPECT_EQ(t2.tokens_out, 60 + 40);
  EXPECT_DOUBLE_EQ(t2.usd, 0.25);

  const TaskTree& t3 = t.children[2];
  EXPECT_EQ(t3.label, "CEO turn 3: answers \"Here: 川は流れる\"");
  ASSERT_EQ(t3.children.size(), 1u);
  EXPECT_EQ(t3.children[0].label, "fire Poet");
  expect_valid_labels(t);
}

TEST(HashiruTree, AnAskNeverAnsweredSaysSo) {
  Steps s;
  s.add("CEO", "llm_request", {{"last_message", "x"}}, 10)
      .add("CEO", "llm_response", {{"text", ""}, {"tool_calls", json::array({1})}}, 20)
      .add("CEO", "tool_call", {{"tool", "AskAgent"}, {"call_id", "a"}, {"arguments", args({{"agent_name", "Slow"}})}},
           20)
      .add("Slow", "llm_request", {{"prompt", "?"}}, 30);
  TaskRecord task = task_of("hashiru");
  task.status = "interrupted";
  task.wall_ms = 0;
  const TaskTree t = hashiru_tree(task, s.v);
  EXPECT_EQ(t.status, "interrupted");
  EXPECT_EQ(t.ms, -1);
  const TaskTree& ask = child(t.children.at(0), "ask Slow");
  EXPECT_EQ(ask.status, "unanswered");
  EXPECT_EQ(ask.ms, 10);  // to the last step it is known to have made
}

// ---------------------------------------------------------------- effgen

TEST(EffgenTree, ThePlanHoldsEverySubtaskWithItsWorkerAttemptsAndVerdicts) {
  Steps s;
  s.add("Planner", "note", {{"routing", {{"kind", "decompose"}, {"complexity_score", 7.9}}}}, 1000)
      .add("Planner", "llm_response", {{"call", "decomposition"}, {"text", "{}"}}, 1050, 400, 200)
      .add("Planner", "note",
           {{"plan", json::array({{{"id", "st_1"}, {"description", "GPU 価格を調べる"}, {"depends_on", json::array()}},
                                  {{"id", "st_2"}, {"description", "Certs"}, {"depends_on", json::array()}},
                                  {{"id", "st_3"}, {"description", "Report"}, {"depends_on", {"st_1", "st_2"}}}})},
            {"shape", "hybrid"}},
           1060)
      // st_1 and st_2 run at the same time on two workers.
      .add("Worker1", "llm_request", {{"prompt", "..."}}, 1100)
      .add("Worker2", "llm_request", {{"prompt", "..."}}, 1100)
      .add("Worker1", "llm_response", {{"job", "st_1"}, {"text", "A"}}, 1500, 100, 10, 0.01)
      .add("Worker2", "llm_response", {{"job", "st_2"}, {"text", "B"}}, 1600, 120, 12, 0.02)
      .add("Judge", "note", {{"producer", "Worker1"}, {"verdict", {{"status", "success"}}}}, 1600, 30, 3)
      .add("Judge", "note", {{"producer", "Worker2"}, {"verdict", {{"status", "success"}}}}, 1600, 30, 3)
      // st_3 is rejected once and redone on Worker1.
      .add("Worker1", "llm_request", {{"prompt", "..."}}, 1700)
      .add("Worker1", "llm_response", {{"job", "st_3"}, {"text", "R"}}, 1900, 200, 20)
      .add("Judge", "note",
           {{"producer", "Worker1"}, {"verdict", {{"status", "error"}, {"error_information", "add a table"}}}}, 1900,
           30, 4)
      .add("Worker1", "llm_request", {{"prompt", "..."}}, 1950)
      .add("Worker1", "llm_response", {{"job", "st_3"}, {"text", "R2"}}, 2300, 210, 30)
      .add("Judge", "note", {{"producer", "Worker1"}, {"verdict", {{"status", "success"}}}}, 2300, 30, 3)
      .add("Planner", "llm_response", {{"call", "synthesis"}, {"text", "done"}}, 2400, 600, 50)
      .add("Planner", "note", {{"metadata", {{"strategy", "effgen"}}}}, 2400);
  const TaskTree t = effgen_tree(task_of("effgen"), s.v);
  ASSERT_EQ(t.children.size(), 4u) << render_tree_text(t);
  EXPECT_EQ(t.children[0].label, "routing: decompose (complexity 7.9)");
  EXPECT_EQ(t.children[1].label, "Planner: decomposition");
  EXPECT_EQ(t.children[1].tokens_in, 400);
  EXPECT_EQ(t.children[3].label, "Planner: synthesis");

  const TaskTree& plan = t.children[2];
  EXPECT_EQ(plan.kind, "plan");
  EXPECT_EQ(plan.label, "plan: 3 subtasks, hybrid");
  ASSERT_EQ(plan.children.size(), 3u);
  const TaskTree& st1 = plan.children[0];
  EXPECT_EQ(st1.label, "st_1 → Worker1: GPU 価格を調べる");
  EXPECT_EQ(st1.agent, "Worker1");
  EXPECT_EQ(st1.ms, 400);
  EXPECT_EQ(st1.tokens_in, 100 + 30);  // the worker's answer and the judge's verdict
  EXPECT_DOUBLE_EQ(st1.usd, 0.01);
  const TaskTree& st2 = plan.children[1];
  EXPECT_EQ(st2.label, "st_2 → Worker2: Certs");
  EXPECT_EQ(st2.ms, 500);
  ASSERT_EQ(st2.children.size(), 1u);
  EXPECT_EQ(st2.children[0].label, "Judge: success");

  const TaskTree& st3 = plan.children[2];
  EXPECT_EQ(st3.label, "st_3 → Worker1: Report (after st_1, st_2), 2 attempts");
  EXPECT_EQ(st3.ms, 600);  // first request 1700 -> last answer 2300
  EXPECT_EQ(st3.tokens_in, 200 + 210 + 30 + 30);
  EXPECT_EQ(st3.tokens_out, 20 + 30 + 4 + 3);
  ASSERT_EQ(st3.children.size(), 2u);
  EXPECT_EQ(st3.children[0].label, "Judge: error — add a table");
  EXPECT_EQ(st3.children[0].status, "rejected");
  EXPECT_EQ(st3.children[1].status, "");
  // The plan sums its subtasks and spans from the plan to the last answer.
  EXPECT_EQ(plan.tokens_in, st1.tokens_in + st2.tokens_in + st3.tokens_in);
  EXPECT_EQ(plan.ms, 2300 - 1060);
}

TEST(EffgenTree, ASingleAgentRunIsOneJobAndASubtaskNeverRunSaysSo) {
  Steps single;
  single.add("Planner", "note", {{"routing", {{"kind", "single"}}}}, 10)
      .add("Worker1", "llm_request", {{"prompt", "2+2"}}, 20)
      .add("Worker1", "llm_response", {{"job", "task"}, {"text", "4"}}, 70, 5, 1);
  const TaskTree t = effgen_tree(task_of("effgen"), single.v);
  const TaskTree& job = child(t, "task → Worker1");
  EXPECT_EQ(job.ms, 50);
  EXPECT_EQ(job.tokens_in, 5);

  Steps failed;
  failed.add("Planner", "note", {{"plan", json::array({{{"id", "a"}}, {{"id", "b"}}})}}, 10)
      .add("Planner", "refusal", {{"plan_worst_case", 3.0}, {"remaining", 1.0}}, 11);
  const TaskTree f = effgen_tree(task_of("effgen"), failed.v);
  const TaskTree& plan = child(f, "plan: 2 subtasks");
  ASSERT_EQ(plan.children.size(), 2u);
  EXPECT_EQ(plan.children[0].status, "not run");
  EXPECT_EQ(child(f, "Planner refusal").status, "refused");
}

// ---------------------------------------------------------------- pyramid

TEST(PyramidTree, CallsNestUnderTheirCallersWithTheirOwnTotals) {
  Steps s;
  s.add("Pyramid", "note", {{"route", {{"agent", "lead"}, {"method", "entry"}}}}, 1000)
      .add("lead", "ask", {{"call", 1}, {"parent", 0}, {"input", "二つの俳句を書く ✍️"}}, 1000)
      .add("lead", "llm_response", {{"text", ""}, {"tool_calls", 2}}, 1010, 900, 40)
      .add("lead", "tool_call", {{"call", 1}, {"tool", "writer"}, {"arguments", "{\"task_input\":\"river\"}"}}, 1010)
      .add("writer", "ask", {{"call", 2}, {"parent", 1}, {"input", "river"}}, 1010)
      .add("lead", "tool_call", {{"call", 1}, {"tool", "writer"}, {"arguments", "{\"task_input\":\"stone\"}"}}, 1010)
      .add("writer", "ask", {{"call", 3}, {"parent", 1}, {"input", "stone"}}, 1011)
      .add("writer", "tool_call", {{"call", 2}, {"tool", "file_write"}, {"arguments", "{\"file_path\":\"r.md\"}"}},
           1100)
      .add("writer", "tool_result",
           {{"call", 2}, {"tool", "file_write"}, {"result", "{\"status\":\"error\",\"error_information\":\"disk\"}"}},
           1150)
      .add("judge", "ask", {{"call", 4}, {"parent", 2}, {"input", "Audit this result."}}, 1200)
      .add("judge", "answer", {{"call", 4}, {"final_output", {{"status", "success"}}}}, 1250, 100, 10)
      .add("writer", "note", {{"call", 2}, {"quality", 0.6}, {"verdict", {{"status", "success"}}}}, 1251)
      .add("writer", "answer", {{"call", 2}, {"final_output", {{"status", "success"}}}}, 1300, 300, 30, 0.03)
      .add("lead", "tool_result", {{"call", 1}, {"tool", "writer"}, {"result", "{\"status\":\"success\"}"}}, 1300)
      .add("writer", "answer", {{"call", 3}, {"final_output", {{"status", "error"}}}}, 1400, 200, 20)
      .add("lead", "tool_result", {{"call", 1}, {"tool", "writer"}, {"result", "{}"}}, 1400)
      .add("lead", "tool_call", {{"call", 1}, {"tool", "dir_list"}, {"arguments", "{}"}}, 1410)
      .add("lead", "answer", {{"call", 1}, {"final_output", {{"status", "success"}}}}, 1500, 1400, 100, 0.05)
      .add("Pyramid", "note", {{"metadata", {{"strategy", "pyramid"}}}}, 1500);
  const TaskTree t = pyramid_tree(task_of("pyramid"), s.v);
  ASSERT_EQ(t.children.size(), 2u) << render_tree_text(t);
  EXPECT_EQ(t.children[0].label, "route: entered at lead (entry)");
  const TaskTree& lead = t.children[1];
  EXPECT_EQ(lead.kind, "call");
  EXPECT_EQ(lead.agent, "lead");
  EXPECT_EQ(lead.label, "lead: \"二つの俳句を書く ✍️\"");
  // An answer's totals already hold its sub-calls': taken as they are.
  EXPECT_EQ(lead.tokens_in, 1400);
  EXPECT_EQ(lead.tokens_out, 100);
  EXPECT_DOUBLE_EQ(lead.usd, 0.05);
  EXPECT_EQ(lead.ms, 500);
  // The two writer calls stand for the lead's two writer tool calls; the
  // dir_list call that was never answered stays a tool node.
  ASSERT_EQ(lead.children.size(), 3u) << render_tree_text(t);
  const TaskTree& river = lead.children[0];
  EXPECT_EQ(river.label, "writer: \"river\"");
  EXPECT_EQ(river.tokens_in, 300);
  EXPECT_EQ(river.ms, 290);
  ASSERT_EQ(river.children.size(), 2u);
  EXPECT_EQ(river.children[0].label, "tool file_write {\"file_path\":\"r.md\"}");
  EXPECT_EQ(river.children[0].status, "failed");
  EXPECT_EQ(river.children[0].ms, 50);
  EXPECT_EQ(river.children[1].agent, "judge");
  EXPECT_EQ(river.children[1].label, "judge: \"Audit this result.\" → verdict: success (quality 0.6)");
  EXPECT_EQ(river.children[1].tokens_in, 100);
  const TaskTree& stone = lead.children[1];
  EXPECT_EQ(stone.label, "writer: \"stone\"");
  EXPECT_EQ(stone.status, "failed");
  EXPECT_EQ(lead.children[2].label, "tool dir_list {}");
  EXPECT_EQ(lead.children[2].ms, -1);
  // Drawn as a graph: each call keyed, with an edge from the call that made it.
  EXPECT_EQ(lead.key, "call 1");
  EXPECT_TRUE(lead.after.empty());
  EXPECT_EQ(river.key, "call 2");
  EXPECT_EQ(river.after, std::vector<std::string>{"call 1"});
  EXPECT_EQ(stone.after, std::vector<std::string>{"call 1"});
  EXPECT_EQ(river.children[1].key, "call 4");
  EXPECT_EQ(river.children[1].after, std::vector<std::string>{"call 2"});
  EXPECT_TRUE(river.children[0].key.empty());  // a tool call is not drawn
}

// A fork's branches and what was merged sit under the call that made it;
// evolution events under their call or at the top; a revert at the top.
TEST(PyramidTree, ShowsBranchesMergesEvolutionAndReverts) {
  Steps s;
  s.add("lead", "ask", {{"call", 1}, {"parent", 0}, {"input", "fib"}}, 1000)
      .add("coder__2", "ask", {{"call", 2}, {"parent", 1}, {"input", "fib"}, {"branch", "f1-2"}}, 1010)
      .add("coder__2", "answer", {{"call", 2}, {"final_output", {{"status", "success"}}}}, 1100, 10, 1)
      .add("coder", "note",
           {{"strategy", "pyramid"},
            {"event", "merge_plan"},
            {"fork", 1},
            {"plan", {{"merge", {1}}, {"rejected", json::object()}}}},
           1101)
      .add("coder", "note",
           {{"strategy", "pyramid"},
            {"event", "evolution"},
            {"agent", "coder"},
            {"kind", "pruned"},
            {"model", "m:a"},
            {"why", "its windowed Q 0 is below 0.3"}},
           1102)
      .add("coder", "note",
           {{"fork", 1},
            {"agent", "coder"},
            {"parent", 1},
            {"from", ""},
            {"branches",
             {{{"model", "m:a"}, {"merged", false}, {"commit", 3}},
              {{"model", "m:b"}, {"merged", true}, {"commit", 2}}}}},
           1103)
      .add("lead", "answer", {{"call", 1}, {"final_output", {{"status", "success"}}}}, 1200, 20, 2)
      .add("user", "note", {{"revert", {{"to", 2}}}}, 5000);
  const TaskTree t = pyramid_tree(task_of("pyramid"), s.v);
  const std::string text = render_tree_text(t);
  ASSERT_EQ(t.children.size(), 3u) << text;
  const TaskTree& lead = t.children[0];
  ASSERT_EQ(lead.children.size(), 2u) << text;
  EXPECT_EQ(lead.children[1].kind, "branches");
  EXPECT_EQ(lead.children[1].label, "coder: 2 candidate branches, merged m:b (commit 2); not merged: m:a (commit 3)");
  EXPECT_EQ(t.children[1].label, "evolution: coder pruned m:a — its windowed Q 0 is below 0.3");
  EXPECT_EQ(t.children[2].label, "revert to commit 2 (by user)");
}

// ---------------------------------------------------------------- the catalog's choice

// ---------------------------------------------------------------- halo

TEST(HaloTree, EachSubtaskHoldsItsSearchWithValuesVisitsAndTheWinningPath) {
  auto ev = [](const std::string& event, json data) {
    data["strategy"] = "halo";
    data["event"] = event;
    return data;
  };
  Steps s;
  s.add("HALO", "note", ev("refined", {{"query", "川の俳句 🌊"}, {"refined", true}}), 1000);
  s.add("HALO", "note", ev("subtask", {{"subtask", 1}, {"text", "draft it"}}), 1100);
  s.add("HALO", "note", ev("roles", {{"subtask", 1}, {"roles", {"Poet", "Critic"}}}), 1200);
  s.add("HALO", "llm_response", {{"purpose", "halo.judge"}}, 1250, 100, 10, 0.01);
  s.add("HALO", "note",
        ev("expansion",
           {{"subtask", 1},
            {"parent", 0},
            {"children",
             {{{"node", 1}, {"role_name", "Poet"}, {"label", "continue"}, {"value", 0.5}, {"answer", "a"}},
              {{"node", 2}, {"role_name", "Critic"}, {"label", "success"}, {"value", 0.9}, {"answer", "b"}}}}}),
        1300);
  s.add("HALO", "note",
        ev("expansion", {{"subtask", 1},
                         {"parent", 1},
                         {"children", {{{"node", 3}, {"role_name", "Critic"}, {"label", "fail"}, {"value", 0.1}}}}}),
        1400);
  s.add("HALO", "note",
        ev("backpropagated",
           {{"subtask", 1}, {"updates", {{{"node", 1}, {"value", 1.25}, {"visits", 2}}, {{"node", 9}, {"value", 1}}}}}),
        1500);
  s.add("HALO", "note",
        ev("search_ended",
           {{"subtask", 1}, {"reason", "terminal_success"}, {"answer", "b"}, {"trajectory", {{{"node", 2}}}}}),
        1600);
  const TaskTree t = build_task_tree(task_of("halo"), s.v);
  const TaskTree& sub = child(t, "subtask 1: draft it");
  EXPECT_EQ(sub.tokens_in, 100);  // the judge's call counts in its subtask
  child(sub, "roles: Poet, Critic");
  const TaskTree& poet = child(sub, "Poet [continue, v=1.25 n=2]: a");
  child(poet, "Critic [fail, v=0.1 n=0]");
  child(sub, "★ Critic [success, v=0.9 n=0]: b");
  child(sub, "search ended (terminal_success): b");
  child(t, "refined: 川の俳句 🌊");
  expect_valid_labels(t);
  // Drawn as a tree: the subtask is the search's root, each search node after its parent.
  EXPECT_EQ(sub.key, "s1.0");
  EXPECT_EQ(poet.key, "s1.1");
  EXPECT_EQ(poet.after, std::vector<std::string>{"s1.0"});
  const TaskTree& deep = child(poet, "Critic [fail, v=0.1 n=0]");
  EXPECT_EQ(deep.key, "s1.3");
  EXPECT_EQ(deep.after, std::vector<std::string>{"s1.1"});
  EXPECT_EQ(tree_to_json(t)["children"][1]["children"][1]["after"], json::array({"s1.0"})) << tree_to_json(t).dump();
}

TEST(TaskTreeChoice, EveryStrategyThatRunsItsOwnTasksHasABuilder) {
  for (const auto& s : strategies())
    if (s.runs_on == std::vector<std::string>{s.name}) EXPECT_NE(s.tree, nullptr) << s.name;
}

TEST(TaskTreeChoice, AnUnknownStrategyGetsTheGenericTreeOfItsAgents) {
  Steps s;
  s.add("Boss", "ask", {{"to", "Helper"}, {"q", "?"}}, 100)
      .add("Boss", "llm_response", {{"text", "x"}}, 120, 10, 1)
      .add("Helper", "tool_call", {{"tool", "search"}}, 150)
      .add("Helper", "answer", {{"a", 1}}, 300, 50, 5, 0.1)
      .add("Boss", "note", {{"whatever", true}}, 400);
  const TaskTree t = build_task_tree(task_of("no-such-strategy"), s.v);
  ASSERT_EQ(t.children.size(), 2u) << render_tree_text(t);
  const TaskTree& boss = t.children[0];
  EXPECT_EQ(boss.label, "Boss");
  EXPECT_EQ(boss.kind, "agent");
  EXPECT_EQ(boss.tokens_in, 10);  // its model call counts, unlisted
  EXPECT_EQ(boss.ms, 300);
  ASSERT_EQ(boss.children.size(), 1u);
  EXPECT_EQ(boss.children[0].label, "ask: {\"q\":\"?\",\"to\":\"Helper\"}");
  const TaskTree& helper = t.children[1];
  ASSERT_EQ(helper.children.size(), 2u);
  EXPECT_EQ(helper.children[1].label.rfind("answer: ", 0), 0u);
  EXPECT_EQ(helper.tokens_in, 50);
  EXPECT_DOUBLE_EQ(helper.usd, 0.1);
}

TEST(TaskTreeChoice, AutoUsesTheStrategyThatRanTheTask) {
  Steps planned;
  planned.add("Planner", "note", {{"plan", json::array({{{"id", "st_1"}}})}}, 10)
      .add("Planner", "note", {{"metadata", {{"strategy", "effgen"}}}}, 20);
  EXPECT_EQ(build_task_tree(task_of("auto"), planned.v).children.at(0).kind, "plan");
  // No metadata: auto's first runner, the hashiru CEO.
  EXPECT_EQ(build_task_tree(task_of("auto"), hashiru_steps().v).children.at(0).kind, "turn");
  // Journals older than the strategy column: the generic tree.
  EXPECT_EQ(build_task_tree(task_of(""), hashiru_steps().v).children.at(0).kind, "agent");
}

// ---------------------------------------------------------------- bad payloads

TEST(TaskTreeChoice, GarbledStepsAreShownAsPlainStepsByEveryBuilder) {
  Steps s;
  s.add("CEO", "tool_call", "not an object", 1)
      .add("CEO", "tool_call", {{"tool", 7}, {"arguments", json::array()}}, 2)
      .add("CEO", "tool_call", {{"tool", "AskAgent"}, {"arguments", "{not json"}, {"call_id", 5}}, 3)
      .add("CEO", "tool_result", {{"call_id", json::array()}, {"result", 3}}, 4)
      .add("CEO", "llm_response", {{"tool_calls", "many"}}, 5)
      .add("x", "answer", nullptr, 6)
      .add("Planner", "note", {{"plan", json::array({1, "two", json::object()})}}, 7)
      .add("Planner", "note", {{"routing", {{"kind", 3}}}}, 8)
      .add("W", "llm_response", {{"job", "nowhere"}}, 9)
      .add("Judge", "note", {{"verdict", "yes"}, {"producer", 3}}, 10)
      .add("lead", "ask", {{"call", "one"}, {"parent", "zero"}}, 11)
      .add("lead", "ask", {{"call", 9}, {"parent", 12345}}, 12)
      .add("lead", "answer", {{"call", 9}, {"final_output", "??"}}, 13)
      .add("lead", "tool_result", {{"call", 9}, {"result", {{"a", 1}}}}, 14)
      .add("lead", "note", {{"call", 9}, {"verdict", {{"status", json::array()}}}, {"quality", "high"}}, 15)
      .add("", "made_up_kind", {{"\xff\xfe", "\xc3"}}, 0);
  for (const auto& info : strategies()) {
    if (!info.tree) continue;
    TaskTree t;
    ASSERT_NO_THROW(t = info.tree(task_of(info.name), s.v)) << info.name;
    EXPECT_GT(count_nodes(t), 5u) << info.name << "\n" << render_tree_text(t);
    expect_valid_labels(t);
    EXPECT_NO_THROW(tree_to_json(t).dump()) << info.name;
  }
  TaskTree g;
  ASSERT_NO_THROW(g = generic_tree(task_of("x"), s.v));
  expect_valid_labels(g);
}

// ---------------------------------------------------------------- text and JSON

TEST(TaskTreeText, LabelsAreCutAtCodePointBoundaries) {
  std::string prompt;
  for (int i = 0; i < 60; ++i) prompt += i % 2 ? "🌊" : "川";
  Steps s;
  s.add("CEO", "llm_request", {{"last_message", "x"}}, 1).add("CEO", "llm_response", {{"text", prompt}}, 2);
  const TaskTree t = hashiru_tree(task_of("hashiru", prompt), s.v);
  expect_valid_labels(t);
  EXPECT_NE(t.label.find("…"), std::string::npos) << t.label;
  EXPECT_LT(t.label.size(), 130u);
  const std::string text = render_tree_text(t);
  EXPECT_TRUE(utf8::valid(text));
}

TEST(TaskTreeText, ChildrenAreDrawnWithBoxCharactersAndKnownNumbers) {
  TaskTree root;
  root.label = "task t";
  root.tokens_in = 10;
  root.tokens_out = 2;
  root.usd = 0.0123;
  root.ms = 2400;
  TaskTree a;
  a.label = "a";
  a.ms = 850;
  TaskTree a1;
  a1.label = "a1";
  a1.status = "failed";
  a.children.push_back(a1);
  TaskTree b;
  b.label = "b";
  b.tokens_in = 5;
  TaskTree b1;
  b1.label = "b1";
  b.children.push_back(b1);
  root.children = {a, b};
  EXPECT_EQ(render_tree_text(root),
            "task t  (10 in / 2 out, $0.0123, 2.4 s)\n"
            "├─ a  (850 ms)\n"
            "│  └─ a1 [failed]\n"
            "└─ b  (5 in / 0 out)\n"
            "   └─ b1\n");
  const json j = tree_to_json(root);
  EXPECT_EQ(j["label"], "task t");
  EXPECT_EQ(j["ms"], 2400);
  EXPECT_DOUBLE_EQ(j["usd"].get<double>(), 0.0123);
  ASSERT_EQ(j["children"].size(), 2u);
  EXPECT_TRUE(j["children"][0]["children"][0]["ms"].is_null());
  EXPECT_EQ(j["children"][0]["children"][0]["status"], "failed");
  EXPECT_EQ(j["children"][1]["tokens_in"], 5);
  EXPECT_TRUE(j["children"][1]["children"][0]["children"].empty());
}

// A graph's node (effgen's subtask) carries its key and its edges in the
// JSON form; a node without them has neither field.
TEST(TaskTreeJson, KeyAndAfterOnlyWhereSet) {
  TaskTree root;
  root.label = "task";
  TaskTree s2;
  s2.label = "s2";
  s2.key = "s2";
  s2.after = {"s1"};
  root.children.push_back(s2);
  const json j = tree_to_json(root);
  EXPECT_FALSE(j.contains("key"));
  EXPECT_FALSE(j.contains("after"));
  EXPECT_EQ(j["children"][0]["key"], "s2");
  EXPECT_EQ(j["children"][0]["after"], json::array({"s1"}));
  EXPECT_FALSE(j["children"][0].contains("routed"));
  EXPECT_EQ(render_tree_text(root), "task\n└─ s2\n");
}

TEST(TaskTreeText, MoneyAndTime) {
  EXPECT_EQ(usd_text(0.0123), "$0.0123");
  EXPECT_EQ(usd_text(2), "$2.00");
  EXPECT_EQ(usd_text(0.000144), "$0.000144");
  EXPECT_EQ(duration_text(0), "0 ms");
  EXPECT_EQ(duration_text(999), "999 ms");
  EXPECT_EQ(duration_text(61000), "61.0 s");
}

}  // namespace
}  // namespace kaisha::strategy
