// HALO against a slow model (the HALO issue's second speed target): with
// the mock LLM answering every request after 200 ms and 5 rollouts per
// selection run at once, a task's wall time against the critical path of its
// model calls: target <= 1.1×.
//
// Each round runs one HALO task (the scenario of examples/halo/: 3 roles,
// 2 subtasks, a consistency early stop; here depth 2, 5 rollouts per
// selection) through kaisha's runtime (CompanyRuntime, role agents hired and
// asked through the actors, the journal written) against the mock LLM over
// real HTTP, in a fresh runtime (start and teardown not timed). The wall time
// is the task's, from run_task to its answer.
//
// The critical path is computed from the journal: every model call of the
// task is journaled when its answer arrives (HALO's own calls and its role
// agents' asks, llm_response), and each took the mock's latency L, so it
// started at its end - L. Walking back from the last answer, each step takes
// the latest answer that arrived before the current call started: the chain
// of calls each of which waited for the one before it. Critical path =
// calls on that chain × L. Beside it the same walk over the mock's own log
// (when each request arrived and was answered, microseconds), which needs no
// assumed latency. The gap between wall time and critical path is what kaisha
// adds between a call's answer and the next call it makes (actors, ledger,
// journal, HTTP), plus hires.
//
// Usage: bench_halo_latency [ROUNDS=3] [LATENCY_MS=200] [ATTEMPTS=5]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "actors/company/company_runtime.hpp"
#include "bench/bench_temp_dir.hpp"
#include "runtime/halo/entry/halo_settings_reader.hpp"
#include "runtime/halo/halo_settings.hpp"
#include "runtime/mockllm/mock_llm_server.hpp"
#include "runtime/mockllm/mock_script.hpp"
#include "runtime/store/journal_store.hpp"

using namespace kaisha;

