// kaisha editor: the company as an Agent Client Protocol agent on
// stdin/stdout, for editors (Zed, JetBrains IDEs, Neovim, Emacs) that start
// it as a subprocess. stdout carries the protocol's JSON-RPC lines only;
// everything else goes to stderr, which editors show as the agent's log.
//
// Each editor session is one company session (protocols/agent_client/
// editor_agent.hpp), journaled in the store the config names — by default
// .kaisha/kaisha.db under the directory the editor starts kaisha in (its
// workspace). The company's file writes and code runs ask the editor's user
// first, and its file tools use the editor's files when the editor offers them.
#include <atomic>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include <unistd.h>

#include "actors/company/company_runtime.hpp"
#include "actors/system/provider_chat_client.hpp"
#include "cli/cli_config.hpp"
#include "cli/command_registry.hpp"
#include "cli/stdin_lines.hpp"
#include "cli/stop_signals.hpp"
#include "kaisha/version.hpp"
#include "protocols/agent_client/editor_agent.hpp"
#include "protocols/mcp/client/mcp_servers_start.hpp"
#include "protocols/remote/remote_agent_client.hpp"
#include "runtime/catalog/strategy_catalog.hpp"
#include "runtime/core/json_text.hpp"

namespace kaisha::cli {
namespace {

namespace ac = agent_client;

struct EditorOptions {
  CommonOptions common;
  size_t max_line_bytes = 16u << 20;  // the reader holds at most about twice this
};

// Whole lines, written in order by a thread of their own: progress events
// and tool calls send from actor threads, which must not wait on the editor
// reading its pipe. Senders wait only when the editor has fallen behind by
// kMaxQueuedBytes (a bound on what an editor that stops reading can make
// kaisha hold). What is queued is written before the destructor returns.
class StdoutLines {
 public:
  static constexpr size_t kMaxQueuedBytes = 64u << 20;

  StdoutLines() : writer_([this] { run(); }) {}
  ~StdoutLines() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      closing_ = true;
    }
    ready_.notify_all();
    writer_.join();
  }

  void send(const json& message) {
    std::string line = dump_text(message) + "\n";
    std::unique_lock<std::mutex> lock(mu_);
    room_.wait(lock, [&] { return queued_bytes_ < kMaxQueuedBytes || broken_; });
    if (broken_) return;  // the editor is gone: nobody reads
    queued_bytes_ += line.size();
    queue_.push_back(std::move(line));
    ready_.notify_one();
  }

 private:
  void run() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      ready_.wait(lock, [&] { return !queue_.empty() || closing_; });
      if (queue_.empty()) return;  // closing, all written
      std::string line = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      const bool ok = std::fwrite(line.data(), 1, line.size(), stdout) == line.size() && std::fflush(stdout) == 0;
      lock.lock();
      queued_bytes_ -= line.size();
      if (!ok) {
        broken_ = true;
        for (const auto& l : queue_) queued_bytes_ -= l.size();
        queue_.clear();
      }
      room_.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable ready_, room_;
  std::deque<std::string> queue_;
  size_t queued_bytes_ = 0;
  bool closing_ = false;
  bool broken_ = false;
  std::thread writer_;
};

// Every session's progress events, to the agent (which picks the session's turn).
class AgentEvents : public company::ProgressSink {
 public:
  explicit AgentEvents(std::weak_ptr<ac::EditorAgent> agent) : agent_(std::move(agent)) {}
  void emit(const msg::ProgressEvent& e) override {
    if (auto a = agent_.lock()) a->on_event(e);
  }

 private:
  std::weak_ptr<ac::EditorAgent> agent_;
};

// The company sessions of one `kaisha editor` process, one runtime each.
class EditorSessions : public ac::EditorCompany {
 public:
  EditorSessions(config::Config config, std::string strategy, std::shared_ptr<ac::EditorAgent> agent)
      : config_(std::move(config)), strategy_(std::move(strategy)), agent_(std::move(agent)) {
    chat_ = remote::make_remote_agent_client(actors::make_provider_chat_client(config_), config_);
    events_ = std::make_shared<AgentEvents>(agent_);
  }
  // The runtimes stop (journal committed) before the agent they call into.
  ~EditorSessions() override {
    std::lock_guard<std::mutex> lock(mu_);
    runtimes_.clear();
  }

