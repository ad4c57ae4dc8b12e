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
  EXPECT_TRUE(units_freed(ceo, "gpu")) << status(ceo).out;
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

// HALO on a cluster: the example of examples/halo/ (model halo-4o), its role
// agents hired through the strategy kit's one hire path. halo-4o costs
// something here (so a charge made twice would show) and needs a node tagged
// "halo" (the cost table's tags).
const std::string kHaloExamples = std::string(KAISHA_SOURCE_DIR) + "/examples/halo/";
const char* kHaloAnswer = "Snowmelt hurries down / 雪解けの川 sings to the stones / spring in every stone 🌊";
const char* kHaloTask = "川の俳句を書いて: a haiku about a river in spring 🌊";
const char* kHaloCosts = R"(
models:
  halo-4o: { model_ref: openai:halo-4o, type: cloud, create_resource_cost: 10, invoke_resource_cost: 10,
             create_expense_cost: 0.5, invoke_expense_cost: 10, output_expense_cost: 20, tags: [halo] }
)";

class HaloClusterTest : public ClusterE2eTest {
 protected:
  // The example's config (examples/halo/config.yaml) with its own store `name`.db.
  std::string company(const std::string& name) {
    ConfigOptions o;
    o.ceo_model = "openai:halo-4o";
    o.resource_total = 300;
    o.extra = "cost_table: " + dir_.write("halo-costs.yaml", kHaloCosts) +
              "\nstrategy: halo\nhalo:\n  model: openai:halo-4o\n  max_subtasks: 3\n  equivalence: exact\n"
              "  search: { max_depth: 2, attempts: 2, max_iterations: 6, max_evaluations: 40 }\n";
    std::string yaml = config_yaml(o);
    yaml.replace(yaml.find(db()), db().size(), dir_.file(name + ".db"));
    return dir_.write("company-" + name + ".yaml", yaml);
  }
  RunResult submit(const std::string& address) {
    return kaisha({"submit", "--cluster", address, "--json", "--timeout", "120", kHaloTask}, {},
                  std::chrono::seconds(150));
  }
  // The role agents' requests the mock answered: their drafts and revisions.
  size_t agent_requests() const {
    return by_rule("agent-drafts").size() + by_rule("agent-drafts-slow").size() + by_rule("agent-revises").size();
  }
};

// The CEO node serves halo-4o too and has more units free, but lacks the
// "halo" tag: every role agent runs on the worker node, asked across nodes.
TEST_F(HaloClusterTest, HaloRoleAgentsRunOnAWorkerNode) {
  start_mock_file(kHaloExamples + "scenario.yaml");
  std::vector<ClusterNodeSpec> nodes = {{"ceo", "127.0.0.1", 0, {"ceo-model", "halo-4o"}, 1000, true, {}},
                                        {"workers", "127.0.0.1", 0, {"halo-4o"}, 100, false, {"halo"}}};
  const std::string cluster = write_cluster(nodes, company("cluster"));
  for (const auto& n : nodes) start_node(cluster, n.name);
  const std::string ceo = "127.0.0.1:" + std::to_string(nodes[0].port);
  ASSERT_TRUE(cluster_ready(ceo, 2)) << node_logs();

  RunResult r = submit(ceo);
  ASSERT_EQ(r.exit_code, 0) << r.describe() << node_logs();
  EXPECT_EQ(r.result()["answer"], kHaloAnswer) << r.out;
  std::map<std::string, std::string> where;
  for (const auto& p : r.events("placed")) where[p.value("agent", "")] = p["data"].value("node", "");
  EXPECT_EQ(where, (std::map<std::string, std::string>{
                       {"halo-critic-3", "workers"}, {"halo-editor-2", "workers"}, {"halo-poet-1", "workers"}}))
      << r.out;
  // Hired once each for the task, and asked: the example's drafts and revisions.
  EXPECT_EQ(r.events("hire").size(), 3u) << r.out;
  EXPECT_FALSE(by_rule("agent-drafts").empty());
  EXPECT_FALSE(by_rule("agent-revises").empty());
  // Fired at the task's end: the worker's units are free again.
  EXPECT_TRUE(units_freed(ceo, "workers")) << status(ceo).out;
}

