#include "runtime/cluster/cluster_config.hpp"

#include <gtest/gtest.h>

namespace kaisha::cluster {
namespace {

const std::string kKeyA = "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7";
const std::string kKeyB = "Yne@$w-vo<fVvi]a<NY6T1ed:M$fCG*[IaLV{hID";

TEST(ClusterConfig, ParsesNodesSeedsAndTimeouts) {
  auto c = parse_cluster_config(R"(
company: company.yaml
cluster:
  seeds: [tcp://127.0.0.1:7101]
  heartbeat_ms: 100
  suspect_after_ms: 400
  down_after_ms: 900
  rehire_lost_agents: false
nodes:
  ceo: { bind: tcp://127.0.0.1:7101, key_file: ceo.key, public_key: ")" +
                                    kKeyA + R"(", ceo: true }
  gpu1:
    bind: tcp://0.0.0.0:7102
    advertise: tcp://10.0.0.2:7102
    public_key: ")" + kKeyB + R"("
    models: [llama3.2]
    tags: [gpu]
    resource_units: 50
)",
                                "/etc/kaisha/cluster.yaml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->company_config, "/etc/kaisha/company.yaml");
  ASSERT_EQ(c->seeds.size(), 1u);
  EXPECT_EQ(c->seed_key(c->seeds[0]), kKeyA);  // found through the node advertising it
  EXPECT_EQ(c->timeouts.heartbeat_ms, 100);
  EXPECT_EQ(c->timeouts.down_after_ms, 900);
  EXPECT_FALSE(c->rehire_lost_agents);
  ASSERT_EQ(c->nodes.size(), 2u);
  auto gpu = c->node("gpu1");
  ASSERT_TRUE(gpu.ok());
  EXPECT_EQ(gpu->advertise, "tcp://10.0.0.2:7102");
  EXPECT_EQ(gpu->capabilities.models, std::vector<std::string>{"llama3.2"});
  EXPECT_EQ(gpu->capabilities.resource_units, 50);
  EXPECT_EQ(c->node("ceo")->key_file, "/etc/kaisha/ceo.key");
  EXPECT_EQ(c->ceo_node()->name, "ceo");
  EXPECT_EQ(c->authorised_keys.size(), 2u);
}

TEST(ClusterConfig, DefaultTimeoutsDetectWithinThreeSeconds) {
  Timeouts t;
  EXPECT_LT(t.heartbeat_ms, t.suspect_after_ms);
  EXPECT_LT(t.suspect_after_ms, t.down_after_ms);
  EXPECT_LE(t.down_after_ms + t.heartbeat_ms, 3000);
}

struct BadCase {
  std::string yaml;
  std::string expect;
};

TEST(ClusterConfig, MistakesNameFileLineAndKey) {
  const BadCase cases[] = {
      {"nodes:\n  a: { bind: tcp://127.0.0.1:1, ceo: true }\nclustr: {}\n",
       "c.yaml:3: unknown key 'clustr' in top level (did you mean 'cluster'?)"},
      {"cluster: { allow_plaintext: true }\nnodes:\n  a: { bind: 127.0.0.1:1, ceo: true }\n",
       "c.yaml:3: nodes.a.bind: expected an address"},
      {"cluster: { allow_plaintext: true }\nnodes:\n  a: { bind: tcp://127.0.0.1:1 }\n",
       "exactly one node must have 'ceo: true'"},
      {"nodes:\n  a: { bind: tcp://127.0.0.1:1, ceo: true }\n", "c.yaml:2: nodes.a: no public_key"},
      {"cluster:\n  allow_plaintext: true\n  heartbeat_ms: 5000\nnodes:\n  a: { bind: tcp://127.0.0.1:1, ceo: true }\n",
       "expected heartbeat_ms < suspect_after_ms < down_after_ms"},
      {"cluster:\n  allow_plaintext: true\n  seeds: [foo]\nnodes:\n  a: { bind: tcp://127.0.0.1:1, ceo: true }\n",
       "c.yaml:3: cluster.seeds[0]: expected an address like tcp://"},
      {"cluster: { allow_plaintext: true }\nnodes:\n  a: { bind: tcp://0.0.0.0:1, ceo: true }\n", "set 'advertise'"},
      {"cluster: { allow_plaintext: true }\nnodes:\n  a: { bind: tcp://127.0.0.1:1, ceo: true, public_key: short }\n",
       "nodes.a.public_key: expected a 40-character Z85 public key"},
      {"cluster: { allow_plaintext: true }\nnodes:\n  a: { bind: tcp://127.0.0.1:1, ceo: true, resource_units: lots "
       "}\n",
       "c.yaml:3: nodes.a.resource_units"},
      {"nodes:\n  a: { bind: tcp://127.0.0.1:1, ceo: true, public_key: \"" + kKeyA +
           "\" }\n  b: { bind: tcp://127.0.0.1:2, public_key: \"" + kKeyA + "\" }\n",
       "c.yaml:3: nodes.b.public_key: the same key as node 'a'"},
      {"cluster: { operator_keys: [\"" + kKeyA +
           "\"] }\nnodes:\n  a: { bind: tcp://127.0.0.1:1, ceo: true, public_key: \"" + kKeyA + "\" }\n",
       "c.yaml:1: cluster.operator_keys: holds the key of node 'a'"},
      {"cluster:\n  authorised_keys: [\"" + kKeyB + "\"]\n  operator_keys: [\"" + kKeyB +
           "\"]\nnodes:\n  a: { bind: tcp://127.0.0.1:1, ceo: true, public_key: \"" + kKeyA + "\" }\n",
       "cluster.operator_keys: holds a key also listed in cluster.authorised_keys"},
      {"cluster: [\n", "c.yaml:"},
      {"nodes:\n  a: { bind: tcp://127.0.0.1:1, ceo: true }\n  a: { bind: tcp://127.0.0.1:2 }\n",
       "c.yaml:3: 'nodes.a' is given twice (lines 2 and 3); keep one"},
      {"", "c.yaml: the cluster file is empty"},
      {"cluster: { allow_plaintext: true }\nnodes:\n  a: { bind: tcp://127.0.0.1:1, ceo: true, http: 9464 }\n",
       "c.yaml:3: nodes.a.http: expected HOST:PORT like 127.0.0.1:9464, got \"9464\""},
      {"cluster: { allow_plaintext: true }\nnodes:\n  a: { bind: tcp://127.0.0.1:1, ceo: true, http: "
       "\"127.0.0.1:70000\" }\n",
       "nodes.a.http: expected HOST:PORT"},
      {"cluster: { allow_plaintext: true }\nnodes:\n  a: { bind: tcp://127.0.0.1:1, ceo: true, http: \"::1:9464\" }\n",
       "nodes.a.http: expected HOST:PORT"},
  };
  for (const auto& bc : cases) {
    auto c = parse_cluster_config(bc.yaml, "c.yaml");
    ASSERT_FALSE(c.ok()) << bc.yaml;
    EXPECT_EQ(c.error().code, "config");
    EXPECT_NE(c.error().message.find(bc.expect), std::string::npos) << c.error().message;
  }
}

TEST(ClusterConfig, ANodesHttpAddressIsWhereClientsReachIt) {
  auto c = parse_cluster_config(R"(
cluster: { allow_plaintext: true }
nodes:
  ceo: { bind: tcp://0.0.0.0:7101, advertise: tcp://10.0.0.1:7101, ceo: true, http: "0.0.0.0:9464" }
  gpu: { bind: tcp://10.0.0.2:7101, http: "10.0.0.2:9464" }
  six: { bind: "tcp://[::1]:7102", http: "[::]:9465" }
  dark: { bind: tcp://10.0.0.3:7101 }
)",
                                "c.yaml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->ceo_node()->http, "0.0.0.0:9464");
  EXPECT_EQ(c->http_address(*c->ceo_node()), "10.0.0.1:9464");  // a wildcard: the advertised host
  EXPECT_EQ(c->http_address(*c->find("gpu")), "10.0.0.2:9464");
  EXPECT_EQ(c->http_address(*c->find("six")), "[::1]:9465");
  EXPECT_EQ(c->http_address(*c->find("dark")), "");
}

TEST(ClusterConfig, UnknownNodeNameListsKnownOnes) {
  auto c = parse_cluster_config(
      "cluster: { allow_plaintext: true }\nnodes:\n  a: { bind: tcp://127.0.0.1:1, ceo: true }\n"
      "  b: { bind: tcp://127.0.0.1:2 }\n",
      "c.yaml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto n = c->node("zz");
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.error().message.find("no node named 'zz' under 'nodes' (known: a, b)"), std::string::npos);
}

TEST(ClusterConfig, MissingFileIsNamed) {
  auto c = load_cluster_config("/nonexistent/cluster.yaml");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("/nonexistent/cluster.yaml"), std::string::npos);
}

}  // namespace
}  // namespace kaisha::cluster

namespace kaisha::cluster {
namespace {

// Z85 keys use '$', '{' and '}': a key holding "${" or "$$" is read exactly
// as written, in a node's public_key, a seed's and authorised_keys alike,
// while ${VAR} still works in every other value.
TEST(ClusterConfig, KeysAreReadVerbatimWithoutVariableSubstitution) {
  const std::string with_var = "ab${HOME}cdefghij$$klmnopqrstuvwxyz01234";  // 40 characters
  const std::string with_dollars = "$$${}0123456789abcdefghijklmnopqrstuvwxy";
  ASSERT_EQ(with_var.size(), 40u);
  ASSERT_EQ(with_dollars.size(), 40u);
  setenv("KAISHA_TEST_PORT", "7333", 1);
  auto c = parse_cluster_config(R"(
cluster:
  seeds: [{ address: "tcp://127.0.0.1:${KAISHA_TEST_PORT}", public_key: ")" +
                                    with_var + R"(" }]
  authorised_keys: [")" + with_dollars +
                                    R"("]
nodes:
  ceo: { bind: "tcp://127.0.0.1:${KAISHA_TEST_PORT}", public_key: ")" +
                                    with_var + R"(", ceo: true }
)",
                                "cluster.yaml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->nodes[0].public_key, with_var);
  EXPECT_EQ(c->nodes[0].bind, "tcp://127.0.0.1:7333");
  EXPECT_EQ(c->seeds[0].public_key, with_var);
  ASSERT_EQ(c->authorised_keys.size(), 2u);
  EXPECT_EQ(c->authorised_keys[1], with_dollars);
}

TEST(ClusterConfig, FrameAndClientLimitsHaveDefaultsAndBounds) {
  const std::string nodes = "nodes:\n  ceo: { bind: tcp://127.0.0.1:7101, ceo: true }\n";
  auto d = parse_cluster_config("cluster: { allow_plaintext: true }\n" + nodes, "cluster.yaml");
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->max_frame_bytes, 16u << 20);
  EXPECT_EQ(d->max_clients, 64);
  EXPECT_EQ(d->max_waiting_tasks, 64u);
  auto set = parse_cluster_config(
      "cluster: { allow_plaintext: true, max_frame_bytes: 1048576, max_clients: 8, max_waiting_tasks: 2 }\n" + nodes,
      "cluster.yaml");
  ASSERT_TRUE(set.ok()) << set.error().message;
  EXPECT_EQ(set->max_frame_bytes, 1048576u);
  EXPECT_EQ(set->max_clients, 8);
  EXPECT_EQ(set->max_waiting_tasks, 2u);
  auto none =
      parse_cluster_config("cluster: { allow_plaintext: true, max_waiting_tasks: 0 }\n" + nodes, "cluster.yaml");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("cluster.max_waiting_tasks"), std::string::npos) << none.error().message;
  auto tiny =
      parse_cluster_config("cluster: { allow_plaintext: true, max_frame_bytes: 100 }\n" + nodes, "cluster.yaml");
  ASSERT_FALSE(tiny.ok());
  EXPECT_NE(tiny.error().message.find("cluster.max_frame_bytes"), std::string::npos) << tiny.error().message;
}

TEST(ClusterConfig, OperatorAndClientKeysAreKeptApartAndAllAuthorised) {
  const std::string op = "op0op0op0op0op0op0op0op0op0op0op0op0op0o";
  auto c = parse_cluster_config("cluster:\n  authorised_keys: [\"" + kKeyB + "\", \"" + kKeyA +
                                    "\"]\n  operator_keys: [\"" + op +
                                    "\"]\nnodes:\n  a: { bind: tcp://127.0.0.1:1, "
                                    "ceo: true, public_key: \"" +
                                    kKeyA + "\" }\n",
                                "c.yaml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->client_keys, (std::vector<std::string>{kKeyB, kKeyA}));
  EXPECT_EQ(c->operator_keys, std::vector<std::string>{op});
  // The node's own key, listed as a client's too, stays the node's: once.
  EXPECT_EQ(c->authorised_keys, (std::vector<std::string>{kKeyA, kKeyB, op}));
}

}  // namespace
}  // namespace kaisha::cluster