  Result<std::string> open(const std::string& session_id, const ac::SessionParams& params) override {
    if (!session_id.empty()) {
      if (no_journal_yet(config_.store_path))
        return Error{"not_found", "no session '" + session_id + "': " + config_.store_path + " holds none yet"};
      auto store = store::JournalStore::open_read_only(config_.store_path);
      if (!store) return store.error();
      auto row = (*store)->get_session(session_id);
      if (!row) return row.error();
      if (!row->has_value()) return Error{"not_found", "no session '" + session_id + "' in " + config_.store_path};
    }
    actors::RuntimeOptions ro;
    ro.config = config_;
    ro.chat = chat_;
    ro.progress = events_;
    ro.session_id = session_id;
    ro.strategy = strategy_;
    ro.session_tags = json{{"editor", {{"cwd", params.cwd}}}};
    std::vector<config::McpServerConfig> servers = config_.mcp_servers;
    servers.insert(servers.end(), params.mcp_servers.begin(), params.mcp_servers.end());
    ro.tool_sources = mcp::start_mcp_servers(servers);
    ac::EditorToolOptions tool_options;
    tool_options.code_timeout_ms = config_.tools.sandbox_timeout_ms;
    ro.wrap_tool_source = [agent = agent_, tool_options](std::shared_ptr<company::ToolSource> source) {
      return ac::wrap_for_editor(std::move(source), agent, tool_options);
    };
    {
      std::lock_guard<std::mutex> lock(mu_);
      ro.apply_retention = runtimes_.empty();
      if (!runtimes_.empty()) ro.shared_memory = runtimes_.begin()->second->memory_handle();
    }
    auto rt = actors::CompanyRuntime::start(std::move(ro));
    if (!rt) return rt.error();
    const std::string id = (*rt)->session_id();
    std::cerr << "kaisha editor: session " << id << (session_id.empty() ? " started" : " loaded") << " for "
              << params.cwd << "\n";
    std::lock_guard<std::mutex> lock(mu_);
    runtimes_[id] = std::move(rt).value();
    return id;
  }

  msg::TaskResult run(const std::string& session_id, const std::string& input, const std::string& task_id) override {
    auto* rt = runtime(session_id);
    if (!rt) {
      msg::TaskResult r;
      r.ok = false;
      r.error = "no session " + session_id;
      return r;
    }
    return rt->run_task(input, task_id);
  }

  bool cancel(const std::string& session_id, const std::string& task_id) override {
    auto* rt = runtime(session_id);
    return rt && rt->cancel(task_id, "cancelled by the editor");
  }

  int64_t context_size(const std::string&) override { return config_.memory.short_term.context_tokens; }

  json budget(const std::string& session_id) override {
    auto* rt = runtime(session_id);
    return rt ? rt->budget() : json::object();
  }

  Status raise_budget(const std::string& session_id, const std::string& which, double amount) override {
    auto* rt = runtime(session_id);
    if (!rt) return Error{"not_found", "no session " + session_id};
    return rt->raise_budget(which, amount);
  }

  Result<std::vector<PastTurn>> history(const std::string& session_id) override {
    auto store = store::JournalStore::open_read_only(config_.store_path);
    if (!store) return store.error();
    auto tasks = (*store)->tasks(session_id);
    if (!tasks) return tasks.error();
    std::vector<PastTurn> out;
    for (const auto& t : *tasks) out.push_back({t.input, t.status == "done" ? t.final_answer : t.error, t.status});
    return out;
  }

 private:
  // Runtimes live until the process ends: a pointer stays valid.
  actors::CompanyRuntime* runtime(const std::string& session_id) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = runtimes_.find(session_id);
    return it == runtimes_.end() ? nullptr : it->second.get();
  }

  config::Config config_;
  std::string strategy_;
  std::shared_ptr<ac::EditorAgent> agent_;
  std::shared_ptr<company::ChatClient> chat_;
  std::shared_ptr<company::ProgressSink> events_;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<actors::CompanyRuntime>> runtimes_;
};

