// kaisha submit --cluster HOST:PORT "TASK": run a task on a running cluster
// (through its CEO node) and stream its progress like `kaisha run`: the
// transcript on stderr (or JSON lines with --json), the answer on stdout.
// Ctrl-C (SIGINT) or SIGTERM during `kaisha submit` cancels its task on the
// cluster before exiting (status 130).
// kaisha cancel --cluster HOST:PORT --task ID: cancel a task this client's
// key submitted (an operator key may cancel any).
// kaisha cluster status --cluster HOST:PORT: the nodes, their state, agents
// and resource use, as the node asked sees them.
// kaisha cluster reload --cluster HOST:PORT: have that node re-read its
// cluster.yaml (operator keys only).
// With CURVE, --config cluster.yaml --key client.key give the client's key
// (authorised in cluster.authorised_keys) and the nodes' public keys.
#include <pthread.h>
#include <signal.h>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <thread>

#include "cli/command_registry.hpp"
#include "cli/progress_printer.hpp"
#include "cluster/cluster_client.hpp"
#include "runtime/cluster/cluster_config.hpp"
#include "runtime/core/json_text.hpp"
#include "runtime/messages/task_result_json.hpp"
#include "transport/curve_keys.hpp"

namespace kaisha::cli {
namespace {

struct ClientCommandOptions {
  std::string cluster;  // host:port or tcp://host:port
  std::string config;   // cluster.yaml, for keys
  std::string key;      // client key file
  std::string listen;   // where answers come back
  std::string task;
  int timeout_s = 0;
  bool json = false;
  bool quiet = false;
};

std::string with_scheme(const std::string& a) { return a.find("://") == std::string::npos ? "tcp://" + a : a; }

Result<std::unique_ptr<cluster::ClusterClient>> open_client(const ClientCommandOptions& o) {
  cluster::ClientOptions co;
  co.address = with_scheme(o.cluster);
  if (!o.key.empty()) {
    if (o.config.empty()) return Error{"usage", "--key needs --config cluster.yaml (for the nodes' public keys)"};
    auto c = cluster::load_cluster_config(o.config);
    if (!c.ok()) return c.error();
    auto keys = transport::load_curve_keys(o.key);
    if (!keys.ok()) return keys.error();
    co.secret_key = keys->secret_key;
    co.public_key = keys->public_key;
    co.authorised_keys = c->authorised_keys;
    co.max_frame_bytes = c->max_frame_bytes;
    co.server_key = c->seed_key(cluster::Seed{co.address, ""});
    if (co.server_key.empty())
      return Error{"usage", o.config + ": no node advertises " + co.address + ", so its public key is unknown"};
  }
  if (!o.listen.empty()) co.bind = o.listen;
  return cluster::ClusterClient::connect(co);
}

// While a submit runs, SIGINT/SIGTERM cancel its task on the cluster, then
// the process exits with 130. The signals are blocked before the client's
// threads start and taken by sigwait on a watcher thread: nothing runs in
// signal context. SIGUSR2 ends the watcher when the submit is over.
class CancelOnInterrupt {
 public:
  CancelOnInterrupt() {
    const sigset_t s = signals();
    pthread_sigmask(SIG_BLOCK, &s, nullptr);
  }
  ~CancelOnInterrupt() { disarm(); }
  // Ends the watcher; if a signal came first, it exits the process instead.
  void disarm() {
    if (!watcher_.joinable()) return;
    pthread_kill(watcher_.native_handle(), SIGUSR2);
    watcher_.join();
  }
  void arm(cluster::ClusterClient* client, bool quiet) {
    watcher_ = std::thread([client, quiet] {
      const sigset_t w = signals();
      int sig = 0;
      sigwait(&w, &sig);
      if (sig == SIGUSR2) return;
      auto r =
          client->cancel("", "interrupted by the user (signal " + std::to_string(sig) + ")", std::chrono::seconds(10));
      // One write: std::cerr is unbuffered, and the event lines printed on
      // stdout meanwhile must not land inside the sentence.
      if (!quiet || !r.ok())
        std::cerr << ("\nkaisha submit: interrupted; " +
                      (r.ok() ? "task " + r->task_id + " " + r->state
                              : "the task was not canceled: " + r.error().message) +
                      "\n")
                  << std::flush;
      std::_Exit(130);
    });
  }

