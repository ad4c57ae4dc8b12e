// What `journal.durability: full` costs a model call: the same closed loop of
// calls with the journal at normal (synchronous=NORMAL) and at full
// (synchronous=FULL, an fsync of the write-ahead log at every commit), in one
// run, the two arms alternating.
//
// One call is a HASHIRU CEO turn that asks an employee (AskAgent), the
// employee's model call and the answer back in the CEO's conversation,
// through the real runtime with a zero-latency in-process model (as
// bench_telemetry_overhead, with the same scripted model); a task makes
// CALLS of them, and its kept outcomes, steps and charges go through the
// journal's group commits as in any task. Both arms count the journal's
// commits in a metrics registry of their own.
//
// The journal must be on the disk whose cost is wanted: it goes under
// $TMPDIR (else /tmp). On tmpfs an fsync costs nothing and the arms agree.
//
// Usage: bench_durability_cost [ROUNDS=5] [CALLS=200] [TASKS=3]
//   each round runs TASKS tasks per arm, normal first in even rounds and full
//   first in odd ones; printed: per arm the median µs per call, commits per
//   call and mean ms per commit, and the ratio full / normal.
#include <sys/statfs.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "actors/company/company_runtime.hpp"
#include "bench/bench_temp_dir.hpp"
#include "bench/scripted_instant_backend.hpp"
#include "runtime/telemetry/metrics_registry.hpp"

using namespace kaisha;

namespace {

using Clock = std::chrono::steady_clock;

struct Run {
  double us_per_call = 0;
  double commits_per_call = 0;
  double ms_per_commit = 0;
};

// One task of `calls` asks with the journal at `durability`.
Run task(size_t calls, const std::string& durability) {
  const auto dir = bench::make_temp_dir();
  Run run;
  {
    auto backend = std::make_shared<bench::ScriptedInstantBackend>(calls);
    telemetry::MetricsRegistry metrics;
    actors::RuntimeOptions o;
    o.config = bench::instant_company_config(dir, calls);
    o.config.journal.durability = durability;
    o.chat = backend;
    o.metrics = &metrics;
    o.scheduler_threads = 2;
    auto rt = actors::CompanyRuntime::start(std::move(o));
    if (!rt.ok()) {
      std::fprintf(stderr, "CompanyRuntime::start: %s\n", rt.error().message.c_str());
      std::exit(1);
    }
    bench::hire_bench_employee(**rt);
    auto& commits = metrics.histogram("kaisha_journal_commit_seconds", "", {}, telemetry::seconds_buckets()).with();
    const uint64_t commits_before = commits.count();
    const double seconds_before = commits.sum();
    const auto t0 = Clock::now();
    msg::TaskResult r = (*rt)->run_task("Ask bench to ping");
    run.us_per_call = std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / static_cast<double>(calls);
    if (!r.ok || backend->callee_calls() != calls) {
      std::fprintf(stderr, "the task failed (%s) or asked %llu times, not %zu\n", r.error.c_str(),
                   static_cast<unsigned long long>(backend->callee_calls()), calls);
      std::exit(1);
    }
    // The task's end is answered once committed, so its commits are counted.
    const uint64_t n = commits.count() - commits_before;
    run.commits_per_call = static_cast<double>(n) / static_cast<double>(calls);
    run.ms_per_commit = n ? (commits.sum() - seconds_before) * 1000.0 / static_cast<double>(n) : 0;
  }
  std::filesystem::remove_all(dir);
  return run;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

struct Arm {
  std::vector<double> us, commits, ms;
  void add(const Run& r) {
    us.push_back(r.us_per_call);
    commits.push_back(r.commits_per_call);
    ms.push_back(r.ms_per_commit);
  }
};

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 5;
  const size_t calls = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 200;
  const int tasks = argc > 3 ? std::atoi(argv[3]) : 3;
  const auto where = std::filesystem::temp_directory_path();
  struct statfs fs {};
  if (statfs(where.c_str(), &fs) == 0 && fs.f_type == 0x01021994)  // TMPFS_MAGIC
    std::fprintf(stderr, "warning: %s is tmpfs, where fsync costs nothing; set TMPDIR to a disk\n", where.c_str());
  Arm normal, full;
  for (int r = 0; r < rounds; ++r) {
    for (int side = 0; side < 2; ++side) {
      const bool is_full = (side == 1) != (r % 2 == 1);
      for (int t = 0; t < tasks; ++t) (is_full ? full : normal).add(task(calls, is_full ? "full" : "normal"));
    }
  }
  double load[3] = {0, 0, 0};
  if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3) load[0] = -1;
    std::fclose(f);
  }
  std::printf("journal durability: %d rounds x %d tasks x %zu calls per arm, journal under %s, load average %.2f\n",
              rounds, tasks, calls, where.c_str(), load[0]);
  std::printf("%8s %14s %18s %14s\n", "arm", "us_per_call", "commits_per_call", "ms_per_commit");
  const double a = median(normal.us), b = median(full.us);
  std::printf("%8s %14.1f %18.3f %14.3f\n", "normal", a, median(normal.commits), median(normal.ms));
  std::printf("%8s %14.1f %18.3f %14.3f\n", "full", b, median(full.commits), median(full.ms));
  std::printf("full/normal %.3f (+%.1f us per call)\n", b / a, b - a);
  return 0;
}
