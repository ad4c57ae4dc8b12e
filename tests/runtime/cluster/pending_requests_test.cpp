#include "runtime/cluster/pending_requests.hpp"

#include <gtest/gtest.h>

#include <memory>

namespace kaisha::cluster {
namespace {

struct Outcome {
  int calls = 0;
  std::string code;  // "" = reply
  std::string payload;
};

PendingRequests::Callback record(std::shared_ptr<Outcome> o) {
  return [o](Result<msg::Envelope> r) {
    ++o->calls;
    if (r.ok())
      o->payload = r->payload;
    else
      o->code = r.error().code;
  };
}

msg::Envelope reply(const std::string& correlation, const std::string& from, const std::string& payload) {
  msg::Envelope e;
  e.id = "r-" + correlation;
  e.correlation = correlation;
  e.from.node = from;
  e.payload = payload;
  return e;
}

TEST(PendingRequests, ReplyEndsTheRequestOnce) {
  PendingRequests p;
  auto o = std::make_shared<Outcome>();
  p.add("1", "b", 1000, record(o));
  EXPECT_TRUE(p.complete(reply("1", "b", "hi")));
  EXPECT_FALSE(p.complete(reply("1", "b", "again")));  // duplicate dropped
  EXPECT_EQ(p.expire(5000), 0u);
  EXPECT_EQ(o->calls, 1);
  EXPECT_EQ(o->payload, "hi");
}

TEST(PendingRequests, OnlyTheAskedNodeMayAnswer) {
  PendingRequests p;
  auto o = std::make_shared<Outcome>();
  p.add("1", "b", 0, record(o));
  EXPECT_FALSE(p.complete(reply("1", "c", "forged")));
  EXPECT_EQ(o->calls, 0);
  EXPECT_EQ(p.size(), 1u);
}

TEST(PendingRequests, NodeDownFailsOnlyThatNodesRequests) {
  PendingRequests p;
  auto b1 = std::make_shared<Outcome>(), b2 = std::make_shared<Outcome>(), c = std::make_shared<Outcome>();
  p.add("1", "b", 0, record(b1));
  p.add("2", "b", 0, record(b2));
  p.add("3", "c", 0, record(c));
  EXPECT_EQ(p.fail_node("b", "node 'b' is down"), 2u);
  EXPECT_EQ(b1->code, "node_down");
  EXPECT_EQ(b2->code, "node_down");
  EXPECT_EQ(c->calls, 0);
  EXPECT_EQ(p.size(), 1u);
}

TEST(PendingRequests, DeadlinesExpireWithTimeout) {
  PendingRequests p;
  auto early = std::make_shared<Outcome>(), late = std::make_shared<Outcome>(), never = std::make_shared<Outcome>();
  p.add("1", "b", 100, record(early));
  p.add("2", "b", 300, record(late));
  p.add("3", "b", 0, record(never));  // no deadline
  EXPECT_EQ(p.expire(100), 1u);
  EXPECT_EQ(early->code, "timeout");
  EXPECT_EQ(late->calls, 0);
  EXPECT_EQ(p.expire(1000000), 1u);
  EXPECT_EQ(never->calls, 0);
  EXPECT_TRUE(p.fail("3", Error{"backpressure", "full"}));
  EXPECT_EQ(never->code, "backpressure");
  EXPECT_FALSE(p.fail("3", Error{"x", "y"}));
}

}  // namespace
}  // namespace kaisha::cluster
