// Shared helpers for the end-to-end tests: a fresh temp dir per test, the
// scripted mock LLM (in-process, real HTTP on 127.0.0.1:<ephemeral>), a config
// pointing every provider at it, and the real `kaisha` binary run as a child
// process with a wall-clock guard so that a hang fails the test instead of
// blocking the suite.
//
// Model layout used by most tests (so that the CEO's own calls cost nothing
// and never disturb the expense figures under test):
//   CEO        openai:ceo-model   (not in the cost table -> priced at 0)
//   employees  ollama:<model>     (local models of data/cost_table.yaml)
//              gemini:<model>     (cloud models of data/cost_table.yaml)
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/loopback_port.hpp"
#include "runtime/core/json.hpp"
#include "runtime/mockllm/mock_llm_server.hpp"
#include "runtime/mockllm/mock_script.hpp"
#include "runtime/store/journal_store.hpp"
#include "runtime/store/sqlite_db.hpp"

namespace kaisha::e2e {

namespace fs = std::filesystem;

// ------------------------------------------------------------------ temp dir

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "kaisha-e2e-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const fs::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name, std::ios::binary) << text;
    return file(name);
  }

 private:
  fs::path path_;
};

// ------------------------------------------------------------------ SQLite files

// Whether `p` starts with SQLite's file header (journals, memory stores).
inline bool is_sqlite_file(const fs::path& p) {
  char head[16] = {};
  std::ifstream in(p, std::ios::binary);
  return in.read(head, sizeof head) && std::string(head, sizeof head) == std::string("SQLite format 3", 16);
}

// SQLite's own verdict on the file at `p`: "ok", or what it found wrong.
inline std::string sqlite_integrity(const fs::path& p) {
  auto db = store::SqliteDb::open(p.string(), store::SqliteDb::Options{true, false, 5000});
  if (!db.ok()) return db.error().message;
  auto q = (*db)->prepare("PRAGMA integrity_check");
  if (!q.ok()) return q.error().message;
  std::string out;
  for (auto row = q->step(); row.ok() && *row; row = q->step()) out += (out.empty() ? "" : "; ") + q->column_text(0);
  return out;
}

// Every SQLite file below `dir` (a scenario's journals and memory stores,
// however the scenario ended: killed, interrupted, restored) passes
// PRAGMA integrity_check.
inline void expect_sqlite_files_intact(const fs::path& dir) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code fe;
    if (!it->is_regular_file(fe) || !is_sqlite_file(it->path())) continue;
    EXPECT_EQ(sqlite_integrity(it->path()), "ok") << it->path();
  }
}

// ------------------------------------------------------------------ child process

struct RunResult {
  int exit_code = -1;  // -1: killed by a signal (see timed_out)
  bool timed_out = false;
  std::string out, err;
  double seconds = 0;

  // One JSON object per stdout line (`--json` mode); non-JSON lines skipped.
  std::vector<json> events() const {
    std::vector<json> v;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) {
      json j = json::parse(line, nullptr, false);
      if (!j.is_discarded() && j.is_object()) v.push_back(std::move(j));
    }
    return v;
  }
  std::vector<json> events(const std::string& kind) const {
    std::vector<json> v;
    for (auto& e : events())
      if (e.value("event", "") == kind) v.push_back(e);
    return v;
  }
  // The `{"event":"result",...}` line, or an empty object.
  json result() const {
    auto r = events("result");
    return r.empty() ? json::object() : r.back();
  }
  // The GetBudget view of the ledgers line (`{"event":"ledgers","budget":{...}}`).
  json ledgers() const {
    auto r = events("ledgers");
    return r.empty() ? json::object() : r.back().value("budget", json::object());
  }
  // tool_result events' result envelopes for `tool`, in order.
  std::vector<json> tool_results(const std::string& tool) const {
    std::vector<json> v;
    for (auto& e : events("tool_result"))
      if (e["data"].value("tool", "") == tool) v.push_back(e["data"]["result"]);
    return v;
  }
  std::string describe() const {
    return "exit " + std::to_string(exit_code) + (timed_out ? " (timed out)" : "") + "\n--- stdout\n" + out +
           "\n--- stderr\n" + err;
  }
};

