// Planner overhead: what the effgen strategy's own machinery costs per
// subtask — routing, decomposition parsing, DAG scheduling, worker hire/fire,
// ledger reservations and settlements, messages and journal — with models
// that answer instantly.
//
// A CompanyRuntime runs `kaisha run --strategy effgen` tasks whose planner
// model returns a 5-subtask hybrid DAG ({st_1, st_2, st_3} -> st_4 -> st_5),
// through an in-process ChatClient stub that answers on the caller's thread
// with zero latency. Every model call of a task (decomposition, 5 worker
// calls, synthesis; the judge is off so that the figure is the scheduler's)
// is therefore pure kaisha overhead, as is everything between them.
//
// Printed, in the same run:
//   task_us         wall time of one effgen task (p50/p90/p99 over the runs)
//   single_ask_us   one AskAgent round trip through the same runtime (the
//                   foundation's ask overhead, measured here for comparison)
//   per_subtask_us  (task_us - 2 * single_ask_us) / 5: the task's time beyond
//                   its planner's two own model calls, per subtask.
// Target (issue 3): per_subtask_us p50 <= 200 us.
//
// Usage: bench_planner_overhead [tasks=200] [journal_dir=/dev/shm]
// BENCH_PLANNER_KEEP=1 keeps the journal (its path is printed) to inspect
// what a task writes, e.g. with `kaisha history --db PATH`.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "actors/company/company_runtime.hpp"
#include "runtime/effgen/entry/effgen_settings.hpp"

namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

const char* kPlan =
    R"({"subtasks":[)"
    R"({"id":"st_1","description":"Collect prices","depends_on":[],"expected_output":"prices"},)"
    R"({"id":"st_2","description":"Collect certifications","depends_on":[],"expected_output":"list"},)"
    R"({"id":"st_3","description":"Collect regions","depends_on":[],"expected_output":"list"},)"
    R"({"id":"st_4","description":"Compute totals","depends_on":["st_1","st_2","st_3"],"expected_output":"totals"},)"
    R"({"id":"st_5","description":"Write the report","depends_on":["st_4"],"expected_output":"report"}],)"
    R"("parallel_groups":[["st_1","st_2","st_3"]],"reasoning":"fan-in then chain"})";

// Answers every call at once: a plan for the decomposition prompt, a summary
// for the synthesis prompt, a fixed line for everything else.
class InstantModels : public kaisha::company::ChatClient {
 public:
  kaisha::Status check_model(const std::string&) const override { return kaisha::Status::Ok(); }
  void chat(const std::string&, kaisha::llm::ChatRequest req, kaisha::company::ChatHandlers h) override {
    const std::string& last = req.messages.empty() ? std::string() : req.messages.back().content;
    kaisha::llm::ChatResponse r;
    r.message.role = kaisha::llm::Role::assistant;
    if (last.find("task decomposition expert") != std::string::npos)
      r.message.content = kPlan;
    else if (last.find("Subtask results") != std::string::npos)
      r.message.content = "final report";
    else
      r.message.content = "done";
    r.usage = {100, 20, false};
    h.on_done(std::move(r));
  }
};

double pct(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, size_t(q * double(v.size())))];
}

}  // namespace