int editor(const EditorOptions& o) {
  auto fail = [](const std::string& why) {
    std::cerr << "kaisha editor: " << why << "\n";
    return 2;
  };
  // Before any thread starts: SIGINT and SIGTERM end the loop below like
  // the end of the input does, so that running turns are journaled as cancelled.
  block_stop_signals();
  auto c = load_cli_config(o.common, /*needs_model=*/true);
  if (!c.ok()) return fail(c.error().message);
  // The workspace's own store unless the config or --db names one.
  if (o.common.db.empty() && c->store_path == config::Config{}.store_path) {
    std::error_code ec;
    const auto dir = std::filesystem::current_path(ec) / ".kaisha";
    std::filesystem::create_directories(dir, ec);
    if (ec) return fail("cannot create " + dir.string() + ": " + ec.message());
    c->store_path = (dir / "kaisha.db").string();
  }
  if (Status t = start_tracing(*c); !t.ok()) return fail(t.error().message);
  signal(SIGPIPE, SIG_IGN);  // an editor that hangs up must not kill kaisha mid-journal

  auto out = std::make_shared<StdoutLines>();
  auto agent = ac::EditorAgent::create([out](const json& m) { out->send(m); }, version());
  int code = 0;
  {
    EditorSessions sessions(*c, o.common.strategy, agent);
    agent->attach(&sessions);
    std::cerr << "kaisha editor: Agent Client Protocol v" << ac::kProtocolVersion << " on stdin/stdout; store "
              << c->store_path << "\n";
    StdinLines in(0, o.max_line_bytes);
    std::atomic<bool> reading{true}, signalled{false};
    std::thread stopper([&] {
      wait_for_stop_signal();
      if (!reading) return;  // the wake-up sent below
      signalled = true;
      in.interrupt();
    });
    for (;;) {
      StdinLines::Read r = in.next();
      if (r.got == StdinLines::Got::end) break;
      if (r.got == StdinLines::Got::interrupted) {
        if (signalled) break;
        continue;
      }
      if (r.got == StdinLines::Got::too_long) {
        agent->refuse_line("Invalid Request: line " + std::to_string(in.line_number()) + " is longer than " +
                           std::to_string(o.max_line_bytes) + " bytes; it was not read");
        continue;
      }
      if (const std::string bad = in.utf8_problem(r.text); !bad.empty()) {
        agent->refuse_line("Parse error: " + bad);
        continue;
      }
      agent->handle_line(r.text);
    }
    reading = false;
    if (!signalled) kill(getpid(), SIGTERM);  // wakes the stopper (the signal is blocked: it only wakes sigwait)
    stopper.join();
    // The editor closed its end (or a signal came): running turns are cancelled and journaled.
    agent->shutdown();
    std::cerr << "kaisha editor: " << (signalled ? "stopped by a signal" : "the editor closed the connection") << "\n";
  }
  return code;
}

const bool editor_command_registered = register_command(
    "editor", "Run the company as an Agent Client Protocol agent on stdin/stdout (for Zed and other editors)",
    [](CLI::App* cmd) -> std::function<int()> {
      auto o = std::make_shared<EditorOptions>();
      cmd->add_option("--config", o->common.config_file, "YAML configuration file");
      cmd->add_option("--db", o->common.db, "SQLite journal file (default .kaisha/kaisha.db in the working directory)");
      cmd->add_option("--model", o->common.model, "CEO model ref, e.g. ollama:llama3.2");
      cmd->add_option("--strategy", o->common.strategy, strategy::strategy_names_text())
          ->check(CLI::IsMember(strategy::strategy_names()));
      cmd->add_option("--max-line", o->max_line_bytes, "Longest input line read, in bytes (longer ones are refused)");
      cmd->footer(
          "Editors start it as their agent (the Zed settings entry is in docs/editor.md).\n\n"
          "Example: kaisha editor --config kaisha.yaml --strategy effgen\nMore: docs/editor.md");
      return [o] { return editor(*o); };
    });

}  // namespace
}  // namespace kaisha::cli