// Runs `exe args...` with `env` changes (value nullopt = unset), capturing
// stdout and stderr; SIGKILLs it after `timeout`.
inline RunResult run_process(const std::string& exe, const std::vector<std::string>& args,
                             const std::map<std::string, std::optional<std::string>>& env = {},
                             std::chrono::seconds timeout = std::chrono::seconds(60)) {
  int out_pipe[2], err_pipe[2];
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0) throw std::runtime_error("pipe failed");
  const auto started = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    close(out_pipe[0]);
    close(out_pipe[1]);
    close(err_pipe[0]);
    close(err_pipe[1]);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    for (const auto& [k, v] : env) {
      if (v)
        setenv(k.c_str(), v->c_str(), 1);
      else
        unsetenv(k.c_str());
    }
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(exe.c_str()));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(exe.c_str(), argv.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  RunResult r;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&r.out, &r.err};
  int open_fds = 2;
  const auto deadline = started + timeout;
  while (open_fds > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      r.timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    int n = poll(fds, 2, static_cast<int>(std::min<int64_t>(left.count(), 500)));
    if (n <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[8192];
      ssize_t got = read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        sinks[i]->append(buf, static_cast<size_t>(got));
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) close(f.fd);
  int status = 0;
  waitpid(pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return r;
}

// ------------------------------------------------------------------ the fixture

struct ConfigOptions {
  double resource_total = 100;
  double expense_total = 10;
  int max_attempts = 3;
  int64_t base_delay_ms = 50;
  int64_t max_delay_ms = 2000;  // >= 1 s so that a Retry-After of 1 s is honoured
  int64_t timeout_ms = 10000;   // per attempt, every provider
  std::string ceo_model = "openai:ceo-model";
  std::string extra;           // appended YAML (top-level sections: switches:, cost_table:, ...)
  std::string ceo_extra;       // appended inside ceo: (indented by the fixture)
  std::string employee_extra;  // appended inside employee: (indented by the caller)
};

class E2eTest : public ::testing::Test {
 protected:
  // Whatever a scenario did to its journal, SQLite's own check passes on it.
  // A fixture that stops processes in its TearDown calls this after them.
  void TearDown() override { expect_sqlite_files_intact(dir_.path()); }

  // Parses `script` (YAML rules) and serves it on 127.0.0.1:<ephemeral>.
  void start_mock(const std::string& script, mockllm::MockServerOptions options = {}) {
    auto parsed = mockllm::parse_mock_script(script, "test-script.yaml");
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    options.hang_max_ms = std::min(options.hang_max_ms, 10'000);
    mock_ = std::make_unique<mockllm::MockLlmServer>(std::move(parsed).value(), options);
    auto port = mock_->start("127.0.0.1", 0);
    ASSERT_TRUE(port.ok()) << port.error().message;
    port_ = *port;
  }
  void start_mock_file(const std::string& path) {
    auto parsed = mockllm::load_mock_script(path);
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    mock_ = std::make_unique<mockllm::MockLlmServer>(std::move(parsed).value());
    auto port = mock_->start("127.0.0.1", 0);
    ASSERT_TRUE(port.ok()) << port.error().message;
    port_ = *port;
  }

  std::string db() const { return dir_.file("kaisha.db"); }

  std::string config_yaml(const ConfigOptions& o) const {
    const std::string base = "http://127.0.0.1:" + std::to_string(port_);
    const std::string to = std::to_string(o.timeout_ms);
    std::ostringstream y;
    y << "store: " << db() << "\n"
      << "ceo:\n"
      << (o.ceo_model.empty() ? "" : "  model: " + o.ceo_model + "\n") << "  temperature: 0.2\n"
      << o.ceo_extra << "employee:\n  max_output_tokens: 1024\n"
      << o.employee_extra << "providers:\n"
      << "  ollama: { base_url: " << base << ", timeout_ms: " << to << " }\n"
      << "  gemini: { base_url: " << base << "/v1beta, api_key: mock-key, timeout_ms: " << to << " }\n"
      << "  openai: { base_url: " << base << "/v1, api_key: mock-key, timeout_ms: " << to << " }\n"
      << "retry:\n  max_attempts: " << o.max_attempts << "\n  base_delay_ms: " << o.base_delay_ms
      << "\n  max_delay_ms: " << o.max_delay_ms << "\n"
      << "budget:\n  resource_mode: fixed\n  resource_total: " << o.resource_total
      << "\n  expense_total: " << o.expense_total << "\n"
      << o.extra;
    return y.str();
  }
  std::string write_config(const ConfigOptions& o = {}, const std::string& name = "config.yaml") {
    return dir_.write(name, config_yaml(o));
  }

  // Runs the real kaisha binary with a clean model environment.
  RunResult kaisha(const std::vector<std::string>& args, std::map<std::string, std::optional<std::string>> env = {},
                   std::chrono::seconds timeout = std::chrono::seconds(60)) {
    for (const char* k : {"KAISHA_MODEL", "KAISHA_DB", "OPENAI_API_KEY", "GEMINI_API_KEY", "ANTHROPIC_API_KEY"})
      env.try_emplace(k, std::nullopt);
    // Nothing may reach a real Ollama on this machine by accident.
    env.try_emplace("OLLAMA_HOST", "127.0.0.1:" + std::to_string(kaisha::test::unused_loopback_port()));
    return run_process(KAISHA_EXE, args, env, timeout);
  }
  // `kaisha run --config <cfg> --json [extra...] <task>`
  RunResult run_json(const std::string& config, const std::string& task, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"run", "--config", config, "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(task);
    return kaisha(args);
  }

  // Requests the mock saw for `model` (the provider's own model name).
  std::vector<json> requests_for(const std::string& model) const { return requests_where("model", model); }
  // Requests the mock answered with the rule named `rule`.
  std::vector<json> by_rule(const std::string& rule) const { return requests_where("rule", rule); }
  // Requests whose log entry has `key` equal to `value`.
  std::vector<json> requests_where(const char* key, const std::string& value) const {
    std::vector<json> v;
    for (auto& r : mock_->request_log())
      if (r.value(key, "") == value) v.push_back(r);
    return v;
  }

  std::unique_ptr<store::JournalStore> journal() const {
    auto st = store::JournalStore::open_read_only(db());
    if (!st.ok()) ADD_FAILURE() << st.error().message;
    return st.ok() ? std::move(st).value() : nullptr;
  }

  // The first task of the newest session in the store at `path` (one a
  // server opened for a client included), and the
  // outcomes kept for its resume; nothing while there is none yet (or the
  // store cannot be read, as while another process creates it).
  struct LatestTask {
    store::TaskRow task;
    std::vector<std::string> kept;
  };
  static std::optional<LatestTask> latest_task(const std::string& path) {
    if (!std::filesystem::exists(path)) return std::nullopt;
    auto j = store::JournalStore::open_read_only(path);
    if (!j.ok()) return std::nullopt;
    auto s = (*j)->list_sessions(1);
    if (!s.ok() || s->empty()) return std::nullopt;
    auto t = (*j)->tasks(s->front().id);
    if (!t.ok() || t->empty()) return std::nullopt;
    auto k = (*j)->kept_outcomes(t->front().id);
    if (!k.ok()) return std::nullopt;
    return LatestTask{t->front(), std::move(*k)};
  }

  TempDir dir_;
  std::unique_ptr<mockllm::MockLlmServer> mock_;
  int port_ = 0;
};

// The session id printed on a `--json` result line.
inline std::string session_of(const RunResult& r) { return r.result().value("session", ""); }

// A CEO that asks its user to raise the expense budget by $3 for a "research"
// task (RequestBudgetIncrease), then answers with the tool's result.
inline const char* kBudgetRaiseScript = R"(
rules:
  - match: { model: ceo-model, last_role: tool, last_tool_name: RequestBudgetIncrease }
    reply: { text: "Budget: {{last_tool}}" }
  - match: { model: ceo-model, last_user: "research" }
    reply:
      tool_calls:
        - name: RequestBudgetIncrease
          arguments: { budget: expense, amount: 3, reason: "もっと詳しく調べるためです。" }
)";

}  // namespace kaisha::e2e