// The node running HALO's role agents is killed (SIGKILL) while the three
// first drafts are asked there: the other node takes the agents over, the
// interrupted asks are asked once more there, and the search ends with the
// answer and the charges of a run in one process. The example's judge fails
// the first revision it sees, which depends on arrival order; here every
// revision passes, so both runs search the same way. The three first drafts
// take 5 s, so they are in flight at the kill.
TEST_F(HaloClusterTest, KillingAHaloAgentsNodeMidSearchReHiresItElsewhere) {
  auto script = read_text_file(kHaloExamples + "scenario.yaml");
  ASSERT_TRUE(script.ok()) << script.error().message;
  std::string s = *script;
  const std::string fails = "  - name: judge-fails-one-revision\n";
  const auto from = s.find(fails);
  const auto to = s.find("  - name: judge-passes-revisions\n");
  ASSERT_TRUE(from != std::string::npos && to != std::string::npos && from < to);
  s.erase(from, to - from);
  const std::string drafts = "  - name: agent-drafts\n";
  const auto at = s.find(drafts);
  ASSERT_NE(at, std::string::npos);
  s.insert(at, R"(  - name: agent-drafts-slow
    match: { model: halo-4o, last_user: "Using the details below and the role you have been given" }
    times: 3
    reply:
      text: "A river in spring / carries the snow to the sea / stones remember cold"
      usage: { input_tokens: 200, output_tokens: 25 }
      latency_ms: 5000
)");
  start_mock(s);
  RunResult single = run_json(company("single"), kHaloTask);
  ASSERT_EQ(single.exit_code, 0) << single.describe();
  ASSERT_EQ(single.result()["answer"], kHaloAnswer) << single.out;
  const size_t single_asks = agent_requests();

  std::vector<ClusterNodeSpec> nodes = {{"ceo", "127.0.0.1", 0, {"ceo-model"}, 100, true, {}},
                                        {"w1", "127.0.0.1", 0, {"halo-4o"}, 200, false, {"halo"}},
                                        {"w2", "127.0.0.1", 0, {"halo-4o"}, 100, false, {"halo"}}};
  const std::string cluster = write_cluster(nodes, company("cluster"));
  start_node(cluster, "ceo");
  BackgroundProcess& w1 = start_node(cluster, "w1");
  start_node(cluster, "w2");
  const std::string ceo = "127.0.0.1:" + std::to_string(nodes[0].port);
  ASSERT_TRUE(cluster_ready(ceo, 3)) << node_logs();

  mock_->reset();
  RunResult r;
  std::thread run([&] { r = submit(ceo); });
  // The three agents land on w1 (the most units free); killed while their
  // first drafts are being written there.
  const bool asked = wait_for([&] { return by_rule("agent-drafts-slow").size() == 3; }, std::chrono::seconds(60));
  w1.kill9();
  run.join();
  ASSERT_TRUE(asked) << node_logs();
  ASSERT_EQ(r.exit_code, 0) << r.describe() << node_logs();
  EXPECT_EQ(r.result()["answer"], kHaloAnswer) << r.out;

  std::map<std::string, std::string> placed;
  for (const auto& p : r.events("placed")) placed[p.value("agent", "")] = p["data"].value("node", "");
  EXPECT_EQ(placed, (std::map<std::string, std::string>{
                        {"halo-critic-3", "w1"}, {"halo-editor-2", "w1"}, {"halo-poet-1", "w1"}}))
      << r.out;
  // node_down says which agents were lost with w1 (one event each); each
  // was moved to w2.
  std::map<std::string, std::string> lost;
  for (const auto& e : r.events("node_down")) lost[e["data"].value("agent", "")] = e["data"].value("node", "");
  EXPECT_EQ(lost, (std::map<std::string, std::string>{
                      {"halo-critic-3", "w1"}, {"halo-editor-2", "w1"}, {"halo-poet-1", "w1"}}))
      << r.out;
  std::map<std::string, std::string> moved;
  for (const auto& e : r.events("rehire")) {
    EXPECT_EQ(e["data"]["from"], "w1") << e.dump();
    moved[e["data"].value("agent", "")] = e["data"].value("to", "");
  }
  EXPECT_EQ(moved, (std::map<std::string, std::string>{
                       {"halo-critic-3", "w2"}, {"halo-editor-2", "w2"}, {"halo-poet-1", "w2"}}))
      << r.out;
  // Each interrupted draft asked once more, and nothing else again.
  EXPECT_EQ(r.events("retry").size(), 3u) << r.out;
  EXPECT_EQ(agent_requests(), single_asks + 3);

  // No double charge: three hires and each ask paid once, as in one process.
  for (const char* k : {"current_expense", "current_resource_usage"})
    EXPECT_DOUBLE_EQ(r.ledgers()[k].get<double>(), single.ledgers()[k].get<double>()) << k;
  EXPECT_GT(r.ledgers()["current_expense"].get<double>(), 1.5);  // the three hires at least
  auto j = store::JournalStore::open_read_only(dir_.file("cluster.db"));
  ASSERT_TRUE(j.ok());
  ASSERT_FALSE(r.events("hire").empty()) << r.out;
  auto ledger = (*j)->ledger_entries(r.events("hire")[0].value("session", ""));
  ASSERT_TRUE(ledger.ok());
  std::map<std::string, int> hires;
  for (const auto& e : *ledger)
    if (e.ledger == "expense" && e.kind == "hire") ++hires[e.agent];
  EXPECT_EQ(hires, (std::map<std::string, int>{{"halo-critic-3", 1}, {"halo-editor-2", 1}, {"halo-poet-1", 1}}));
  // Fired at the task's end, on w2: its units are free again.
  EXPECT_TRUE(units_freed(ceo, "w2")) << status(ceo).out;
}

