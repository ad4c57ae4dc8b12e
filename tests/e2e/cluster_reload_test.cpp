// cluster.yaml re-read by running `kaisha node` processes (SIGHUP or `kaisha
// cluster reload`): a node added to a running cluster gets work, a removed
// node's employee is re-hired elsewhere while the task completes, an invalid
// file is refused and the cluster serves on. With CURVE keys: only an
// operator key reloads, and a client cancels its own task (with `kaisha
// cancel` or Ctrl-C in `kaisha submit`) while another client's key cannot.
#include <signal.h>

#include <thread>

#include "runtime/store/journal_store.hpp"
#include "tests/e2e/cluster_fixture.hpp"

namespace kaisha::e2e::cluster_reload_test {
namespace {

const char* kCostTable = R"(
models:
  llama3.2: { model_ref: ollama:llama3.2, type: local, create_resource_cost: 10, invoke_resource_cost: 10,
              create_expense_cost: 0.5, invoke_expense_cost: 1000, output_expense_cost: 2000 }
  mistral:  { model_ref: ollama:mistral, type: local, create_resource_cost: 20, invoke_resource_cost: 20,
              create_expense_cost: 0.25, invoke_expense_cost: 500, output_expense_cost: 1000 }
)";

const char* kTask = "Write a river haiku and check clause 7";

class ClusterReloadTest : public ClusterE2eTest {
 protected:
  std::string company(int64_t timeout_ms = 10000) {
    ConfigOptions o;
    o.timeout_ms = timeout_ms;
    o.extra = "cost_table: " + dir_.write("costs.yaml", kCostTable) + "\n";
    std::string yaml = config_yaml(o);
    yaml.replace(yaml.find(db()), db().size(), ceo_db());
    return dir_.write("company.yaml", yaml);
  }
  std::string ceo_db() const { return dir_.file("ceo.db"); }
  RunResult submit(const std::string& address) {
    return kaisha({"submit", "--cluster", address, "--json", "--timeout", "120", kTask}, {}, std::chrono::seconds(150));
  }
  json status_json(const std::string& address, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"cluster", "status", "--cluster", address, "--json", "--timeout", "5"};
    args.insert(args.end(), extra.begin(), extra.end());
    RunResult r = kaisha(args, {}, std::chrono::seconds(20));
    return json::parse(r.out, nullptr, false);
  }
  static std::string state_in(const json& status, const std::string& member) {
    if (!status.is_object()) return "?";
    for (const auto& m : status.value("members", json::array()))
      if (m.value("name", "") == member) return m.value("state", "");
    return "absent";
  }

  // A one-node CURVE cluster (the CEO node) with two client keys and an
  // operator key, all made by `kaisha keygen`.
  std::string curve_cluster(const std::string& company_file, int port) {
    auto keygen = [&](const std::string& name) {
      RunResult k = kaisha({"keygen", "--out", dir_.file(name + ".key")});
      EXPECT_EQ(k.exit_code, 0) << k.describe();
      return k.out.substr(0, k.out.find('\n'));
    };
    const std::string ceo = keygen("ceo"), a = keygen("alice"), b = keygen("bob"), op = keygen("operator");
    return dir_.write("cluster.yaml", "company: " + company_file +
                                          "\ncluster:\n  seeds: [tcp://127.0.0.1:" + std::to_string(port) +
                                          "]\n  authorised_keys: [" + a + ", " + b + "]\n  operator_keys: [" + op +
                                          "]\nnodes:\n  ceo: { bind: tcp://127.0.0.1:" + std::to_string(port) +
                                          ", key_file: ceo.key, public_key: " + ceo + ", ceo: true }\n");
  }
  // `kaisha <args> --cluster <address> --config <cluster> --key <who>.key`
  RunResult as(const std::string& who, std::vector<std::string> args, const std::string& address,
               const std::string& cluster) {
    args.insert(args.end(), {"--cluster", address, "--config", cluster, "--key", dir_.file(who + ".key")});
    return kaisha(args, {}, std::chrono::seconds(60));
  }
};

