// The pyramid's agent-as-tool call against the CEO's AskAgent (infiagent.md
// §10; the pyramid issue's first benchmark), both through the real runtime
// with a zero-latency in-process model.
//
// One call, on either side, is a caller's model turn that asks for it, the
// callee's model call, and the result back in the caller's conversation:
//   AskAgent   a HASHIRU task whose CEO calls AskAgent on an employee hired
//              before the task, K times, one call per turn;
//   agent tool a pyramid task whose entry agent calls a level-1 agent as a
//              tool, K times, one call per turn; the callee answers with
//              final_output at once (hired once for the task, asked with a
//              fresh context per call; no judge, as AskAgent has none).
// Each task runs in a fresh runtime (its start and teardown not timed), so
// neither side carries a conversation over from the last task. Rounds
// alternate the two sides; the figure is the median over rounds of each
// side's time per call, and the ratio of the two medians.
//
// Usage: bench_agent_tool_overhead [ROUNDS] [CALLS_PER_TASK] [TASKS_PER_ROUND]
//        (default 3 100 5)
//        bench_agent_tool_overhead ask CALLS: one AskAgent task of CALLS calls
//        and nothing else (no warm-up), for callgrind: the difference of two
//        such runs, over the difference of their CALLS, is a call's
//        instructions without the runtime's start.
//        bench_agent_tool_overhead loop CALLS: one AskAgent of an employee
//        granted Calculator, whose tool loop calls it CALLS times before it
//        answers; for callgrind as above: the difference over CALLS is one
//        iteration of the loop (a tool call and the model call after it).
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
#include "runtime/pyramid/entry/pyramid_settings.hpp"

using namespace kaisha;