 private:
  static sigset_t signals() {
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGINT);
    sigaddset(&s, SIGTERM);
    sigaddset(&s, SIGUSR2);
    return s;
  }
  std::thread watcher_;
};

int run_submit(cluster::ClusterClient& client, const ClientCommandOptions& o) {
  ProgressPrinter printer(o.json, o.quiet);
  json ledgers;
  std::string task_shown;
  auto result = client.submit(
      o.task,
      [&](const msg::ProgressEvent& e) {
        // Its id, for `kaisha cancel --task` from elsewhere (JSON lines carry it anyway).
        if (!o.json && !o.quiet && task_shown.empty() && !e.task_id.empty()) {
          task_shown = e.task_id;
          std::cerr << "kaisha submit: task " << e.task_id << " (Ctrl-C cancels it)\n";
        }
        if (e.kind == msg::EventKind::ledgers)
          ledgers = e.data;
        else
          printer.emit(e);
      },
      std::chrono::seconds(o.timeout_s > 0 ? o.timeout_s : 900));
  if (!result.ok()) {
    std::cerr << "kaisha submit: " << result.error().message << "\n";
    return 1;
  }
  const msg::TaskResult& r = *result;
  if (o.json) {
    json line = r;
    line["event"] = "result";
    std::cout << dump_text(line) << "\n";
    if (!ledgers.is_null()) std::cout << dump_text(json{{"event", "ledgers"}, {"budget", ledgers}}) << "\n";
  } else if (r.ok) {
    std::cout << r.answer << "\n";
    if (!o.quiet && !ledgers.is_null()) std::cerr << budget_line(ledgers) << "\n";
  } else {
    std::cerr << "kaisha submit: task failed: " << r.error << "\n";
  }
  std::cout << std::flush;
  return r.ok ? 0 : 1;
}

int submit(const ClientCommandOptions& o) {
  CancelOnInterrupt interrupt;  // before open_client starts threads
  auto client = open_client(o);
  if (!client.ok()) {
    std::cerr << "kaisha submit: " << client.error().message << "\n";
    return 2;
  }
  interrupt.arm(client->get(), o.quiet);
  const int code = run_submit(**client, o);
  interrupt.disarm();  // before the client goes: the watcher uses it
  return code;
}

int status(const ClientCommandOptions& o) {
  auto client = open_client(o);
  if (!client.ok()) {
    std::cerr << "kaisha cluster status: " << client.error().message << "\n";
    return 2;
  }
  auto st = (*client)->status(std::chrono::seconds(o.timeout_s > 0 ? o.timeout_s : 10));
  if (!st.ok()) {
    std::cerr << "kaisha cluster status: " << st.error().message << "\n";
    return 1;
  }
  if (o.json) {
    std::cout << dump_text(*st) << std::endl;
    return 0;
  }
  const json& s = *st;
  std::cout << "as seen by node " << s.value("node", "?") << " (" << s.value("endpoint", "") << ")\n";
  const json resources = s.value("resources", json::object());
  for (const auto& m : s.value("members", json::array())) {
    const std::string name = m.value("name", "");
    std::cout << "  " << name << "  " << m.value("state", "") << "  " << m.value("endpoint", "")
              << (m.value("ceo", false) ? "  CEO" : "");
    if (resources.contains(name))
      std::cout << "  units " << resources[name].value("used", 0.0) << "/" << resources[name].value("capacity", 0.0);
    std::cout << "\n";
    for (const auto& a : s.value("agents", json::array()))
      if (a.value("node", "") == name)
        std::cout << "      " << a.value("name", "") << " (" << a.value("model", "") << ", " << a.value("units", 0.0)
                  << " units, " << a.value("state", "") << ")\n";
  }
  for (const auto& t : s.value("tasks", json::array()))
    std::cout << "  task " << t.value("task", "") << "  " << t.value("state", "") << "\n";
  const json rl = s.value("reload", json::object());
  if (!rl.value("last", "").empty())
    std::cout << "reloads applied: " << rl.value("applied", 0) << "; last: " << rl.value("last", "") << "\n";
  // What the node refused, so an attack or a misconfigured peer shows here.
  const json refused = s.value("refused", json::object());
  if (!refused.empty()) {
    std::cout << "refused:";
    for (const auto& [kind, n] : refused.items()) std::cout << " " << kind << " " << n.dump();
    std::cout << "\n";
  }
  const json gw = s.value("gateway", json::object());
  if (gw.value("dropped_impostor", 0) > 0 || gw.value("auth_rejected", 0) > 0 || gw.value("refused_protocol", 0) > 0 ||
      gw.value("dropped_unauthorised", 0) > 0)
    std::cout << "gateway: impostors " << gw.value("dropped_impostor", 0) << ", unauthorised keys "
              << gw.value("auth_rejected", 0) << ", keys removed by a reload " << gw.value("dropped_unauthorised", 0)
              << ", other protocols " << gw.value("refused_protocol", 0) << "\n";
  return 0;
}

int reload(const ClientCommandOptions& o) {
  auto client = open_client(o);
  if (!client.ok()) {
    std::cerr << "kaisha cluster reload: " << client.error().message << "\n";
    return 2;
  }
  auto r = (*client)->reload(std::chrono::seconds(o.timeout_s > 0 ? o.timeout_s : 10));
  if (!r.ok()) {
    std::cerr << "kaisha cluster reload: " << r.error().message << "\n";
    return 1;
  }
  if (o.json) {
    std::cout << dump_text(json{{"ok", r->ok},
                                {"error", r->error},
                                {"added", r->added},
                                {"removed", r->removed},
                                {"rekeyed", r->rekeyed},
                                {"changed", r->changed}})
              << std::endl;
  } else if (r->ok) {
    auto list = [](const std::vector<std::string>& v) {
      std::string out;
      for (const auto& n : v) out += (out.empty() ? "" : ", ") + n;
      return out.empty() ? std::string("-") : out;
    };
    std::cout << "reloaded: added " << list(r->added) << "; removed " << list(r->removed) << "; re-keyed "
              << list(r->rekeyed) << "; changed " << list(r->changed) << std::endl;
  }
  if (!r->ok) std::cerr << "kaisha cluster reload: " << r->error << "\n";
  return r->ok ? 0 : 1;
}

int cancel(const ClientCommandOptions& o) {
  auto client = open_client(o);
  if (!client.ok()) {
    std::cerr << "kaisha cancel: " << client.error().message << "\n";
    return 2;
  }
  auto r = (*client)->cancel(o.task, "kaisha cancel", std::chrono::seconds(o.timeout_s > 0 ? o.timeout_s : 30));
  if (!r.ok()) {
    std::cerr << "kaisha cancel: " << r.error().message << "\n";
    return 1;
  }
  if (o.json)
    std::cout << dump_text(json{{"task", r->task_id}, {"state", r->state}}) << std::endl;
  else
    std::cout << "task " << r->task_id << " " << r->state << std::endl;
  return 0;
}

void common(CLI::App* cmd, ClientCommandOptions& o) {
  cmd->add_option("--cluster", o.cluster, "a node's address, HOST:PORT")->required();
  cmd->add_option("--config", o.config, "cluster.yaml (needed with --key)");
  cmd->add_option("--key", o.key, "this client's key file (CURVE clusters)");
  cmd->add_option("--timeout", o.timeout_s, "seconds to wait for an answer");
  cmd->add_option("--listen", o.listen,
                  "where the cluster sends answers back, tcp://ADDRESS:0 (default tcp://127.0.0.1:0; "
                  "set an address the node can reach when it runs on another host)");
  cmd->add_flag("--json", o.json, "JSON lines on stdout");
}

const bool submit_registered = register_command("submit", "run a task on a running cluster", [](CLI::App* cmd) {
  auto o = std::make_shared<ClientCommandOptions>();
  common(cmd, *o);
  cmd->add_flag("-q,--quiet", o->quiet, "no progress on stderr");
  cmd->add_option("task", o->task, "the task")->required();
  return [o] { return submit(*o); };
});

const bool cluster_registered = register_command("cluster", "inspect a running cluster", [](CLI::App* cmd) {
  auto o = std::make_shared<ClientCommandOptions>();
  cmd->require_subcommand(1);
  auto* st = cmd->add_subcommand("status", "list nodes, their agents and resource use");
  common(st, *o);
  auto* rl = cmd->add_subcommand("reload", "have a node re-read its cluster.yaml (operator keys only)");
  common(rl, *o);
  return [o, rl] { return rl->parsed() ? reload(*o) : status(*o); };
});

const bool cancel_registered =
    register_command("cancel", "cancel a task submitted to a running cluster", [](CLI::App* cmd) {
      auto o = std::make_shared<ClientCommandOptions>();
      common(cmd, *o);
      cmd->add_option("--task", o->task, "the task's id (kaisha submit prints it)")->required();
      return [o] { return cancel(*o); };
    });

}  // namespace
}  // namespace kaisha::cli