TEST_F(ClusterReloadTest, ANodeAddedByAReloadJoinsAndGetsWork) {
  start_mock(poet_lawyer_scenario(0));
  // At first nobody serves llama3.2, the Poet's model.
  std::vector<ClusterNodeSpec> nodes = {{"ceo", "127.0.0.1", 0, {"ceo-model", "mistral"}, 100, true, {}}};
  const std::string cluster = write_cluster(nodes, company());
  start_node(cluster, "ceo");
  const std::string ceo = "127.0.0.1:" + std::to_string(nodes[0].port);
  ASSERT_TRUE(cluster_ready(ceo, 1)) << node_logs();

  nodes.push_back({"poets", "127.0.0.1", 0, {"llama3.2"}, 100, false, {}});
  write_cluster(nodes, company());  // same file, same ports, one node more
  RunResult rl = kaisha({"cluster", "reload", "--cluster", ceo}, {}, std::chrono::seconds(30));
  ASSERT_EQ(rl.exit_code, 0) << rl.describe() << node_logs();
  EXPECT_NE(rl.out.find("added poets"), std::string::npos) << rl.out;
  start_node(cluster, "poets");
  ASSERT_TRUE(cluster_ready(ceo, 2)) << node_logs();

  RunResult r = submit(ceo);
  ASSERT_EQ(r.exit_code, 0) << r.describe() << node_logs();
  EXPECT_EQ(r.result()["answer"], "Report: the poet and the lawyer answered");
  std::map<std::string, std::string> where;
  for (const auto& p : r.events("placed")) where[p["data"].value("agent", "")] = p["data"].value("node", "");
  EXPECT_EQ(where["Poet"], "poets") << r.out;
  EXPECT_EQ(where["Lawyer"], "ceo") << r.out;
  EXPECT_EQ(requests_for("llama3.2").size(), 1u);
}

TEST_F(ClusterReloadTest, ARemovedNodesEmployeeIsReHiredElsewhereAndTheTaskCompletes) {
  // Long enough that the reload lands while the Poet's first call runs.
  start_mock(poet_lawyer_scenario(6000));
  std::vector<ClusterNodeSpec> nodes = {{"ceo", "127.0.0.1", 0, {"ceo-model", "mistral"}, 100, true, {}},
                                        {"w1", "127.0.0.1", 0, {"llama3.2"}, 100, false, {}},
                                        {"w2", "127.0.0.1", 0, {"llama3.2"}, 100, false, {}}};
  const std::string cluster = write_cluster(nodes, company(30000));
  BackgroundProcess& ceo_node = start_node(cluster, "ceo");
  BackgroundProcess& w1 = start_node(cluster, "w1");
  BackgroundProcess& w2 = start_node(cluster, "w2");
  const std::string ceo = "127.0.0.1:" + std::to_string(nodes[0].port);
  ASSERT_TRUE(cluster_ready(ceo, 3)) << node_logs();

  RunResult r;
  std::thread run([&] { r = submit(ceo); });
  // The Poet lands on w1 (a tie with w2, broken by name): remove w1 from the
  // file while its model call runs there, and SIGHUP the nodes.
  const bool asked = wait_for([&] { return requests_for("llama3.2").size() == 1; }, std::chrono::seconds(60));
  std::vector<ClusterNodeSpec> remaining = {nodes[0], nodes[2]};
  write_cluster(remaining, company(30000));
  ceo_node.signal(SIGHUP);
  w2.signal(SIGHUP);
  run.join();
  ASSERT_TRUE(asked) << node_logs();
  ASSERT_EQ(r.exit_code, 0) << r.describe() << node_logs();
  EXPECT_EQ(r.result()["answer"], "Report: the poet and the lawyer answered");
  auto downs = r.events("node_down");
  ASSERT_EQ(downs.size(), 1u) << r.out;
  EXPECT_EQ(downs[0]["data"]["node"], "w1");
  EXPECT_EQ(downs[0]["data"]["removed"], true);
  auto rehires = r.events("rehire");
  ASSERT_EQ(rehires.size(), 1u) << r.out;
  EXPECT_EQ(rehires[0]["data"]["to"], "w2");

  // w1 still runs and keeps calling: it is gone, and what it sends is refused.
  EXPECT_TRUE(w1.running());
  json s;
  ASSERT_TRUE(wait_for(
      [&] {
        s = status_json(ceo);
        return s.is_object() && s["refused"].value("not_a_node", 0) > 0;
      },
      std::chrono::seconds(30)))
      << s.dump() << node_logs();
  EXPECT_EQ(state_in(s, "w1"), "gone") << s.dump();
  EXPECT_EQ(state_in(s, "w2"), "alive") << s.dump();
  EXPECT_EQ(s["reload"]["applied"], 1) << s.dump();
  EXPECT_NE(ceo_node.log().find("reloaded"), std::string::npos) << ceo_node.log();
}

