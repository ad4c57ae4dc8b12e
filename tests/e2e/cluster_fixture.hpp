// Multi-process cluster tests: real `kaisha node` processes (one per node,
// started in the background, killed with SIGKILL when a test wants a crash),
// `kaisha submit` / `kaisha cluster status` against them, and the scripted
// mock LLM of E2eTest serving every node's model calls over HTTP.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/e2e_fixture.hpp"

namespace kaisha::e2e {

// A background child process whose stdout and stderr go to one log file.
class BackgroundProcess {
 public:
  BackgroundProcess(const std::string& exe, const std::vector<std::string>& args,
                    const std::map<std::string, std::optional<std::string>>& env, std::string log_path,
                    const std::vector<std::string>& prefix = {})
      : log_(std::move(log_path)) {
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      int fd = open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
        close(fd);
      }
      int devnull = open("/dev/null", O_RDONLY);
      if (devnull >= 0) dup2(devnull, 0);
      for (const auto& [k, v] : env) {
        if (v)
          setenv(k.c_str(), v->c_str(), 1);
        else
          unsetenv(k.c_str());
      }
      // `prefix` runs the binary through another program (ip netns exec NS ...).
      std::vector<std::string> all = prefix;
      all.push_back(exe);
      all.insert(all.end(), args.begin(), args.end());
      std::vector<char*> argv;
      for (auto& a : all) argv.push_back(a.data());
      argv.push_back(nullptr);
      execvp(argv[0], argv.data());
      _exit(127);
    }
  }
  ~BackgroundProcess() { stop(); }
  BackgroundProcess(const BackgroundProcess&) = delete;
  BackgroundProcess& operator=(const BackgroundProcess&) = delete;

  // kill -9: the node vanishes without a word, like a crashed machine.
  void kill9() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  // SIGTERM, then SIGKILL after 10 s.
  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    for (int i = 0; i < 1000; ++i) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    kill9();
  }
  void signal(int sig) {
    if (pid_ > 0) ::kill(pid_, sig);
  }
  // Waits up to `cap` for the process to exit: its exit code (128 + signal
  // when a signal ended it), or -1 if it still runs.
  int wait_exit(std::chrono::milliseconds cap) {
    const auto until = std::chrono::steady_clock::now() + cap;
    while (pid_ > 0 && std::chrono::steady_clock::now() < until) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return -1;
  }
  bool running() const { return pid_ > 0; }
  std::string log() const {
    std::ifstream in(log_);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

 private:
  std::string log_;
  pid_t pid_ = -1;
};

inline bool wait_for(const std::function<bool()>& pred, std::chrono::milliseconds cap) {
  const auto until = std::chrono::steady_clock::now() + cap;
  while (std::chrono::steady_clock::now() < until) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return pred();
}

struct ClusterNodeSpec {
  std::string name;
  std::string address = "127.0.0.1";  // where it binds and is reached
  int port = 0;                       // 0: a free loopback port is picked
  std::vector<std::string> models;
  double units = 100;
  bool ceo = false;
  std::vector<std::string> tags;
  std::string http;  // the node's `http` address in cluster.yaml; "" = none
};

// The CEO hires a poet (llama3.2) and a lawyer (mistral), asks both, then
// answers with what it was told (the loopback and the netns tests). The
// employees' models cost money here so the expense ledger has something to
// agree on.
inline std::string poet_lawyer_scenario(int poet_latency_ms = 0) {
  return R"(
rules:
  - match: { model: ceo-model, turn: 0 }
    reply:
      tool_calls:
        - name: AgentCreator
          arguments: { agent_name: Poet, base_model: llama3.2, system_prompt: "You write poems.", description: "Poems" }
        - name: AgentCreator
          arguments: { agent_name: Lawyer, base_model: mistral, system_prompt: "You read contracts.", description: "Contracts" }
  - match: { model: ceo-model, turn: 1 }
    reply:
      tool_calls:
        - name: AskAgent
          arguments: { agent_name: Poet, prompt: "A haiku about rivers" }
        - name: AskAgent
          arguments: { agent_name: Lawyer, prompt: "Is clause 7 fair?" }
  - match: { model: ceo-model, turn: 2 }
    reply: { text: "Report: the poet and the lawyer answered" }
  - match: { model: llama3.2 }
    reply: { text: "Rivers hurry home, stones remember every drop", usage: { input_tokens: 120, output_tokens: 40 }, latency_ms: )" +
         std::to_string(poet_latency_ms) + R"( }
  - match: { model: mistral }
    reply: { text: "Clause 7 is fair to both parties", usage: { input_tokens: 200, output_tokens: 60 } }
)";
}

