#include "runtime/cluster/admission.hpp"

#include <gtest/gtest.h>

namespace kaisha::cluster {
namespace {

const std::string kCeoKey(40, 'c'), kW1Key(40, '1'), kW2Key(40, '2'), kEvilKey(40, 'e');

ClusterConfig config() {
  ClusterConfig c;
  c.source = "cluster.yaml";
  NodeConfig ceo;
  ceo.name = "ceo";
  ceo.advertise = "tcp://10.0.0.1:7101";
  ceo.public_key = kCeoKey;
  ceo.capabilities.ceo = true;
  NodeConfig w1;
  w1.name = "w1";
  w1.advertise = "tcp://10.0.0.2:7101";
  w1.public_key = kW1Key;
  w1.capabilities.models = {"llama3.2"};
  w1.capabilities.resource_units = 50;
  NodeConfig w2 = w1;
  w2.name = "w2";
  w2.advertise = "tcp://127.0.0.1:0";  // a test's port 0
  w2.public_key = kW2Key;
  c.nodes = {ceo, w1, w2};
  return c;
}

msg::NodeInfo claim(const std::string& name, const std::string& endpoint, const std::string& key) {
  msg::NodeInfo i;
  i.name = name;
  i.endpoint = endpoint;
  i.public_key = key;
  i.incarnation = 42;
  i.capabilities.models = {"everything"};
  i.capabilities.resource_units = 1e9;
  i.capabilities.ceo = true;
  return i;
}

TEST(Admission, OnlyTheTransportsWordMakesASenderANode) {
  Admission a(config());
  // With CURVE: the node its key is bound to, whatever the envelope claims.
  EXPECT_EQ(a.sending_node("w1", "w1", true), "w1");
  EXPECT_EQ(a.sending_node("client-1", "", true), "");
  EXPECT_EQ(a.sending_node("w1", "", true), "");
  // Plaintext: a listed name, or a client.
  EXPECT_EQ(a.sending_node("w1", "", false), "w1");
  EXPECT_EQ(a.sending_node("rogue", "", false), "");
}

TEST(Admission, AMembersAddressKeyAndCapabilitiesComeFromTheFile) {
  Admission a(config());
  bool overridden = false;
  auto w1 = a.member_info(claim("w1", "tcp://6.6.6.6:1", kEvilKey), nullptr, true, &overridden);
  ASSERT_TRUE(w1.ok());
  EXPECT_TRUE(overridden);
  EXPECT_EQ(w1->endpoint, "tcp://10.0.0.2:7101");
  EXPECT_EQ(w1->public_key, kW1Key);
  EXPECT_EQ(w1->capabilities.models, std::vector<std::string>{"llama3.2"});
  EXPECT_EQ(w1->capabilities.resource_units, 50);
  EXPECT_FALSE(w1->capabilities.ceo);
  EXPECT_EQ(w1->incarnation, 42);  // the wire's: it tells restarts apart

  msg::NodeInfo honest = *w1;
  auto again = a.member_info(honest, &honest, false, &overridden);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(overridden);

  auto rogue = a.member_info(claim("rogue", "tcp://6.6.6.6:1", kEvilKey), nullptr, true);
  ASSERT_FALSE(rogue.ok());
  EXPECT_EQ(rogue.error().code, "unlisted_node");
  EXPECT_NE(rogue.error().message.find("cluster.yaml"), std::string::npos);
}

TEST(Admission, APortZeroNodesAddressIsItsOwnWordNotGossips) {
  Admission a(config());
  auto first = a.member_info(claim("w2", "tcp://127.0.0.1:4001", kW2Key), nullptr, false);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->endpoint, "tcp://127.0.0.1:4001");  // unknown so far: gossip introduces it
  auto gossip = a.member_info(claim("w2", "tcp://127.0.0.1:6666", kW2Key), &*first, false);
  ASSERT_TRUE(gossip.ok());
  EXPECT_EQ(gossip->endpoint, "tcp://127.0.0.1:4001");
  auto itself = a.member_info(claim("w2", "tcp://127.0.0.1:4002", kW2Key), &*first, true);
  ASSERT_TRUE(itself.ok());
  EXPECT_EQ(itself->endpoint, "tcp://127.0.0.1:4002");  // restarted on another port
}

TEST(Admission, OnlyTheCeoNodeDirectsEmployeesAndClientsKeepOffNodeNames) {
  Admission a(config());
  EXPECT_TRUE(a.may_direct_agents("ceo"));
  EXPECT_FALSE(a.may_direct_agents("w1"));
  EXPECT_FALSE(a.may_direct_agents("rogue"));
  EXPECT_EQ(a.max_gossip(), 3u);
  EXPECT_EQ(a.client_name_refusal("client-1-1"), "");
  EXPECT_NE(a.client_name_refusal("w1"), "");
  EXPECT_NE(a.client_name_refusal("seed:tcp://10.0.0.1:7101"), "");
  EXPECT_NE(a.client_name_refusal(""), "");
}

// A key is one identity: a client reloads nothing and cancels only what it
// submitted; an operator reloads and cancels any task; nodes do neither.
TEST(Admission, OnlyOperatorsReloadAndClientsCancelOnlyTheirOwnTasks) {
  const std::string client(40, 'k'), other_client(40, 'o'), op(40, 'p');
  ClusterConfig c = config();
  c.client_keys = {client, other_client};
  c.operator_keys = {op};
  Admission a(c);
  EXPECT_TRUE(a.may_reload(op, true));
  EXPECT_FALSE(a.may_reload(client, true));
  EXPECT_FALSE(a.may_reload(kCeoKey, true));
  EXPECT_FALSE(a.may_reload("", true));
  EXPECT_TRUE(a.may_reload("", false));  // plaintext authenticates nobody
  EXPECT_TRUE(a.may_cancel(client, client));
  EXPECT_FALSE(a.may_cancel(other_client, client));
  EXPECT_FALSE(a.may_cancel(kW1Key, client));
  EXPECT_TRUE(a.may_cancel(op, client));
  EXPECT_TRUE(a.is_operator(op));
  EXPECT_FALSE(a.is_operator(client));
}

}  // namespace
}  // namespace kaisha::cluster