TEST_F(ClusterReloadTest, AnInvalidFileIsRefusedWithWhereAndTheClusterServesOn) {
  start_mock("rules:\n  - match: { model: ceo-model }\n    reply: { text: \"done\" }\n");
  std::vector<ClusterNodeSpec> nodes = {{"ceo", "127.0.0.1", 0, {"ceo-model"}, 100, true, {}}};
  const std::string cluster = write_cluster(nodes, company());
  BackgroundProcess& node = start_node(cluster, "ceo");
  const std::string ceo = "127.0.0.1:" + std::to_string(nodes[0].port);
  ASSERT_TRUE(cluster_ready(ceo, 1)) << node_logs();

  dir_.write("cluster.yaml", "cluster:\n  allow_plaintext: true\n  heartbeat_ms: often\nnodes: {}\n");
  RunResult rl = kaisha({"cluster", "reload", "--cluster", ceo}, {}, std::chrono::seconds(30));
  EXPECT_EQ(rl.exit_code, 1) << rl.describe();
  EXPECT_NE(rl.err.find(cluster + ":3:"), std::string::npos) << rl.describe();
  EXPECT_NE(rl.err.find("cluster.heartbeat_ms"), std::string::npos) << rl.describe();
  node.signal(SIGHUP);  // the same file by signal: refused, logged
  EXPECT_TRUE(
      wait_for([&] { return node.log().find("reload refused") != std::string::npos; }, std::chrono::seconds(20)))
      << node.log();

  RunResult r =
      kaisha({"submit", "--cluster", ceo, "--json", "--timeout", "60", "still there?"}, {}, std::chrono::seconds(90));
  ASSERT_EQ(r.exit_code, 0) << r.describe() << node_logs();
  EXPECT_EQ(r.result()["answer"], "done");
  json s = status_json(ceo);
  EXPECT_EQ(state_in(s, "ceo"), "alive");
  EXPECT_EQ(s["reload"]["applied"], 0) << s.dump();
  EXPECT_NE(s["reload"]["last"].get<std::string>().find("refused"), std::string::npos) << s.dump();
}

TEST_F(ClusterReloadTest, AClientKeyCannotReloadAndAnOperatorKeyCan) {
  start_mock("rules:\n  - match: { model: ceo-model }\n    reply: { text: \"done\" }\n");
  const int port = kaisha::test::unused_loopback_port();
  const std::string cluster = curve_cluster(company(), port);
  start_node(cluster, "ceo");
  const std::string ceo = "127.0.0.1:" + std::to_string(port);
  ASSERT_TRUE(wait_for(
      [&] {
        return as("alice", {"cluster", "status", "--json"}, ceo, cluster).exit_code == 0;
      },
      std::chrono::seconds(30)))
      << node_logs();

  RunResult refused = as("alice", {"cluster", "reload"}, ceo, cluster);
  EXPECT_EQ(refused.exit_code, 1) << refused.describe();
  EXPECT_NE(refused.err.find("only operator keys"), std::string::npos) << refused.describe();
  RunResult st = as("alice", {"cluster", "status", "--json"}, ceo, cluster);
  json s = json::parse(st.out, nullptr, false);
  ASSERT_TRUE(s.is_object()) << st.describe();
  EXPECT_EQ(s["refused"].value("not_an_operator", 0), 1) << s.dump();
  EXPECT_EQ(s["reload"]["applied"], 0);

  RunResult ok = as("operator", {"cluster", "reload"}, ceo, cluster);
  EXPECT_EQ(ok.exit_code, 0) << ok.describe() << node_logs();
  // Operators administer; they run no tasks.
  RunResult sub = as("operator", {"submit", "--timeout", "5", "a task"}, ceo, cluster);
  EXPECT_NE(sub.exit_code, 0) << sub.describe();
  s = json::parse(as("alice", {"cluster", "status", "--json"}, ceo, cluster).out, nullptr, false);
  EXPECT_EQ(s["reload"]["applied"], 1) << s.dump();
  EXPECT_EQ(s["refused"].value("operator_submit", 0), 1) << s.dump();
}

