// Helpers for the in-process cluster tests: real nodes (real gateways on
// loopback tcp, real threads) with fast failure-detection timeouts, a
// scripted mock LLM over real HTTP, and polling with a wall-clock cap so a
// bug fails the test instead of hanging it.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "actors/system/provider_chat_client.hpp"
#include "cluster/cluster_node.hpp"
#include "runtime/config/config_loader.hpp"
#include "runtime/mockllm/mock_llm_server.hpp"
#include "runtime/mockllm/mock_script.hpp"
#include "transport/curve_keys.hpp"

namespace kaisha::cluster::testing {

// Polls `pred` until it holds or `cap` passed; true if it held.
inline bool eventually(const std::function<bool()>& pred, std::chrono::milliseconds cap = std::chrono::seconds(10)) {
  const auto until = std::chrono::steady_clock::now() + cap;
  while (std::chrono::steady_clock::now() < until) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return pred();
}

inline Timeouts fast_timeouts() {
  Timeouts t;
  t.heartbeat_ms = 50;
  t.suspect_after_ms = 200;
  t.down_after_ms = 400;
  return t;
}

inline NodeConfig node_config(const std::string& name, std::vector<std::string> models = {}, double units = 100,
                              bool ceo = false) {
  NodeConfig n;
  n.name = name;
  n.bind = "tcp://127.0.0.1:0";
  n.advertise = n.bind;
  n.capabilities.models = std::move(models);
  n.capabilities.resource_units = units;
  n.capabilities.ceo = ceo;
  return n;
}

// A plaintext loopback cluster whose first node is the seed.
inline ClusterConfig cluster_config(std::vector<NodeConfig> nodes, const std::string& seed = {}) {
  ClusterConfig c;
  c.source = "<test>";
  c.allow_plaintext = true;
  c.timeouts = fast_timeouts();
  c.nodes = std::move(nodes);
  if (!seed.empty()) c.seeds.push_back(Seed{seed, ""});
  return c;
}

// The mock LLM answering every chat "echo: <last user message>", after
// `latency_ms` for prompts containing "slow".
inline std::unique_ptr<mockllm::MockLlmServer> start_mock(int slow_latency_ms = 0) {
  std::string script =
      "rules:\n"
      "  - name: slow\n"
      "    match: { last_user: \"re:slow\" }\n"
      "    reply: { text: \"echo: {{last_user}}\", latency_ms: " +
      std::to_string(slow_latency_ms) +
      " }\n"
      "  - name: echo\n"
      "    reply: { text: \"echo: {{last_user}}\" }\n";
  auto parsed = mockllm::parse_mock_script(script, "<test mock>");
  if (!parsed.ok()) {
    ADD_FAILURE() << parsed.error().message;
    return nullptr;
  }
  auto m = std::make_unique<mockllm::MockLlmServer>(std::move(parsed).value());
  auto port = m->start("127.0.0.1", 0);
  if (!port.ok()) ADD_FAILURE() << port.error().message;
  return m;
}

inline config::Config company_config(int mock_port) {
  const std::string yaml = "providers:\n  ollama: { base_url: http://127.0.0.1:" + std::to_string(mock_port) +
                           ", timeout_ms: 20000 }\nretry: { max_attempts: 1 }\n";
  auto c = config::parse_config(yaml, "<test company>");
  if (!c.ok()) ADD_FAILURE() << c.error().message;
  return c.ok() ? *c : config::default_config();
}

// Starts node `name` of `cluster`; with `company`, it hosts employees.
inline std::unique_ptr<ClusterNode> start_node(const ClusterConfig& cluster, const std::string& name,
                                               const config::Config* company = nullptr, int64_t incarnation = 0,
                                               const std::string& journal_path = {}) {
  NodeOptions o;
  o.journal_path = journal_path;
  o.cluster = cluster;
  o.name = name;
  o.tick_ms = 20;
  o.incarnation = incarnation;
  // KAISHA_TEST_LOG=1 shows the nodes' logs when a test needs explaining.
  if (std::getenv("KAISHA_TEST_LOG"))
    o.log = [](const std::string& l) { std::fprintf(stderr, "%s\n", l.c_str()); };
  else
    o.log = [](const std::string&) {};
  if (company) {
    o.company = *company;
    o.chat = actors::make_provider_chat_client(*company);
  }
  auto n = ClusterNode::start(std::move(o));
  if (!n.ok()) {
    ADD_FAILURE() << n.error().message;
    return nullptr;
  }
  return std::move(n).value();
}

inline std::string state_of(const ClusterNode& viewer, const std::string& name) {
  auto m = viewer.member(name);
  return m ? to_string(m->state) : "unknown";
}

// A temporary directory of CURVE key files (NAME.key), removed at the end.
struct KeyDir {
  std::filesystem::path dir;
  KeyDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "kaisha-cluster-keys-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    dir = tmpl;
  }
  ~KeyDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
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

inline NodeConfig curve_node(const std::string& name, const KeyDir& keys, const std::string& public_key) {
  NodeConfig n = node_config(name);
  n.key_file = keys.file(name);
  n.public_key = public_key;
  return n;
}

}  // namespace kaisha::cluster::testing
