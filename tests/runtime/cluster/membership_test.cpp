#include "runtime/cluster/membership.hpp"

#include <gtest/gtest.h>

namespace kaisha::cluster {
namespace {

using K = MembershipEvent::Kind;

msg::NodeInfo info(const std::string& name, int64_t incarnation) {
  msg::NodeInfo i;
  i.name = name;
  i.endpoint = "tcp://127.0.0.1:7" + std::to_string(name.size());
  i.incarnation = incarnation;
  return i;
}

std::vector<K> kinds(const std::vector<MembershipEvent>& events) {
  std::vector<K> out;
  for (const auto& e : events) out.push_back(e.kind);
  return out;
}

Timeouts timeouts() {
  Timeouts t;
  t.heartbeat_ms = 100;
  t.suspect_after_ms = 300;
  t.down_after_ms = 600;
  return t;
}

TEST(Membership, SilentNodeIsSuspectedThenDeclaredDown) {
  Membership m(info("a", 1), timeouts());
  EXPECT_EQ(kinds(m.heard_from(info("b", 1), 0)), std::vector<K>{K::joined});
  EXPECT_TRUE(m.tick(299).empty());
  EXPECT_EQ(kinds(m.tick(300)), std::vector<K>{K::suspected});
  EXPECT_EQ(m.find("b")->state, MemberState::suspect);
  EXPECT_TRUE(m.tick(599).empty());
  EXPECT_EQ(kinds(m.tick(600)), std::vector<K>{K::down});
  EXPECT_TRUE(m.tick(5000).empty());  // reported once
  EXPECT_EQ(m.peers(MemberState::down), std::vector<std::string>{"b"});
}

TEST(Membership, HeartbeatKeepsNodeAliveAndRecoversSuspect) {
  Membership m(info("a", 1), timeouts());
  m.heard_from(info("b", 1), 0);
  m.heard_from(info("b", 1), 250);
  EXPECT_TRUE(m.tick(500).empty());
  EXPECT_EQ(kinds(m.tick(560)), std::vector<K>{K::suspected});
  EXPECT_EQ(kinds(m.heard_from(info("b", 1), 570)), std::vector<K>{K::recovered});
  EXPECT_EQ(m.find("b")->state, MemberState::alive);
}

TEST(Membership, OtherTrafficKeepsAnAliveNodeAliveButRecoversNoSuspect) {
  Membership m(info("a", 1), timeouts());
  m.heard_from(info("b", 1), 0);
  EXPECT_TRUE(m.touch("b", 250));  // its envelopes arrive; its heartbeats wait behind them
  EXPECT_TRUE(m.tick(500).empty());
  EXPECT_EQ(kinds(m.tick(550)), std::vector<K>{K::suspected});
  EXPECT_FALSE(m.touch("b", 560));  // only a heartbeat brings a suspect back
  EXPECT_EQ(m.find("b")->state, MemberState::suspect);
  EXPECT_EQ(kinds(m.tick(850)), std::vector<K>{K::down});
  EXPECT_FALSE(m.touch("nobody", 900));
}

TEST(Membership, RestartedNodeRejoinsUnderItsName) {
  Membership m(info("a", 1), timeouts());
  m.heard_from(info("b", 1), 0);
  m.tick(700);  // down
  EXPECT_EQ(kinds(m.heard_from(info("b", 2), 800)), std::vector<K>{K::joined});
  EXPECT_EQ(m.find("b")->info.incarnation, 2);
  EXPECT_EQ(m.find("b")->state, MemberState::alive);
}

TEST(Membership, FastRestartReportsThePreviousLifeLost) {
  Membership m(info("a", 1), timeouts());
  m.heard_from(info("b", 1), 0);
  // Back with a new incarnation before the detector noticed it was gone.
  EXPECT_EQ(kinds(m.heard_from(info("b", 2), 100)), (std::vector<K>{K::restarted, K::joined}));
}

TEST(Membership, MessagesFromAnOlderIncarnationAreStale) {
  Membership m(info("a", 1), timeouts());
  m.heard_from(info("b", 5), 0);
  bool stale = false;
  EXPECT_TRUE(m.heard_from(info("b", 4), 550, &stale).empty());
  EXPECT_TRUE(stale);
  EXPECT_EQ(kinds(m.tick(600)), std::vector<K>{K::down});  // the stale message did not count as life
}

TEST(Membership, GossipIntroducesNodesButNeverRevivesTheDown) {
  Membership m(info("a", 1), timeouts());
  EXPECT_EQ(kinds(m.learn(info("c", 1), 0)), std::vector<K>{K::joined});
  m.tick(700);
  EXPECT_EQ(m.find("c")->state, MemberState::down);
  EXPECT_TRUE(m.learn(info("c", 1), 800).empty());  // same life: only c itself can prove it is alive
  EXPECT_EQ(m.find("c")->state, MemberState::down);
  EXPECT_TRUE(m.learn(info("c", 2), 900).empty());                               // a new life, said by someone else
  EXPECT_EQ(kinds(m.heard_from(info("c", 2), 900)), std::vector<K>{K::joined});  // said by c itself
  msg::NodeInfo gone = info("d", 1);
  gone.state = "down";
  EXPECT_TRUE(m.learn(gone, 900).empty());
  EXPECT_EQ(m.find("d"), nullptr);
}

TEST(Membership, SelfIsAlwaysAliveAndListedInOrder) {
  Membership m(info("m", 1), timeouts());
  m.heard_from(info("m", 9), 0);  // own name from outside changes nothing
  m.heard_from(info("z", 1), 0);
  m.heard_from(info("b", 1), 0);
  m.tick(10000);
  auto all = m.members();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].info.name, "b");
  EXPECT_EQ(all[1].info.name, "m");
  EXPECT_EQ(all[1].state, MemberState::alive);
  EXPECT_EQ(all[1].info.incarnation, 1);
  EXPECT_EQ(all[2].info.name, "z");
  EXPECT_EQ(m.gossip()[0].state, "down");
}

