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
// Usage:
//   bench_telemetry_overhead both [ROUNDS] [CALLS] [TASKS]   wall clock, rounds alternate bare/off/on
//   bench_telemetry_overhead bare|off|on [CALLS] [TASKS]     one mode, for callgrind:
//     bench/telemetry_instructions.sh runs it under callgrind with two CALLS
//     values; instructions per call = (I(b) - I(a)) / (TASKS x (b - a)), so
//     start-up cancels out.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "actors/company/company_runtime.hpp"
#include "bench/bench_temp_dir.hpp"
#include "bench/scripted_instant_backend.hpp"
#include "runtime/company/event_log.hpp"
#include "runtime/core/json_text.hpp"
#include "runtime/messages/progress_event_json.hpp"
#include "runtime/telemetry/metrics_registry.hpp"
#include "runtime/telemetry/tracer.hpp"

using namespace kaisha;

namespace {

using Clock = std::chrono::steady_clock;

using bench::ScriptedInstantBackend;

// An /events reader: it takes each event's JSON line as the stream sends it.
struct Seen {
  size_t events = 0, bytes = 0;
};
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
      telemetry::SpanExporterOptions so;
      so.file = traces.string();
      auto exporter = telemetry::SpanExporter::start(so);
      if (!exporter.ok()) {
        std::fprintf(stderr, "SpanExporter: %s\n", exporter.error().message.c_str());
        std::exit(1);
      }
      telemetry::install_tracer(std::make_unique<telemetry::Tracer>(std::move(exporter).value(), false));
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
