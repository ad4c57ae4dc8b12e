// D(B_main) from a task's journal steps (runtime/pyramid/training_data.hpp):
// which calls are validated and on the main branch, and the chat lines.
#include <gtest/gtest.h>

#include "runtime/pyramid/training_data.hpp"

namespace kaisha::pyramid {
namespace {

using strategy::TaskStep;

struct Steps {
  std::vector<TaskStep> v;
  Steps& add(const std::string& agent, const std::string& kind, json payload) {
    TaskStep s;
    s.seq = static_cast<int64_t>(v.size()) + 1;
    s.agent = agent;
    s.kind = kind;
    s.payload = std::move(payload);
    s.at = 1000 + s.seq;
    v.push_back(std::move(s));
    return *this;
  }
};

json verdict(bool ok, const std::string& why = "") {
  return json{{"status", ok ? "success" : "error"}, {"output", ok ? "Verified." : ""}, {"error_information", why}};
}

json answer(const std::string& status, const std::string& output) {
  return json{{"status", status}, {"output", output}, {"error_information", ""}, {"judge", verdict(true)}};
}

// The shape of a candidates run (as examples/pyramid/candidates.yaml makes
// it): a lead calls coder_agent, which runs on three branches; small-a's is
// rejected, small-b's merged, large's approved but not merged.
Steps candidates_run() {
  Steps s;
  s.add("Pyramid", "note", {{"route", {{"agent", "lead_agent"}}}})
      .add("lead_agent", "ask", {{"call", 1}, {"input", "Write fib"}, {"parent", 0}})
      .add("lead_agent", "llm_request", {{"model_ref", "openai:lead-model"}, {"messages", 3}})
      .add("lead_agent", "tool_call", {{"call", 1}, {"tool", "coder_agent"}, {"arguments", R"({"task_input":"fib"})"}})
      .add("coder_agent__1", "ask", {{"call", 2}, {"input", "fib"}, {"parent", 1}, {"branch", "f1-1"}})
      .add("coder_agent__2", "ask", {{"call", 3}, {"input", "fib"}, {"parent", 1}, {"branch", "f1-2"}})
      .add("coder_agent__3", "ask", {{"call", 4}, {"input", "fib"}, {"parent", 1}, {"branch", "f1-3"}})
      .add("coder_agent__2", "llm_request", {{"model_ref", "openai:small-b"}})
      .add("coder_agent__2", "tool_call",
           {{"call", 3},
            {"tool", "file_write"},
            {"arguments", R"({"file_path":"fib.py","content":"print(55) # 五十五 🐇"})"}})
      .add("coder_agent__2", "tool_call",
           {{"call", 3}, {"tool", "file_read"}, {"arguments", R"({"file_path":"a.md"})"}})
      .add("coder_agent__1", "tool_call", {{"call", 2}, {"tool", "file_write"}, {"arguments", "{}"}})
      .add("coder_agent__2", "tool_result",
           {{"call", 3}, {"tool", "file_write"}, {"result", R"({"status":"success"})"}})
      .add("coder_agent__2", "tool_result", {{"call", 3}, {"tool", "file_read"}, {"result", R"({"output":"A"})"}})
      .add("coder_agent__2", "tool_call",
           {{"call", 3}, {"tool", "execute_code"}, {"arguments", R"j({"code":"print(1)"})j"}})
      .add("coder_agent__2", "tool_result", {{"call", 3}, {"tool", "execute_code"}, {"result", R"({"output":"1"})"}})
      .add("judge_agent", "ask",
           {{"call", 5},
            {
                "input",
                "Audit",
            },
            {"parent", 3},
            {"branch", "f1-2"}})
      .add("judge_agent", "answer", {{"call", 5}, {"final_output", verdict(true)}})
      .add("coder_agent__1", "note", {{"call", 2}, {"verdict", verdict(false, "prints 0")}})
      .add("coder_agent__2", "note", {{"call", 3}, {"verdict", verdict(true)}})
      .add("coder_agent__2", "answer", {{"call", 3}, {"final_output", answer("success", "fib.py prints 55")}})
      .add("coder_agent__1", "answer", {{"call", 2}, {"final_output", answer("error", "")}})
      .add("coder_agent__3", "note", {{"call", 4}, {"verdict", verdict(true)}})
      .add("coder_agent__3", "answer", {{"call", 4}, {"final_output", answer("success", "memoised")}})
      .add("coder_agent", "note",
           {{"fork", 1},
            {"agent", "coder_agent"},
            {"branches", json::array({{{"branch", "f1-1"}, {"model", "openai:small-a"}, {"merged", false}},
                                      {{"branch", "f1-2"}, {"model", "openai:small-b"}, {"merged", true}},
                                      {{"branch", "f1-3"}, {"model", "openai:large"}, {"merged", false}}})}})
      .add("lead_agent", "tool_result", {{"call", 1}, {"tool", "coder_agent"}, {"result", R"({"branches":[]})"}})
      .add("lead_agent", "note", {{"call", 1}, {"verdict", verdict(false, "say which file")}})
      .add("lead_agent", "note", {{"call", 1}, {"verdict", verdict(true)}})
      .add("lead_agent", "answer", {{"call", 1}, {"final_output", answer("success", "done")}});
  return s;
}

TEST(TrainingData, OnlyApprovedSuccessfulCallsOnTheMainBranchAreRecords) {
  auto all = main_branch_records(candidates_run().v, "t1", "");
  ASSERT_EQ(all.size(), 2u);
  // The merged candidate, named by its library agent and its branch's model.
  EXPECT_EQ(all[0].agent, "coder_agent");
  EXPECT_EQ(all[0].staff, "coder_agent__2");
  EXPECT_EQ(all[0].model, "openai:small-b");
  EXPECT_EQ(all[0].call, 3);
  EXPECT_EQ(all[0].task_id, "t1");
  EXPECT_EQ(all[0].instruction, "fib");
  EXPECT_EQ(all[0].rejections, 0);
  EXPECT_FALSE(all[0].result.contains("judge"));
  EXPECT_EQ(all[0].result["output"], "fib.py prints 55");
  // The lead: on no branch, its model from its model calls; approved after a rejection.
  EXPECT_EQ(all[1].agent, "lead_agent");
  EXPECT_EQ(all[1].model, "openai:lead-model");
  EXPECT_EQ(all[1].rejections, 1);
  EXPECT_EQ(all[1].verdict["status"], "success");
  // large's call was approved but not merged, small-a's rejected, the judge's never audited.
  EXPECT_EQ(main_branch_records(candidates_run().v, "t1", "coder_agent").size(), 1u);
  EXPECT_TRUE(main_branch_records(candidates_run().v, "t1", "judge_agent").empty());
}

TEST(TrainingData, ToolCallsOfOneTurnStayTogetherAndEachGetsItsResult) {
  auto r = main_branch_records(candidates_run().v, "t1", "coder_agent");
  ASSERT_EQ(r.size(), 1u);
  ASSERT_EQ(r[0].turns.size(), 2u);
  ASSERT_EQ(r[0].turns[0].size(), 2u);
  EXPECT_EQ(r[0].turns[0][0].tool, "file_write");
  EXPECT_EQ(r[0].turns[0][0].result, R"({"status":"success"})");
  EXPECT_EQ(r[0].turns[0][1].tool, "file_read");
  EXPECT_EQ(r[0].turns[0][1].result, R"({"output":"A"})");
  EXPECT_EQ(r[0].turns[1][0].tool, "execute_code");
}

TEST(TrainingData, AChatLineIsTheInstructionTheTurnsAndTheFinalOutput) {
  auto r = main_branch_records(candidates_run().v, "t1", "coder_agent");
  ASSERT_EQ(r.size(), 1u);
  const json line = r[0].chat(false);
  EXPECT_FALSE(line.contains("metadata"));
  const json& m = line["messages"];
  // user, assistant (2 calls), tool, tool, assistant (1 call), tool, assistant (final_output)
  ASSERT_EQ(m.size(), 7u) << m.dump(2);
  EXPECT_EQ(m[0]["role"], "user");
  EXPECT_EQ(m[0]["content"], "fib");
  EXPECT_EQ(m[1]["role"], "assistant");
  ASSERT_EQ(m[1]["tool_calls"].size(), 2u);
  EXPECT_EQ(m[1]["tool_calls"][0]["function"]["name"], "file_write");
  EXPECT_EQ(m[1]["tool_calls"][0]["function"]["arguments"],
            R"({"file_path":"fib.py","content":"print(55) # 五十五 🐇"})");
  EXPECT_EQ(m[2]["role"], "tool");
  EXPECT_EQ(m[2]["tool_call_id"], m[1]["tool_calls"][0]["id"]);
  EXPECT_EQ(m[3]["tool_call_id"], m[1]["tool_calls"][1]["id"]);
  EXPECT_EQ(m[5]["tool_call_id"], m[4]["tool_calls"][0]["id"]);
  const json& last = m[6]["tool_calls"][0]["function"];
  EXPECT_EQ(last["name"], "final_output");
  EXPECT_EQ(json::parse(last["arguments"].get<std::string>())["output"], "fib.py prints 55");
  // The line survives a round trip through its text (UTF-8 kept as is).
  EXPECT_EQ(json::parse(line.dump()), line);

  const json meta = r[0].chat(true)["metadata"];
  EXPECT_EQ(meta["task"], "t1");
  EXPECT_EQ(meta["call"], 3);
  EXPECT_EQ(meta["model"], "openai:small-b");
  EXPECT_EQ(meta["verdict"]["status"], "success");
}

TEST(TrainingData, ACallWithoutToolsIsTheInstructionAndTheFinalOutput) {
  Steps s;
  s.add("writer", "ask", {{"call", 1}, {"input", "川について俳句を"}, {"parent", 0}})
      .add("writer", "note", {{"call", 1}, {"verdict", verdict(true)}})
      .add("writer", "answer", {{"call", 1}, {"final_output", answer("success", "川流れ")}});
  auto r = main_branch_records(s.v, "t", "writer");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].model, "");
  EXPECT_EQ(r[0].chat(false)["messages"].size(), 2u);
}

TEST(TrainingData, PayloadsOfTheWrongShapeAreSkippedNotTrusted) {
  Steps s;
  s.add("writer", "ask", {{"call", "one"}, {"input", 5}})
      .add("writer", "ask", {{"call", 2}, {"input", 5}})
      .add("writer", "tool_result", {{"call", 2}, {"tool", "nothing_called"}, {"result", "x"}})
      .add("writer", "note", {{"call", 2}, {"verdict", "yes"}})
      .add("writer", "answer", {{"call", 2}, {"final_output", "done"}})
      .add("writer", "note", {{"branches", "none"}})
      .add("writer", "answer", {{"call", 9}, {"final_output", answer("success", "orphan")}});
  EXPECT_TRUE(main_branch_records(s.v, "t", "").empty());
}

}  // namespace
}  // namespace kaisha::pyramid
