// One company on three "hosts": network namespaces the test creates, each
// with its own address on a private bridge (veth pairs into a hub
// namespace), so every node talks over a real network interface with CURVE
// (plaintext is loopback-only). Then one node's link is taken down and back
// up: the others declare it down, and it rejoins when the link returns.
// The namespaces are always removed; without the right to create them
// (root / CAP_NET_ADMIN) the test is skipped and says why.
#include <unistd.h>

#include "tests/e2e/cluster_fixture.hpp"

namespace kaisha::e2e {
namespace {

RunResult ip(const std::vector<std::string>& args) {
  return run_process("/usr/sbin/ip", args, {}, std::chrono::seconds(20));
}

// Namespaces hub, n1, n2, n3; node i has 10.77.<net>.i on eth0.
class Hosts {
 public:
  Hosts() : prefix_("kh" + std::to_string(getpid()) + "-"), net_(std::to_string(100 + getpid() % 100)) {}
  ~Hosts() {
    for (const auto& ns : created_) ip({"netns", "del", ns});
  }
  // "" on success, else what failed.
  std::string create(int count) {
    if (access("/usr/sbin/ip", X_OK) != 0) return "/usr/sbin/ip is missing (iproute2)";
    const std::string hub = name("hub");
    if (std::string e = run({"netns", "add", hub}); !e.empty()) return e;
    created_.push_back(hub);
    if (std::string e = run({"-n", hub, "link", "add", "br0", "type", "bridge"}); !e.empty()) return e;
    if (std::string e = run({"-n", hub, "link", "set", "br0", "up"}); !e.empty()) return e;
    for (int i = 1; i <= count; ++i) {
      const std::string ns = name("n" + std::to_string(i)), peer = "vh" + std::to_string(i);
      if (std::string e = run({"netns", "add", ns}); !e.empty()) return e;
      created_.push_back(ns);
      for (const auto& cmd : std::vector<std::vector<std::string>>{
               {"link", "add", "eth0", "netns", ns, "type", "veth", "peer", "name", peer, "netns", hub},
               {"-n", ns, "addr", "add", address(i) + "/24", "dev", "eth0"},
               {"-n", ns, "link", "set", "eth0", "up"},
               {"-n", ns, "link", "set", "lo", "up"},
               {"-n", hub, "link", "set", peer, "master", "br0"},
               {"-n", hub, "link", "set", peer, "up"}})
        if (std::string e = run(cmd); !e.empty()) return e;
    }
    return "";
  }
  std::string name(const std::string& suffix) const { return prefix_ + suffix; }
  std::string address(int i) const { return "10.77." + net_ + "." + std::to_string(i); }
  std::vector<std::string> exec_in(int i) const { return {"ip", "netns", "exec", name("n" + std::to_string(i))}; }
  std::string link(int i, bool up) {
    return run({"-n", name("n" + std::to_string(i)), "link", "set", "eth0", up ? "up" : "down"});
  }

