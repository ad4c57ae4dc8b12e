// A CURVE cluster refuses a node whose key it does not authorise, and a node
// fed garbage, truncated, oversized and wrong-version frames drops them,
// counts them and keeps serving its cluster. A key means exactly what
// cluster.yaml says: the attacks at the end, each with an authorised key
// (a client's, or another node's), are refused and counted, and the cluster
// serves on.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>
#include <zmq.hpp>

#include "cluster/cluster_client.hpp"
#include "cluster/cluster_node.hpp"
#include "runtime/messages/cluster_messages.hpp"
#include "runtime/messages/codec.hpp"
#include "tests/cluster/cluster_test_support.hpp"
#include "transport/curve_keys.hpp"

namespace kaisha::cluster {
namespace {

using namespace testing;
namespace fs = std::filesystem;

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
  ClusterConfig c = cluster_config({node_config("a", {}, 100, true), node_config("b"), node_config("c")});
  c.max_frame_bytes = 1u << 20;
  auto a = start_node(c, "a");
  ASSERT_TRUE(a);
  c.seeds.push_back(Seed{a->endpoint(), ""});
  auto b = start_node(c, "b");
  ASSERT_TRUE(eventually([&] { return state_of(*a, "b") == "alive"; }));

  zmq::context_t ctx;
  zmq::socket_t junk(ctx, zmq::socket_type::push);
  junk.set(zmq::sockopt::linger, 1000);
  junk.set(zmq::sockopt::reconnect_ivl, 60000);  // once cut off, it stays off
  ASSERT_EQ(zmq_socket_monitor(junk.handle(), "inproc://junk-events", ZMQ_EVENT_DISCONNECTED), 0);
  zmq::socket_t junk_events(ctx, zmq::socket_type::pair);
  junk_events.set(zmq::sockopt::rcvtimeo, 10000);
  junk_events.connect("inproc://junk-events");
  junk.connect(a->endpoint());
  msg::Envelope hb = msg::wrap(msg::Heartbeat{}, {"junk", "node"}, {"a", "node"}, "x1");
  std::string valid = msg::encode(hb);
  msg::Envelope future = hb;
  future.envelope_version = 99;
  const std::string garbage = "\xc1\xff\x00garbage\x93";
  junk.send(zmq::buffer(garbage), zmq::send_flags::none);                            // not msgpack
  junk.send(zmq::buffer(valid.substr(0, valid.size() / 2)), zmq::send_flags::none);  // truncated
  junk.send(zmq::buffer(std::string("\x93\x01\x02\x03")), zmq::send_flags::none);    // msgpack, not a map
  junk.send(zmq::buffer(std::string("part")), zmq::send_flags::sndmore);             // too many frames
  junk.send(zmq::buffer(std::string("part")), zmq::send_flags::none);
  junk.send(zmq::buffer(msg::encode(future)), zmq::send_flags::none);  // unknown version
  junk.send(zmq::buffer(valid), zmq::send_flags::none);                // not a listed node
  EXPECT_TRUE(eventually([&] {
    auto k = a->counters();
    return k.dropped_malformed >= 4 && k.dropped_version >= 1 && a->refusals()["not_a_node"] >= 1;
  })) << a->status().dump();
  // Above cluster.max_frame_bytes: cut off by its header, never read.
  const uint64_t closed_before = a->counters().inbound_closed;
  junk.send(zmq::buffer(std::string((2u << 20), 'x')), zmq::send_flags::none);
  zmq::message_t event;
  ASSERT_TRUE(junk_events.recv(event)) << "the sender of an oversized frame is disconnected";
  EXPECT_TRUE(eventually([&] { return a->counters().inbound_closed > closed_before; })) << a->status().dump();
  EXPECT_EQ(a->counters().dropped_oversized, 0u);

