// One company over three `kaisha node` processes on loopback: employees
// land on different nodes by their models, the task gives the same answer
// and ledger totals as `kaisha run` in one process; a node killed with
// SIGKILL mid-ask is detected, its employee re-hired elsewhere, the ask
// retried once and charged once.
#include <filesystem>
#include <thread>

#include "runtime/core/data_paths.hpp"
#include "tests/e2e/cluster_fixture.hpp"

namespace kaisha::e2e {
namespace {

const char* kCostTable = R"(
models:
  llama3.2: { model_ref: ollama:llama3.2, type: local, create_resource_cost: 10, invoke_resource_cost: 10,
              create_expense_cost: 0.5, invoke_expense_cost: 1000, output_expense_cost: 2000 }
  mistral:  { model_ref: ollama:mistral, type: local, create_resource_cost: 20, invoke_resource_cost: 20,
              create_expense_cost: 0.25, invoke_expense_cost: 500, output_expense_cost: 1000 }
)";

const char* kTask = "Write a river haiku and check clause 7";
// Long and demanding enough for effgen's router to decompose it.
const char* kComplexTask =
    "Research the three largest cloud providers, compare their pricing for GPU instances, analyze the security "
    "and compliance certifications of each, calculate the total cost of a 6 month training run on each, and "
    "synthesize a recommendation report with a table and a chart for the finance team.";

class ClusterTest : public ClusterE2eTest {
 protected:
  std::string company(const std::string& name) {
    ConfigOptions o;
    o.extra = "cost_table: " + dir_.write("costs.yaml", kCostTable) + "\n";
    std::string yaml = config_yaml(o);
    // Each run its own store.
    yaml.replace(yaml.find(db()), db().size(), dir_.file(name + ".db"));
    return dir_.write("company-" + name + ".yaml", yaml);
  }
  RunResult submit(const std::string& address) {
    return kaisha({"submit", "--cluster", address, "--json", "--timeout", "60", kTask}, {}, std::chrono::seconds(90));
  }
};

TEST_F(ClusterTest, ThreeNodesGiveTheSameAnswerAndLedgerAsOneProcess) {
  start_mock(poet_lawyer_scenario(0));
  RunResult single = run_json(company("single"), kTask);
  ASSERT_EQ(single.exit_code, 0) << single.describe();

  std::vector<ClusterNodeSpec> nodes = {{"ceo", "127.0.0.1", 0, {"ceo-model"}, 100, true},
                                        {"poets", "127.0.0.1", 0, {"llama3.2"}, 100, false},
                                        {"lawyers", "127.0.0.1", 0, {"mistral"}, 100, false}};
  const std::string cluster = write_cluster(nodes, company("cluster"));
  for (const auto& n : nodes) start_node(cluster, n.name);
  const std::string ceo = "127.0.0.1:" + std::to_string(nodes[0].port);
  ASSERT_TRUE(cluster_ready(ceo, 3)) << node_logs();

  RunResult r = submit(ceo);
  ASSERT_EQ(r.exit_code, 0) << r.describe() << node_logs();
  EXPECT_EQ(r.result()["answer"], single.result()["answer"]);
  EXPECT_EQ(r.result()["answer"], "Report: the poet and the lawyer answered");
  EXPECT_DOUBLE_EQ(r.result()["expense"].get<double>(), single.result()["expense"].get<double>());
  for (const char* k : {"current_expense", "current_resource_usage", "total_expense_budget"})
    EXPECT_DOUBLE_EQ(r.ledgers()[k].get<double>(), single.ledgers()[k].get<double>()) << k;
  EXPECT_GT(r.ledgers()["current_expense"].get<double>(), 0.75);  // both hires and both asks were charged
  // Progress streamed back: the hires and the answers.
  EXPECT_EQ(r.events("hire").size(), 2u) << r.out;
  ASSERT_EQ(r.events("answer").size(), 2u) << r.out;
  std::set<std::string> answers;
  for (const auto& a : r.events("answer")) answers.insert(a["text"].get<std::string>());
  EXPECT_EQ(answers, (std::set<std::string>{"Poet: Rivers hurry home, stones remember every drop",
                                            "Lawyer: Clause 7 is fair to both parties"}));

  // The employees ran where their models are.
  RunResult st = status(ceo);
  json s = json::parse(st.out, nullptr, false);
  ASSERT_FALSE(s.is_discarded()) << st.describe();
  std::map<std::string, std::string> where;
  for (const auto& a : s["agents"]) where[a["name"]] = a["node"];
  EXPECT_EQ(where["Poet"], "poets");
  EXPECT_EQ(where["Lawyer"], "lawyers");
  EXPECT_DOUBLE_EQ(s["resources"]["poets"]["used"].get<double>(), 10);
  EXPECT_DOUBLE_EQ(s["resources"]["lawyers"]["used"].get<double>(), 20);
  // The employees' model calls were made by the hosting nodes: the mock saw
  // two llama3.2 calls (one per run) and two mistral calls.
  EXPECT_EQ(requests_for("llama3.2").size(), 2u);
  EXPECT_EQ(requests_for("mistral").size(), 2u);
}

TEST_F(ClusterTest, KillingAnEmployeesNodeMidAskReHiresElsewhereWithoutDoubleCharge) {
  start_mock(poet_lawyer_scenario(2500));
  RunResult single = run_json(company("single"), kTask);
  ASSERT_EQ(single.exit_code, 0) << single.describe();

  std::vector<ClusterNodeSpec> nodes = {{"ceo", "127.0.0.1", 0, {"ceo-model", "mistral"}, 100, true},
                                        {"w1", "127.0.0.1", 0, {"llama3.2"}, 100, false},
                                        {"w2", "127.0.0.1", 0, {"llama3.2"}, 100, false}};
  const std::string cluster = write_cluster(nodes, company("cluster"));
  start_node(cluster, "ceo");
  BackgroundProcess& w1 = start_node(cluster, "w1");
  start_node(cluster, "w2");
  const std::string ceo = "127.0.0.1:" + std::to_string(nodes[0].port);
  ASSERT_TRUE(cluster_ready(ceo, 3)) << node_logs();

  mock_->reset();
  RunResult r;
  std::thread run([&] { r = submit(ceo); });
  // The Poet lands on w1 (a tie with w2, broken by name); kill it while the
  // poet's model call is under way there.
  const bool asked = wait_for([&] { return requests_for("llama3.2").size() == 1; }, std::chrono::seconds(30));
  const auto killed_at = std::chrono::system_clock::now();
  w1.kill9();
  run.join();
  ASSERT_TRUE(asked) << node_logs();
  ASSERT_EQ(r.exit_code, 0) << r.describe() << node_logs();
  EXPECT_EQ(r.result()["answer"], "Report: the poet and the lawyer answered");

  // node_down within the detection bound (defaults: 2 s down + 250 ms
  // heartbeat; the slack is for a loaded machine), then the re-hire.
  auto downs = r.events("node_down");
  ASSERT_EQ(downs.size(), 1u) << r.out;
  EXPECT_EQ(downs[0]["data"]["node"], "w1");
  const int64_t killed_ms = std::chrono::duration_cast<std::chrono::milliseconds>(killed_at.time_since_epoch()).count();
  EXPECT_LT(downs[0]["at_ms"].get<int64_t>() - killed_ms, 3000 + 2000) << "node_down came late";
  auto rehires = r.events("rehire");
  ASSERT_EQ(rehires.size(), 1u) << r.out;
  EXPECT_EQ(rehires[0]["data"]["to"], "w2");
  EXPECT_EQ(requests_for("llama3.2").size(), 2u);  // the interrupted call and its one retry

  // No double charge: one hire and one ask each, as in one process.
  for (const char* k : {"current_expense", "current_resource_usage"})
    EXPECT_DOUBLE_EQ(r.ledgers()[k].get<double>(), single.ledgers()[k].get<double>()) << k;
  RunResult st = status(ceo);
  json s = json::parse(st.out, nullptr, false);
  ASSERT_FALSE(s.is_discarded()) << st.describe();
  for (const auto& m : s["members"]) {
    if (m["name"] == "w1") {
      EXPECT_EQ(m["state"], "down");
    }
  }
  EXPECT_DOUBLE_EQ(s["resources"]["w2"]["used"].get<double>(), 10);
}

// effgen on a cluster: the planner's workers are placed like the CEO's
// employees. Their model needs a "gpu" node (the cost table's tags), so both
// land there although the untagged node serves the model too and has more
// units free; the task completes and the workers' units come back.
// The CEO node of a 3-process cluster is killed (SIGKILL) while the poet
// answers and started again: it picks its session up and resumes the task,
// which ends with the answer and the charges of a run never interrupted;
// only the poet's question, in flight at the kill, is asked again.
TEST_F(ClusterTest, AKilledCeoNodeResumesItsTaskWhenStartedAgain) {
  start_mock(poet_lawyer_scenario(1500));
  RunResult single = run_json(company("single"), kTask);
  ASSERT_EQ(single.exit_code, 0) << single.describe();
  const size_t single_calls = mock_->request_log().size();

  std::vector<ClusterNodeSpec> nodes = {{"ceo", "127.0.0.1", 0, {"ceo-model"}, 100, true},
                                        {"poets", "127.0.0.1", 0, {"llama3.2"}, 100, false},
                                        {"lawyers", "127.0.0.1", 0, {"mistral"}, 100, false}};
  const std::string cluster = write_cluster(nodes, company("cluster"));
  BackgroundProcess& first = start_node(cluster, "ceo");
  for (size_t i = 1; i < nodes.size(); ++i) start_node(cluster, nodes[i].name);
  const std::string ceo = "127.0.0.1:" + std::to_string(nodes[0].port);
  ASSERT_TRUE(cluster_ready(ceo, 3)) << node_logs();
  const size_t before = mock_->request_log().size();

  RunResult lost;
  std::thread client([&] { lost = submit(ceo); });
  const bool asked = wait_for([&] { return requests_for("llama3.2").size() == 2; }, std::chrono::seconds(30));
  // The kill comes once the lawyer's answer is kept (a few ms after it came),
  // while the poet is still answering: only the poet's question is in flight.
  const bool kept = wait_for(
      [&] {
        auto t = latest_task(dir_.file("cluster.db"));
        if (!t) return false;
        for (const auto& o : t->kept)
          if (o.find("\"agent\":\"Lawyer\"") != std::string::npos) return true;
        return false;
      },
      std::chrono::seconds(30));
  first.kill9();
  client.join();
  ASSERT_TRUE(asked) << node_logs();
  ASSERT_TRUE(kept) << node_logs();
  EXPECT_NE(lost.exit_code, 0) << lost.describe();

  start_node(cluster, "ceo");
  const std::string db = dir_.file("cluster.db");
  std::optional<store::TaskRow> task;
  ASSERT_TRUE(wait_for(
      [&] {
        auto t = latest_task(db);
        if (!t || t->task.status == "running" || t->task.status == "interrupted") return false;
        task = t->task;
        return true;
      },
      std::chrono::seconds(60)))
      << node_logs();
  EXPECT_EQ(task->status, "done") << task->error << node_logs();
  EXPECT_EQ(task->final_answer, "Report: the poet and the lawyer answered");
  // Paid as once: the poet's call in flight had not been charged.
  auto j = store::JournalStore::open_read_only(db);
  ASSERT_TRUE(j.ok());
  auto ledger = (*j)->ledger_entries(task->session_id);
  ASSERT_TRUE(ledger.ok());
  double expense = 0;
  for (const auto& e : *ledger)
    if (e.ledger == "expense" && (e.kind == "ask_settle" || e.kind == "hire" || e.kind == "ceo_call"))
      expense += e.amount;
  EXPECT_NEAR(expense, single.ledgers()["current_expense"].get<double>(), 1e-9);
  // The CEO's turns, the hires and the lawyer's answer came from the journal:
  // the cluster asked the poet once more and nothing else again.
  EXPECT_EQ(mock_->request_log().size() - before, single_calls + 1) << node_logs();
  EXPECT_EQ(requests_for("llama3.2").size(), 3u);
  EXPECT_EQ(requests_for("mistral").size(), 2u);
}

TEST_F(ClusterTest, EffgenWorkersArePlacedOnNodesCarryingTheirModelsTags) {
  start_mock(R"(
rules:
  - name: planner-decomposes
    match: { model: planner-7b, last_user: "task decomposition expert" }
    reply:
      text: '{"subtasks":[{"id":"st_1","description":"Alpha research","depends_on":[],"expected_output":"A short result","estimated_complexity":4,"required_specialization":"research","priority":"medium"},{"id":"st_2","description":"Beta research","depends_on":[],"expected_output":"A short result","estimated_complexity":4,"required_specialization":"research","priority":"medium"}],"reasoning":"test plan"}'
  - name: planner-synthesises
    match: { model: planner-7b, last_user: "Subtask results" }
    reply: { text: "SYNTHESIS-FINAL" }
  - name: worker
    match: { model: llama3.2 }
    reply: { text: "WORKER-OUT" }
)");
  ConfigOptions o;
  o.extra = "cost_table: " + dir_.write("gpu-costs.yaml", R"(
models:
  llama3.2: { model_ref: ollama:llama3.2, type: local, create_resource_cost: 10, invoke_resource_cost: 10, tags: [gpu] }
)") +
            "\nstrategy: effgen\neffgen:\n  planner_model: openai:planner-7b\n  worker_model: llama3.2\njudge: { "
            "subtasks: false }\n";
  std::string company = config_yaml(o);
  company.replace(company.find(db()), db().size(), dir_.file("effgen.db"));
  std::vector<ClusterNodeSpec> nodes = {{"ceo", "127.0.0.1", 0, {"ceo-model"}, 100, true, {}},
                                        {"cpu", "127.0.0.1", 0, {"llama3.2"}, 100, false, {}},
                                        {"gpu", "127.0.0.1", 0, {"llama3.2"}, 50, false, {"gpu"}}};
  const std::string cluster = write_cluster(nodes, dir_.write("company-effgen.yaml", company));
  for (const auto& n : nodes) start_node(cluster, n.name);
  const std::string ceo = "127.0.0.1:" + std::to_string(nodes[0].port);
  ASSERT_TRUE(cluster_ready(ceo, 3)) << node_logs();

  RunResult r =
      kaisha({"submit", "--cluster", ceo, "--json", "--timeout", "60", kComplexTask}, {}, std::chrono::seconds(90));
  ASSERT_EQ(r.exit_code, 0) << r.describe() << node_logs();
  EXPECT_EQ(r.result()["answer"], "SYNTHESIS-FINAL");
  auto placed = r.events("placed");
  ASSERT_EQ(placed.size(), 2u) << r.out;
  for (const auto& p : placed) EXPECT_EQ(p["data"]["node"], "gpu") << p.dump();
  EXPECT_EQ(requests_for("llama3.2").size(), 2u);
  // Fired at the end of the task: their units are free again.
  EXPECT_TRUE(wait_for(
      [&] {
        json now = json::parse(status(ceo).out, nullptr, false);
        return !now.is_discarded() && now["resources"]["gpu"]["used"].get<double>() == 0;
      },
      std::chrono::seconds(10)))
      << status(ceo).out;
}

// The pyramid on a cluster: each library agent the task uses is hired once
// and placed on a node serving its model (the writer on one node, the lead
// and the judge on another), every call of it is a turn asked across nodes,
// and the level-0 tools run in the task's directory on the CEO node.
TEST_F(ClusterTest, PyramidAgentsArePlacedOnTheNodesServingTheirModels) {
  const std::string examples = std::string(KAISHA_SOURCE_DIR) + "/examples/pyramid/";
  auto script = read_text_file(examples + "scenario.yaml");
  ASSERT_TRUE(script.ok()) << script.error().message;
  start_mock(*script);
  ConfigOptions o;
  o.ceo_model = "openai:lead-model";
  o.extra = "strategy: pyramid\npyramid:\n  library: " + examples + "writers.yaml\n  model: openai:worker-model\n" +
            "  entry: lead_agent\ntools:\n  workspace_root: " + dir_.file("work") + "\n";
  std::string company = config_yaml(o);
  company.replace(company.find(db()), db().size(), dir_.file("pyramid.db"));
  std::vector<ClusterNodeSpec> nodes = {{"ceo", "127.0.0.1", 0, {"ceo-model"}, 100, true, {}},
                                        {"writers", "127.0.0.1", 0, {"worker-model"}, 100, false, {}},
                                        {"leads", "127.0.0.1", 0, {"lead-model", "judge-model"}, 100, false, {}}};
  const std::string cluster = write_cluster(nodes, dir_.write("company-pyramid.yaml", company));
  BackgroundProcess& ceo_node = start_node(cluster, nodes[0].name);
  for (size_t i = 1; i < nodes.size(); ++i) start_node(cluster, nodes[i].name);
  const std::string ceo = "127.0.0.1:" + std::to_string(nodes[0].port);
  ASSERT_TRUE(cluster_ready(ceo, 3)) << node_logs();

  RunResult r = kaisha({"submit", "--cluster", ceo, "--json", "--timeout", "60",
                        "Write two haiku, one about rivers and one about stones"},
                       {}, std::chrono::seconds(90));
  ASSERT_EQ(r.exit_code, 0) << r.describe() << node_logs();
  EXPECT_EQ(r.result()["answer"], "Two haiku: poems/river.md and poems/stone.md") << r.out;
  std::map<std::string, std::string> where;
  for (const auto& p : r.events("placed")) where[p.value("agent", "")] = p["data"].value("node", "");
  EXPECT_EQ(where, (std::map<std::string, std::string>{
                       {"writer_agent", "writers"}, {"lead_agent", "leads"}, {"judge_agent", "leads"}}))
      << r.out;
  // Every turn was a model call: 5 writer turns (the stone haiku resubmitted
  // after the judge's rejection) and 4 audits.
  EXPECT_EQ(requests_for("worker-model").size(), 5u);
  EXPECT_EQ(requests_for("judge-model").size(), 4u);
  // The writers' files are in the task's directory on the CEO node.
  const std::string task = r.result().value("task", "");
  bool found = false;
  for (const auto& session : std::filesystem::directory_iterator(dir_.file("work/.tasks")))
    found = found || std::filesystem::exists(session.path() / task / "poems" / "stone.md");
  EXPECT_TRUE(found) << task;

  // The CEO node, whose remote lead hired the remote writer while a reply was
  // being delivered on its I/O thread, still stops when asked (it used to
  // wait forever for CAF's logger, which that thread held).
  ceo_node.signal(SIGTERM);
  EXPECT_NE(ceo_node.wait_exit(std::chrono::seconds(30)), -1) << "the CEO node did not stop on SIGTERM\n"
                                                              << node_logs();
}

}  // namespace
}  // namespace kaisha::e2e