// A member removed by a reload is reported once, then neither suspected nor
// gossiped; gossip does not bring it back, its own word does once listed again.
TEST(Membership, ARemovedMemberIsGoneUntilHeardFromAgain) {
  Membership m(info("a", 1), timeouts());
  m.heard_from(info("b", 5), 0);
  m.heard_from(info("c", 1), 0);
  EXPECT_EQ(kinds(m.remove("b")), std::vector<K>{K::removed});
  EXPECT_TRUE(m.remove("b").empty());
  EXPECT_TRUE(m.remove("nobody").empty());
  EXPECT_EQ(m.find("b")->state, MemberState::gone);
  EXPECT_EQ(kinds(m.tick(5000)), std::vector<K>{K::down});  // c only
  EXPECT_EQ(m.find("b")->state, MemberState::gone);
  for (const auto& g : m.gossip()) EXPECT_NE(g.name, "b");
  EXPECT_TRUE(m.peers(MemberState::gone) == std::vector<std::string>{"b"});
  EXPECT_TRUE(m.learn(info("b", 9), 6000).empty());
  EXPECT_EQ(m.find("b")->state, MemberState::gone);
  // Its replacement (a new key, maybe an older clock) joins as a new member.
  EXPECT_EQ(kinds(m.heard_from(info("b", 2), 6000)), std::vector<K>{K::joined});
  EXPECT_EQ(m.find("b")->state, MemberState::alive);
  EXPECT_EQ(m.find("b")->info.incarnation, 2);
}

TEST(Membership, RelistReplacesAddressKeyAndCapabilitiesOnly) {
  Membership m(info("a", 1), timeouts());
  m.heard_from(info("b", 5), 0);
  msg::NodeInfo listed = info("b", 99);
  listed.endpoint = "tcp://10.0.0.9:7101";
  listed.public_key = std::string(40, 'n');
  listed.capabilities.models = {"mistral"};
  EXPECT_TRUE(m.relist(listed));
  EXPECT_FALSE(m.relist(info("zed", 1)));
  const Member* b = m.find("b");
  EXPECT_EQ(b->info.endpoint, "tcp://10.0.0.9:7101");
  EXPECT_EQ(b->info.public_key, std::string(40, 'n'));
  EXPECT_EQ(b->info.capabilities.models, std::vector<std::string>{"mistral"});
  EXPECT_EQ(b->info.incarnation, 5);
  EXPECT_EQ(b->state, MemberState::alive);
}

}  // namespace
}  // namespace kaisha::cluster
