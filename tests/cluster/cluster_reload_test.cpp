// Re-reading cluster.yaml in a running CURVE cluster: a removed node's links
// are refused from then on and it is gone, an added node may join, a node
// listed with a new key is admitted under that key only, a file that may not
// be applied changes nothing, and only an operator key may ask for a reload.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <mutex>

#include "cluster/cluster_client.hpp"
#include "cluster/cluster_node.hpp"
#include "tests/cluster/cluster_test_support.hpp"

namespace kaisha::cluster {
namespace {

using namespace testing;

struct Cluster {
  KeyDir keys;
  ClusterConfig config;
  std::map<std::string, std::string> pub;
  std::map<std::string, std::unique_ptr<ClusterNode>> nodes;

  explicit Cluster(const std::vector<std::string>& names) {
    config.source = "<test cluster.yaml>";
    config.timeouts = fast_timeouts();
    for (const auto& n : names) {
      pub[n] = keys.make(n);
      config.nodes.push_back(curve_node(n, keys, pub[n]));
      config.authorised_keys.push_back(pub[n]);
    }
    config.nodes[0].capabilities.ceo = true;
  }
  ClusterNode& start(const std::string& name, const ClusterConfig& view) {
    nodes[name] = start_node(view, name);
    EXPECT_TRUE(nodes[name]) << name;
    if (name == config.nodes[0].name && config.seeds.empty())
      config.seeds.push_back(Seed{nodes[name]->endpoint(), pub[name]});
    return *nodes[name];
  }
  ClusterNode& start(const std::string& name) { return start(name, config); }
  ClusterNode& operator[](const std::string& name) { return *nodes.at(name); }
  // `config` without `name`.
  ClusterConfig without(const std::string& name) const {
    ClusterConfig c = config;
    c.nodes.erase(std::remove_if(c.nodes.begin(), c.nodes.end(), [&](const NodeConfig& n) { return n.name == name; }),
                  c.nodes.end());
    c.authorised_keys.erase(std::remove(c.authorised_keys.begin(), c.authorised_keys.end(), pub.at(name)),
                            c.authorised_keys.end());
    return c;
  }
  // `config` with `name` listed under a new key (its key file replaced).
  ClusterConfig rekeyed(const std::string& name, const std::string& new_name) {
    ClusterConfig c = without(name);
    const std::string k = keys.make(new_name);
    NodeConfig n = curve_node(name, keys, k);
    n.key_file = keys.file(new_name);
    c.nodes.push_back(n);
    c.authorised_keys.push_back(k);
    return c;
  }
};

TEST(ClusterReload, ARemovedNodeIsGoneAndItsLinksAreRefusedFromThenOn) {
  // Declared before the cluster: its listener may still run while the nodes stop.
  std::vector<std::string> events;
  std::mutex mu;
  Cluster cl({"ceo", "w1", "w2"});
  cl.start("ceo");
  cl.start("w1");
  cl.start("w2");
  ASSERT_TRUE(eventually([&] { return state_of(cl["ceo"], "w1") == "alive" && state_of(cl["ceo"], "w2") == "alive"; }));
  cl["ceo"].add_listener([&](const MembershipEvent& e) {
    std::lock_guard<std::mutex> g(mu);
    events.push_back(std::string(to_string(e.kind)) + " " + e.node);
  });

  auto refusals = [&] {
    auto c = cl["ceo"].counters();
    return c.dropped_unauthorised + c.auth_rejected;
  };
  const uint64_t before = refusals();
  auto change = cl["ceo"].reload(cl.without("w2"));
  ASSERT_TRUE(change.ok()) << change.error().message;
  EXPECT_EQ(change->removed, std::vector<std::string>{"w2"});
  EXPECT_EQ(state_of(cl["ceo"], "w2"), "gone");
  {
    std::lock_guard<std::mutex> g(mu);
    EXPECT_EQ(events, std::vector<std::string>{"removed w2"});
  }
  // w2 still runs and heartbeats under its old key: frames on the link it
  // had are dropped, new links refused at the handshake, all counted; it
  // stays gone well past the detector's timeouts. w1, not reloaded yet,
  // still gossips w2 and stays alive.
  EXPECT_TRUE(eventually([&] { return refusals() >= before + 3; })) << cl["ceo"].status().dump();
  std::this_thread::sleep_for(std::chrono::milliseconds(3 * fast_timeouts().down_after_ms));
  EXPECT_EQ(state_of(cl["ceo"], "w2"), "gone");
  EXPECT_EQ(state_of(cl["ceo"], "w1"), "alive");
  EXPECT_NE(cl["ceo"].status()["reload"]["last"].get<std::string>().find("removed w2"), std::string::npos);
  std::lock_guard<std::mutex> g(mu);
  EXPECT_EQ(events, std::vector<std::string>{"removed w2"});  // never "joined" again
  // (the lock is released before the nodes stop: their last events take it)
}

TEST(ClusterReload, ANodeAddedByAReloadMayJoinAfterwards) {
  Cluster cl({"ceo", "w1", "w3"});
  cl.start("ceo", cl.without("w3"));
  cl.start("w1", cl.without("w3"));  // with the CEO node as its seed
  ASSERT_TRUE(eventually([&] { return state_of(cl["ceo"], "w1") == "alive"; }));
  cl.start("w3");  // lists itself; the running cluster does not yet
  EXPECT_TRUE(eventually([&] { return cl["ceo"].counters().auth_rejected >= 1; })) << cl["ceo"].status().dump();
  EXPECT_FALSE(cl["ceo"].member("w3"));

  auto change = cl["ceo"].reload(cl.config);
  ASSERT_TRUE(change.ok()) << change.error().message;
  EXPECT_EQ(change->added, std::vector<std::string>{"w3"});
  ASSERT_TRUE(cl["w1"].reload(cl.config).ok());
  EXPECT_TRUE(eventually([&] {
    return state_of(cl["ceo"], "w3") == "alive" && state_of(cl["w1"], "w3") == "alive" &&
           state_of(cl["w3"], "w1") == "alive";
  })) << cl["ceo"].status().dump();
}

TEST(ClusterReload, ANodeListedWithANewKeyIsAdmittedUnderThatKeyOnly) {
  Cluster cl({"ceo", "w1", "w2"});
  cl.start("ceo");
  cl.start("w1");
  auto old_w2 = start_node(cl.config, "w2");
  ASSERT_TRUE(old_w2);
  ASSERT_TRUE(eventually([&] { return state_of(cl["ceo"], "w2") == "alive"; }));
  const int64_t old_life = cl["ceo"].member("w2")->info.incarnation;

  // w2 is replaced by a machine with a new key; the old one still runs.
  const ClusterConfig next = cl.rekeyed("w2", "w2-new");
  auto change = cl["ceo"].reload(next);
  ASSERT_TRUE(change.ok()) << change.error().message;
  EXPECT_EQ(change->rekeyed, std::vector<std::string>{"w2"});
  EXPECT_EQ(state_of(cl["ceo"], "w2"), "gone");
  auto new_w2 = start_node(next, "w2", nullptr, old_life + 1000);
  ASSERT_TRUE(new_w2);
  EXPECT_TRUE(eventually([&] {
    auto m = cl["ceo"].member("w2");
    return m && m->state == MemberState::alive && m->info.incarnation == old_life + 1000;
  })) << cl["ceo"].status().dump();
  EXPECT_EQ(cl["ceo"].member("w2")->info.public_key, next.nodes.back().public_key);
  // The old key's heartbeats are refused, and do not bring the old life back.
  EXPECT_TRUE(eventually([&] {
    auto c = cl["ceo"].counters();
    return c.dropped_unauthorised + c.auth_rejected >= 3;
  })) << cl["ceo"].status().dump();
  EXPECT_EQ(cl["ceo"].member("w2")->info.incarnation, old_life + 1000);
}

TEST(ClusterReload, AFileThatMayNotBeAppliedChangesNothing) {
  Cluster cl({"ceo", "w1"});
  cl.start("ceo");
  cl.start("w1");
  ASSERT_TRUE(eventually([&] { return state_of(cl["ceo"], "w1") == "alive"; }));
  ClusterConfig moved = cl.without("w1");  // would remove w1, but also moves the CEO node
  moved.nodes[0].bind = "tcp://127.0.0.1:1";
  auto r = cl["ceo"].reload(moved);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("nodes.ceo.bind"), std::string::npos) << r.error().message;
  EXPECT_EQ(state_of(cl["ceo"], "w1"), "alive");
  // A file that does not parse: the parser's file:line error, nothing applied.
  const std::string path = (cl.keys.dir / "cluster.yaml").string();
  std::ofstream(path) << "cluster:\n  heartbeat_ms: often\nnodes: {}\n";
  // A node started from that path (alone: no seeds) re-reads it.
  ClusterConfig from_file = cl.config;
  from_file.source = path;
  from_file.seeds.clear();
  auto n = start_node(from_file, "ceo");
  ASSERT_TRUE(n);
  auto bad = n->reload();
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find(path + ":2:"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("cluster.heartbeat_ms"), std::string::npos) << bad.error().message;
  EXPECT_EQ(n->status()["reload"]["applied"].get<uint64_t>(), 0u);
  EXPECT_NE(n->status()["reload"]["last"].get<std::string>().find("refused"), std::string::npos);
  EXPECT_EQ(state_of(cl["ceo"], "w1"), "alive");
}

// `kaisha cluster reload` over the wire: a client key is refused and counted,
// an operator key reloads.
TEST(ClusterReload, OnlyAnOperatorKeyMayAskForAReload) {
  KeyDir keys;
  const std::string ceo = keys.make("ceo"), client = keys.make("client"), op = keys.make("operator");
  const std::string path = (keys.dir / "cluster.yaml").string();
  std::ofstream(path) << "cluster:\n  authorised_keys: [\"" << client << "\"]\n  operator_keys: [\"" << op
                      << "\"]\nnodes:\n  ceo: { bind: tcp://127.0.0.1:0, key_file: " << keys.file("ceo")
                      << ", public_key: \"" << ceo << "\", ceo: true }\n";
  auto config = load_cluster_config(path);
  ASSERT_TRUE(config.ok()) << config.error().message;
  auto node = start_node(*config, "ceo");
  ASSERT_TRUE(node);
  auto ask = [&](const std::string& who) -> Result<msg::ReloadResult> {
    auto k = transport::load_curve_keys(keys.file(who));
    EXPECT_TRUE(k.ok());
    ClientOptions co;
    co.address = node->endpoint();
    co.secret_key = k->secret_key;
    co.public_key = k->public_key;
    co.server_key = ceo;
    co.authorised_keys = {ceo};
    auto c = ClusterClient::connect(co);
    if (!c.ok()) return c.error();
    return (*c)->reload(std::chrono::seconds(10));
  };
  auto refused = ask("client");
  ASSERT_TRUE(refused.ok()) << refused.error().message;
  EXPECT_FALSE(refused->ok);
  EXPECT_NE(refused->error.find("only operator keys"), std::string::npos) << refused->error;
  EXPECT_EQ(node->refusals()["not_an_operator"], 1u);
  EXPECT_EQ(node->status()["reload"]["applied"].get<uint64_t>(), 0u);
  auto done = ask("operator");
  ASSERT_TRUE(done.ok()) << done.error().message;
  EXPECT_TRUE(done->ok) << done->error;
  EXPECT_EQ(node->status()["reload"]["applied"].get<uint64_t>(), 1u);
}

}  // namespace
}  // namespace kaisha::cluster