// HiVA on a cluster: examples/hiva/'s graph `coders`, evolved into the
// company's store beforehand, asked a new task for one STEV iteration; its
// graph agents (hiva-source, hiva-python_coder_agent_1, hiva-aggregator) are
// hired through the strategy kit's one hire path. hiva-4o costs something
// here and needs a node tagged "hiva".
const std::string kHivaClusterExamples = std::string(KAISHA_SOURCE_DIR) + "/examples/hiva/";
const char* kHivaClusterTask = "Write a Python function double(x) that returns twice x. 二倍 🐍";
const char* kHivaClusterAnswer = "```python\ndef double(x):\n    return 2 * x\n```";
const char* kHivaClusterCosts = R"(
models:
  hiva-4o: { model_ref: openai:hiva-4o, type: cloud, create_resource_cost: 10, invoke_resource_cost: 10,
             create_expense_cost: 0.5, invoke_expense_cost: 10, output_expense_cost: 20, tags: [hiva] }
)";

class HivaClusterTest : public ClusterE2eTest {
 protected:
  // The example's scenario with a self-critique (the task is not in the
  // task set, so the aggregator critiques itself) and `extra` rules first.
  std::string script(const std::string& extra = "") {
    auto text = read_text_file(kHivaClusterExamples + "scenario.yaml");
    EXPECT_TRUE(text.ok());
    std::string s = text.ok() ? *text : "rules:\n";
    s.insert(s.find("rules:\n") + 7, extra);
    return s + R"(  - name: self-critique
    match: { model: hiva-4o, system: "reviewing your own final answer" }
    reply: { text: "<FEEDBACK>Correct and complete: one function, as asked.</FEEDBACK>", usage: { input_tokens: 100, output_tokens: 15 } }
)";
  }
  // A company config with its own store `name`.db: HiVA on hiva-4o, its
  // `hiva:` section's further lines `hiva_extra`.
  std::string company(const std::string& name, const std::string& file, const std::string& hiva_extra) {
    ConfigOptions o;
    o.ceo_model = "openai:hiva-4o";
    o.resource_total = 300;
    o.extra = "cost_table: " + dir_.write("hiva-costs.yaml", kHivaClusterCosts) +
              "\nstrategy: hiva\nhiva:\n  model: hiva-4o\n" + hiva_extra;
    std::string yaml = config_yaml(o);
    yaml.replace(yaml.find(db()), db().size(), dir_.file(name + ".db"));
    return dir_.write(file, yaml);
  }
  // Evolves `coders` into `name`.db (in one process), then returns the
  // config that runs it for one iteration.
  std::string evolved_company(const std::string& name) {
    RunResult r = kaisha({"evolve", "--config", company(name, "evolve-" + name + ".yaml", ""), "--task-set",
                          kHivaClusterExamples + "tasks.jsonl", "--iterations", "3", "--name", "coders", "-q"},
                         {}, std::chrono::seconds(120));
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    return company(name, "company-" + name + ".yaml", "  graph: coders\n  iterations: 1\n");
  }
  RunResult submit(const std::string& address) {
    return kaisha({"submit", "--cluster", address, "--json", "--timeout", "120", kHivaClusterTask}, {},
                  std::chrono::seconds(150));
  }
  static std::map<std::string, std::string> placed(const RunResult& r) {
    std::map<std::string, std::string> where;
    for (const auto& p : r.events("placed")) where[p.value("agent", "")] = p["data"].value("node", "");
    return where;
  }
};

