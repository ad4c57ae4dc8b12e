#include "runtime/cluster/config_reload.hpp"

#include <gtest/gtest.h>

#include <functional>

namespace kaisha::cluster {
namespace {

NodeConfig node(const std::string& name, const std::string& port, bool ceo = false) {
  NodeConfig n;
  n.name = name;
  n.bind = n.advertise = "tcp://10.0.0.1:" + port;
  n.public_key = std::string(40, name[0]);
  n.capabilities.ceo = ceo;
  return n;
}

ClusterConfig running() {
  ClusterConfig c;
  c.source = "cluster.yaml";
  c.nodes = {node("ceo", "7101", true), node("w1", "7102"), node("w2", "7103"), node("x3", "7104")};
  return c;
}

TEST(ConfigReload, SaysWhichNodesWereAddedRemovedReKeyedOrChanged) {
  ClusterConfig next = running();
  next.nodes.erase(next.nodes.begin() + 1);          // w1 removed
  next.nodes[1].public_key = std::string(40, 'N');   // w2 re-keyed
  next.nodes[2].capabilities.models = {"llama3.2"};  // x3 changed
  next.nodes.push_back(node("y4", "7105"));          // y4 added
  auto c = plan_reload(running(), next, "ceo");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->added, std::vector<std::string>{"y4"});
  EXPECT_EQ(c->removed, std::vector<std::string>{"w1"});
  EXPECT_EQ(c->rekeyed, std::vector<std::string>{"w2"});
  EXPECT_EQ(c->changed, std::vector<std::string>{"x3"});
  EXPECT_FALSE(c->empty());
  auto same = plan_reload(running(), running(), "w1");
  ASSERT_TRUE(same.ok());
  EXPECT_TRUE(same->empty());
}

TEST(ConfigReload, WhatTheRunningNodeWasBuiltWithCannotChangeLive) {
  struct Case {
    std::function<void(ClusterConfig&)> edit;
    std::string expect;
  };
  const Case cases[] = {
      {[](ClusterConfig& c) { c.nodes.erase(c.nodes.begin() + 1); },
       "cluster.yaml: nodes: this node ('w1') is no longer listed"},
      {[](ClusterConfig& c) { c.nodes[1].bind = "tcp://10.0.0.1:9999"; },
       "cluster.yaml: nodes.w1.bind: its own bind address"},
      {[](ClusterConfig& c) { c.nodes[1].http = "127.0.0.1:9464"; },
       "cluster.yaml: nodes.w1.http: its own HTTP address"},
      {[](ClusterConfig& c) { c.nodes[1].public_key = std::string(40, 'Z'); }, "nodes.w1.public_key: its own key"},
      {[](ClusterConfig& c) { c.nodes[1].capabilities.resource_units = 1; }, "nodes.w1: its own capabilities"},
      {[](ClusterConfig& c) {
         c.nodes[0].capabilities.ceo = false;
         c.nodes[2].capabilities.ceo = true;
       },
       "nodes.w2.ceo: which node runs the CEO"},
      {[](ClusterConfig& c) { c.allow_plaintext = true; }, "cluster.allow_plaintext"},
      {[](ClusterConfig& c) { c.max_frame_bytes = 1 << 20; }, "cluster.max_frame_bytes"},
      {[](ClusterConfig& c) { c.timeouts.down_after_ms = 9000; }, "the failure detector's timing"},
      {[](ClusterConfig& c) { c.company_config = "/other.yaml"; }, "company: the company file"},
  };
  for (const auto& k : cases) {
    ClusterConfig next = running();
    k.edit(next);
    auto c = plan_reload(running(), next, "w1");
    ASSERT_FALSE(c.ok()) << k.expect;
    EXPECT_EQ(c.error().code, "config");
    EXPECT_NE(c.error().message.find(k.expect), std::string::npos) << c.error().message;
    // It says what to do instead.
    EXPECT_TRUE(c.error().message.find("restart the node") != std::string::npos ||
                c.error().message.find("stop it instead") != std::string::npos)
        << c.error().message;
  }
}

}  // namespace
}  // namespace kaisha::cluster