namespace {

using Clock = std::chrono::steady_clock;

using bench::ScriptedInstantBackend;

using kaisha::bench::make_temp_dir;

std::unique_ptr<actors::CompanyRuntime> start(config::Config c, const std::string& strategy,
                                              std::shared_ptr<ScriptedInstantBackend> backend) {
  actors::RuntimeOptions o;
  o.config = std::move(c);
  o.chat = std::move(backend);
  o.strategy = strategy;
  o.scheduler_threads = 2;
  auto rt = actors::CompanyRuntime::start(std::move(o));
  if (!rt.ok()) {
    std::fprintf(stderr, "CompanyRuntime::start (%s): %s\n", strategy.c_str(), rt.error().message.c_str());
    std::exit(1);
  }
  return std::move(rt).value();
}

// One task's time per call, in µs.
double ask_agent_task(size_t calls) {
  const auto dir = make_temp_dir();
  double us = 0;
  {
    auto backend = std::make_shared<ScriptedInstantBackend>(calls);
    auto rt = start(bench::instant_company_config(dir, calls), "hashiru", backend);
    bench::hire_bench_employee(*rt);
    const auto t0 = Clock::now();
    msg::TaskResult r = rt->run_task("Ask bench to ping");
    us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / static_cast<double>(calls);
    if (!r.ok) {
      std::fprintf(stderr, "the AskAgent task failed: %s\n", r.error.c_str());
      std::exit(1);
    }
    if (backend->callee_calls() != calls) {
      std::fprintf(stderr, "the employee answered %llu asks, not %zu\n",
                   static_cast<unsigned long long>(backend->callee_calls()), calls);
      std::exit(1);
    }
  }
  std::filesystem::remove_all(dir);
  return us;
}

// One AskAgent whose employee's tool loop makes `tool_calls` tool calls; µs
// per tool call.
double employee_loop_task(size_t tool_calls) {
  const auto dir = make_temp_dir();
  double us = 0;
  {
    auto backend = std::make_shared<ScriptedInstantBackend>(1, tool_calls);
    config::Config c = bench::instant_company_config(dir, 1);
    c.employee.tools.agents["bench"] = {config::GrantEntry{"Calculator", ""}};
    c.employee.max_tool_iterations = static_cast<int>(tool_calls) + 1;
    auto rt = start(std::move(c), "hashiru", backend);
    bench::hire_bench_employee(*rt);
    const auto t0 = Clock::now();
    msg::TaskResult r = rt->run_task("Ask bench to ping");
    us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / static_cast<double>(tool_calls);
    if (!r.ok) {
      std::fprintf(stderr, "the employee-loop task failed: %s\n", r.error.c_str());
      std::exit(1);
    }
    if (backend->callee_calls() != tool_calls + 1) {
      std::fprintf(stderr, "the employee made %llu model calls, not %zu\n",
                   static_cast<unsigned long long>(backend->callee_calls()), tool_calls + 1);
      std::exit(1);
    }
  }
  std::filesystem::remove_all(dir);
  return us;
}

double agent_tool_task(size_t calls) {
  const auto dir = make_temp_dir();
  std::ofstream(dir / "library.yaml") << "agents:\n"
                                         "  - name: judge_agent\n"
                                         "    level: -1\n"
                                         "    description: checks results\n"
                                         "    responsibility: Check task {task_id}.\n"
                                         "    workflow: Rule with final_output.\n"
                                         "    available_tools: [final_output]\n"
                                         "  - name: echo_agent\n"
                                         "    level: 1\n"
                                         "    description: answers pings\n"
                                         "    responsibility: You answer the benchmark's pings.\n"
                                         "    workflow: Call final_output.\n"
                                         "    available_tools: [final_output]\n"
                                         "  - name: lead_agent\n"
                                         "    level: 2\n"
                                         "    description: pings the echo agent\n"
                                         "    responsibility: You lead the benchmark.\n"
                                         "    workflow: Call echo_agent, then final_output.\n"
                                         "    available_tools: [echo_agent, final_output]\n"
                                         "    max_turns: 10000\n";
  double us = 0;
  {
    config::Config c = bench::instant_company_config(dir, calls);
    pyramid::PyramidConfig pc;
    pc.library = (dir / "library.yaml").string();
    pc.entry = "lead_agent";
    pc.enforce_judge = false;
    c.strategy_settings[pyramid::kSection] = pc;
    auto backend = std::make_shared<ScriptedInstantBackend>(calls);
    auto rt = start(std::move(c), "pyramid", backend);
    const auto t0 = Clock::now();
    msg::TaskResult r = rt->run_task("Ping the echo agent");
    us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / static_cast<double>(calls);
    // The lead's call and one per ping.
    if (r.ok && r.metadata.value("calls", 0) != static_cast<int64_t>(calls) + 1) {
      std::fprintf(stderr, "the pyramid task made %s calls, not %zu\n",
                   r.metadata.value("calls", json()).dump().c_str(), calls + 1);
      std::exit(1);
    }
    if (!r.ok) {
      std::fprintf(stderr, "the pyramid task failed: %s\n", r.error.c_str());
      std::exit(1);
    }
    if (backend->callee_calls() != calls) {
      std::fprintf(stderr, "the echo agent answered %llu calls, not %zu\n",
                   static_cast<unsigned long long>(backend->callee_calls()), calls);
      std::exit(1);
    }
  }
  std::filesystem::remove_all(dir);
  return us;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 2 && std::string(argv[1]) == "ask") {
    const double us = ask_agent_task(static_cast<size_t>(std::max(1, std::atoi(argv[2]))));
    std::printf("AskAgent %.1f us/call\n", us);
    return 0;
  }
  if (argc > 2 && std::string(argv[1]) == "loop") {
    const double us = employee_loop_task(static_cast<size_t>(std::max(1, std::atoi(argv[2]))));
    std::printf("employee tool loop %.1f us/tool call\n", us);
    return 0;
  }
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 3;
  const size_t calls = argc > 2 ? static_cast<size_t>(std::max(1, std::atoi(argv[2]))) : 100;
  const int tasks = argc > 3 ? std::max(1, std::atoi(argv[3])) : 5;
  ask_agent_task(calls);  // warm-up: page in the code and the SQLite files
  agent_tool_task(calls);
  std::vector<double> ask_rounds, tool_rounds;
  std::printf("%-6s %18s %18s %8s\n", "round", "AskAgent us/call", "agent tool us/call", "ratio");
  for (int round = 1; round <= rounds; ++round) {
    std::vector<double> ask, tool;
    // Alternate which side goes first, so neither always runs on a warmer machine.
    for (int t = 0; t < tasks; ++t) {
      if ((round + t) % 2) {
        ask.push_back(ask_agent_task(calls));
        tool.push_back(agent_tool_task(calls));
      } else {
        tool.push_back(agent_tool_task(calls));
        ask.push_back(ask_agent_task(calls));
      }
    }
    ask_rounds.push_back(median(ask));
    tool_rounds.push_back(median(tool));
    std::printf("%-6d %18.1f %18.1f %7.2fx\n", round, ask_rounds.back(), tool_rounds.back(),
                tool_rounds.back() / ask_rounds.back());
  }
  const double a = median(ask_rounds), t = median(tool_rounds);
  std::printf(
      "median of %d rounds (%zu calls per task, %d tasks per round): AskAgent %.1f us, agent tool %.1f us, "
      "ratio %.2fx (target <= 1.2x: %s)\n",
      rounds, calls, tasks, a, t, t / a, t / a <= 1.2 ? "MET" : "MISSED");
  return 0;
}
