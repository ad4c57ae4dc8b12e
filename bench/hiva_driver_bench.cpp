// HiVA's speed target (the HiVA issue) and what hiva.md §14 item 26 asks to
// report, each against a baseline measured in the same run:
//
//  1. One forward pass over a 20-agent graph (bench/hiva_bench_graph.hpp)
//     with k = 2, in-process: HivaDriver made by HiVA's own strategy setup
//     (prompts, knowledge graph, embedder), every CallModel and Ask answered
//     at once by InstantHivaModel, every hire accepted; the thread's CPU
//     time over the task divided by the activated agents (one Ask each: the
//     agents' steps and the aggregation). Beside it, the trivial driver
//     (ReplayDriver: the same effects, no routing, scheduling, rendering or
//     parsing) through the same executor: HiVA minus trivial is the driver's
//     routing + scheduling work; target <= 50 µs per activated agent. Also
//     reported: activated agents against |V| = 20 (the activated subgraph
//     must be smaller) and model calls (CallModels and Asks) against the
//     O(|V|²) bound, 400.
//  2. The same forward pass end to end through kaisha's runtime
//     (CompanyRuntime, `strategy: hiva` starting from the graph saved in the
//     journal's strategy state, its agents hired and asked through the
//     actors, the journal written), zero-latency in-process model: wall and
//     process CPU per activated agent, against the same effects issued by
//     ReplayDriver registered as a strategy ("hiva_replay"), ratio beside.
//     Each timed task runs in a fresh runtime after one untimed task in it
//     (start, the first task and teardown not timed).
//     Beside them, two parts of the driver's work timed alone: an agent's
//     knowledge cost as routing computes it for each candidate once per
//     pass (profile_of and knowledge_cost), and one JSON snapshot of the
//     graph (to_json), which the forward_pass event and the task's
//     metadata carry.
//  3. One full iteration (iterations 1: the forward pass, the loss by
//     self-critique, the backward pass, the semantic and topology updates,
//     the bandit updates and RepairTopology), in-process, per activated
//     agent, against its replay; no target.
//
// Usage: bench_hiva_driver [ROUNDS=5] [TASKS=5] [RUNTIME_ROUNDS=3]
//        (RUNTIME_ROUNDS 0: the in-process parts only)
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "actors/company/company_runtime.hpp"
#include "actors/strategy_kit/strategy_registration.hpp"
#include "bench/bench_temp_dir.hpp"
#include "bench/effect_replay_driver.hpp"
#include "bench/hiva_bench_graph.hpp"
#include "bench/hiva_instant_model.hpp"
#include "bench/scripted_instant_backend.hpp"
#include "runtime/hiva/entry/hiva_events.hpp"
#include "runtime/hiva/entry/hiva_settings_reader.hpp"
#include "runtime/core/data_paths.hpp"
#include "runtime/hiva/graph/graph_json.hpp"
#include "runtime/hiva/hiva_setup.hpp"
#include "runtime/hiva/hiva_strategy.hpp"
#include "runtime/hiva/routing/knowledge_cost.hpp"
#include "runtime/memory/hashed_ngram_embedder.hpp"
#include "runtime/store/journal_store.hpp"

using namespace kaisha;
using bench::EffectRecording;
using bench::InstantHivaModel;
using bench::ReplayDriver;

