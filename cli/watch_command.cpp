// kaisha watch URL: a terminal view of a running company that a person can
// leave open, read from the `/events` stream of `kaisha serve` (or of a CEO
// node's HTTP port; `--cluster cluster.yaml` finds it there): the agents by node with their state and model, the
// tasks and the running one's latest steps, the ledgers and the refusals as
// they happen. On a terminal the view is redrawn in place; otherwise (or
// with --plain) each event is one line, and with --json each is printed as
// the JSON line `kaisha run --json` writes.
//
// --task ID shows one task and exits once it has ended (status 0 when it
// completed, 1 otherwise). A dropped connection is reopened, resuming after
// the last event seen. Ctrl-C ends it.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <thread>

#include "cli/command_registry.hpp"
#include "cli/stop_signals.hpp"
#include "protocols/http/bind_policy.hpp"
#include "runtime/cluster/cluster_config.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/http/form_encode.hpp"
#include "runtime/core/json_text.hpp"
#include "runtime/messages/progress_event_json.hpp"
#include "runtime/telemetry/company_view.hpp"
#include "runtime/telemetry/event_stream_reader.hpp"

namespace kaisha::cli {
namespace {

struct WatchOptions {
  std::string url;
  std::string cluster;  // cluster.yaml: watch its CEO node at the node's `http` address
  std::string token;
  std::string task;
  std::string session;
  std::string after;
  bool json = false;
  bool plain = false;
};

// "host:port" or "http://host:port" or a full ".../events" URL, with the filters.
std::string events_url(const WatchOptions& o) {
  std::string url = o.url.find("://") == std::string::npos ? "http://" + o.url : o.url;
  const auto q = url.find('?');
  std::string base = url.substr(0, q);
  std::string query = q == std::string::npos ? "" : url.substr(q + 1);
  while (!base.empty() && base.back() == '/') base.pop_back();
  if (base.size() < 7 || base.compare(base.size() - 7, 7, "/events") != 0) base += "/events";
  auto add = [&](const char* k, const std::string& v) {
    if (!v.empty()) query += (query.empty() ? "" : "&") + std::string(k) + "=" + http::form_encode(v);
  };
  add("task", o.task);
  add("session", o.session);
  return query.empty() ? base : base + "?" + query;
}

size_t terminal_width() {
  if (const char* c = std::getenv("COLUMNS")) {
    long n = std::strtol(c, nullptr, 10);
    if (n >= 40 && n <= 1000) return static_cast<size_t>(n);
  }
  return 120;
}

// The CEO node's HTTP address from cluster.yaml, or an error saying what to fix.
Result<std::string> ceo_node_address(const std::string& file) {
  auto c = cluster::load_cluster_config(file);
  if (!c.ok()) return Error{"usage", "--cluster expects the cluster's file (cluster.yaml): " + c.error().message};
  const cluster::NodeConfig* ceo = c->ceo_node();
  if (!ceo) return Error{"usage", file + ": no node has 'ceo: true'"};
  const std::string address = c->http_address(*ceo);
  if (address.empty())
    return Error{"usage", file + ": the CEO node '" + ceo->name + "' has no 'http' address; add one (e.g. http: " +
                              "127.0.0.1:9464) so that `kaisha node` serves /events there, or start it with --http " +
                              "and give that address to kaisha watch"};
  return address;
}

int watch(WatchOptions o) {
  if (!o.cluster.empty()) {
    if (!o.url.empty()) {
      std::cerr << "kaisha watch: give a server address or --cluster, not both\n";
      return 2;
    }
    auto address = ceo_node_address(o.cluster);
    if (!address.ok()) {
      std::cerr << "kaisha watch: " << address.error().message << "\n";
      return 2;
    }
    o.url = *address;
  }
  if (o.url.empty()) {
    std::cerr
        << "kaisha watch: give the server's address, e.g. kaisha watch 127.0.0.1:8080, or --cluster cluster.yaml\n";
    return 2;
  }
  block_stop_signals();  // before the reader's threads start
  const bool screen = !o.json && !o.plain && isatty(STDOUT_FILENO);
  telemetry::EventStreamOptions so;
  so.url = events_url(o);
  so.token = protocols::resolve_bearer_token(o.token);
  so.after = o.after;
  telemetry::CompanyView view;
  std::string status;
  int64_t drawn_ms = 0;
  std::atomic<int> exit_code{0};  // set by the reader's thread or on a signal
  auto draw = [&](bool force) {
    if (!screen) return;
    const int64_t now = wall_ms();
    if (!force && now - drawn_ms < 200) return;
    drawn_ms = now;
    std::cout << "\x1b[H\x1b[2J"
              << "kaisha watch " << so.url << "  (" << status << ")\n\n"
              << view.render(terminal_width(), now) << std::flush;
  };
  auto on_event = [&](const telemetry::StreamedEvent& s) {
    if (s.name == "missed") {
      std::cerr << "kaisha watch: the server no longer holds some events after "
                << (s.data.is_object() ? s.data.value("after", std::string("the last one seen"))
                                       : std::string("the last one seen"))
                << "; showing what it has\n";
      return true;
    }
    auto e = msg::progress_event_from_json(s.data);
    if (!e.ok()) {
      std::cerr << "kaisha watch: skipped an event: " << e.error().message << "\n";
      return true;
    }
    view.apply(*e);
    if (o.json) {
      json line = msg::progress_event_json(*e);
      line["id"] = s.id;
      std::cout << dump_text(line) << "\n" << std::flush;
    } else if (!screen) {
      std::cout << "[" << (e->agent.empty() ? "-" : e->agent) << "] " << msg::event_kind_name(e->kind) << ": "
                << e->text << "\n"
                << std::flush;
    }
    const bool ended = !o.task.empty() && e->task_id == o.task && msg::ends_task(*e);
    draw(ended);
    if (ended) exit_code = e->kind == msg::EventKind::final ? 0 : 1;
    return !ended;
  };
  auto on_status = [&](const std::string& s) {
    status = s;
    if (!screen) std::cerr << "kaisha watch: " << s << "\n";
    draw(true);
  };
  std::atomic<bool> stop{false}, done{false};
  Status result = Status::Ok();
  std::thread reader([&] {
    result = telemetry::read_event_stream(so, on_event, on_status, &stop);
    done = true;
  });
  const sigset_t signals = stop_signal_set();
  while (!done) {
    timespec wait{0, 100 * 1000 * 1000};
    if (sigtimedwait(&signals, nullptr, &wait) > 0) {
      stop = true;
      exit_code = 130;
    }
  }
  reader.join();
  if (!result.ok()) {
    std::cerr << "kaisha watch: " << result.error().message << "\n";
    return 2;
  }
  return exit_code;
}

const bool watch_command_registered = register_command(
    "watch", "Watch a running company live (kaisha serve's /events)", [](CLI::App* cmd) -> std::function<int()> {
      auto o = std::make_shared<WatchOptions>();
      cmd->add_option("url", o->url, "The server: HOST:PORT, http(s)://HOST:PORT or its /events URL");
      cmd->add_option("--cluster", o->cluster,
                      "A cluster's file (cluster.yaml): watch its CEO node at the node's http address");
      cmd->add_option("--token", o->token, "Bearer token the server requires (or $KAISHA_HTTP_TOKEN)");
      cmd->add_option("--task", o->task, "Only this task; exit once it has ended");
      cmd->add_option("--session", o->session, "Only this session's events");
      cmd->add_option("--after", o->after, "Resume after this event id");
      cmd->add_flag("--json", o->json, "Print each event as a JSON line (with its id)");
      cmd->add_flag("--plain", o->plain, "One line per event instead of the redrawn view");
      return [o] { return watch(*o); };
    });

}  // namespace
}  // namespace kaisha::cli