class ClusterCancelTest : public ClusterReloadTest {
 protected:
  // A one-node CURVE cluster whose CEO's first model call takes 30 s, and
  // alice's `kaisha submit` running against it in the background; returns
  // the task's id once its first event named it.
  std::string start_slow_task() {
    start_mock("rules:\n  - match: { model: ceo-model }\n    reply: { text: \"too late\", latency_ms: 30000 }\n");
    ceo_port_ = kaisha::test::unused_loopback_port();
    cluster_ = curve_cluster(company(60000), ceo_port_);
    start_node(cluster_, "ceo");
    ceo_ = "127.0.0.1:" + std::to_string(ceo_port_);
    EXPECT_TRUE(wait_for(
        [&] {
          return as("alice", {"cluster", "status", "--json"}, ceo_, cluster_).exit_code == 0;
        },
        std::chrono::seconds(30)))
        << node_logs();
    submit_ = std::make_unique<BackgroundProcess>(
        KAISHA_EXE,
        std::vector<std::string>{"submit", "--cluster", ceo_, "--config", cluster_, "--key", dir_.file("alice.key"),
                                 "--json", "--timeout", "300", "a long task"},
        clean_env(), dir_.file("submit.log"));
    std::string task;
    EXPECT_TRUE(wait_for(
        [&] {
          std::istringstream in(submit_->log());
          for (std::string line; std::getline(in, line);) {
            json j = json::parse(line, nullptr, false);
            if (j.is_object() && !j.value("task", "").empty()) task = j["task"];
          }
          return !task.empty() && requests_for("ceo-model").size() == 1;
        },
        std::chrono::seconds(60)))
        << submit_->log() << node_logs();
    return task;
  }
  std::string task_state(const std::string& task) {
    json s = json::parse(as("alice", {"cluster", "status", "--json"}, ceo_, cluster_).out, nullptr, false);
    if (!s.is_object()) return "?";
    for (const auto& t : s.value("tasks", json::array()))
      if (t.value("task", "") == task) return t.value("state", "");
    return "absent";
  }
  std::string journal_state(const std::string& task) {
    auto st = store::JournalStore::open_read_only(ceo_db());
    if (!st.ok()) return st.error().message;
    auto row = (*st)->get_task(task);
    if (!row.ok() || !*row) return "no row";
    return (**row).status;
  }

  int ceo_port_ = 0;
  std::string cluster_, ceo_;
  std::unique_ptr<BackgroundProcess> submit_;
};

TEST_F(ClusterCancelTest, AClientCancelsItsOwnTaskAndAnotherClientsKeyCannot) {
  const std::string task = start_slow_task();
  ASSERT_FALSE(task.empty());
  EXPECT_EQ(task_state(task), "running");

  RunResult bob = as("bob", {"cancel", "--task", task}, ceo_, cluster_);
  EXPECT_EQ(bob.exit_code, 1) << bob.describe();
  EXPECT_NE(bob.err.find("submitted with another key"), std::string::npos) << bob.describe();
  json s = json::parse(as("alice", {"cluster", "status", "--json"}, ceo_, cluster_).out, nullptr, false);
  EXPECT_EQ(s["refused"].value("not_task_owner", 0), 1) << s.dump();
  EXPECT_EQ(task_state(task), "running");
  EXPECT_TRUE(submit_->running());

  RunResult alice = as("alice", {"cancel", "--task", task}, ceo_, cluster_);
  ASSERT_EQ(alice.exit_code, 0) << alice.describe() << node_logs();
  EXPECT_NE(alice.out.find("task " + task + " canceled"), std::string::npos) << alice.describe();
  // Its submit ends at once (the task failed: canceled), not after 30 s.
  EXPECT_EQ(submit_->wait_exit(std::chrono::seconds(20)), 1) << submit_->log();
  EXPECT_NE(submit_->log().find("canceled by"), std::string::npos) << submit_->log();
  EXPECT_EQ(task_state(task), "canceled");
  EXPECT_TRUE(wait_for([&] { return journal_state(task) == "canceled"; }, std::chrono::seconds(20)))
      << journal_state(task);
  EXPECT_EQ(requests_for("ceo-model").size(), 1u);  // nothing more was called after the cancel
}

TEST_F(ClusterCancelTest, CtrlCDuringSubmitCancelsItsTask) {
  const std::string task = start_slow_task();
  ASSERT_FALSE(task.empty());
  submit_->signal(SIGINT);
  EXPECT_EQ(submit_->wait_exit(std::chrono::seconds(30)), 130) << submit_->log();
  EXPECT_NE(submit_->log().find("interrupted; task " + task + " canceled"), std::string::npos) << submit_->log();
  EXPECT_TRUE(wait_for([&] { return task_state(task) == "canceled"; }, std::chrono::seconds(20))) << node_logs();
  EXPECT_TRUE(wait_for([&] { return journal_state(task) == "canceled"; }, std::chrono::seconds(20)))
      << journal_state(task);
}

}  // namespace
}  // namespace kaisha::e2e::cluster_reload_test