  // Still serving: b stays alive and a new node joins through a.
  auto cn = start_node(c, "c");
  ASSERT_TRUE(cn);
  EXPECT_TRUE(eventually([&] { return state_of(*a, "c") == "alive" && state_of(*cn, "b") == "alive"; }));
  EXPECT_EQ(state_of(*a, "b"), "alive");
  EXPECT_FALSE(a->member("junk"));
  EXPECT_GE(a->status()["refused"]["not_a_node"].get<uint64_t>(), 1u);
}

// About 1 Z85 key in 100 holds "${" (and more hold "$$"), which ${VAR}
// substitution would mangle or refuse. Keys as keygen prints them (quoted)
// load exactly, and the node starts and serves with them.
TEST(ClusterSecurity, KeysHoldingDollarBraceOrDoubleDollarLoadExactlyAsKeygenPrintsThem) {
  KeyDir keys;
  auto key_with = [&](const std::string& needle, const std::string& name) {
    for (int i = 0; i < 100000; ++i) {
      auto k = transport::generate_curve_keypair();
      if (!k.ok() || k->public_key.find(needle) == std::string::npos) continue;
      EXPECT_TRUE(transport::save_curve_keys(keys.file(name), *k).ok());
      return k->public_key;
    }
    ADD_FAILURE() << "no key with " << needle;
    return std::string();
  };
  const std::string a_pub = key_with("${", "a"), b_pub = key_with("$$", "b");
  ASSERT_FALSE(a_pub.empty());
  ASSERT_FALSE(b_pub.empty());
  // What `kaisha keygen` prints: the key in double quotes.
  const std::string yaml =
      "cluster:\n  heartbeat_ms: 50\n  suspect_after_ms: 200\n  down_after_ms: 400\n"
      "  seeds: [tcp://127.0.0.1:0]\n  authorised_keys: [\"" +
      b_pub +
      "\"]\nnodes:\n"
      "  a: { bind: tcp://127.0.0.1:0, key_file: " +
      keys.file("a") + ", public_key: \"" + a_pub +
      "\", ceo: true }\n"
      "  b: { bind: tcp://127.0.0.1:0, key_file: " +
      keys.file("b") + ", public_key: \"" + b_pub + "\" }\n";
  auto c = parse_cluster_config(yaml, "cluster.yaml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->nodes[0].public_key, a_pub);
  EXPECT_EQ(c->nodes[1].public_key, b_pub);
  c->seeds.clear();
  auto a = start_node(*c, "a");
  ASSERT_TRUE(a);
  c->seeds.push_back(Seed{a->endpoint(), a_pub});
  auto b = start_node(*c, "b");
  ASSERT_TRUE(b);
  EXPECT_TRUE(eventually([&] { return state_of(*a, "b") == "alive" && state_of(*b, "a") == "alive"; }))
      << a->status().dump();
}

// A CURVE cluster as cluster.yaml lists it: ceo (the CEO node), w1 and w2
// (hosting llama3.2 employees, model calls to a mock), and a client key for
// `kaisha submit`. The attacks below hold the client key, or a listed
// worker's key, and each must be refused, counted, and leave the cluster
// serving.
struct CurveCluster {
  KeyDir keys;
  std::unique_ptr<mockllm::MockLlmServer> mock;
  config::Config company;
  ClusterConfig config;
  std::string ceo_pub, w1_pub, w2_pub, client_pub;
  std::unique_ptr<ClusterNode> ceo, w1, w2;

  explicit CurveCluster(Timeouts t = fast_timeouts()) {
    mock = start_mock();
    company = company_config(mock ? mock->port() : 0);
    ceo_pub = keys.make("ceo");
    w1_pub = keys.make("w1");
    w2_pub = keys.make("w2");
    client_pub = keys.make("client");
    config.source = "<test cluster.yaml>";
    config.timeouts = t;
    config.nodes = {curve_node("ceo", keys, ceo_pub), curve_node("w1", keys, w1_pub), curve_node("w2", keys, w2_pub)};
    config.nodes[0].capabilities.ceo = true;
    config.nodes[1].capabilities.models = {"llama3.2"};
    config.nodes[2].capabilities.models = {"llama3.2"};
    config.authorised_keys = {ceo_pub, w1_pub, w2_pub, client_pub};
    ceo = start_node(config, "ceo");
    if (ceo) config.seeds.push_back(Seed{ceo->endpoint(), ceo_pub});
    w1 = start_node(config, "w1", &company);
    w2 = start_node(config, "w2", &company);
  }
  bool ready() const {
    return ceo && w1 && w2 && eventually([&] {
             for (const auto* n : {ceo.get(), w1.get(), w2.get()})
               for (const char* m : {"ceo", "w1", "w2"})
                 if (state_of(*n, m) != "alive") return false;
             return true;
           });
  }
  // A gateway holding `key_name`'s key pair and calling itself `as`.
  std::unique_ptr<transport::Gateway> attacker(const std::string& as, const std::string& key_name = "client") {
    auto k = transport::load_curve_keys(keys.file(key_name));
    EXPECT_TRUE(k.ok());
    transport::GatewayOptions o;
    o.node = as;
    o.secret_key = k->secret_key;
    o.public_key = k->public_key;
    o.authorised_keys = {ceo_pub, w1_pub, w2_pub};
    o.log = [](std::string_view) {};
    auto g = std::make_unique<transport::Gateway>();
    auto ep = g->start(o);
    EXPECT_TRUE(ep.ok()) << ep.error().message;
    return g;
  }
  const std::string& key_of(const std::string& node) const {
    return node == "ceo" ? ceo_pub : node == "w1" ? w1_pub : w2_pub;
  }
  ClusterNode& node(const std::string& name) { return name == "ceo" ? *ceo : name == "w1" ? *w1 : *w2; }
  size_t model_calls(const std::string& model) const {
    size_t n = 0;
    for (const auto& r : mock->request_log())
      if (r.value("model", "") == model) ++n;
    return n;
  }
};

uint64_t refused(const ClusterNode& n, const std::string& kind) {
  auto r = n.refusals();
  auto it = r.find(kind);
  return it == r.end() ? 0 : it->second;
}

msg::AgentSpec employee(const std::string& name, const std::string& prompt) {
  msg::AgentSpec s;
  s.name = name;
  s.base_model = "llama3.2";
  s.model_ref = "ollama:llama3.2";
  s.system_prompt = prompt;
  return s;
}

msg::NodeInfo claimed(const std::string& name, const std::string& endpoint, const std::string& key,
                      int64_t incarnation = 1) {
  msg::NodeInfo i;
  i.name = name;
  i.endpoint = endpoint;
  i.public_key = key;
  i.incarnation = incarnation;
  i.capabilities.models = {"llama3.2"};
  i.capabilities.resource_units = 1e6;
  return i;
}

// Asks `agent` on `node` from the CEO node and returns the answer's output.
std::string ceo_asks(CurveCluster& cl, const std::string& node, const std::string& agent, const std::string& prompt) {
  std::atomic<bool> done{false};
  std::string outcome = "no answer";
  cl.ceo->request(
      node, msg::wrap(msg::AskRequest{"s", "t", prompt, 64, ""}, {"ceo", "CEO"}, {node, agent}, cl.ceo->next_id()),
      60000, [&](Result<msg::Envelope> r) {
        if (!r.ok())
          outcome = "error: " + r.error().message;
        else if (auto reply = msg::unwrap<msg::AskReply>(*r); reply.ok())
          outcome = reply->ok ? "ok: " + reply->output : "failed: " + reply->error;
        else
          outcome = "other: " + r->type;
        done = true;
      });
  if (!eventually([&] { return done.load(); }, std::chrono::seconds(30))) return "timed out";
  return outcome;
}

// Attack: with the client key, spawn an employee on a worker and ask it, so
// the worker's model runs for free (never charged to the CEO's ledger). A
// listed worker other than the CEO node may not direct employees either.
TEST(ClusterSecurity, OnlyTheCeoNodeSpawnsOrAsksEmployees) {
  CurveCluster cl;
  ASSERT_TRUE(cl.ready());
  auto evil = cl.attacker("client-evil");
  ASSERT_TRUE(evil->connect("w1", cl.w1->endpoint(), cl.w1_pub).ok());
  ASSERT_TRUE(evil->send("w1", msg::wrap(msg::SpawnAgent{employee("Mine", "free work"), 0}, {"client-evil", "CEO"},
                                         {"w1", "Mine"}, "e1"))
                  .ok());
  ASSERT_TRUE(evil->send("w1", msg::wrap(msg::AskRequest{"s", "t", "free tokens", 64, ""}, {"client-evil", "CEO"},
                                         {"w1", "Mine"}, "e2"))
                  .ok());
  auto w2_key = cl.attacker("w2", "w2");
  ASSERT_TRUE(w2_key->connect("w1", cl.w1->endpoint(), cl.w1_pub).ok());
  ASSERT_TRUE(w2_key
                  ->send("w1", msg::wrap(msg::SpawnAgent{employee("Mine", "free work"), 0}, {"w2", "CEO"},
                                         {"w1", "Mine"}, "e3"))
                  .ok());
  ASSERT_TRUE(
      w2_key
          ->send("w1", msg::wrap(msg::AskRequest{"s", "t", "free tokens", 64, ""}, {"w2", "CEO"}, {"w1", "Mine"}, "e4"))
          .ok());
  EXPECT_TRUE(eventually([&] { return refused(*cl.w1, "not_a_node") >= 2 && refused(*cl.w1, "not_the_ceo") >= 2; }))
      << cl.w1->status().dump();
  EXPECT_EQ(cl.model_calls("llama3.2"), 0u);
  EXPECT_GE(cl.w1->status()["refused"]["not_the_ceo"].get<uint64_t>(), 2u);

  // The CEO node's own employee on w1 still works.
  ASSERT_TRUE(cl.ceo
                  ->send("w1", msg::wrap(msg::SpawnAgent{employee("Poet", "You write."), 1}, {"ceo", "CEO"},
                                         {"w1", "Poet"}, cl.ceo->next_id()))
                  .ok());
  EXPECT_EQ(ceo_asks(cl, "w1", "Poet", "hi"), "ok: echo: hi");
  EXPECT_EQ(cl.model_calls("llama3.2"), 1u);
}

// Attack: with the client key, join as node "rogue" (to be placed employees,
// read their system prompts and answer in their name). Membership is
// cluster.yaml: a client is no node, and a listed node's gossip of an
// unlisted one introduces nobody.
TEST(ClusterSecurity, NoKeyButAListedNodesJoinsAndNoGossipAddsAMember) {
  CurveCluster cl;
  ASSERT_TRUE(cl.ready());
  auto rogue = cl.attacker("rogue");
  ASSERT_TRUE(rogue->connect("ceo", cl.ceo->endpoint(), cl.ceo_pub).ok());
  const msg::NodeInfo me = claimed("rogue", rogue->endpoint(), cl.client_pub);
  ASSERT_TRUE(rogue->send("ceo", msg::wrap(msg::JoinRequest{me}, {"rogue", "node"}, {"ceo", "node"}, "j1")).ok());
  ASSERT_TRUE(rogue->send("ceo", msg::wrap(msg::Heartbeat{me, {me}}, {"rogue", "node"}, {"ceo", "node"}, "h1")).ok());
  auto w2_key = cl.attacker("w2", "w2");
  ASSERT_TRUE(w2_key->connect("ceo", cl.ceo->endpoint(), cl.ceo_pub).ok());
  msg::Heartbeat gossip{claimed("w2", cl.w2->endpoint(), cl.w2_pub, cl.w2->incarnation()), {me}};
  gossip.sender.capabilities = cl.config.nodes[2].capabilities;
  ASSERT_TRUE(w2_key->send("ceo", msg::wrap(gossip, {"w2", "node"}, {"ceo", "node"}, "h2")).ok());
  EXPECT_TRUE(eventually([&] { return refused(*cl.ceo, "not_a_node") >= 2 && refused(*cl.ceo, "unlisted_node") >= 1; }))
      << cl.ceo->status().dump();
  EXPECT_FALSE(cl.ceo->member("rogue"));
  EXPECT_EQ(cl.ceo->members().size(), 3u);
  EXPECT_TRUE(cl.ready());
}

// Attack: one forged heartbeat moving w1 to the attacker's address and key.
// A node's address and key are cluster.yaml's; a client's heartbeat is
// refused, a client calling itself "w1" is an impostor, and even a listed
// node's gossip changes neither w1's address, key nor life.
TEST(ClusterSecurity, NoHeartbeatMovesANodeToAnotherAddressOrKey) {
  CurveCluster cl;
  ASSERT_TRUE(cl.ready());
  const Member before = *cl.ceo->member("w1");
  auto evil = cl.attacker("client-evil");
  auto as_w1 = cl.attacker("w1");
  auto w2_key = cl.attacker("w2", "w2");
  for (auto* g : {evil.get(), as_w1.get(), w2_key.get()})
    ASSERT_TRUE(g->connect("ceo", cl.ceo->endpoint(), cl.ceo_pub).ok());
  const msg::NodeInfo moved = claimed("w1", evil->endpoint(), cl.client_pub, before.info.incarnation + 1000);
  ASSERT_TRUE(
      evil->send("ceo", msg::wrap(msg::Heartbeat{claimed("client-evil", evil->endpoint(), cl.client_pub), {moved}},
                                  {"client-evil", "node"}, {"ceo", "node"}, "h1"))
          .ok());
  ASSERT_TRUE(
      as_w1->send("ceo", msg::wrap(msg::Heartbeat{moved, {moved}}, {"w1", "node"}, {"ceo", "node"}, "h2")).ok());
  msg::NodeInfo w2_self = claimed("w2", cl.w2->endpoint(), cl.w2_pub, cl.w2->incarnation());
  w2_self.capabilities = cl.config.nodes[2].capabilities;
  ASSERT_TRUE(
      w2_key->send("ceo", msg::wrap(msg::Heartbeat{w2_self, {moved}}, {"w2", "node"}, {"ceo", "node"}, "h3")).ok());
  EXPECT_TRUE(eventually([&] {
    return refused(*cl.ceo, "not_a_node") >= 1 && cl.ceo->counters().dropped_impostor >= 1;
  })) << cl.ceo->status().dump();
  // Several failure-detection periods: w1 stays where it is, alive.
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(1500);
  while (std::chrono::steady_clock::now() < until) {
    auto now = cl.ceo->member("w1");
    ASSERT_TRUE(now);
    ASSERT_NE(now->state, MemberState::down);
    EXPECT_EQ(now->info.endpoint, before.info.endpoint);
    EXPECT_EQ(now->info.public_key, cl.w1_pub);
    EXPECT_EQ(now->info.incarnation, before.info.incarnation);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(state_of(*cl.ceo, "w1"), "alive");
  ASSERT_TRUE(cl.ceo
                  ->send("w1", msg::wrap(msg::SpawnAgent{employee("Poet", "You write."), 1}, {"ceo", "CEO"},
                                         {"w1", "Poet"}, cl.ceo->next_id()))
                  .ok());
  EXPECT_EQ(ceo_asks(cl, "w1", "Poet", "still here"), "ok: echo: still here");
}

size_t open_fds() {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator("/proc/self/fd")) ++n;
  return n;
}

// Attack: one heartbeat listing 1,100 made-up members, so the node opens a
// connection (a file descriptor) to each until it runs out. A heartbeat
// carries at most one entry per listed node, a client's none at all.
TEST(ClusterSecurity, AHeartbeatListingThousandsOfMembersIsRefusedWhole) {
  CurveCluster cl;
  ASSERT_TRUE(cl.ready());
  const size_t fds_before = open_fds();
  std::vector<msg::NodeInfo> crowd;
  for (int i = 0; i < 1100; ++i)
    crowd.push_back(claimed("fake" + std::to_string(i), "tcp://127.0.0.1:" + std::to_string(20000 + i), cl.client_pub));
  auto evil = cl.attacker("client-evil");
  auto w2_key = cl.attacker("w2", "w2");
  for (auto* g : {evil.get(), w2_key.get()}) ASSERT_TRUE(g->connect("ceo", cl.ceo->endpoint(), cl.ceo_pub).ok());
  ASSERT_TRUE(
      evil->send("ceo", msg::wrap(msg::Heartbeat{crowd[0], crowd}, {"client-evil", "node"}, {"ceo", "node"}, "h1"))
          .ok());
  msg::NodeInfo w2_self = claimed("w2", cl.w2->endpoint(), cl.w2_pub, cl.w2->incarnation());
  w2_self.capabilities = cl.config.nodes[2].capabilities;
  ASSERT_TRUE(
      w2_key->send("ceo", msg::wrap(msg::Heartbeat{w2_self, crowd}, {"w2", "node"}, {"ceo", "node"}, "h2")).ok());
  EXPECT_TRUE(eventually([&] {
    return refused(*cl.ceo, "not_a_node") >= 1 && refused(*cl.ceo, "oversized_gossip") >= 1;
  })) << cl.ceo->status().dump();
  EXPECT_EQ(cl.ceo->members().size(), 3u);
  // The two attackers' own sockets are the growth; nowhere near 1,100.
  EXPECT_LT(open_fds(), fds_before + 50);

  // Still answering clients.
  ClientOptions co;
  co.address = cl.ceo->endpoint();
  auto ck = transport::load_curve_keys(cl.keys.file("client"));
  ASSERT_TRUE(ck.ok());
  co.secret_key = ck->secret_key;
  co.public_key = ck->public_key;
  co.server_key = cl.ceo_pub;
  co.authorised_keys = {cl.ceo_pub};
  auto client = ClusterClient::connect(co);
  ASSERT_TRUE(client.ok()) << client.error().message;
  auto st = (*client)->status(std::chrono::seconds(10));
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_GE((*st)["refused"]["oversized_gossip"].get<uint64_t>(), 1u);
  EXPECT_EQ((*st)["members"].size(), 3u);
}

// A raw CURVE socket presenting "w1" as its ZMQ routing id.
zmq::socket_t routing_id_squatter(zmq::context_t& ctx, const CurveCluster& cl, const std::string& key_name) {
  auto k = transport::load_curve_keys(cl.keys.file(key_name));
  EXPECT_TRUE(k.ok());
  zmq::socket_t s(ctx, zmq::socket_type::push);
  s.set(zmq::sockopt::linger, 0);
  s.set(zmq::sockopt::routing_id, "w1");
  s.set(zmq::sockopt::curve_serverkey, cl.ceo_pub);
  s.set(zmq::sockopt::curve_publickey, k->public_key);
  s.set(zmq::sockopt::curve_secretkey, k->secret_key);
  s.connect(cl.ceo->endpoint());
  return s;
}

// Attack: a connection using the routing id "w1" with another authorised key
// (the client's, or another node's) takes over w1's link at the CEO node and
// gets the real w1 marked down. The inbound socket has no routing ids to
// take over; the envelopes are impostors, dropped and counted; w1 stays
// alive and answering throughout.
TEST(ClusterSecurity, ARoutingIdOfAnotherNodeTakesNothingOver) {
  Timeouts t;  // generous: a loaded machine must not mark w1 suspect by itself
  t.heartbeat_ms = 100;
  t.suspect_after_ms = 1500;
  t.down_after_ms = 3000;
  CurveCluster cl(t);
  ASSERT_TRUE(cl.ready());
  zmq::context_t ctx;
  zmq::socket_t as_client = routing_id_squatter(ctx, cl, "client");
  zmq::socket_t as_w2 = routing_id_squatter(ctx, cl, "w2");
  msg::NodeInfo w1_info = cl.ceo->member("w1")->info;
  const std::string hb =
      msg::encode(msg::wrap(msg::Heartbeat{w1_info, {w1_info}}, {"w1", "node"}, {"ceo", "node"}, "x"));
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(4000);  // longer than down_after_ms
  while (std::chrono::steady_clock::now() < until) {
    (void)as_client.send(zmq::buffer(hb), zmq::send_flags::dontwait);
    (void)as_w2.send(zmq::buffer(hb), zmq::send_flags::dontwait);
    ASSERT_EQ(state_of(*cl.ceo, "w1"), "alive");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_GE(cl.ceo->counters().dropped_impostor, 20u) << cl.ceo->status().dump();
  ASSERT_TRUE(cl.ceo
                  ->send("w1", msg::wrap(msg::SpawnAgent{employee("Poet", "You write."), 1}, {"ceo", "CEO"},
                                         {"w1", "Poet"}, cl.ceo->next_id()))
                  .ok());
  EXPECT_EQ(ceo_asks(cl, "w1", "Poet", "untouched"), "ok: echo: untouched");
}

// A member asks another for its status (the dashboard's per-node dropped
// frames): answered over the link between them, with the other's own gateway
// counters.
TEST(ClusterSecurity, ANodeAsksAnotherForItsStatusAndGetsItsDroppedFrames) {
  ClusterConfig c = cluster_config({node_config("a", {}, 100, true), node_config("b", {"llama3.2"})});
  auto a = start_node(c, "a");
  ASSERT_TRUE(a);
  c.seeds.push_back(Seed{a->endpoint(), ""});
  auto b = start_node(c, "b");
  ASSERT_TRUE(eventually([&] { return state_of(*a, "b") == "alive"; }));
  zmq::context_t ctx;
  zmq::socket_t junk(ctx, zmq::socket_type::push);
  junk.set(zmq::sockopt::linger, 1000);
  junk.connect(b->endpoint());
  for (int i = 0; i < 3; ++i) junk.send(zmq::buffer(std::string("\xc1 not msgpack")), zmq::send_flags::none);
  ASSERT_TRUE(eventually([&] { return b->counters().dropped_malformed >= 3; })) << b->status().dump();
  std::mutex mu;
  std::optional<Result<json>> answer;
  a->ask_status("b", 10000, [&](Result<json> r) {
    std::lock_guard<std::mutex> g(mu);
    answer = std::move(r);
  });
  ASSERT_TRUE(eventually([&] {
    std::lock_guard<std::mutex> g(mu);
    return answer.has_value();
  }));
  ASSERT_TRUE(answer->ok()) << answer->error().message;
  EXPECT_EQ((**answer)["node"], "b");
  EXPECT_GE((**answer)["gateway"]["dropped_malformed"].get<uint64_t>(), 3u) << (**answer).dump();
  EXPECT_EQ(a->counters().dropped_malformed, 0u);  // b's, not a's
}

// Clients submit and read status, under their own names and keys only: a
// status asked for someone else's key, or under a name reserved for the
// node's own links, is refused and counted.
TEST(ClusterSecurity, ClientsAnswersGoOnlyToTheirOwnKeyAndName) {
  CurveCluster cl;
  ASSERT_TRUE(cl.ready());
  auto evil = cl.attacker("client-evil");
  auto seedy = cl.attacker("seed:" + cl.ceo->endpoint());
  for (auto* g : {evil.get(), seedy.get()}) ASSERT_TRUE(g->connect("ceo", cl.ceo->endpoint(), cl.ceo_pub).ok());
  ASSERT_TRUE(evil->send("ceo", msg::wrap(msg::StatusRequest{evil->endpoint(), cl.w1_pub}, {"client-evil", "user"},
                                          {"ceo", "node"}, "s1"))
                  .ok());
  ASSERT_TRUE(seedy
                  ->send("ceo", msg::wrap(msg::StatusRequest{seedy->endpoint(), cl.client_pub},
                                          {"seed:" + cl.ceo->endpoint(), "user"}, {"ceo", "node"}, "s2"))
                  .ok());
  EXPECT_TRUE(eventually([&] {
    return refused(*cl.ceo, "client_reply_key") >= 1 && refused(*cl.ceo, "client_name") >= 1;
  })) << cl.ceo->status().dump();
  EXPECT_TRUE(cl.ready());
}

}  // namespace
}  // namespace kaisha::cluster
