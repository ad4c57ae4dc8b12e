// HALO's two speed targets (the HALO issue), each as a ratio or a per-node
// figure against a baseline measured in the same run:
//
//  1. The pure driver's CPU per node evaluation (one Ask, its judge and its
//     scorer call, with the selection, expansion and backpropagation around
//     them): target <= 20 µs. Whole HALO tasks run through HaloDriver
//     in-process, every CallModel and Ask answered at once by
//     InstantHaloModel, every hire accepted; the thread's CPU time over the
//     task divided by its asks. Beside it, the search alone (MctsSearch fed
//     instant evaluations, no prompts, no JSON) and the trivial driver
//     (ReplayDriver: the same effects, no logic) through the same executor:
//     HALO minus trivial is the driver's own work without the executor's.
//  2. End to end with a zero-latency in-process model, through kaisha's
//     runtime (CompanyRuntime, `strategy: halo`, its role agents hired and
//     asked through the actors, the journal written): the wall time of a task
//     per node evaluation, against the same effects issued by ReplayDriver
//     registered as a strategy ("halo_replay"); target HALO / trivial <= 1.2×.
//     Each task runs in a fresh runtime (start and teardown not timed).
//
// The 200 ms-latency target (wall time against the critical path) needs the
// mock LLM over HTTP: bench_halo_latency (halo_latency_driver.cpp) measures it.
//
// Usage: bench_halo_driver [ROUNDS=5] [TASKS=3] [RUNTIME_ROUNDS=3] [ROLES=4] [DEPTH=4] [ATTEMPTS=3] [SUBTASKS=3]
//        (RUNTIME_ROUNDS 0: the in-process part only)
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "actors/company/company_runtime.hpp"
#include "actors/strategy_kit/strategy_registration.hpp"
#include "bench/bench_temp_dir.hpp"
#include "bench/effect_replay_driver.hpp"
#include "bench/halo_instant_model.hpp"
#include "bench/scripted_instant_backend.hpp"
#include "runtime/halo/entry/halo_settings_reader.hpp"
#include "runtime/halo/halo_driver.hpp"
#include "runtime/halo/search/mcts_search.hpp"

using namespace kaisha;
using bench::EffectRecording;
using bench::InstantHaloModel;
using bench::ReplayDriver;

