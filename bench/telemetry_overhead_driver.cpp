// What watching a company costs: the ask path with events, metrics and
// traces on against the same path with them off, in one run.
//
// One call is a HASHIRU CEO turn that asks an employee (AskAgent), the
// employee's model call, and the answer back in the CEO's conversation,
// through the real runtime with a zero-latency in-process model (as
// bench_agent_tool_overhead's AskAgent side, with the same scripted model). A
// task makes CALLS of them.
//
//   bare RuntimeOptions without a progress sink or metrics; no tracer: no
//        event is even built.
//   off  what every command runs without telemetry: a progress sink that
//        listens (as the transcript of `kaisha run` and the protocol
//        listeners of `kaisha serve` do) and keeps nothing; no metrics, no
//        tracer.
//   on   what `kaisha serve` with traces configured runs: every event goes to
//        an EventLog with one reader that writes each as the JSON line
//        /events sends, metrics go to the process registry (model calls,
//        events, ledgers, the journal), and every span to a SpanExporter
//        writing a trace file on its own thread.
//
// The dashboard arm (`dashboard` below) measures what one open dashboard
// costs the server: `on` with a real HttpServer serving /events and the
// dashboard (its page's files and its JSON), against the same with one
// client in another process that does what the page does (client_main:
// it follows /events and reloads the parts each event touches, coalesced
// at the page's own delays, app.js). The server's cost is the process CPU
// time (user + system) of this process, which the client is not part of,
// from the task's start until 700 ms after its end (the page's last
// reloads), per call.
//
// Usage:
//   bench_telemetry_overhead both [ROUNDS] [CALLS] [TASKS]   wall clock, rounds alternate bare/off/on
//   bench_telemetry_overhead dashboard [ROUNDS] [CALLS] [TASKS]   CPU time, rounds alternate on/dashboard
//   bench_telemetry_overhead client HOST PORT               the dashboard arm's page (started by it)
//   bench_telemetry_overhead bare|off|on [CALLS] [TASKS]     one mode, for callgrind:
//     bench/telemetry_instructions.sh runs it under callgrind with two CALLS
//     values; instructions per call = (I(b) - I(a)) / (TASKS x (b - a)), so
//     start-up cancels out.
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <httplib.h>

#include "actors/company/company_runtime.hpp"
#include "bench/bench_temp_dir.hpp"
#include "protocols/dashboard/dashboard_endpoints.hpp"
#include "protocols/http/http_server.hpp"
#include "protocols/telemetry/events_endpoint.hpp"
#include "bench/scripted_instant_backend.hpp"
#include "runtime/company/event_log.hpp"
#include "runtime/core/json_text.hpp"
#include "runtime/messages/progress_event_json.hpp"
#include "runtime/telemetry/metrics_registry.hpp"
#include "runtime/telemetry/tracer.hpp"

extern char** environ;  // the page's client starts with this process's environment

using namespace kaisha;

namespace {

using Clock = std::chrono::steady_clock;

using bench::ScriptedInstantBackend;

// An /events reader: it takes each event's JSON line as the stream sends it.
struct Seen {
  size_t events = 0, bytes = 0;
};
// Spans go to `file`, as telemetry.traces.file would send them.
void install_file_tracer(const std::string& file) {
  telemetry::SpanExporterOptions so;
  so.file = file;
  auto exporter = telemetry::SpanExporter::start(so);
  if (!exporter.ok()) {
    std::fprintf(stderr, "SpanExporter: %s\n", exporter.error().message.c_str());
    std::exit(1);
  }
  telemetry::install_tracer(std::make_unique<telemetry::Tracer>(std::move(exporter).value(), false));
}

std::shared_ptr<company::EventLog> event_log_with_reader(std::shared_ptr<Seen> seen) {
  auto log = std::make_shared<company::EventLog>();
  log->subscribe("", [seen](const std::string& id, const company::LoggedEvent& e) {
    ++seen->events;
    seen->bytes += e.line.size() + id.size();  // what the stream would send
    return true;
  });
  return log;
}
Seen last_seen;  // of the last task with telemetry on

// Listens and keeps nothing: the events are built, as for any transcript.
class DroppingSink : public company::ProgressSink {
 public:
  void emit(const msg::ProgressEvent&) override {}
};

enum class Mode { bare, off, on };

// ---- the dashboard arm ------------------------------------------------------

// The company as the dashboard sees it: read-only here (the page only looks).
class RuntimeDashboard : public dashboard::DashboardCompany {
 public:
  explicit RuntimeDashboard(actors::CompanyRuntime& rt) : rt_(rt) {}
  std::string strategy() const override { return rt_.strategy(); }
  Result<json> budget(const std::string&) override { return rt_.budget(); }
  bool holds_task(const std::string&) override { return false; }
  Result<std::string> submit(const std::string&) override {
    return Error{"unsupported", "the benchmark's page only looks"};
  }
  Status cancel(const std::string&) override { return Error{"unsupported", "the benchmark's page only looks"}; }
  Status provide_input(const std::string&, const std::string&) override {
    return Error{"unsupported", "the benchmark's page only looks"};
  }
  Status raise_budget(const std::string&, const std::string&, double) override {
    return Error{"unsupported", "the benchmark's page only looks"};
  }
  json cluster() override { return json{{"cluster", false}}; }

