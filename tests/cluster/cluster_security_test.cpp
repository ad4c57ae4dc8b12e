// A CURVE cluster refuses a node whose key it does not authorise, and a node
// fed garbage, truncated, oversized and wrong-version frames drops them,
// counts them and keeps serving its cluster.
#include <gtest/gtest.h>

#include <filesystem>
#include <zmq.hpp>

#include "cluster/cluster_node.hpp"
#include "runtime/messages/cluster_messages.hpp"
#include "runtime/messages/codec.hpp"
#include "tests/cluster/cluster_test_support.hpp"
#include "transport/curve_keys.hpp"

namespace kaisha::cluster {
namespace {

using namespace testing;
namespace fs = std::filesystem;

struct KeyDir {
  fs::path dir;
  KeyDir() {
    std::string tmpl = (fs::temp_directory_path() / "kaisha-cluster-keys-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    dir = tmpl;
  }
  ~KeyDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  // Writes NAME.key and returns its public key.
  std::string make(const std::string& name) {
    auto k = transport::generate_curve_keypair();
    EXPECT_TRUE(k.ok());
    EXPECT_TRUE(transport::save_curve_keys((dir / (name + ".key")).string(), *k).ok());
    return k->public_key;
  }
  std::string file(const std::string& name) const { return (dir / (name + ".key")).string(); }
};

NodeConfig curve_node(const std::string& name, const KeyDir& keys, const std::string& public_key) {
  NodeConfig n = node_config(name);
  n.key_file = keys.file(name);
  n.public_key = public_key;
  return n;
}

TEST(ClusterSecurity, NodeWithoutAnAuthorisedKeyIsRefused) {
  KeyDir keys;
  const std::string ceo_pub = keys.make("ceo"), b_pub = keys.make("b"), intruder_pub = keys.make("intruder");
  ClusterConfig c;
  c.source = "<test>";
  c.timeouts = fast_timeouts();
  c.nodes = {curve_node("ceo", keys, ceo_pub), curve_node("b", keys, b_pub)};
  c.authorised_keys = {ceo_pub, b_pub};
  auto ceo = start_node(c, "ceo");
  ASSERT_TRUE(ceo);
  c.seeds.push_back(Seed{ceo->endpoint(), ceo_pub});
  auto b = start_node(c, "b");
  ASSERT_TRUE(b);
  // The intruder knows the cluster's address and the CEO's public key, and
  // lists itself, but the cluster does not authorise its key.
  ClusterConfig ic = c;
  ic.nodes.push_back(curve_node("intruder", keys, intruder_pub));
  ic.authorised_keys.push_back(intruder_pub);
  auto intruder = start_node(ic, "intruder");
  ASSERT_TRUE(intruder);

  EXPECT_TRUE(eventually([&] { return state_of(*ceo, "b") == "alive" && state_of(*b, "ceo") == "alive"; }));
  EXPECT_TRUE(eventually([&] { return ceo->counters().auth_rejected >= 1; })) << ceo->status().dump();
  EXPECT_FALSE(ceo->member("intruder"));
  EXPECT_FALSE(b->member("intruder"));
  EXPECT_EQ(intruder->members().size(), 1u);  // only itself
}

TEST(ClusterSecurity, PlaintextIsRefusedOffLoopbackAndKeysMustMatch) {
  ClusterConfig c = cluster_config({node_config("a")});
  c.nodes[0].bind = "tcp://0.0.0.0:0";
  NodeOptions o;
  o.cluster = c;
  o.name = "a";
  o.log = [](const std::string&) {};
  auto n = ClusterNode::start(o);
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.error().message.find("plaintext is only allowed on a loopback address"), std::string::npos)
      << n.error().message;

  KeyDir keys;
  const std::string a_pub = keys.make("a");
  const std::string other_pub = keys.make("other");
  ClusterConfig k;
  k.source = "cluster.yaml";
  k.nodes = {curve_node("a", keys, other_pub)};  // the listed key is not the file's
  o.cluster = k;
  auto m = ClusterNode::start(o);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("does not hold the public_key listed for this node"), std::string::npos)
      << m.error().message;
  (void)a_pub;
}

TEST(ClusterSecurity, GarbageTruncatedOversizedAndWrongVersionFramesAreDroppedAndTheNodeServesOn) {
  ClusterConfig c = cluster_config({node_config("a"), node_config("b"), node_config("c")});
  auto a = start_node(c, "a");
  ASSERT_TRUE(a);
  c.seeds.push_back(Seed{a->endpoint(), ""});
  auto b = start_node(c, "b");
  ASSERT_TRUE(eventually([&] { return state_of(*a, "b") == "alive"; }));

  zmq::context_t ctx;
  zmq::socket_t junk(ctx, zmq::socket_type::dealer);
  junk.set(zmq::sockopt::routing_id, "junk");
  junk.set(zmq::sockopt::linger, 1000);
  junk.connect(a->endpoint());
  msg::Envelope hb = msg::wrap(msg::Heartbeat{}, {"junk", "node"}, {"a", "node"}, "x1");
  std::string valid = msg::encode(hb);
  msg::Envelope future = hb;
  future.envelope_version = 99;
  const std::string garbage = "\xc1\xff\x00garbage\x93";
  junk.send(zmq::buffer(garbage), zmq::send_flags::none);                              // not msgpack
  junk.send(zmq::buffer(valid.substr(0, valid.size() / 2)), zmq::send_flags::none);     // truncated
  junk.send(zmq::buffer(std::string("\x93\x01\x02\x03")), zmq::send_flags::none);       // msgpack, not a map
  junk.send(zmq::buffer(std::string("part")), zmq::send_flags::sndmore);                // too many frames
  junk.send(zmq::buffer(std::string("part")), zmq::send_flags::none);
  junk.send(zmq::buffer(msg::encode(future)), zmq::send_flags::none);                   // unknown version
  junk.send(zmq::buffer(std::string((16u << 20) + 1, 'x')), zmq::send_flags::none);    // oversized
  EXPECT_TRUE(eventually([&] {
    auto k = a->counters();
    return k.dropped_malformed >= 4 && k.dropped_version >= 1 && k.dropped_oversized >= 1;
  })) << a->status().dump();

  // Still serving: b stays alive and a new node joins through a.
  auto cn = start_node(c, "c");
  ASSERT_TRUE(cn);
  EXPECT_TRUE(eventually([&] { return state_of(*a, "c") == "alive" && state_of(*cn, "b") == "alive"; }));
  EXPECT_EQ(state_of(*a, "b"), "alive");
  EXPECT_FALSE(a->member("junk"));
}

}  // namespace
}  // namespace kaisha::cluster