// The CEO node serves hiva-4o too and has more units free, but lacks the
// "hiva" tag: every graph agent runs on the worker node, asked across nodes.
TEST_F(HivaClusterTest, HivaGraphAgentsRunOnAWorkerNode) {
  start_mock(script());
  const std::string cfg = evolved_company("cluster");
  ASSERT_FALSE(HasFailure());
  std::vector<ClusterNodeSpec> nodes = {{"ceo", "127.0.0.1", 0, {"ceo-model", "hiva-4o"}, 1000, true, {}},
                                        {"workers", "127.0.0.1", 0, {"hiva-4o"}, 100, false, {"hiva"}}};
  const std::string cluster = write_cluster(nodes, cfg);
  for (const auto& n : nodes) start_node(cluster, n.name);
  const std::string ceo = "127.0.0.1:" + std::to_string(nodes[0].port);
  ASSERT_TRUE(cluster_ready(ceo, 2)) << node_logs();

  mock_->reset();
  RunResult r = submit(ceo);
  ASSERT_EQ(r.exit_code, 0) << r.describe() << node_logs();
  EXPECT_EQ(r.result()["answer"], kHivaClusterAnswer) << r.out;
  EXPECT_EQ(placed(r),
            (std::map<std::string, std::string>{
                {"hiva-aggregator", "workers"}, {"hiva-python_coder_agent_1", "workers"}, {"hiva-source", "workers"}}))
      << r.out;
  // The evolved graph ran, and its iteration: the coder asked, the answer
  // critiqued, the gradients passed back.
  EXPECT_EQ(by_rule("coder").size(), 1u);
  EXPECT_EQ(by_rule("self-critique").size(), 1u);
  EXPECT_FALSE(by_rule("agent-feedback").empty());
  EXPECT_EQ(r.result()["metadata"]["iterations"].size(), 1u) << r.out;
  // Fired at the task's end: the worker's units are free again.
  EXPECT_TRUE(units_freed(ceo, "workers")) << status(ceo).out;
}

