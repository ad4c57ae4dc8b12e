// Gateway with CurveZMQ: authorised nodes talk, everybody else is refused at
// the handshake (their envelopes never reach on_receive), and plaintext is
// confined to loopback.
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "transport/curve_keys.hpp"
#include "transport/gateway.hpp"
#include "tests/transport/test_support.hpp"

namespace kaisha::transport {
namespace {

using namespace std::chrono_literals;
using testing::Inbox;
using testing::make_envelope;
using testing::plaintext_options;
using testing::wait_until;

GatewayOptions curve_options(const std::string& node, const CurveKeyPair& keys, std::vector<std::string> authorised) {
  GatewayOptions o;
  o.node = node;
  o.bind = "tcp://127.0.0.1:0";
  o.secret_key = keys.secret_key;
  o.authorised_keys = std::move(authorised);
  o.linger_ms = 200;
  o.log = [](std::string_view) {};
  return o;
}

// Records on_peer_error reports (called on the I/O thread).
class PeerErrors {
 public:
  void attach(Gateway& g) {
    g.on_peer_error([this](const std::string& peer, const Error& e) {
      std::lock_guard<std::mutex> l(mu_);
      items_.emplace_back(peer, e);
    });
  }
  std::vector<std::pair<std::string, Error>> items() const {
    std::lock_guard<std::mutex> l(mu_);
    return items_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::pair<std::string, Error>> items_;
};

class GatewayCurve : public ::testing::Test {
 protected:
  void SetUp() override {
    a_keys = *generate_curve_keypair();
    b_keys = *generate_curve_keypair();
    c_keys = *generate_curve_keypair();
  }
  CurveKeyPair a_keys, b_keys, c_keys;
};

TEST_F(GatewayCurve, AuthorisedNodesExchangeBothWays) {
  // Before the gateways, so destroyed after their I/O threads stop calling them.
  Inbox at_a, at_b;
  PeerErrors a_errors;
  Gateway a, b;
  at_a.attach(a);
  at_b.attach(b);
  auto ea = a.start(curve_options("a", a_keys, {b_keys.public_key}));
  auto eb = b.start(curve_options("b", b_keys, {a_keys.public_key}));
  ASSERT_TRUE(ea.ok()) << ea.error().message;
  ASSERT_TRUE(eb.ok()) << eb.error().message;
  a_errors.attach(a);
  ASSERT_TRUE(a.connect("b", *eb, b_keys.public_key).ok());
  ASSERT_TRUE(b.connect("a", *ea, a_keys.public_key).ok());
  ASSERT_TRUE(a.send("b", make_envelope("1", "a", "b", "to b")).ok());
  ASSERT_TRUE(b.send("a", make_envelope("2", "b", "a", "to a")).ok());
  ASSERT_TRUE(wait_until([&] { return at_a.size() == 1 && at_b.size() == 1; }));
  EXPECT_EQ(at_b.items()[0].payload, "to b");
  EXPECT_EQ(at_a.items()[0].payload, "to a");
  EXPECT_EQ(a.counters().auth_rejected, 0u);
  EXPECT_EQ(b.counters().auth_rejected, 0u);
  EXPECT_TRUE(a_errors.items().empty());
  EXPECT_EQ(a.counters().handshake_failures, 0u);
}

TEST_F(GatewayCurve, UnauthorisedKeyIsRefusedAndItsMessagesNeverArrive) {
  // Before the gateways, so destroyed after their I/O threads stop calling them.
  Inbox at_a;
  PeerErrors c_errors;
  Gateway a, c;
  at_a.attach(a);
  c_errors.attach(c);
  auto ea = a.start(curve_options("a", a_keys, {b_keys.public_key}));  // only b may enter
  ASSERT_TRUE(ea.ok());
  ASSERT_TRUE(c.start(curve_options("c", c_keys, {})).ok());
  ASSERT_TRUE(c.connect("a", *ea, a_keys.public_key).ok());
  ASSERT_TRUE(c.send("a", make_envelope("intruder", "c", "a")).ok());
  ASSERT_TRUE(wait_until([&] { return a.counters().auth_rejected >= 1; }));
  // The refused node is told why, and told once.
  ASSERT_TRUE(wait_until([&] { return c.counters().handshake_failures >= 1; }));
  std::this_thread::sleep_for(300ms);
  auto errors = c_errors.items();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].first, "a");
  EXPECT_EQ(errors[0].second.code, "handshake");
  EXPECT_NE(errors[0].second.message.find("authorised"), std::string::npos) << errors[0].second.message;
  EXPECT_EQ(at_a.size(), 0u);
  EXPECT_EQ(a.counters().received, 0u);
}

TEST_F(GatewayCurve, AnAuthorisedKeyCannotSendUnderAnotherNodesName) {
  CurveKeyPair d_keys = *generate_curve_keypair();  // a client's: authorised, bound to no name
  // Before the gateways, so destroyed after their I/O threads stop calling them.
  Inbox at_a;
  Gateway a;
  at_a.attach(a);
  auto o = curve_options("a", a_keys, {b_keys.public_key, c_keys.public_key, d_keys.public_key});
  o.key_names = {{a_keys.public_key, "a"}, {b_keys.public_key, "b"}, {c_keys.public_key, "c"}};
  auto ea = a.start(o);
  ASSERT_TRUE(ea.ok()) << ea.error().message;
  // Node c names its gateway "b"; a client names itself "c"; b and another
  // client are honest.
  Gateway impostor_node, impostor_client, b, client;
  ASSERT_TRUE(impostor_node.start(curve_options("b", c_keys, {})).ok());
  ASSERT_TRUE(impostor_client.start(curve_options("c", d_keys, {})).ok());
  ASSERT_TRUE(b.start(curve_options("b", b_keys, {})).ok());
  ASSERT_TRUE(client.start(curve_options("client-7", d_keys, {})).ok());
  ASSERT_TRUE(impostor_node.connect("a", *ea, a_keys.public_key).ok());
  ASSERT_TRUE(impostor_client.connect("a", *ea, a_keys.public_key).ok());
  ASSERT_TRUE(impostor_node.send("a", make_envelope("forged-by-c", "b", "a")).ok());
  ASSERT_TRUE(impostor_client.send("a", make_envelope("forged-by-client", "c", "a")).ok());
  ASSERT_TRUE(wait_until([&] { return a.counters().dropped_impostor == 2; }));
  ASSERT_TRUE(b.connect("a", *ea, a_keys.public_key).ok());
  ASSERT_TRUE(client.connect("a", *ea, a_keys.public_key).ok());
  ASSERT_TRUE(b.send("a", make_envelope("from-b", "b", "a")).ok());
  ASSERT_TRUE(client.send("a", make_envelope("from-client", "client-7", "a")).ok());
  ASSERT_TRUE(wait_until([&] { return at_a.size() == 2; }));
  std::set<std::string> ids;
  for (const auto& e : at_a.items()) ids.insert(e.id);
  EXPECT_EQ(ids, (std::set<std::string>{"from-b", "from-client"}));
  EXPECT_EQ(a.counters().dropped_impostor, 2u);
}

// cluster.yaml re-read: set_keys() lets a new key in at its next handshake,
// and a key taken off the list speaks no more, even on the connection it
// made before (counted, never delivered); a name moved to a new key is that
// key's alone.
TEST_F(GatewayCurve, KeysReplacedLiveAdmitTheNewAndSilenceTheRemoved) {
  // Before the gateways, so destroyed after their I/O threads stop calling them.
  Inbox at_a;
  Gateway a, b, c;
  at_a.attach(a);
  auto o = curve_options("a", a_keys, {b_keys.public_key});
  o.key_names = {{b_keys.public_key, "b"}};
  auto ea = a.start(o);
  ASSERT_TRUE(ea.ok()) << ea.error().message;
  ASSERT_TRUE(b.start(curve_options("b", b_keys, {})).ok());
  ASSERT_TRUE(c.start(curve_options("b", c_keys, {})).ok());  // b's replacement, under a new key
  ASSERT_TRUE(b.connect("a", *ea, a_keys.public_key).ok());
  ASSERT_TRUE(c.connect("a", *ea, a_keys.public_key).ok());
  ASSERT_TRUE(b.send("a", make_envelope("old-1", "b", "a")).ok());
  ASSERT_TRUE(wait_until([&] { return at_a.size() == 1 && a.counters().auth_rejected >= 1; }));

  ASSERT_TRUE(a.set_keys({c_keys.public_key}, {{c_keys.public_key, "b"}}).ok());
  EXPECT_FALSE(a.set_keys({"not a key"}, {}).ok());  // refused whole, the list in force stays
  // libzmq never retries a connection refused at the handshake: c connects again.
  ASSERT_TRUE(c.disconnect("a").ok());
  ASSERT_TRUE(c.connect("a", *ea, a_keys.public_key).ok());
  ASSERT_TRUE(b.send("a", make_envelope("old-2", "b", "a")).ok());
  ASSERT_TRUE(c.send("a", make_envelope("new-1", "b", "a")).ok());
  ASSERT_TRUE(wait_until([&] { return at_a.size() == 2 && a.counters().dropped_unauthorised >= 1; }))
      << at_a.size() << " " << a.counters().dropped_unauthorised;
  std::set<std::string> ids;
  for (const auto& e : at_a.items()) ids.insert(e.id);
  EXPECT_EQ(ids, (std::set<std::string>{"old-1", "new-1"}));
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(at_a.size(), 2u);

  Gateway plain;
  ASSERT_TRUE(plain.start(plaintext_options("p")).ok());
  EXPECT_FALSE(plain.set_keys({}, {}).ok());
}

TEST_F(GatewayCurve, ClientWithTheWrongServerKeyNeverDelivers) {
  // Before the gateways, so destroyed after their I/O threads stop calling them.
  Inbox at_a;
  PeerErrors b_errors;
  Gateway a, b;
  at_a.attach(a);
  b_errors.attach(b);
  auto ea = a.start(curve_options("a", a_keys, {b_keys.public_key}));
  ASSERT_TRUE(ea.ok());
  ASSERT_TRUE(b.start(curve_options("b", b_keys, {})).ok());
  // b holds an authorised key but expects someone else's server key: the
  // handshake cannot complete (this is what protects b from an impostor).
  ASSERT_TRUE(b.connect("a", *ea, c_keys.public_key).ok());
  ASSERT_TRUE(b.send("a", make_envelope("x", "b", "a")).ok());
  std::this_thread::sleep_for(500ms);
  EXPECT_EQ(at_a.size(), 0u);
  // zmq retries the handshake every reconnect interval; the sender hears once.
  ASSERT_TRUE(wait_until([&] { return b.counters().handshake_failures >= 2; }));
  auto errors = b_errors.items();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].first, "a");
  EXPECT_EQ(errors[0].second.code, "handshake");
}

