// `kaisha history TASK --tree` end to end: a real scripted task of each
// strategy runs (`kaisha run` against the mock LLM), then a second process
// reads the journal file back and prints the task's tree, as text and as
// JSON. The numbers asserted come from the mock's scripted usage and from
// the task's row in the journal.
#include "e2e_fixture.hpp"

namespace kaisha::e2e::history_tree_test {
namespace {

const std::string kExamples = std::string(KAISHA_SOURCE_DIR) + "/examples/";

// The node under `n` whose label starts with `prefix`; null when none.
const json* node(const json& n, const std::string& prefix) {
  for (const auto& c : n["children"])
    if (c.value("label", "").rfind(prefix, 0) == 0) return &c;
  return nullptr;
}

std::vector<std::string> agents_of(const json& n) {
  std::vector<std::string> out;
  for (const auto& c : n["children"]) out.push_back(c.value("agent", ""));
  return out;
}

class HistoryTreeTest : public E2eTest {
 protected:
  // `kaisha history ... --tree --json`, parsed; fails the test on a bad exit.
  json tree_json(const std::string& cfg, std::vector<std::string> extra) {
    std::vector<std::string> args = {"history", "--config", cfg, "--tree", "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    RunResult r = kaisha(args);
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    json j = json::parse(r.out, nullptr, false);
    EXPECT_TRUE(j.is_object()) << r.describe();
    return j.is_object() ? j : json::object();
  }
  store::TaskRow task_row(const std::string& id) {
    auto j = journal();
    if (!j) return {};
    auto t = j->get_task(id);
    if (!t.ok() || !t->has_value()) {
      ADD_FAILURE() << "no task " << id;
      return {};
    }
    return **t;
  }
};

TEST_F(HistoryTreeTest, HashiruShowsTheCeosTurnsAndItsAskToTheEmployee) {
  start_mock(R"(
rules:
  - name: poet
    match: { model: llama3.2 }
    reply: { text: "川は流れる 🌊", usage: { input_tokens: 60, output_tokens: 48 }, latency_ms: 200 }
  - name: ceo-hires
    match: { model: ceo-model, turn: 0 }
    reply: { tool_calls: [ { name: AgentCreator, arguments: { agent_name: Poet, base_model: llama3.2, system_prompt: "詩を書く", description: "poet" } } ] }
  - name: ceo-asks
    match: { model: ceo-model, turn: 1 }
    reply: { tool_calls: [ { name: AskAgent, arguments: { agent_name: Poet, prompt: "川について一行の詩を書いて 🌊" } } ] }
  - name: ceo-answers
    match: { model: ceo-model, turn: 2 }
    reply: { text: "詩: 川は流れる 🌊", usage: { input_tokens: 900, output_tokens: 30 } }
)");
  const std::string cfg = write_config();
  RunResult r = run_json(cfg, "川の詩をください 🌊");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const std::string task = r.result().value("task", "");
  ASSERT_FALSE(task.empty()) << r.describe();

  // Text: one line per node, the ask under the CEO's second turn.
  RunResult text = kaisha({"history", "--config", cfg, task, "--tree"});
  ASSERT_EQ(text.exit_code, 0) << text.describe();
  EXPECT_EQ(text.out.rfind("task " + task + " (hashiru): 川の詩をください 🌊", 0), 0u) << text.out;
  EXPECT_NE(text.out.find("├─ CEO turn 1: 1 tool call"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("│  └─ hire Poet (llama3.2)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("│  └─ ask Poet: \"川について一行の詩を書いて 🌊\"  (60 in / 48 out, "), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("└─ CEO turn 3: answers \"詩: 川は流れる 🌊\"  (900 in / 30 out"), std::string::npos)
      << text.out;

  // JSON: the same tree, numbers from the mock's usage and the task row.
  json j = tree_json(cfg, {task});
  EXPECT_EQ(j.value("task", ""), task);
  EXPECT_EQ(j.value("strategy", ""), "hashiru");
  const json& root = j["tree"];
  const store::TaskRow row = task_row(task);
  EXPECT_EQ(root.value("tokens_in", int64_t(-1)), row.tokens_in);
  EXPECT_EQ(root.value("tokens_out", int64_t(-1)), row.tokens_out);
  EXPECT_EQ(root.value("ms", int64_t(-1)), row.wall_ms);
  ASSERT_EQ(root["children"].size(), 3u) << root.dump(2);
  const json& turn2 = root["children"][1];
  ASSERT_EQ(turn2["children"].size(), 1u) << root.dump(2);
  const json& ask = turn2["children"][0];
  EXPECT_EQ(ask.value("kind", ""), "ask");
  EXPECT_EQ(ask.value("agent", ""), "Poet");
  EXPECT_EQ(ask.value("tokens_in", 0), 60);
  EXPECT_EQ(ask.value("tokens_out", 0), 48);
  // The mock took 200 ms to answer. A step's time is when the journal took it
  // (a few ms after the ask left, more on a loaded machine), so the node's
  // time is near 200 ms, never above the task's.
  EXPECT_GT(ask.value("ms", int64_t(0)), 100) << ask;
  EXPECT_LE(ask.value("ms", int64_t(0)), root.value("ms", int64_t(0))) << ask;
  EXPECT_EQ(root["children"][2].value("tokens_in", 0), 900);

  // Without TASK, --tree shows the session's latest task: this one.
  json latest = tree_json(cfg, {});
  EXPECT_EQ(latest.value("task", ""), task);
}

TEST_F(HistoryTreeTest, EffgenShowsItsPlanWithTheWorkersThatRanEachSubtask) {
  start_mock_file(kExamples + "effgen/scenario.yaml");
  ConfigOptions o;
  o.ceo_model = "openai:planner-7b";
  o.resource_total = 300;
  o.expense_total = 1.0;
  o.extra =
      "strategy: effgen\neffgen:\n  planner_model: openai:planner-7b\n  worker_model: llama3.2\n"
      "  max_concurrent: 5\njudge:\n  model: openai:judge-7b\n  subtasks: true\n";
  const std::string cfg = write_config(o);
  RunResult r = run_json(cfg,
                         "Research the three largest cloud providers, compare their pricing for GPU instances, "
                         "analyze the security and compliance certifications of each, calculate the total cost of "
                         "a 6 month training run on each, and synthesize a recommendation report with a table and "
                         "a chart for the finance team.");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const std::string task = r.result().value("task", "");
  const std::string session = session_of(r);

  json j = tree_json(cfg, {task, "--session", session});
  const json& root = j["tree"];
  const json* plan = node(root, "plan: 4 subtasks");
  ASSERT_NE(plan, nullptr) << root.dump(2);
  ASSERT_EQ((*plan)["children"].size(), 4u) << plan->dump(2);
  std::vector<std::string> ids;
  for (const auto& st : (*plan)["children"]) {
    ids.push_back(st.value("label", "").substr(0, 4));
    EXPECT_EQ(st.value("key", ""), ids.back()) << st;  // the DAG's node id (the dashboard draws the graph)
    EXPECT_EQ(st.value("kind", ""), "subtask");
    EXPECT_EQ(st.value("agent", "").rfind("Worker", 0), 0u) << st;
    EXPECT_GT(st.value("tokens_in", 0), 0) << st;
    EXPECT_GE(st.value("ms", int64_t(-1)), 0) << st;
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"st_1", "st_2", "st_3", "st_4"}));
  // The plan's edges: st_3 waits for st_1, st_4 for st_2 and st_3.
  EXPECT_FALSE((*plan)["children"][0].contains("after")) << (*plan)["children"][0];
  EXPECT_FALSE((*plan)["children"][1].contains("after")) << (*plan)["children"][1];
  EXPECT_EQ((*plan)["children"][2]["after"], json::array({"st_1"}));
  EXPECT_EQ((*plan)["children"][3]["after"], json::array({"st_2", "st_3"}));
  // st_1 and st_2 ran in parallel, on two workers.
  EXPECT_NE((*plan)["children"][0].value("agent", ""), (*plan)["children"][1].value("agent", ""));
  // The judge rejected the cost calculation once: two attempts, two verdicts.
  const json& st3 = (*plan)["children"][2];
  EXPECT_NE(st3.value("label", "").find("2 attempts"), std::string::npos) << st3;
  ASSERT_EQ(st3["children"].size(), 2u) << st3.dump(2);
  EXPECT_EQ(st3["children"][0].value("status", ""), "rejected");
  EXPECT_EQ(st3["children"][1].value("status", ""), "");
  EXPECT_NE(node(root, "Planner: synthesis"), nullptr) << root.dump(2);
  EXPECT_EQ(root.value("tokens_in", int64_t(-1)), task_row(task).tokens_in);
}

TEST_F(HistoryTreeTest, PyramidShowsAgentsCallingAgentsAndBadTaskIdsAreRefused) {
  start_mock_file(kExamples + "pyramid/scenario.yaml");
  ConfigOptions o;
  o.ceo_model = "openai:lead-model";
  o.extra = "strategy: pyramid\npyramid:\n  library: " + kExamples + "pyramid/writers.yaml\n" +
            "  model: openai:worker-model\n  entry: lead_agent\ntools:\n  workspace_root: " + dir_.file("work") + "\n";
  const std::string cfg = write_config(o);
  RunResult r = run_json(cfg, "Write two haiku, one about rivers and one about stones");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const std::string task = r.result().value("task", "");

  json j = tree_json(cfg, {task});
  const json& root = j["tree"];
  const json* lead = node(root, "lead_agent: ");
  ASSERT_NE(lead, nullptr) << root.dump(2);
  // The lead's call holds every other call's cost: the task's.
  EXPECT_EQ(lead->value("tokens_in", int64_t(-1)), task_row(task).tokens_in);
  // Two writers called as tools in one turn, then the judge auditing the lead.
  EXPECT_EQ(agents_of(*lead), (std::vector<std::string>{"writer_agent", "writer_agent", "judge_agent"}))
      << lead->dump(2);
  const json& river = (*lead)["children"][0];
  ASSERT_EQ(river["children"].size(), 2u) << river.dump(2);
  EXPECT_EQ(river["children"][0].value("label", "").rfind("tool file_write {\"content\":\"川は流れる 🌊\",", 0), 0u)
      << river.dump(2);
  EXPECT_EQ(river["children"][1].value("agent", ""), "judge_agent");
  // The stone haiku was rejected once, then approved: two audits under it.
  const json& stone = (*lead)["children"][1];
  EXPECT_EQ(agents_of(stone), (std::vector<std::string>{"writer_agent", "judge_agent", "judge_agent"}))
      << stone.dump(2);
  EXPECT_EQ(stone["children"][1].value("status", ""), "rejected");
  // Each writer's own total is below the lead's, which includes it.
  EXPECT_LT(river.value("tokens_in", 0), lead->value("tokens_in", 0));
  EXPECT_GT(river.value("tokens_in", 0), 0);

  // The text shows the nesting with box-drawing characters.
  RunResult text = kaisha({"history", "--config", cfg, task, "--tree"});
  ASSERT_EQ(text.exit_code, 0) << text.describe();
  EXPECT_NE(text.out.find("└─ lead_agent: \"Write two haiku"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("   ├─ writer_agent: \"Write a haiku about rivers to poems/river.md\""), std::string::npos)
      << text.out;

  // An unknown task id is an error naming the session, exit 2.
  RunResult bad = kaisha({"history", "--config", cfg, "no-such-task", "--tree"});
  EXPECT_EQ(bad.exit_code, 2) << bad.describe();
  EXPECT_NE(bad.err.find("no task 'no-such-task' in session " + session_of(r)), std::string::npos) << bad.err;
  RunResult bad_session = kaisha({"history", "--config", cfg, task, "--tree", "--session", "s-nope"});
  EXPECT_EQ(bad_session.exit_code, 2) << bad_session.describe();
}

}  // namespace
}  // namespace kaisha::e2e::history_tree_test