class ClusterE2eTest : public E2eTest {
 protected:
  // Writes cluster.yaml for `nodes` (the first is the seed) over `company`.
  std::string write_cluster(std::vector<ClusterNodeSpec>& nodes, const std::string& company,
                            const std::string& extra_cluster = "") {
    std::ostringstream y;
    for (auto& n : nodes)
      if (n.port == 0) n.port = kaisha::test::unused_loopback_port();
    y << "company: " << company << "\n"
      << "cluster:\n  allow_plaintext: true\n  seeds: [tcp://" << nodes[0].address << ":" << nodes[0].port << "]\n"
      << extra_cluster << "nodes:\n";
    for (const auto& n : nodes) {
      y << "  " << n.name << ":\n    bind: tcp://" << n.address << ":" << n.port << "\n    resource_units: " << n.units
        << "\n    ceo: " << (n.ceo ? "true" : "false") << "\n    models: [";
      for (size_t i = 0; i < n.models.size(); ++i) y << (i ? ", " : "") << n.models[i];
      y << "]\n    tags: [";
      for (size_t i = 0; i < n.tags.size(); ++i) y << (i ? ", " : "") << n.tags[i];
      y << "]\n";
      if (!n.http.empty()) y << "    http: \"" << n.http << "\"\n";
    }
    return dir_.write("cluster.yaml", y.str());
  }

  std::map<std::string, std::optional<std::string>> clean_env() const {
    std::map<std::string, std::optional<std::string>> env;
    for (const char* k : {"KAISHA_MODEL", "KAISHA_DB", "OPENAI_API_KEY", "GEMINI_API_KEY", "ANTHROPIC_API_KEY"})
      env[k] = std::nullopt;
    env["OLLAMA_HOST"] = "127.0.0.1:" + std::to_string(kaisha::test::unused_loopback_port());
    return env;
  }

  BackgroundProcess& start_node(const std::string& cluster_yaml, const std::string& name,
                                const std::vector<std::string>& prefix = {},
                                const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args{"node", "--config", cluster_yaml, "--name", name, "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    nodes_.push_back(
        std::make_unique<BackgroundProcess>(KAISHA_EXE, args, clean_env(), dir_.file(name + ".log"), prefix));
    return *nodes_.back();
  }

  RunResult status(const std::string& address, const std::vector<std::string>& prefix = {}) {
    std::vector<std::string> args = {"cluster", "status", "--cluster", address, "--json", "--timeout", "3"};
    if (prefix.empty()) return kaisha(args, {}, std::chrono::seconds(20));
    std::vector<std::string> full(prefix.begin() + 1, prefix.end());
    full.push_back(KAISHA_EXE);
    full.insert(full.end(), args.begin(), args.end());
    return run_process(prefix[0], full, clean_env(), std::chrono::seconds(20));
  }

  // Waits until the node at `address` sees `count` members, all alive.
  bool cluster_ready(const std::string& address, size_t count, const std::vector<std::string>& prefix = {}) {
    return wait_for(
        [&] {
          RunResult r = status(address, prefix);
          json s = json::parse(r.out, nullptr, false);
          if (s.is_discarded() || !s.contains("members") || s["members"].size() != count) return false;
          for (const auto& m : s["members"])
            if (m.value("state", "") != "alive") return false;
          return true;
        },
        std::chrono::seconds(30));
  }

  // Waits until the node at `address` reports node `node`'s resource units
  // all free (its agents fired); false after 10 s.
  bool units_freed(const std::string& address, const std::string& node) {
    return wait_for(
        [&] {
          json now = json::parse(status(address).out, nullptr, false);
          return !now.is_discarded() && now["resources"][node]["used"].get<double>() == 0;
        },
        std::chrono::seconds(10));
  }

  std::string node_logs() const {
    std::string all;
    for (const auto& n : nodes_) all += "--- node log\n" + n->log() + "\n";
    return all;
  }

  std::vector<std::unique_ptr<BackgroundProcess>> nodes_;
};

}  // namespace kaisha::e2e