TEST_F(GatewayCurve, PlaintextNodeCannotTalkToACurveNode) {
  // Before the gateways, so destroyed after their I/O threads stop calling them.
  Inbox at_a;
  PeerErrors d_errors;
  Gateway a, d;
  at_a.attach(a);
  d_errors.attach(d);
  auto ea = a.start(curve_options("a", a_keys, {b_keys.public_key}));
  ASSERT_TRUE(ea.ok());
  ASSERT_TRUE(d.start(plaintext_options("d")).ok());
  ASSERT_TRUE(d.connect("a", *ea).ok());
  ASSERT_TRUE(d.send("a", make_envelope("plain", "d", "a")).ok());
  ASSERT_TRUE(wait_until([&] { return !d_errors.items().empty(); }));
  EXPECT_EQ(d_errors.items()[0].first, "a");
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(at_a.size(), 0u);
  EXPECT_EQ(a.counters().received, 0u);
}

TEST_F(GatewayCurve, ConnectNeedsAValidPeerKey) {
  Gateway a;
  auto ea = a.start(curve_options("a", a_keys, {}));
  ASSERT_TRUE(ea.ok());
  auto st = a.connect("b", *ea);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, "config");
  EXPECT_NE(st.error().message.find("public key"), std::string::npos);
}

TEST_F(GatewayCurve, StartRejectsBadKeys) {
  Gateway g;
  auto o = curve_options("g", a_keys, {"not-a-key"});
  auto r = g.start(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("authorised key #1"), std::string::npos) << r.error().message;
  o = curve_options("g", a_keys, {});
  o.public_key = b_keys.public_key;
  r = g.start(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("does not belong"), std::string::npos);
}

TEST(GatewayPlaintext, RefusedOnANonLoopbackBindAddress) {
  for (const char* bind : {"tcp://0.0.0.0:0", "tcp://*:0", "tcp://[::]:0"}) {
    Gateway g;
    auto o = plaintext_options("g");
    o.bind = bind;
    auto r = g.start(o);
    ASSERT_FALSE(r.ok()) << bind;
    EXPECT_EQ(r.error().code, "config");
    EXPECT_NE(r.error().message.find("loopback"), std::string::npos) << r.error().message;
    EXPECT_FALSE(g.running());
  }
}

TEST(GatewayPlaintext, RefusedUnlessExplicitlyAllowed) {
  Gateway g;
  auto o = plaintext_options("g");
  o.allow_plaintext = false;
  auto r = g.start(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("kaisha keygen"), std::string::npos) << r.error().message;
}

TEST(GatewayPlaintext, ConnectToANetworkAddressIsRefused) {
  Gateway g;
  ASSERT_TRUE(g.start(plaintext_options("g")).ok());
  auto st = g.connect("far", "tcp://192.0.2.7:5555");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("loopback"), std::string::npos);
}

}  // namespace
}  // namespace kaisha::transport