namespace {

const char* kQuery = "Which of three suppliers should we pick for the office chairs, given one budget?";

struct Shape {
  int rounds = 5;
  int tasks = 3;
  int runtime_rounds = 3;
  int roles = 4;
  int depth = 4;
  int attempts = 3;
  int subtasks = 3;
};
Shape g_shape;

InstantHaloModel instant_model() { return InstantHaloModel(g_shape.subtasks, g_shape.roles); }

halo::HaloSettings halo_settings() {
  halo::HaloSettings s;
  s.model = "bench-local";
  s.max_roles = g_shape.roles;
  s.max_subtasks = g_shape.subtasks + 1;  // the planner stops first
  s.equivalence = answers::Equivalence::exact;
  s.search.max_depth = g_shape.depth;
  s.search.attempts = g_shape.attempts;
  return s;
}

std::shared_ptr<const halo::HaloPrompts> shipped_prompts() {
  static const std::shared_ptr<const halo::HaloPrompts> kPrompts = [] {
    Result<halo::HaloPrompts> p = halo::load_halo_prompts();
    if (!p) {
      std::fprintf(stderr, "HALO's prompts: %s\n", p.error().message.c_str());
      std::exit(1);
    }
    return std::make_shared<const halo::HaloPrompts>(std::move(p).value());
  }();
  return kPrompts;
}

halo::HaloSetup halo_setup(economy::ModelCost agent_cost) {
  halo::HaloSetup s;
  s.settings = halo_settings();
  s.prompts = shipped_prompts();
  s.agent_cost = std::move(agent_cost);
  s.listening = [] { return true; };  // every event built, as with a listener
  return s;
}

// What the runtime prices "bench-local" at (instant_company_config's table).
economy::ModelCost bench_local_cost() {
  economy::ModelCost c;
  c.name = "bench-local";
  c.model_ref = "stub:bench-local";
  c.type = "local";
  c.create_resource_cost = 1;
  c.invoke_resource_cost = 1;
  return c;
}

msg::TaskRequest bench_task() {
  msg::TaskRequest t;
  t.session_id = "bench";
  t.task_id = "t1";
  t.input = kQuery;
  return t;
}

double thread_cpu_us() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

double process_cpu_us() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e6 + u.ru_utime.tv_usec + u.ru_stime.tv_usec;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// ------------------------------------------------ the in-process executor

struct Run {
  double cpu_us = 0;
  uint64_t asks = 0;   // node evaluations
  uint64_t calls = 0;  // CallModel effects
  bool ok = false;
};

// Runs a task driver to its finish, answering every effect in flight at
// once, first in first out, as kaisha's runtime would with an instant model:
// a CallModel or an Ask with InstantHaloModel's reply, a hire accepted, the
// budget read as unlimited.
// Outcomes after the finish are dropped (the runtime drops them too). With
// `recording`, keeps what the driver returned on start and on each outcome.
template <class D>
Run execute(D& d, const InstantHaloModel& model, EffectRecording* recording = nullptr) {
  Run run;
  std::deque<driver::Effect> pending;
  bool finished = false;
  auto absorb = [&](const driver::Effects& out) {
    for (const driver::Effect& e : out) {
      if (std::holds_alternative<driver::CallModel>(e)) {
        ++run.calls;
        pending.push_back(e);
      } else if (std::holds_alternative<driver::Ask>(e)) {
        ++run.asks;
        pending.push_back(e);
      } else if (std::holds_alternative<driver::Hire>(e) || std::holds_alternative<driver::ReadBudget>(e)) {
        pending.push_back(e);
      } else if (const auto* f = std::get_if<driver::Fire>(&e); f && f->id != 0) {
        pending.push_back(e);
      } else if (const auto* f = std::get_if<driver::Finish>(&e)) {
        finished = true;
        run.ok = f->ok;
      }
    }
  };
  const double t0 = thread_cpu_us();
  driver::Effects first = d.start();
  if (recording) recording->start = first;
  absorb(first);
  while (!finished && !pending.empty()) {
    const driver::Effect e = std::move(pending.front());
    pending.pop_front();
    driver::Outcome o;
    if (const auto* c = std::get_if<driver::CallModel>(&e)) {
      driver::ModelAnswered a;
      a.id = c->id;
      a.ok = true;
      a.response.message.role = llm::Role::assistant;
      a.response.message.content = model.reply(c->request.messages);
      a.response.usage.input_tokens = 12;
      a.response.usage.output_tokens = 3;
      o = std::move(a);
    } else if (const auto* q = std::get_if<driver::Ask>(&e)) {
      driver::AskAnswered a;
      a.id = q->id;
      a.ok = true;
      a.reply.agent = q->agent;
      a.reply.output = model.reply(q->messages);
      o = std::move(a);
    } else if (const auto* h = std::get_if<driver::Hire>(&e)) {
      o = driver::HireAnswered{h->id, true, false, "", json::object()};
    } else if (const auto* b = std::get_if<driver::ReadBudget>(&e)) {
      o = driver::BudgetRead{b->id, json{{"resource_budget_enabled", false}, {"expense_budget_enabled", false}}};
    } else {
      o = driver::FireAnswered{std::get<driver::Fire>(e).id, true, false, "", json::object()};
    }
    const driver::CallId id = bench::outcome_id(o);
    driver::Effects out = d.on(o);
    if (recording) recording->after[id] = out;
    absorb(out);
  }
  run.cpu_us = thread_cpu_us() - t0;
  return run;
}

// One HALO task's effects, recorded against the instant model.
std::shared_ptr<const EffectRecording> record_halo(economy::ModelCost agent_cost) {
  auto recording = std::make_shared<EffectRecording>();
  halo::HaloDriver d(halo_setup(std::move(agent_cost)), bench_task());
  const Run r = execute(d, instant_model(), recording.get());
  if (!r.ok) {
    std::fprintf(stderr, "the recorded HALO task did not finish ok\n");
    std::exit(1);
  }
  return recording;
}

Run halo_in_process() {
  halo::HaloDriver d(halo_setup(bench_local_cost()), bench_task());
  return execute(d, instant_model());
}

Run replay_in_process(const std::shared_ptr<const EffectRecording>& recording) {
  ReplayDriver d(recording);
  return execute(d, instant_model());
}

// The searches alone: one MctsSearch per subtask, each request answered at
// once with an answer as long as an agent's, label continue (as the
// instant judge says) and a score from the key; the events taken as the
// driver takes them. CPU µs per evaluation.
Run search_alone() {
  static const std::string kAnswer = instant_model().reply({});
  Run run;
  const double t0 = thread_cpu_us();
  for (int k = 1; k <= g_shape.subtasks; ++k) {
    halo::MctsSearch search(halo_settings().search, g_shape.roles, halo_settings().seed, k);
    std::deque<halo::EvaluationRequest> pending;
    for (auto& r : search.start()) pending.push_back(std::move(r));
    while (!pending.empty()) {
      const halo::EvaluationRequest r = std::move(pending.front());
      pending.pop_front();
      ++run.asks;
      const auto& key = r.key;
      const double score = ((key.iteration * 31 + key.index * 7 + key.step * 3 + r.role) % 10) / 10.0;
      for (auto& next : search.on_evaluated(key, halo::Evaluation{kAnswer, halo::NodeLabel::continue_, score}))
        pending.push_back(std::move(next));
      search.take_events();
    }
    run.ok = search.done();
  }
  run.cpu_us = thread_cpu_us() - t0;
  return run;
}

// ------------------------------------------------ through kaisha's runtime

constexpr const char* kReplayStrategy = "halo_replay";

// ReplayDriver as a strategy registered without CAF: at each company start
// it records one HALO task with the runtime's own price of the backbone, so
// that its hires and asks are HALO's, and replays it for every task.
void register_replay_strategy() {
  strategy::StrategyInfo info;
  info.name = kReplayStrategy;
  info.help = "issues a recorded HALO task's effects (a benchmark's baseline)";
  info.config_section = kReplayStrategy;
  Status s = actors::register_strategy(std::move(info), [](const driver::StrategySetup& in) {
    driver::DrivenStrategy d;
    d.agent = "HALO";
    d.who = "HALO's replay";
    d.model = in.price("bench-local");
    auto recording = record_halo(d.model);
    d.make = [recording](const msg::TaskRequest&, const driver::StateValues&) {
      return driver::make_task_driver<ReplayDriver>(recording);
    };
    return Result<driver::DrivenStrategy>(std::move(d));
  });
  if (!s.ok()) {
    std::fprintf(stderr, "register_strategy: %s\n", s.error().message.c_str());
    std::exit(1);
  }
}

struct RuntimeRun {
  double wall_us = 0;
  double cpu_us = 0;  // the process's, all threads
  uint64_t nodes = 0;
  uint64_t calls = 0;  // model calls the backend answered
};

RuntimeRun runtime_task(const std::string& strategy) {
  const auto dir = bench::make_temp_dir();
  RuntimeRun run;
  {
    config::Config c = bench::instant_company_config(dir, 1);
    c.strategy_settings[halo::kSection] = halo_settings();
    auto backend = std::make_shared<bench::InstantHaloBackend>(instant_model());
    actors::RuntimeOptions o;
    o.config = std::move(c);
    o.chat = backend;
    o.strategy = strategy;
    o.scheduler_threads = 2;
    auto rt = actors::CompanyRuntime::start(std::move(o));
    if (!rt.ok()) {
      std::fprintf(stderr, "CompanyRuntime::start (%s): %s\n", strategy.c_str(), rt.error().message.c_str());
      std::exit(1);
    }
    const double c0 = process_cpu_us();
    const auto t0 = std::chrono::steady_clock::now();
    msg::TaskResult r = (*rt)->run_task(kQuery);
    run.wall_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    run.cpu_us = process_cpu_us() - c0;
    if (!r.ok) {
      std::fprintf(stderr, "the %s task failed: %s\n", strategy.c_str(), r.error.c_str());
      std::exit(1);
    }
    run.nodes = backend->solves();
    run.calls = backend->calls();
  }
  std::filesystem::remove_all(dir);
  return run;
}

void print_load() {
  double load[3] = {0, 0, 0};
  if (getloadavg(load, 3) == 3) std::printf("load average %.2f %.2f %.2f\n", load[0], load[1], load[2]);
}

}  // namespace