// The node running the graph's agents is killed (SIGKILL) while the coder
// answers there (its first answer takes 5 s): the other node takes the
// agents over, the coder is asked once more there, and the iteration ends
// with the answer and the charges of a run in one process.
TEST_F(HivaClusterTest, KillingAGraphAgentsNodeMidIterationReHiresItElsewhere) {
  start_mock(script(R"(  - name: coder-slow
    match: { model: hiva-4o, system: "You are a Python coder" }
    times: 1
    reply: { text: "Here is the function, in one python block as asked.", usage: { input_tokens: 80, output_tokens: 30 }, latency_ms: 5000 }
)"));
  const std::string single_cfg = evolved_company("single");
  ASSERT_FALSE(HasFailure());
  mock_->reset();
  RunResult single = run_json(single_cfg, kHivaClusterTask);
  ASSERT_EQ(single.exit_code, 0) << single.describe();
  ASSERT_EQ(single.result()["answer"], kHivaClusterAnswer) << single.out;
  const size_t single_coder = by_rule("coder-slow").size() + by_rule("coder").size();
  ASSERT_EQ(single_coder, 1u);

  const std::string cfg = evolved_company("cluster");
  ASSERT_FALSE(HasFailure());
  std::vector<ClusterNodeSpec> nodes = {{"ceo", "127.0.0.1", 0, {"ceo-model"}, 100, true, {}},
                                        {"w1", "127.0.0.1", 0, {"hiva-4o"}, 200, false, {"hiva"}},
                                        {"w2", "127.0.0.1", 0, {"hiva-4o"}, 100, false, {"hiva"}}};
  const std::string cluster = write_cluster(nodes, cfg);
  start_node(cluster, "ceo");
  BackgroundProcess& w1 = start_node(cluster, "w1");
  start_node(cluster, "w2");
  const std::string ceo = "127.0.0.1:" + std::to_string(nodes[0].port);
  ASSERT_TRUE(cluster_ready(ceo, 3)) << node_logs();

  mock_->reset();
  RunResult r;
  std::thread run([&] { r = submit(ceo); });
  // The source and the coder land on w1 (the most units free); killed while
  // the coder's answer is being written there.
  const bool asked = wait_for([&] { return by_rule("coder-slow").size() == 1; }, std::chrono::seconds(60));
  w1.kill9();
  run.join();
  ASSERT_TRUE(asked) << node_logs();
  ASSERT_EQ(r.exit_code, 0) << r.describe() << node_logs();
  EXPECT_EQ(r.result()["answer"], kHivaClusterAnswer) << r.out;
  EXPECT_EQ(r.result()["metadata"]["iterations"].size(), 1u) << r.out;  // the iteration finished

  const auto where = placed(r);
  EXPECT_EQ(where.count("hiva-source") ? where.at("hiva-source") : "", "w1") << r.out;
  EXPECT_EQ(where.count("hiva-python_coder_agent_1") ? where.at("hiva-python_coder_agent_1") : "", "w1") << r.out;
  // The agents lost with w1 were moved to w2, the coder among them.
  std::map<std::string, std::string> moved;
  for (const auto& e : r.events("rehire")) {
    EXPECT_EQ(e["data"]["from"], "w1") << e.dump();
    moved[e["data"].value("agent", "")] = e["data"].value("to", "");
  }
  EXPECT_EQ(moved.count("hiva-python_coder_agent_1") ? moved.at("hiva-python_coder_agent_1") : "", "w2") << r.out;
  for (const auto& [agent, to] : moved) EXPECT_EQ(to, "w2") << agent;
  // The interrupted answer asked once more, and nothing else again.
  EXPECT_EQ(by_rule("coder-slow").size() + by_rule("coder").size(), single_coder + 1);
  EXPECT_EQ(r.events("retry").size(), 1u) << r.out;

  // No double charge: each hire and each call paid once, as in one process.
  for (const char* k : {"current_expense", "current_resource_usage"})
    EXPECT_NEAR(r.ledgers()[k].get<double>(), single.ledgers()[k].get<double>(), 1e-9) << k;
  EXPECT_GT(r.ledgers()["current_expense"].get<double>(), 1.4);  // the three hires at least
  // Fired at the task's end, on w2: its units are free again.
  EXPECT_TRUE(units_freed(ceo, "w2")) << status(ceo).out;
}

}  // namespace
}  // namespace kaisha::e2e