int main(int argc, char** argv) {
  const int tasks = argc > 1 ? std::atoi(argv[1]) : 200;
  // The journal lives on tmpfs when there is one: disk fsync latency is the
  // machine's, not the planner's (SQLite's own CPU stays in the figure).
  const char* where = argc > 2 ? argv[2] : (fs::exists("/dev/shm") ? "/dev/shm" : nullptr);
  const fs::path base = where ? fs::path(where) : fs::temp_directory_path();
  const fs::path dir = base / ("kaisha-planner-bench-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  {
    std::ofstream(dir / "costs.yaml") << "models:\n  worker:\n    model_ref: stub:worker\n    type: local\n"
                                         "    create_resource_cost: 1\n    invoke_resource_cost: 1\n";
  }
  kaisha::actors::RuntimeOptions o;
  o.config.store_path = (dir / "bench.db").string();
  o.config.cost_table_file = (dir / "costs.yaml").string();
  o.config.ceo.model = "stub:planner";
  o.config.strategy = "effgen";
  kaisha::effgen::EffgenConfig effgen;
  effgen.worker_model = "worker";
  o.config.strategy_settings[kaisha::effgen::kSection] = effgen;
  o.config.judge.subtasks = false;
  o.config.budget.resource_total = 1e12;
  o.config.budget.expense_total = 1e6;
  o.chat = std::make_shared<InstantModels>();
  o.scheduler_threads = 2;
  auto rt = kaisha::actors::CompanyRuntime::start(o);
  if (!rt.ok()) {
    std::fprintf(stderr, "start failed: %s\n", rt.error().message.c_str());
    return 1;
  }
  // A query the router scores above tau = 7.0 (decompose).
  const std::string query =
      "Research the three largest cloud providers, compare their pricing for GPU instances, analyze the "
      "security and compliance certifications of each, calculate the total cost of a 6 month training run "
      "on each, and synthesize a recommendation report with a table and a chart for the finance team.";

  // Warm up, and check that the plan really runs as 5 subtasks.
  kaisha::msg::TaskResult first = (*rt)->run_task(query);
  if (!first.ok || first.metadata.value("num_subtasks", 0) != 5) {
    std::fprintf(stderr, "the benchmark task did not run as a 5-subtask plan: %s %s\n", first.error.c_str(),
                 first.metadata.dump().c_str());
    return 1;
  }
  std::vector<double> task_us;
  for (int i = 0; i < tasks; ++i) {
    const auto t0 = Clock::now();
    kaisha::msg::TaskResult r = (*rt)->run_task(query);
    task_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    if (!r.ok) {
      std::fprintf(stderr, "task failed: %s\n", r.error.c_str());
      return 1;
    }
  }
  // The foundation's figure, in the same runtime: one AskAgent round trip.
  (*rt)->call_tool("AgentCreator",
                   {{"agent_name", "Probe"}, {"base_model", "worker"}, {"system_prompt", "p"}, {"description", "d"}});
  std::vector<double> ask_us;
  for (int i = 0; i < tasks * 2; ++i) {
    const auto t0 = Clock::now();
    (*rt)->call_tool("AskAgent", {{"agent_name", "Probe"}, {"prompt", "hi"}});
    ask_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
  const double ask50 = pct(ask_us, 0.5);
  std::vector<double> per_subtask;
  for (double t : task_us) per_subtask.push_back(std::max(0.0, (t - 2 * ask50) / 5.0));
  std::printf(
      "effgen planner overhead, %d tasks of 5 subtasks (hybrid DAG), instant models, judge off, journal in %s\n", tasks,
      base.c_str());
  std::printf("%-16s %10s %10s %10s\n", "", "p50_us", "p90_us", "p99_us");
  std::printf("%-16s %10.0f %10.0f %10.0f\n", "task_us", pct(task_us, .5), pct(task_us, .9), pct(task_us, .99));
  std::printf("%-16s %10.0f %10.0f %10.0f\n", "single_ask_us", ask50, pct(ask_us, .9), pct(ask_us, .99));
  std::printf("%-16s %10.0f %10.0f %10.0f\n", "per_subtask_us", pct(per_subtask, .5), pct(per_subtask, .9),
              pct(per_subtask, .99));
  std::printf("target per_subtask_us p50 <= 200: %s\n", pct(per_subtask, .5) <= 200 ? "met" : "MISSED");
  rt->reset();
  if (const char* keep = std::getenv("BENCH_PLANNER_KEEP"); keep && *keep == '1')
    std::printf("journal kept: %s\n", (dir / "bench.db").c_str());
  else
    fs::remove_all(dir);
  return 0;
}