 private:
  std::string run(const std::vector<std::string>& args) {
    RunResult r = ip(args);
    if (r.exit_code == 0) return "";
    std::string cmd = "ip";
    for (const auto& a : args) cmd += " " + a;
    return cmd + ": " + r.err;
  }
  std::string prefix_, net_;
  std::vector<std::string> created_;
};

class ClusterNetnsTest : public ClusterE2eTest {
 protected:
  // The public key exactly as keygen prints it, to paste into cluster.yaml.
  std::string keygen(const std::string& name) {
    RunResult r = kaisha({"keygen", "--out", dir_.file(name + ".key")});
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    std::string key = r.out.substr(0, r.out.find('\n'));
    return key;
  }
  std::string member_state(const RunResult& status, const std::string& name) {
    json s = json::parse(status.out, nullptr, false);
    if (s.is_discarded()) return "?";
    for (const auto& m : s.value("members", json::array()))
      if (m.value("name", "") == name) return m.value("state", "?");
    return "unknown";
  }
};

TEST_F(ClusterNetnsTest, ThreeHostsRunTheTaskAndALinkDownAndUpIsSurvived) {
  Hosts hosts;
  if (std::string why = hosts.create(3); !why.empty())
    GTEST_SKIP() << "cannot create network namespaces here (needs root or CAP_NET_ADMIN): " << why;

  // The mock LLM runs on host 1, reachable from the others over the bridge.
  const std::string script = dir_.write("mock.yaml", poet_lawyer_scenario());
  const int mock_port = 18000 + getpid() % 1000;
  BackgroundProcess mock(
      KAISHA_EXE, {"mock-llm", "--script", script, "--host", hosts.address(1), "--port", std::to_string(mock_port)},
      clean_env(), dir_.file("mock.log"), hosts.exec_in(1));
  ASSERT_TRUE(wait_for([&] { return mock.log().find("listening") != std::string::npos; }, std::chrono::seconds(20)))
      << mock.log();
  const std::string base = "http://" + hosts.address(1) + ":" + std::to_string(mock_port);
  const std::string company =
      dir_.write("company.yaml", "store: " + dir_.file("cluster.db") +
                                     "\nceo: { model: openai:ceo-model }\nproviders:\n"
                                     "  ollama: { base_url: " +
                                     base +
                                     " }\n"
                                     "  openai: { base_url: " +
                                     base + "/v1, api_key: k }\nbudget: { resource_total: 1000 }\n");

  const std::string k1 = keygen("n1"), k2 = keygen("n2"), k3 = keygen("n3"), kc = keygen("client");
  const int port = 7101;
  std::ostringstream y;
  y << "company: " << company << "\ncluster:\n  seeds: [tcp://" << hosts.address(1) << ":" << port << "]\n"
    << "  authorised_keys: [" << kc << "]\nnodes:\n"
    << "  n1: { bind: tcp://" << hosts.address(1) << ":" << port << ", key_file: n1.key, public_key: " << k1
    << ", ceo: true, models: [ceo-model] }\n"
    << "  n2: { bind: tcp://" << hosts.address(2) << ":" << port << ", key_file: n2.key, public_key: " << k2
    << ", models: [llama3.2] }\n"
    << "  n3: { bind: tcp://" << hosts.address(3) << ":" << port << ", key_file: n3.key, public_key: " << k3
    << ", models: [mistral] }\n";
  const std::string cluster = dir_.write("cluster.yaml", y.str());
  for (int i = 1; i <= 3; ++i) start_node(cluster, "n" + std::to_string(i), hosts.exec_in(i));

  const std::string ceo = hosts.address(1) + ":" + std::to_string(port);
  auto client = [&](std::vector<std::string> args) {
    std::vector<std::string> full = {"netns", "exec", hosts.name("n1"), KAISHA_EXE};
    full.insert(full.end(), args.begin(), args.end());
    full.insert(full.end(), {"--cluster", ceo, "--config", cluster, "--key", dir_.file("client.key"), "--listen",
                             "tcp://" + hosts.address(1) + ":0", "--json"});
    return run_process("/usr/sbin/ip", full, clean_env(), std::chrono::seconds(90));
  };
  auto status = [&] { return client({"cluster", "status", "--timeout", "3"}); };
  ASSERT_TRUE(wait_for(
      [&] {
        RunResult s = status();
        return member_state(s, "n2") == "alive" && member_state(s, "n3") == "alive";
      },
      std::chrono::seconds(30)))
      << status().describe() << node_logs();

  RunResult r = client({"submit", "--timeout", "60", "Write a river haiku and check clause 7"});
  ASSERT_EQ(r.exit_code, 0) << r.describe() << node_logs();
  EXPECT_EQ(r.result()["answer"], "Report: the poet and the lawyer answered");
  json s = json::parse(status().out, nullptr, false);
  std::map<std::string, std::string> where;
  for (const auto& a : s["agents"]) where[a["name"]] = a["node"];
  EXPECT_EQ(where["Poet"], "n2");
  EXPECT_EQ(where["Lawyer"], "n3");

  // Link down: n3 is declared down; link up: it is back, same life.
  ASSERT_EQ(hosts.link(3, false), "");
  EXPECT_TRUE(wait_for([&] { return member_state(status(), "n3") == "down"; }, std::chrono::seconds(20)))
      << node_logs();
  ASSERT_EQ(hosts.link(3, true), "");
  EXPECT_TRUE(wait_for([&] { return member_state(status(), "n3") == "alive"; }, std::chrono::seconds(30)))
      << node_logs();
  EXPECT_EQ(member_state(status(), "n2"), "alive");
  for (auto& n : nodes_) n->stop();  // before the namespaces go
  mock.stop();
}

}  // namespace
}  // namespace kaisha::e2e