 private:
  actors::CompanyRuntime& rt_;
};

// The page of web/dashboard/app.js as the server sees it: its first loads,
// then /events, each event scheduling the reloads it schedules there, with
// the same delays, a part already scheduled not scheduled again.
int client_main(const std::string& host, int port) {
  std::mutex mu;
  std::condition_variable wake;
  std::map<std::string, Clock::time_point> due;           // part -> when it loads
  std::string selected;                                   // the task shown
  Clock::time_point pace_until = Clock::now();            // reloads events ask for wait until then (app.js: PACE)
  auto schedule = [&](const std::string& part, int ms) {  // under mu
    if (due.emplace(part, Clock::now() + std::chrono::milliseconds(ms)).second) wake.notify_one();
  };
  auto follow = [&](const std::string& part, int ms) {  // under mu
    const auto at = std::max(Clock::now() + std::chrono::milliseconds(ms), pace_until);
    if (due.emplace(part, at).second) wake.notify_one();
  };
  {
    std::lock_guard<std::mutex> g(mu);
    for (const char* part : {"info", "agents", "tasks", "cluster", "ledger"}) schedule(part, 0);
  }
  std::thread loader([&] {
    httplib::Client http(host, port);
    std::unique_lock<std::mutex> lock(mu);
    for (;;) {
      if (due.empty()) {
        wake.wait(lock);
        continue;
      }
      auto next = std::min_element(due.begin(), due.end(), [](auto& a, auto& b) { return a.second < b.second; });
      if (next->second > Clock::now()) {
        wake.wait_until(lock, next->second);
        continue;
      }
      const std::string part = next->first;
      due.erase(next);
      const std::string task = selected;
      if (part == "tree" && task.empty()) continue;
      std::string path = "/dashboard/api/" + part;
      if (part == "tasks") path += "?limit=20&offset=0";
      if (part == "tree") path = "/dashboard/api/tasks/" + task + "/tree";
      lock.unlock();
      const auto start = Clock::now();
      auto res = http.Get(path);
      const auto end = Clock::now();
      lock.lock();
      pace_until = std::max(pace_until, end + 19 * (end - start));
      if (res && part == "tree" && res->body.find("\"pending\":true") != std::string::npos) schedule("tree", 500);
    }
  });
  static const std::set<std::string> agent_kinds{"hire", "fire", "answer", "usage", "placed", "rehire", "node_down"};
  static const std::set<std::string> ledger_kinds{"usage", "answer", "hire", "fire", "refusal", "ledgers"};
  // BENCH_STREAM_ONLY set: the stream alone, no reloads (what /events costs by itself).
  const bool stream_only = std::getenv("BENCH_STREAM_ONLY") != nullptr;
  auto on_event = [&](const json& e) {
    const std::string kind = e.value("event", ""), task = e.value("task", "");
    std::lock_guard<std::mutex> g(mu);
    if (stream_only) return;
    if (kind == "task") {
      selected = task;
      schedule("tree", 0);  // a new task chosen: at once
      follow("tasks", 300);
    }
    if (!task.empty() && task == selected) follow("tree", 500);
    if (agent_kinds.count(kind)) follow("agents", 600);
    if (ledger_kinds.count(kind)) follow("ledger", 600);
    if (kind == "final" || kind == "canceled")
      for (const char* part : {"tasks", "tree", "ledger", "agents"}) follow(part, 150);
  };
  httplib::Client stream(host, port);
  stream.set_read_timeout(3600, 0);
  std::string buffer;
  stream.Get("/events", {{"Accept", "text/event-stream"}}, [&](const char* data, size_t n) {
    buffer.append(data, n);
    size_t end;
    while ((end = buffer.find("\n\n")) != std::string::npos) {
      std::string block = buffer.substr(0, end);
      buffer.erase(0, end + 2);
      for (size_t at = 0; at < block.size();) {
        size_t eol = block.find('\n', at);
        if (eol == std::string::npos) eol = block.size();
        if (block.compare(at, 6, "data: ") == 0) {
          json e = json::parse(block.substr(at + 6, eol - at - 6), nullptr, false);
          if (e.is_object()) on_event(e);
        }
        at = eol + 1;
      }
    }
    return true;
  });
  loader.detach();  // the benchmark ends this process with SIGTERM
  return 0;
}

// This process's CPU time (user + system), in µs.
double cpu_us() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e6 +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

// Where this program's page comes from: the source tree's.
std::string dashboard_assets() { return std::string(KAISHA_SOURCE_DIR) + "/web/dashboard"; }

struct Served {
  double wall_us = 0;  // per call, the task alone
  double cpu_us = 0;   // per call, this process, the task and the settling after it
};

// One task in `on` mode with its HttpServer serving /events and the
// dashboard, and, with `page`, one client following it.
Served served_task(size_t calls, bool page, const std::filesystem::path& traces) {
  const auto dir = bench::make_temp_dir();
  Served out;
  {
    auto backend = std::make_shared<ScriptedInstantBackend>(calls);
    auto seen = std::make_shared<Seen>();
    auto log = event_log_with_reader(seen);
    actors::RuntimeOptions o;
    o.config = bench::instant_company_config(dir, calls);
    o.chat = backend;
    o.scheduler_threads = 2;
    o.progress = log;
    o.metrics = &telemetry::default_registry();
    install_file_tracer(traces.string());
    const std::string store = o.config.store_path;
    auto rt = actors::CompanyRuntime::start(std::move(o));
    if (!rt.ok()) {
      std::fprintf(stderr, "CompanyRuntime::start: %s\n", rt.error().message.c_str());
      std::exit(1);
    }
    bench::hire_bench_employee(**rt);
    RuntimeDashboard company(**rt);
    protocols::HttpServer http(protocols::HttpServerOptions{});
    telemetry_http::mount_events(http, log);
    dashboard::DashboardOptions d;
    d.store_path = store;
    d.host_session = (*rt)->session_id();
    d.assets_dir = dashboard_assets();
    if (Status m = dashboard::mount_dashboard(http, company, d); !m.ok()) {
      std::fprintf(stderr, "the dashboard: %s\n", m.error().message.c_str());
      std::exit(1);
    }
    auto port = http.start();
    if (!port.ok()) {
      std::fprintf(stderr, "HttpServer: %s\n", port.error().message.c_str());
      std::exit(1);
    }
    pid_t client = 0;
    if (page) {
      const std::string port_text = std::to_string(*port);
      char* argv[] = {const_cast<char*>("bench_telemetry_overhead"), const_cast<char*>("client"),
                      const_cast<char*>("127.0.0.1"), const_cast<char*>(port_text.c_str()), nullptr};
      if (posix_spawn(&client, "/proc/self/exe", nullptr, nullptr, argv, environ) != 0) {
        std::fprintf(stderr, "cannot start the page's client\n");
        std::exit(1);
      }
      const auto until = Clock::now() + std::chrono::seconds(10);
      while (log->subscribers() < 2 && Clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      if (log->subscribers() < 2) {
        std::fprintf(stderr, "the page's client never followed /events\n");
        std::exit(1);
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the page's first loads
    const double cpu0 = cpu_us();
    const auto t0 = Clock::now();
    msg::TaskResult r = (*rt)->run_task("Ask bench to ping");
    out.wall_us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / static_cast<double>(calls);
    std::this_thread::sleep_for(std::chrono::milliseconds(700));  // the page's reloads after the final event
    out.cpu_us = (cpu_us() - cpu0) / static_cast<double>(calls);
    if (!r.ok || backend->callee_calls() != calls) {
      std::fprintf(stderr, "the task failed (%s) or asked %llu times, not %zu\n", r.error.c_str(),
                   static_cast<unsigned long long>(backend->callee_calls()), calls);
      std::exit(1);
    }
    if (client) {
      kill(client, SIGTERM);
      waitpid(client, nullptr, 0);
    }
    http.stop();
  }
  telemetry::flush_tracer();
  std::filesystem::remove_all(dir);
  return out;
}

// One task of `calls` asks; µs per call.
double task(size_t calls, Mode mode, const std::filesystem::path& traces) {
  const bool on = mode == Mode::on;
  const auto dir = bench::make_temp_dir();
  double us = 0;
  {
    auto backend = std::make_shared<ScriptedInstantBackend>(calls);
    auto seen = std::make_shared<Seen>();
    actors::RuntimeOptions o;
    o.config = bench::instant_company_config(dir, calls);
    o.chat = backend;
    o.scheduler_threads = 2;
    if (on) {
      o.progress = event_log_with_reader(seen);
      o.metrics = &telemetry::default_registry();
      install_file_tracer(traces.string());
    } else {
      if (mode == Mode::off) o.progress = std::make_shared<DroppingSink>();
      telemetry::install_tracer(nullptr);
    }
    auto rt = actors::CompanyRuntime::start(std::move(o));
    if (!rt.ok()) {
      std::fprintf(stderr, "CompanyRuntime::start: %s\n", rt.error().message.c_str());
      std::exit(1);
    }
    bench::hire_bench_employee(**rt);
    const auto t0 = Clock::now();
    msg::TaskResult r = (*rt)->run_task("Ask bench to ping");
    us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / static_cast<double>(calls);
    if (!r.ok || backend->callee_calls() != calls) {
      std::fprintf(stderr, "the task failed (%s) or asked %llu times, not %zu\n", r.error.c_str(),
                   static_cast<unsigned long long>(backend->callee_calls()), calls);
      std::exit(1);
    }
    if (on && seen->events == 0) {
      std::fprintf(stderr, "the events reader saw nothing\n");
      std::exit(1);
    }
    if (on) last_seen = *seen;
  }
  if (on) telemetry::flush_tracer();
  std::filesystem::remove_all(dir);
  return us;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "both";
  const auto traces_dir = bench::make_temp_dir();
  const auto traces = traces_dir / "traces.jsonl";
  if (mode == "client" && argc > 3) return client_main(argv[2], std::atoi(argv[3]));
  if (mode == "dashboard") {
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
    const size_t calls = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 200;
    const int tasks = argc > 4 ? std::atoi(argv[4]) : 3;
    std::vector<double> on_cpu, dash_cpu, on_wall, dash_wall;
    for (int r = 0; r < rounds; ++r)
      for (bool page : {r % 2 == 1, r % 2 == 0})  // the arms' order swapped every round
        for (int t = 0; t < tasks; ++t) {
          Served s = served_task(calls, page, traces);
          (page ? dash_cpu : on_cpu).push_back(s.cpu_us);
          (page ? dash_wall : on_wall).push_back(s.wall_us);
        }
    const double a = median(on_cpu), b = median(dash_cpu);
    std::printf("one open dashboard: %d rounds x %d tasks x %zu calls, medians\n", rounds, tasks, calls);
    std::printf("  on         %.1f us CPU per call, %.1f us wall per call\n", a, median(on_wall));
    std::printf("  dashboard  %.1f us CPU per call, %.1f us wall per call\n", b, median(dash_wall));
    std::printf("  dashboard/on CPU %.3f (%+.1f %%)\n", b / a, 100 * (b / a - 1));
    std::filesystem::remove_all(traces_dir);
    return 0;
  }
  if (mode == "on" || mode == "off" || mode == "bare") {
    const size_t calls = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 200;
    const int tasks = argc > 3 ? std::atoi(argv[3]) : 1;
    const Mode m = mode == "on" ? Mode::on : mode == "off" ? Mode::off : Mode::bare;
    std::vector<double> us;
    for (int t = 0; t < tasks; ++t) us.push_back(task(calls, m, traces));
    std::printf("%s: %zu calls x %d task(s), median %.1f us per call\n", mode.c_str(), calls, tasks, median(us));
    if (m == Mode::on)
      std::printf("  events: %.1f per call, %.0f bytes of /events JSON per call\n",
                  static_cast<double>(last_seen.events) / static_cast<double>(calls),
                  static_cast<double>(last_seen.bytes) / static_cast<double>(calls));
  } else {
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
    const size_t calls = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 200;
    const int tasks = argc > 4 ? std::atoi(argv[4]) : 3;
    std::vector<double> bare, off, on;
    for (int r = 0; r < rounds; ++r) {
      for (int t = 0; t < tasks; ++t) bare.push_back(task(calls, Mode::bare, traces));
      for (int t = 0; t < tasks; ++t) off.push_back(task(calls, Mode::off, traces));
      for (int t = 0; t < tasks; ++t) on.push_back(task(calls, Mode::on, traces));
    }
    const double a = median(bare), b = median(off), c = median(on);
    std::printf("telemetry overhead: %d rounds x %d tasks x %zu calls, medians\n", rounds, tasks, calls);
    std::printf("  bare %.1f us per call\n  off  %.1f us per call\n  on   %.1f us per call\n", a, b, c);
    std::printf("  on/off %.3f, on/bare %.3f\n", c / b, c / a);
  }
  std::filesystem::remove_all(traces_dir);
  return 0;
}
