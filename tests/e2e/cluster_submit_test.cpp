// `kaisha submit` against a CEO node that is not (or no longer) there to run
// the task: submits arriving while the node starts are all answered, a node
// that dies mid-task is reported at once instead of after the whole
// timeout, and `kaisha keygen` prints a key that pastes into cluster.yaml.
#include <thread>

#include "tests/e2e/cluster_fixture.hpp"

namespace kaisha::e2e {
namespace {

class ClusterSubmitTest : public ClusterE2eTest {
 protected:
  std::string one_node_cluster(std::vector<ClusterNodeSpec>& nodes, const std::string& extra_cluster = "") {
    nodes = {{"ceo", "127.0.0.1", 0, {"ceo-model"}, 100, true}};
    ConfigOptions o;
    std::string yaml = config_yaml(o);
    yaml.replace(yaml.find(db()), db().size(), dir_.file("ceo.db"));
    return write_cluster(nodes, dir_.write("company.yaml", yaml), extra_cluster);
  }
};

// The CEO node's queue of submitted tasks is bounded: with one task running
// and max_waiting_tasks: 1, of two more submits one waits its turn and the
// other is refused at once, saying why; the node goes on serving.
TEST_F(ClusterSubmitTest, SubmitsPastTheWaitingLimitAreRefusedAtOnce) {
  start_mock(R"(
rules:
  - match: { model: ceo-model, last_user: "hold" }
    reply: { text: "held", latency_ms: 8000 }
  - match: { model: ceo-model }
    reply: { text: "done" }
)");
  std::vector<ClusterNodeSpec> nodes;
  const std::string cluster = one_node_cluster(nodes, "  max_waiting_tasks: 1\n");
  const std::string ceo = "127.0.0.1:" + std::to_string(nodes[0].port);
  start_node(cluster, "ceo");
  ASSERT_TRUE(cluster_ready(ceo, 1)) << node_logs();
  auto submit = [&](const std::string& task) {
    return kaisha({"submit", "--cluster", ceo, "--json", "--timeout", "60", task}, {}, std::chrono::seconds(90));
  };
  RunResult held;
  std::thread first([&] { held = submit("hold the line"); });
  // The held task is running (its model call arrived), so nothing waits yet.
  const bool running = wait_for([&] { return requests_for("ceo-model").size() == 1; }, std::chrono::seconds(30));
  RunResult a, b;
  std::thread second([&] { a = submit("task a"); });
  std::thread third([&] { b = submit("task b"); });
  second.join();
  third.join();
  first.join();
  ASSERT_TRUE(running) << node_logs();
  EXPECT_EQ(held.exit_code, 0) << held.describe();
  EXPECT_EQ(held.result()["answer"], "held");
  const RunResult& refused = a.exit_code != 0 ? a : b;
  const RunResult& queued = a.exit_code != 0 ? b : a;
  EXPECT_EQ(queued.exit_code, 0) << queued.describe() << node_logs();
  EXPECT_EQ(queued.result()["answer"], "done");
  EXPECT_NE(refused.exit_code, 0) << refused.describe();
  EXPECT_NE(refused.err.find("1 submitted tasks are already waiting (cluster.max_waiting_tasks)"), std::string::npos)
      << refused.describe();
  EXPECT_LT(refused.seconds, held.seconds) << "refused at once, not after the running task";
  RunResult later = submit("task c");
  EXPECT_EQ(later.exit_code, 0) << later.describe();
  EXPECT_EQ(later.result()["answer"], "done");
}

// Before: about half of these got no reply at all (the node had no company
// to run them yet) and waited out their whole timeout.
TEST_F(ClusterSubmitTest, SubmitsArrivingWhileTheCeoNodeStartsAreAllAnswered) {
  start_mock(R"(
rules:
  - match: { model: ceo-model }
    reply: { text: "done" }
)");
  std::vector<ClusterNodeSpec> nodes;
  const std::string cluster = one_node_cluster(nodes);
  const std::string ceo = "127.0.0.1:" + std::to_string(nodes[0].port);
  start_node(cluster, "ceo");
  constexpr int kSubmits = 10;
  std::vector<RunResult> results(kSubmits);
  std::vector<std::thread> clients;
  for (int i = 0; i < kSubmits; ++i)
    clients.emplace_back([&, i] {
      results[i] = kaisha({"submit", "--cluster", ceo, "--json", "--timeout", "60", "task " + std::to_string(i)}, {},
                          std::chrono::seconds(90));
    });
  for (auto& c : clients) c.join();
  for (int i = 0; i < kSubmits; ++i) {
    EXPECT_EQ(results[i].exit_code, 0) << i << ": " << results[i].describe() << node_logs();
    EXPECT_EQ(results[i].result()["answer"], "done") << i;
  }
}

TEST_F(ClusterSubmitTest, SubmitReportsACeoNodeThatDiedInsteadOfWaitingItsTimeout) {
  start_mock(R"(
rules:
  - match: { model: ceo-model }
    reply: { text: "too late", latency_ms: 30000 }
)");
  std::vector<ClusterNodeSpec> nodes;
  const std::string cluster = one_node_cluster(nodes);
  const std::string ceo = "127.0.0.1:" + std::to_string(nodes[0].port);
  BackgroundProcess& node = start_node(cluster, "ceo");
  ASSERT_TRUE(cluster_ready(ceo, 1)) << node_logs();
  RunResult r;
  std::thread run([&] {
    r = kaisha({"submit", "--cluster", ceo, "--timeout", "300", "a long task"}, {}, std::chrono::seconds(330));
  });
  const bool asked = wait_for([&] { return requests_for("ceo-model").size() == 1; }, std::chrono::seconds(30));
  node.kill9();
  run.join();
  ASSERT_TRUE(asked) << node_logs();
  EXPECT_NE(r.exit_code, 0) << r.describe();
  EXPECT_FALSE(r.timed_out);
  EXPECT_LT(r.seconds, 60) << "the client noticed the node was gone only after " << r.seconds << " s";
  EXPECT_NE(r.err.find("went away"), std::string::npos) << r.describe();
}

// keygen's stdout goes into cluster.yaml as is (quoted: Z85 holds '[', '{',
// '&', '*', ... that YAML would read otherwise), and `kaisha node` starts with it.
TEST_F(ClusterSubmitTest, KeygenOutputPastesIntoClusterYamlAsIs) {
  start_mock("rules:\n  - match: { model: ceo-model }\n    reply: { text: \"ok\" }\n");
  RunResult k = kaisha({"keygen", "--out", dir_.file("ceo.key")});
  ASSERT_EQ(k.exit_code, 0) << k.describe();
  const std::string printed = k.out.substr(0, k.out.find('\n'));
  ASSERT_EQ(printed.size(), 42u) << printed;
  EXPECT_EQ(printed.front(), '"');
  EXPECT_EQ(printed.back(), '"');
  ConfigOptions o;
  const std::string company = dir_.write("company.yaml", config_yaml(o));
  const int port = kaisha::test::unused_loopback_port();
  const std::string cluster = dir_.write(
      "cluster.yaml", "company: " + company + "\ncluster:\n  seeds: [tcp://127.0.0.1:" + std::to_string(port) +
                          "]\n  authorised_keys: [" + printed + "]\nnodes:\n  ceo: { bind: tcp://127.0.0.1:" +
                          std::to_string(port) + ", key_file: ceo.key, public_key: " + printed + ", ceo: true }\n");
  BackgroundProcess& node = start_node(cluster, "ceo");
  EXPECT_TRUE(wait_for([&] { return node.log().find("listening on") != std::string::npos; }, std::chrono::seconds(30)))
      << node.log();
}

}  // namespace
}  // namespace kaisha::e2e