namespace {

const char* kQuery =
    "Which of three suppliers should we pick for the office chairs, given one budget? Compare their prices and "
    "delivery times and compute the total cost of 40 chairs from each.";
const char* kGraphName = "bench20";
constexpr int kTopK = 2;

struct Shape {
  int rounds = 5;
  int tasks = 5;
  int runtime_rounds = 3;
};
Shape g_shape;

hiva::HivaSettings hiva_settings(int iterations) {
  hiva::HivaSettings s;
  s.model = "bench-local";
  s.graph = kGraphName;
  s.iterations = iterations;
  s.routing.k = kTopK;
  return s;
}

// The graph as `kaisha evolve` saves it, under the key HiVA reads.
driver::StateValues graph_state() {
  return {
      {hiva::graph_state_key(kGraphName), json{{"iteration", 0}, {"graph", hiva::to_json(bench::hiva_bench_graph())}}}};
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

// HiVA's strategy as the runtime sets it up (prompts, knowledge graph,
// embedder, tool source), priced like the runtime's, every event built as
// with a listener. Made once per setting: loading is not a task's work.
const driver::DrivenStrategy& hiva_strategy(int iterations) {
  static std::map<int, driver::DrivenStrategy> made;
  auto it = made.find(iterations);
  if (it != made.end()) return it->second;
  static config::Config config;
  config.ceo.model = "bench-local";
  driver::StrategySetup in;
  in.config = &config;
  in.settings = hiva_settings(iterations);
  in.price = [](const std::string&) { return bench_local_cost(); };
  in.check_model = [](const std::string&) { return Status::Ok(); };
  in.listening = [] { return true; };
  auto d = hiva::make_hiva_strategy(in);
  if (!d) {
    std::fprintf(stderr, "HiVA's strategy: %s\n", d.error().message.c_str());
    std::exit(1);
  }
  return made.emplace(iterations, std::move(d).value()).first->second;
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
  uint64_t asks = 0;   // the graph agents' turns: activated agents
  uint64_t calls = 0;  // CallModel effects (instructions, critiques, gradients, updates)
  uint64_t hires = 0;
  std::set<std::string> hired;  // the activated agents' ids
  bool ok = false;
  json metadata;  // the Finish's
};

// Runs a task driver to its finish, answering every effect in flight at
// once, first in first out, as kaisha's runtime would with an instant model:
// a CallModel or an Ask with InstantHivaModel's reply, a hire or a fire
// accepted, a tool run ok with an empty result (none is expected: the
// graph's agents have no tool and no task is an environment's). Outcomes
// after the finish are dropped (the runtime drops them too). With
// `recording`, keeps what the driver returned on start and on each outcome.
Run execute(driver::AnyTaskDriver& d, EffectRecording* recording = nullptr) {
  Run run;
  std::deque<driver::Effect> pending;
  bool finished = false;
  auto absorb = [&](driver::Effects& out) {
    for (driver::Effect& e : out) {
      if (std::holds_alternative<driver::CallModel>(e)) {
        ++run.calls;
        pending.push_back(std::move(e));
      } else if (std::holds_alternative<driver::Ask>(e)) {
        ++run.asks;
        pending.push_back(std::move(e));
      } else if (const auto* h = std::get_if<driver::Hire>(&e)) {
        ++run.hires;
        run.hired.insert(h->spec.name.substr(h->spec.name.find('-') + 1));
        pending.push_back(std::move(e));
      } else if (std::holds_alternative<driver::RunTool>(e) || std::holds_alternative<driver::ReadBudget>(e)) {
        pending.push_back(std::move(e));
      } else if (const auto* f = std::get_if<driver::Fire>(&e); f && f->id != 0) {
        pending.push_back(std::move(e));
      } else if (auto* f = std::get_if<driver::Finish>(&e)) {
        finished = true;
        run.ok = f->ok;
        run.metadata = std::move(f->metadata);
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
      a.response.message.content = InstantHivaModel::reply(c->request.messages);
      a.response.usage.input_tokens = 12;
      a.response.usage.output_tokens = 3;
      o = std::move(a);
    } else if (const auto* q = std::get_if<driver::Ask>(&e)) {
      driver::AskAnswered a;
      a.id = q->id;
      a.ok = true;
      a.reply.agent = q->agent;
      a.reply.ok = true;
      a.reply.output = InstantHivaModel::reply(q->messages);
      o = std::move(a);
    } else if (const auto* h = std::get_if<driver::Hire>(&e)) {
      o = driver::HireAnswered{h->id, true, false, "", json::object()};
    } else if (const auto* t = std::get_if<driver::RunTool>(&e)) {
      o = driver::ToolRan{t->id, company::ToolResult::success("", json(""))};
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

Run hiva_in_process(int iterations, EffectRecording* recording = nullptr) {
  auto d = hiva_strategy(iterations).make(bench_task(), graph_state());
  return execute(*d, recording);
}

// One HiVA task's effects, recorded against the instant model.
std::shared_ptr<const EffectRecording> record_hiva(int iterations) {
  auto recording = std::make_shared<EffectRecording>();
  const Run r = hiva_in_process(iterations, recording.get());
  if (!r.ok) {
    std::fprintf(stderr, "the recorded HiVA task (iterations %d) did not finish ok: %s\n", iterations,
                 r.metadata.dump().c_str());
    std::exit(1);
  }
  return recording;
}

Run replay_in_process(const std::shared_ptr<const EffectRecording>& recording) {
  auto d = driver::make_task_driver<ReplayDriver>(recording);
  return execute(*d);
}

struct Figures {
  double hiva = 0, trivial = 0;
};

// ROUNDS rounds of TASKS tasks per side, the sides alternating; thread CPU
// µs per activated agent, each round's median, then the median of rounds.
Figures in_process_rounds(int iterations, const std::shared_ptr<const EffectRecording>& recording, const char* what) {
  std::printf("%s\n%-6s %18s %18s %18s\n", what, "round", "HiVA us/agent", "trivial us/agent", "HiVA-trivial");
  std::vector<double> hiva_rounds, replay_rounds;
  for (int round = 1; round <= g_shape.rounds; ++round) {
    std::vector<double> h, t;
    for (int i = 0; i < g_shape.tasks; ++i) {
      // Alternate which side goes first, so neither always runs on a warmer cache.
      auto one_hiva = [&] {
        Run r = hiva_in_process(iterations);
        h.push_back(r.cpu_us / r.asks);
      };
      auto one_replay = [&] {
        Run r = replay_in_process(recording);
        t.push_back(r.cpu_us / r.asks);
      };
      if ((round + i) % 2) {
        one_hiva();
        one_replay();
      } else {
        one_replay();
        one_hiva();
      }
    }
    hiva_rounds.push_back(median(h));
    replay_rounds.push_back(median(t));
    std::printf("%-6d %18.2f %18.2f %18.2f\n", round, hiva_rounds.back(), replay_rounds.back(),
                hiva_rounds.back() - replay_rounds.back());
  }
  return Figures{median(hiva_rounds), median(replay_rounds)};
}

// Two parts of the driver's work alone, in thread CPU µs: the knowledge
// cost of every agent but the source against the task, as dist_of computes
// it (the agent's profile, then its cost; the task's profile once, as the
// driver's start does), per agent; and to_json of the graph, per snapshot.
struct Parts {
  double dist_us = 0;
  double snapshot_us = 0;
};

Parts parts_alone(const hiva::AgentGraph& graph) {
  struct Knowledge {
    hiva::KnowledgeGraph kg;
    hiva::Embed embed;
  };
  static const Knowledge k = [] {
    auto embedder = std::make_shared<memory::HashedNgramEmbedder>();
    hiva::Embed embed = [embedder](const std::string& text) { return embedder->embed_one(text); };
    auto kg = hiva::read_knowledge_graph(data_file("data/hiva/knowledge.json"));
    if (!kg) {
      std::fprintf(stderr, "the knowledge graph: %s\n", kg.error().message.c_str());
      std::exit(1);
    }
    kg->embed_nodes(embed);
    return Knowledge{std::move(kg).value(), embed};
  }();
  const hiva::KnowledgeCostSettings settings;
  Parts parts;
  double sum = 0;
  const double t0 = thread_cpu_us();
  auto task = hiva::task_profile_of(kQuery, k.kg, k.embed);
  for (const hiva::GraphAgent& a : graph.agents()) {
    if (a.id == hiva::AgentGraph::kSource) continue;
    auto cost =
        hiva::knowledge_cost(hiva::profile_of(a.prompt, a.tool_description, k.embed), *task, {}, k.kg, settings);
    sum += cost ? cost->dist : 0;
  }
  parts.dist_us = (thread_cpu_us() - t0) / (graph.agents().size() - 1);
  const int snapshots = 10;
  const double t1 = thread_cpu_us();
  for (int i = 0; i < snapshots; ++i) sum += hiva::to_json(graph).size();
  parts.snapshot_us = (thread_cpu_us() - t1) / snapshots;
  if (sum < 0) std::printf("%f\n", sum);  // keeps the work
  return parts;
}

// ------------------------------------------------ through kaisha's runtime

constexpr const char* kReplayStrategy = "hiva_replay";

// ReplayDriver as a strategy registered without CAF: at each company start
// it records one HiVA forward pass with the runtime's own price of the
// model, so that its hires and asks are HiVA's, and replays it for every
// task.
void register_replay_strategy() {
  strategy::StrategyInfo info;
  info.name = kReplayStrategy;
  info.help = "issues a recorded HiVA forward pass's effects (a benchmark's baseline)";
  info.config_section = kReplayStrategy;
  Status s = actors::register_strategy(std::move(info), [](const driver::StrategySetup& in) {
    driver::DrivenStrategy d;
    d.agent = "HiVA";
    d.who = "HiVA's replay";
    d.model = in.price("bench-local");
    auto recording = record_hiva(0);
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

// The benchmark graph saved in a new journal as `kaisha evolve` saves one,
// so that `strategy: hiva` with `graph: bench20` starts from it.
void save_graph(const std::filesystem::path& db) {
  auto store = store::JournalStore::open(db.string());
  if (!store) {
    std::fprintf(stderr, "the journal %s: %s\n", db.c_str(), store.error().message.c_str());
    std::exit(1);
  }
  for (auto& [key, value] : graph_state()) {
    Status s =
        (*store)->save_state(store::StateRow{hiva::kHivaStrategy, key, value, "bench-seed", "the benchmark graph", 0});
    if (!s.ok()) {
      std::fprintf(stderr, "saving the benchmark graph: %s\n", s.error().message.c_str());
      std::exit(1);
    }
  }
}

struct RuntimeRun {
  double wall_us = 0;
  double cpu_us = 0;    // the process's, all threads
  uint64_t agents = 0;  // the graph agents' turns the backend answered
  uint64_t calls = 0;   // model calls the backend answered
};

RuntimeRun runtime_task(const std::string& strategy) {
  const auto dir = bench::make_temp_dir();
  RuntimeRun run;
  {
    config::Config c = bench::instant_company_config(dir, 1);
    c.strategy_settings[hiva::kSection] = hiva_settings(0);
    save_graph(c.store_path);
    auto backend = std::make_shared<bench::InstantHivaBackend>();
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
    // An untimed task first: a company's start goes on after start()
    // returns (HiVA's strategy reads its saved graph from the journal before
    // it takes a task), and that is a company's cost, not a task's.
    msg::TaskResult warm = (*rt)->run_task(kQuery);
    if (!warm.ok) {
      std::fprintf(stderr, "the %s warm-up task failed: %s\n", strategy.c_str(), warm.error.c_str());
      std::exit(1);
    }
    const uint64_t agents0 = backend->agent_turns(), calls0 = backend->calls();
    const double c0 = process_cpu_us();
    const auto t0 = std::chrono::steady_clock::now();
    msg::TaskResult r = (*rt)->run_task(kQuery);
    run.wall_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    run.cpu_us = process_cpu_us() - c0;
    if (!r.ok) {
      std::fprintf(stderr, "the %s task failed: %s\n", strategy.c_str(), r.error.c_str());
      std::exit(1);
    }
    run.agents = backend->agent_turns() - agents0;
    run.calls = backend->calls() - calls0;
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
  int* fields[] = {&g_shape.rounds, &g_shape.tasks, &g_shape.runtime_rounds};
  // RUNTIME_ROUNDS may be 0: the in-process parts only.
  for (int i = 1; i < argc && i <= 3; ++i) *fields[i - 1] = std::max(i == 3 ? 0 : 1, std::atoi(argv[i]));
  const hiva::AgentGraph graph = bench::hiva_bench_graph();
  const size_t v = graph.agents().size();
  std::printf("HiVA: a graph of %zu agents and %zu edges, k = %d; %d rounds of %d tasks per side\n", v,
              graph.edges().size(), kTopK, g_shape.rounds, g_shape.tasks);
  print_load();

  // ---- 1. in-process: one forward pass, HiVA against its replay
  const auto forward = record_hiva(0);
  const Run probe = hiva_in_process(0);
  const Run probe_replay = replay_in_process(forward);
  if (probe_replay.asks != probe.asks || probe_replay.calls != probe.calls || probe_replay.hires != probe.hires) {
    std::fprintf(stderr, "the replay issued %llu asks, %llu calls and %llu hires, HiVA %llu, %llu and %llu\n",
                 (unsigned long long)probe_replay.asks, (unsigned long long)probe_replay.calls,
                 (unsigned long long)probe_replay.hires, (unsigned long long)probe.asks,
                 (unsigned long long)probe.calls, (unsigned long long)probe.hires);
    return 1;
  }
  const int64_t model_calls = probe.metadata.value("model_calls", int64_t{-1});
  std::printf(
      "one forward pass: %llu of |V| = %zu agents activated (%s); %lld model calls (%llu agent asks, %llu "
      "CallModels) against |V|^2 = %zu (%s); %llu hires\n",
      (unsigned long long)probe.asks, v, probe.asks < v ? "smaller than the graph" : "NOT smaller",
      (long long)model_calls, (unsigned long long)probe.asks, (unsigned long long)probe.calls, v * v,
      model_calls >= 0 && size_t(model_calls) <= v * v ? "within" : "NOT within", (unsigned long long)probe.hires);
  size_t candidates = 0;  // the knowledge costs a pass computes: the activated agents' successors
  {
    std::set<std::string> c;
    for (const std::string& a : probe.hired)
      for (const std::string& s : graph.successors(a)) c.insert(s);
    candidates = c.size();
  }
  const Figures f = in_process_rounds(0, forward, "in-process, one forward pass:");
  std::vector<double> dist_rounds, snapshot_rounds;
  for (int round = 0; round < g_shape.rounds; ++round) {
    const Parts p = parts_alone(graph);
    dist_rounds.push_back(p.dist_us);
    snapshot_rounds.push_back(p.snapshot_us);
  }
  std::printf(
      "in-process, one forward pass, thread CPU per activated agent, median of %d rounds: HiVA %.2f us (driver and "
      "executor), trivial %.2f us, HiVA-trivial %.2f us (target <= 50 us: %s)\n",
      g_shape.rounds, f.hiva, f.trivial, f.hiva - f.trivial, f.hiva - f.trivial <= 50 ? "MET" : "MISSED");
  const double dist = median(dist_rounds), snapshot = median(snapshot_rounds);
  std::printf(
      "parts alone, medians of %d: a knowledge cost %.2f us per agent (%zu per pass: %.2f us per activated agent); "
      "a graph snapshot (to_json) %.2f us (2 built per pass: %.2f us per activated agent)\n",
      g_shape.rounds, dist, candidates, dist * candidates / probe.asks, snapshot, 2 * snapshot / probe.asks);
  print_load();

  // ---- 3. in-process: one full iteration (reported before the runtime, which takes longest)
  const auto iteration = record_hiva(1);
  const Run probe_it = hiva_in_process(1);
  std::printf("one iteration: %llu agents activated, %lld model calls (%llu asks, %llu CallModels), %zu agents after\n",
              (unsigned long long)probe_it.asks, (long long)probe_it.metadata.value("model_calls", int64_t{-1}),
              (unsigned long long)probe_it.asks, (unsigned long long)probe_it.calls,
              probe_it.metadata.value("agents", size_t{0}));
  const Figures it = in_process_rounds(1, iteration, "in-process, one iteration:");
  std::printf(
      "in-process, one iteration, thread CPU per activated agent, median of %d rounds: HiVA %.2f us, trivial %.2f "
      "us, HiVA-trivial %.2f us (no target)\n",
      g_shape.rounds, it.hiva, it.trivial, it.hiva - it.trivial);
  print_load();

  // ---- 2. through kaisha's runtime
  if (g_shape.runtime_rounds > 0) {
    register_replay_strategy();
    runtime_task(hiva::kHivaStrategy);  // warm-up: page in the code and the SQLite files
    runtime_task(kReplayStrategy);
    std::vector<double> hw, tw, hc, tc;
    std::printf("%-6s %16s %16s %8s %16s %16s\n", "round", "HiVA us/agent", "trivial us/agent", "ratio",
                "HiVA cpu/agent", "trivial cpu/agent");
    for (int round = 1; round <= g_shape.runtime_rounds; ++round) {
      std::vector<double> a, b, ac, bc;
      for (int i = 0; i < g_shape.tasks; ++i) {
        auto one = [&](const std::string& strategy, std::vector<double>& wall, std::vector<double>& cpu) {
          RuntimeRun r = runtime_task(strategy);
          if (r.agents != probe.asks || r.calls != probe.asks + probe.calls) {
            std::fprintf(stderr, "%s: %llu agents and %llu calls in the runtime, %llu and %llu in-process\n",
                         strategy.c_str(), (unsigned long long)r.agents, (unsigned long long)r.calls,
                         (unsigned long long)probe.asks, (unsigned long long)(probe.asks + probe.calls));
            std::exit(1);
          }
          wall.push_back(r.wall_us / r.agents);
          cpu.push_back(r.cpu_us / r.agents);
        };
        if ((round + i) % 2) {
          one(hiva::kHivaStrategy, a, ac);
          one(kReplayStrategy, b, bc);
        } else {
          one(kReplayStrategy, b, bc);
          one(hiva::kHivaStrategy, a, ac);
        }
      }
      hw.push_back(median(a));
      tw.push_back(median(b));
      hc.push_back(median(ac));
      tc.push_back(median(bc));
      std::printf("%-6d %16.1f %16.1f %7.2fx %16.1f %16.1f\n", round, hw.back(), tw.back(), hw.back() / tw.back(),
                  hc.back(), tc.back());
    }
    const double a = median(hw), b = median(tw);
    std::printf(
        "through the runtime, one forward pass, wall time per activated agent, median of %d rounds of %d tasks: "
        "HiVA %.1f us, trivial %.1f us, ratio %.2fx; process CPU per activated agent HiVA %.1f us, trivial %.1f us\n",
        g_shape.runtime_rounds, g_shape.tasks, a, b, a / b, median(hc), median(tc));
    print_load();
  }
  return 0;
}