namespace {

const char* kQuery = "A haiku about a river in spring";

struct Interval {
  double start = 0;
  double end = 0;
};

// The chain of calls walked back from the last answer: each call's
// predecessor is the latest answer that came before it started. Returns the
// calls on it and the sum of their durations.
std::pair<int, double> critical_path(std::vector<Interval> calls) {
  if (calls.empty()) return {0, 0};
  std::sort(calls.begin(), calls.end(), [](const Interval& a, const Interval& b) { return a.end < b.end; });
  int n = 0;
  double sum = 0;
  size_t at = calls.size() - 1;
  while (true) {
    ++n;
    sum += calls[at].end - calls[at].start;
    const double started = calls[at].start;
    size_t before = at;
    bool found = false;
    while (before > 0) {
      --before;
      if (calls[before].end <= started) {
        found = true;
        break;
      }
    }
    if (!found) break;
    at = before;
  }
  return {n, sum};
}

int max_in_flight(const std::vector<Interval>& calls) {
  std::vector<std::pair<double, int>> edges;
  for (const Interval& c : calls) {
    edges.push_back({c.start, +1});
    edges.push_back({c.end, -1});
  }
  std::sort(edges.begin(), edges.end());  // at equal times the end (-1) comes first
  int now = 0, most = 0;
  for (const auto& [t, d] : edges) most = std::max(most, now += d);
  return most;
}

struct Round {
  double wall_ms = 0;
  int calls = 0;
  int journal_chain = 0;
  double journal_path_ms = 0;
  int mock_chain = 0;
  double mock_path_ms = 0;
  int in_flight = 0;
  bool ok = false;
};

std::string scenario(int latency_ms) {
  std::ifstream in(std::string(KAISHA_SOURCE_DIR) + "/examples/halo/scenario.yaml");
  std::stringstream s;
  s << in.rdbuf();
  if (s.str().empty()) {
    std::fprintf(stderr, "cannot read examples/halo/scenario.yaml\n");
    std::exit(1);
  }
  return "defaults: { latency_ms: " + std::to_string(latency_ms) + " }\n" + s.str();
}

Round run_round(int port, mockllm::MockLlmServer& mock, int latency_ms, int attempts) {
  const auto dir = bench::make_temp_dir();
  Round round;
  const std::string task_id = store::JournalStore::make_id("t");
  {
    config::Config c;
    c.store_path = (dir / "kaisha.db").string();
    c.tools.workspace_root = (dir / "work").string();
    c.ceo.model = "openai:halo-4o";
    c.budget.resource_total = 1e6;
    c.budget.expense_total = 1e6;
    config::ProviderConfig p;
    p.name = "openai";
    p.dialect = "openai";
    p.base_url = "http://127.0.0.1:" + std::to_string(port) + "/v1";
    p.api_key = "mock-key";
    p.max_concurrency = 64;  // the provider's cap must not queue the rollouts
    p.timeout_ms = 60000;
    c.providers["openai"] = p;
    c.retry.max_attempts = 1;  // a failure must show, not be retried away
    halo::HaloSettings h;
    h.model = "openai:halo-4o";
    h.max_subtasks = 3;
    h.equivalence = answers::Equivalence::exact;
    h.search.max_depth = 2;
    h.search.attempts = attempts;
    h.search.max_iterations = 6;
    h.search.max_evaluations = 60;
    c.strategy_settings[halo::kSection] = h;
    actors::RuntimeOptions o;
    o.config = std::move(c);
    o.strategy = "halo";
    o.scheduler_threads = 2;
    auto rt = actors::CompanyRuntime::start(std::move(o));
    if (!rt.ok()) {
      std::fprintf(stderr, "CompanyRuntime::start: %s\n", rt.error().message.c_str());
      std::exit(1);
    }
    mock.reset();
    const auto t0 = std::chrono::steady_clock::now();
    msg::TaskResult r = (*rt)->run_task(kQuery, task_id);
    round.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    round.ok = r.ok;
    if (!r.ok) std::fprintf(stderr, "the task failed: %s\n", r.error.c_str());
  }  // the runtime stops: the journal is drained

  // The mock's log: when each request arrived and was answered.
  std::vector<Interval> mocked;
  for (const json& e : mock.request_log())
    if (e.value("kind", "") == "chat" && e.contains("answered_us"))
      mocked.push_back({e.value("received_us", int64_t(0)) / 1000.0, e.value("answered_us", int64_t(0)) / 1000.0});
  round.calls = int(mocked.size());
  round.in_flight = max_in_flight(mocked);
  std::tie(round.mock_chain, round.mock_path_ms) = critical_path(mocked);

  // The journal's: every model call's answer, started L before it.
  auto store = store::JournalStore::open_read_only((dir / "kaisha.db").string());
  if (!store.ok()) {
    std::fprintf(stderr, "journal: %s\n", store.error().message.c_str());
    std::exit(1);
  }
  auto steps = (*store)->task_steps(task_id);
  if (!steps.ok()) {
    std::fprintf(stderr, "journal: %s\n", steps.error().message.c_str());
    std::exit(1);
  }
  std::vector<Interval> journaled;
  for (const store::StepRow& s : *steps)
    if (s.kind == "llm_response" && (s.payload.contains("call") || s.payload.contains("job")))
      journaled.push_back({double(s.at - latency_ms), double(s.at)});
  if (int(journaled.size()) != round.calls)
    std::fprintf(stderr, "the journal holds %zu answers, the mock answered %d requests\n", journaled.size(),
                 round.calls);
  round.journal_chain = critical_path(journaled).first;
  round.journal_path_ms = double(round.journal_chain) * latency_ms;
  store->reset();
  std::filesystem::remove_all(dir);
  return round;
}

void print_load() {
  double load[3] = {0, 0, 0};
  if (getloadavg(load, 3) == 3) std::printf("load average %.2f %.2f %.2f\n", load[0], load[1], load[2]);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 3;
  const int latency_ms = argc > 2 ? std::max(1, std::atoi(argv[2])) : 200;
  const int attempts = argc > 3 ? std::max(1, std::atoi(argv[3])) : 5;
  std::printf("HALO, examples/halo's scenario: depth 2, %d rollouts per selection, mock LLM latency %d ms, %d rounds\n",
              attempts, latency_ms, rounds);
  print_load();

  auto script = mockllm::parse_mock_script(scenario(latency_ms), "examples/halo/scenario.yaml");
  if (!script.ok()) {
    std::fprintf(stderr, "mock script: %s\n", script.error().message.c_str());
    return 1;
  }
  mockllm::MockLlmServer mock(std::move(script).value());
  auto port = mock.start("127.0.0.1", 0);
  if (!port.ok()) {
    std::fprintf(stderr, "mock LLM: %s\n", port.error().message.c_str());
    return 1;
  }

  std::vector<double> ratios, mock_ratios;
  bool all_ok = true;
  for (int i = 0; i < rounds; ++i) {
    const Round r = run_round(*port, mock, latency_ms, attempts);
    all_ok = all_ok && r.ok;
    const double ratio = r.journal_path_ms > 0 ? r.wall_ms / r.journal_path_ms : 0;
    const double mock_ratio = r.mock_path_ms > 0 ? r.wall_ms / r.mock_path_ms : 0;
    ratios.push_back(ratio);
    mock_ratios.push_back(mock_ratio);
    std::printf(
        "round %d: %d model calls, at most %d at once; wall %.1f ms; critical path from the journal %d calls = %.0f ms "
        "(ratio %.3f); from the mock's log %d calls, %.1f ms (ratio %.3f)\n",
        i + 1, r.calls, r.in_flight, r.wall_ms, r.journal_chain, r.journal_path_ms, ratio, r.mock_chain, r.mock_path_ms,
        mock_ratio);
    std::fflush(stdout);
  }
  std::printf("median wall / critical path: %.3f from the journal, %.3f from the mock's log (target <= 1.1)\n",
              median(ratios), median(mock_ratios));
  print_load();
  mock.stop();
  return all_ok ? 0 : 1;
}