int main(int argc, char** argv) {
  int* fields[] = {&g_shape.rounds, &g_shape.tasks,    &g_shape.runtime_rounds, &g_shape.roles,
                   &g_shape.depth,  &g_shape.attempts, &g_shape.subtasks};
  // RUNTIME_ROUNDS may be 0: the in-process part only.
  for (int i = 1; i < argc && i <= 7; ++i) *fields[i - 1] = std::max(i == 3 ? 0 : 1, std::atoi(argv[i]));
  std::printf("HALO: %d roles, depth %d, %d rollouts per selection, %d subtasks; %d rounds of %d tasks per side\n",
              g_shape.roles, g_shape.depth, g_shape.attempts, g_shape.subtasks, g_shape.rounds, g_shape.tasks);
  print_load();

  // ---- 1. in-process: HALO, the trivial replay, the search alone
  const auto recording = record_halo(bench_local_cost());
  const Run probe = halo_in_process();
  const Run probe_replay = replay_in_process(recording);
  if (probe_replay.asks != probe.asks || probe_replay.calls != probe.calls) {
    std::fprintf(stderr, "the replay issued %llu asks and %llu calls, HALO %llu and %llu\n",
                 (unsigned long long)probe_replay.asks, (unsigned long long)probe_replay.calls,
                 (unsigned long long)probe.asks, (unsigned long long)probe.calls);
    return 1;
  }
  const Run probe_search = search_alone();
  std::printf("per task: %llu node evaluations (asks), %llu CallModels; the search alone: %llu evaluations\n",
              (unsigned long long)probe.asks, (unsigned long long)probe.calls, (unsigned long long)probe_search.asks);

  std::vector<double> halo_rounds, replay_rounds, search_rounds;
  std::printf("%-6s %16s %16s %16s %16s\n", "round", "HALO us/node", "trivial us/node", "HALO-trivial",
              "search us/eval");
  for (int round = 1; round <= g_shape.rounds; ++round) {
    std::vector<double> h, t, s;
    for (int i = 0; i < g_shape.tasks; ++i) {
      // Alternate which side goes first, so neither always runs on a warmer cache.
      auto one_halo = [&] {
        Run r = halo_in_process();
        h.push_back(r.cpu_us / r.asks);
      };
      auto one_replay = [&] {
        Run r = replay_in_process(recording);
        t.push_back(r.cpu_us / r.asks);
      };
      if ((round + i) % 2) {
        one_halo();
        one_replay();
      } else {
        one_replay();
        one_halo();
      }
      Run r = search_alone();
      s.push_back(r.cpu_us / r.asks);
    }
    halo_rounds.push_back(median(h));
    replay_rounds.push_back(median(t));
    search_rounds.push_back(median(s));
    std::printf("%-6d %16.2f %16.2f %16.2f %16.2f\n", round, halo_rounds.back(), replay_rounds.back(),
                halo_rounds.back() - replay_rounds.back(), search_rounds.back());
  }
  const double h = median(halo_rounds), t = median(replay_rounds), s = median(search_rounds);
  std::printf(
      "in-process, thread CPU per node evaluation, median of %d rounds: HALO %.2f us (driver and executor), "
      "trivial %.2f us, HALO-trivial %.2f us, the search alone %.2f us per evaluation (target <= 20 us: %s)\n",
      g_shape.rounds, h, t, h - t, s, h <= 20 ? "MET" : "MISSED");
  print_load();

  // ---- 2. through kaisha's runtime
  if (g_shape.runtime_rounds > 0) {
    register_replay_strategy();
    runtime_task("halo");  // warm-up: page in the code and the SQLite files
    runtime_task(kReplayStrategy);
    std::vector<double> hw, tw, hc, tc;
    std::printf("%-6s %14s %14s %8s %16s %16s\n", "round", "HALO us/node", "trivial us/node", "ratio",
                "HALO cpu us/node", "trivial cpu/node");
    for (int round = 1; round <= g_shape.runtime_rounds; ++round) {
      std::vector<double> a, b, ac, bc;
      for (int i = 0; i < g_shape.tasks; ++i) {
        auto one = [&](const std::string& strategy, std::vector<double>& wall, std::vector<double>& cpu) {
          RuntimeRun r = runtime_task(strategy);
          if (r.nodes != probe.asks) {
            std::fprintf(stderr, "%s: %llu node evaluations in the runtime, %llu in-process\n", strategy.c_str(),
                         (unsigned long long)r.nodes, (unsigned long long)probe.asks);
            std::exit(1);
          }
          wall.push_back(r.wall_us / r.nodes);
          cpu.push_back(r.cpu_us / r.nodes);
        };
        if ((round + i) % 2) {
          one("halo", a, ac);
          one(kReplayStrategy, b, bc);
        } else {
          one(kReplayStrategy, b, bc);
          one("halo", a, ac);
        }
      }
      hw.push_back(median(a));
      tw.push_back(median(b));
      hc.push_back(median(ac));
      tc.push_back(median(bc));
      std::printf("%-6d %14.1f %14.1f %7.2fx %16.1f %16.1f\n", round, hw.back(), tw.back(), hw.back() / tw.back(),
                  hc.back(), tc.back());
    }
    const double a = median(hw), b = median(tw);
    std::printf(
        "through the runtime, wall time per node evaluation, median of %d rounds of %d tasks: HALO %.1f us, "
        "trivial %.1f us, ratio %.2fx (target <= 1.2x: %s); process CPU per node HALO %.1f us, trivial %.1f us\n",
        g_shape.runtime_rounds, g_shape.tasks, a, b, a / b, a / b <= 1.2 ? "MET" : "MISSED", median(hc), median(tc));
    print_load();
  }
  return 0;
}
