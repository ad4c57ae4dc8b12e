// The public kaisha::Node (include/kaisha/node.hpp): a CEO node and a worker
// node started from a program, in one process, joined over real ZeroMQ on
// loopback; a task submitted to the CEO node as `kaisha submit` does,
// answered by the scripted mock LLM over real HTTP; and the errors start()
// promises before anything runs.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "tests/loopback_port.hpp"
#include "cluster/cluster_client.hpp"
#include "kaisha/node.hpp"
#include "runtime/http/fetch_blocking.hpp"
#include "runtime/mockllm/mock_llm_server.hpp"
#include "runtime/mockllm/mock_script.hpp"
#include "tests/runtime/store/store_test_util.hpp"

namespace kaisha::api_node_test {
namespace {

constexpr const char* kScript = R"(
rules:
  - match: { model: ceo-model }
    reply: { text: "ノードから答えます 🛰️ — the cluster answered.", usage: { input_tokens: 5, output_tokens: 4 } }
)";

class NodeTest : public store::testing::TempDirTest {
 protected:
  void SetUp() override {
    store::testing::TempDirTest::SetUp();
    auto script = mockllm::parse_mock_script(kScript, "node_test");
    ASSERT_TRUE(script) << script.error().message;
    mock_ = std::make_unique<mockllm::MockLlmServer>(std::move(script).value());
    auto port = mock_->start("127.0.0.1", 0);
    ASSERT_TRUE(port) << port.error().message;
    ceo_port_ = kaisha::test::unused_loopback_port();
    worker_port_ = kaisha::test::unused_loopback_port();
    write(file("company.yaml"), "store: " + file("kaisha.db") +
                                    "\nceo: { model: openai:ceo-model }\n"
                                    "providers:\n  openai: { base_url: http://127.0.0.1:" +
                                    std::to_string(*port) + "/v1, api_key: mock-key }\n");
    const std::string ceo = "tcp://127.0.0.1:" + std::to_string(ceo_port_);
    write(file("cluster.yaml"), "company: " + file("company.yaml") + "\ncluster:\n  allow_plaintext: true\n  seeds: [" +
                                    ceo + "]\nnodes:\n  boss:\n    bind: " + ceo +
                                    "\n    ceo: true\n    resource_units: 0\n  worker:\n    bind: tcp://127.0.0.1:" +
                                    std::to_string(worker_port_) + "\n    resource_units: 10\n");
  }

  static void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

  NodeOptions options(const std::string& name) {
    NodeOptions o;
    o.cluster_file = file("cluster.yaml");
    o.name = name;
    return o;
  }

  std::unique_ptr<mockllm::MockLlmServer> mock_;
  int ceo_port_ = 0, worker_port_ = 0;
};

TEST_F(NodeTest, ACeoNodeAndAWorkerJoinAndTheCeoAnswersASubmittedTask) {
  auto boss = Node::start(options("boss"));
  ASSERT_TRUE(boss.ok()) << boss.error().message;
  NodeOptions w = options("worker");
  w.http = "127.0.0.1:0";
  auto worker = Node::start(std::move(w));
  ASSERT_TRUE(worker.ok()) << worker.error().message;
  EXPECT_TRUE((*boss)->is_ceo());
  EXPECT_FALSE((*worker)->is_ceo());
  EXPECT_EQ((*boss)->endpoint(), "tcp://127.0.0.1:" + std::to_string(ceo_port_));
  EXPECT_EQ((*boss)->http_url(), "");

  cluster::ClientOptions co;
  co.address = (*boss)->endpoint();
  auto client = cluster::ClusterClient::connect(co);
  ASSERT_TRUE(client.ok()) << client.error().message;
  // The worker is seen alive by the CEO node (a bound, not a pause: polled).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  bool joined = false;
  while (!joined && std::chrono::steady_clock::now() < deadline) {
    auto st = (*client)->status(std::chrono::seconds(5));
    if (st.ok())
      for (const auto& m : (*st)["members"])
        joined = joined || (m.value("name", "") == "worker" && m.value("state", "") == "alive");
    if (!joined) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(joined);

  auto r = (*client)->submit(
      "クラスタに質問 🛰️", [](const msg::ProgressEvent&) {}, std::chrono::seconds(60));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->ok) << r->error;
  EXPECT_EQ(r->answer, "ノードから答えます 🛰️ — the cluster answered.");

  // The worker serves its metrics where it was asked to.
  http::HttpRequestSpec req;
  req.method = "GET";
  req.url = (*worker)->http_url() + "/metrics";
  auto metrics = http::fetch_blocking(req, http::HttpOptions{});
  EXPECT_EQ(metrics.status, 200);
  EXPECT_NE(metrics.body.find("kaisha_cluster"), std::string::npos);

  client->reset();
  (*worker)->stop();
  (*worker)->stop();  // idempotent
  EXPECT_EQ((*worker)->http_url(), "");
  (*boss)->stop();
}

TEST_F(NodeTest, ANameTheClusterFileDoesNotListIsRefused) {
  auto n = Node::start(options("nobody"));
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.error().message.find("nobody"), std::string::npos) << n.error().message;
}

TEST_F(NodeTest, ABadHttpAddressIsRefusedBeforeTheNodeJoins) {
  NodeOptions o = options("worker");
  o.http = "127.0.0.1:port";
  auto n = Node::start(std::move(o));
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.error().message.find("NodeOptions::http"), std::string::npos) << n.error().message;
}

}  // namespace
}  // namespace kaisha::api_node_test
