// Proof by killing: `kaisha run` is killed (SIGKILL) at random points of a
// scripted multi-agent task, once per strategy, and `kaisha resume` finishes
// it. The final answer is an uninterrupted run's; the expense ledger differs
// from that run's only by calls the journal lists as re-run; every step
// journaled before the kill is still there; the resumed process asks the
// model only for what the journal did not keep, once (the mock's request
// log counts every call); and every conversation it sends — the CEO's, a
// planner's, a judge's, an employee's — is one the uninterrupted run sent.
//
// KAISHA_KILL_POINTS sets the points per strategy (default 20) and
// KAISHA_KILL_SEED the random seed (printed on failure); KAISHA_KILL_VERBOSE
// prints what each point did.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <functional>
#include <regex>
#include <map>
#include <set>
#include <string>
#include <thread>

#include "cluster_fixture.hpp"
#include "e2e_fixture.hpp"
#include "runtime/core/data_paths.hpp"

namespace kaisha::e2e {
namespace {

// The scenarios' mock scripts and prices, shared with bench/soak_resume.sh.
// Every model is priced in dollars, so that a call paid twice shows in the ledger.
std::string resume_data(const std::string& name) {
  return std::string(KAISHA_SOURCE_DIR) + "/tests/e2e/data/resume/" + name;
}
std::string resume_script(const std::string& name) {
  auto text = read_text_file(resume_data(name));
  if (!text.ok()) throw std::runtime_error(text.error().message);
  return *text;
}

struct Scenario {
  std::string strategy;
  std::string script;
  std::string extra;  // config sections
  std::string ceo_model = "openai:ceo-model";
  std::string task;
  std::string employee;  // inside employee: (tool grants)
  // What must come out of every run the same, besides the answer and the
  // charges (config, store, task id); null: nothing more.
  std::function<std::string(const std::string& cfg, const std::string& db, const std::string& task)> fingerprint;
};

// HASHIRU: the CEO hires a worker, asks it twice, fires it and answers.
// The worker has a calculator: each ask is a loop of two model calls and a
// tool call, the second call paid by the worker itself.
Scenario hashiru() {
  Scenario s;
  s.strategy = "hashiru";
  s.task = "Add up the two numbers the worker finds.";
  s.employee = "  tools:\n    agents:\n      Adder: [Calculator]\n";
  s.script = resume_script("hashiru.yaml");
  return s;
}

// effGen: a plan of three subtasks (one, then two at once), each audited by the judge, then a synthesis.
Scenario effgen() {
  Scenario s;
  s.strategy = "effgen";
  s.task =
      "Research the three largest cloud providers, compare their pricing for GPU instances, analyze the security "
      "and compliance certifications of each, calculate the total cost of a 6 month training run on each, and "
      "synthesize a recommendation report with a table and a chart for the finance team.";
  s.extra =
      "effgen:\n  planner_model: openai:planner-7b\n  worker_model: worker\n  max_concurrent: 5\n"
      "judge:\n  model: openai:judge-7b\n";
  s.script = resume_script("effgen.yaml");
  return s;
}

// The pyramid: examples/pyramid/'s lead and writer (two writer calls at
// once, each writing a file), every success audited by the judge.
Scenario pyramid(const std::string& work) {
  Scenario s;
  s.strategy = "pyramid";
  s.ceo_model = "openai:lead-model";
  s.task = "Write two haiku, one about rivers and one about stones";
  s.extra = "pyramid:\n  library: " + std::string(KAISHA_SOURCE_DIR) +
            "/examples/pyramid/writers.yaml\n  model: openai:worker-model\n  entry: lead_agent\n"
            "tools:\n  workspace_root: " +
            work + "\n";
  s.script = resume_script("pyramid.yaml");
  return s;
}

// The pyramid with candidate models (examples/pyramid/candidates.yaml): one
// coder call runs on three branches at once, the judge audits each success,
// two accepted change sets conflict, one is merged and the others are kept as
// rejected commits, and the branches are dropped. Every run, killed or not,
// ends with the same commit history (kind and model of each commit): a merge
// repeated by a resume is recorded once.
Scenario pyramid_candidates(const std::string& work) {
  Scenario s;
  s.strategy = "pyramid";
  s.ceo_model = "openai:lead-model";
  s.task = "Write a program that prints the 10th Fibonacci number";
  s.extra = "pyramid:\n  library: " + std::string(KAISHA_SOURCE_DIR) +
            "/examples/pyramid/candidates.yaml\n  entry: lead_agent\n"
            "tools:\n  workspace_root: " +
            work + "\n";
  auto text = read_text_file(std::string(KAISHA_SOURCE_DIR) + "/examples/pyramid/candidates_scenario.yaml");
  if (!text.ok()) throw std::runtime_error(text.error().message);
  // Every answer takes 40 ms, as in the other scenarios: the task's length is
  // then the model's, not the machine's, so the kill points drawn over the
  // uninterrupted run's wall time fall inside later runs too.
  s.script = "defaults: { latency_ms: 40 }\n" + *text;
  s.fingerprint = [](const std::string& cfg, const std::string& db, const std::string& task) {
    RunResult r = run_process(KAISHA_EXE, {"history", "--config", cfg, "--db", db, task, "--commits", "--json"},
                              {{"KAISHA_MODEL", std::nullopt}, {"KAISHA_DB", std::nullopt}}, std::chrono::seconds(30));
    if (r.exit_code != 0) return "kaisha history failed: " + r.err;
    std::string out;
    for (const auto& c : json::parse(r.out, nullptr, false).value("commits", json::array()))
      out += c.value("kind", "") + " " + c.value("model", "") + " " + c.value("branch", "") + " " +
             c.value("changes", json::object()).dump() + "; ";
    return out;
  };
  return s;
}

// HALO: examples/halo/'s refinement, two planned subtasks, three roles and
// their searches (rollouts at once), stopped when the two answers agree.
Scenario halo() {
  Scenario s;
  s.strategy = "halo";
  s.ceo_model = "openai:halo-4o";
  s.task = "Write a haiku about a river in spring";
  s.extra =
      "halo:\n  model: halo-4o\n  max_subtasks: 3\n  equivalence: exact\n"
      "  search: { max_depth: 2, attempts: 2, max_iterations: 6, max_evaluations: 40 }\n";
  s.script = resume_script("halo.yaml");
  return s;
}

// HiVA: one STEV iteration on the singleton v_s -> v_a (forward pass, the
// aggregator's self-critique, the backward pass with its gradients, rewards,
// prompt rewrites and a topology edit), its agents asked one at a time and
// its backward calls several at once.
Scenario hiva() {
  Scenario s;
  s.strategy = "hiva";
  s.ceo_model = "openai:hiva-4o";
  s.task = "Write a haiku about a river in spring";
  s.extra = "hiva:\n  model: hiva-4o\n  iterations: 1\n";
  s.script = resume_script("hiva.yaml");
  return s;
}

// What a finished task left in its store.
struct Outcome {
  std::string session;
  std::string status;
  std::string answer;
  double expense = 0;                  // the expense ledger's charges for the task
  std::map<std::string, int> charges;  // how many charges, by "kind agent"
  int reruns = 0;                      // effects journaled as re-run after a resume
  std::vector<std::string> rerun;      // what they were ("ask Poet", "model call (ceo_model)")
  size_t requests = 0;                 // model requests the mock saw
  size_t kept_calls = 0;               // model calls, asks and verdicts whose answers the journal keeps for a resume
  std::set<int64_t> steps;             // step ids
  std::multiset<std::string> conversations;  // every request's model and messages, as the mock saw them
};

class ResumeTest : public E2eTest {
 protected:
  std::string config(const Scenario& s, const std::string& name) {
    ConfigOptions o;
    o.ceo_model = s.ceo_model;
    o.expense_total = 100;
    o.extra = "cost_table: " + resume_data("costs.yaml") + "\n" + s.extra;
    o.employee_extra = s.employee;
    return write_config(o, name);
  }

  std::unique_ptr<store::JournalStore> open(const std::string& db) {
    auto st = store::JournalStore::open_read_only(db);
    return st.ok() ? std::move(st).value() : nullptr;
  }

  // The store's one session's one task, or nothing yet.
  std::optional<store::TaskRow> task_in(const std::string& db) {
    auto t = latest_task(db);
    return t ? std::optional<store::TaskRow>(t->task) : std::nullopt;
  }

  Outcome outcome_of(const std::string& db) {
    Outcome out;
    auto j = open(db);
    if (!j) return out;
    auto t = task_in(db);
    if (!t) return out;
    out.session = t->session_id;
    out.status = t->status;
    out.answer = t->final_answer;
    auto ledger = j->ledger_entries(t->session_id);
    if (ledger.ok())
      for (const auto& e : *ledger)
        if (e.ledger == "expense" && (e.kind == "ask_settle" || e.kind == "hire" || e.kind == "tool_settle" ||
                                      e.kind == "tool_create" || e.kind == "ceo_call")) {
          out.expense += e.amount;
          ++out.charges[e.kind + " " + e.agent];
        }
    auto steps = j->session_steps(t->session_id);
    if (steps.ok())
      for (const auto& s : *steps) {
        out.steps.insert(s.id);
        if (s.kind == "note" && s.payload.is_object() && s.payload.contains("rerun")) {
          ++out.reruns;
          out.rerun.push_back(s.payload["rerun"].get<std::string>());
        }
      }
    out.requests = mock_->request_log().size();
    for (const auto& r : mock_->request_log()) out.conversations.insert(conversation(r, *t));
    // A kept ask made one model call, or as many as its employee's tool
    // loop kept; an ask whose answer was lost keeps its loop's calls too.
    auto kept = j->kept_outcomes(t->id);
    auto loops = j->kept_ask_steps(t->id);
    if (kept.ok() && loops.ok()) {
      for (const auto& k : *kept) {
        const json o = json::parse(k);
        const std::string type = o.value("type", "");
        const bool looped = type == "ask" && loops->count(o.value("id", int64_t{0}));
        out.kept_calls += type == "model" || type == "judge" || (type == "ask" && !looped);
      }
      for (const auto& [call, steps] : *loops)
        for (const auto& step : steps) out.kept_calls += json::parse(step).value("kind", "") == "model";
    }
    return out;
  }

  // A request as the mock saw it: its model and messages, with the run's
  // own task and session ids made alike (prompts name them) and the
  // pyramid's listing of the workspace left out.
  static std::string conversation(const json& request, const store::TaskRow& task) {
    json messages = request.value("messages", json::array());
    // The pyramid's prompts list the files in the task's workspace when a
    // call starts; with two writers at once that differs between any two
    // runs, interrupted or not.
    const std::string files = "Files in the task's workspace";
    for (auto& m : messages)
      if (m.is_object() && m.contains("content") && m["content"].is_string()) {
        std::string text = m["content"];
        if (const size_t at = text.find(files); at != std::string::npos) m["content"] = text.substr(0, at) + "<files>";
      }
    std::string c = request.value("model", "") + " " + messages.dump();
    for (const auto& [id, as] : {std::pair{task.id, "<task>"}, std::pair{task.session_id, "<session>"}})
      for (size_t at = c.find(id); !id.empty() && at != std::string::npos; at = c.find(id, at))
        c.replace(at, id.size(), as);
    return c;
  }

  // `c` with the budgets the tools report ("remaining_expense_budget": 99.4)
  // left out.
  static std::string without_budgets(const std::string& c) {
    static const std::regex figure(R"((remaining_(?:expense|resource)_budget\\":)[-+.0-9eE]+)");
    return std::regex_replace(c, figure, "$1<budget>");
  }

  std::vector<std::string> run_args(const Scenario& s, const std::string& cfg, const std::string& db) {
    return {"run", "--config", cfg, "--db", db, "--json", "--strategy", s.strategy, s.task};
  }

  // Starts the task in the background; returns how long after its task row
  // appeared it ran, or kills it `kill_after` then.
  std::chrono::milliseconds run_until(const Scenario& s, const std::string& cfg, const std::string& db,
                                      std::optional<std::chrono::milliseconds> kill_after, std::string* log) {
    BackgroundProcess p(KAISHA_EXE, run_args(s, cfg, db), {{"KAISHA_MODEL", std::nullopt}, {"KAISHA_DB", std::nullopt}},
                        db + ".log");
    EXPECT_TRUE(wait_for([&] { return task_in(db).has_value() || !p.running(); }, std::chrono::seconds(30)));
    const auto began = std::chrono::steady_clock::now();
    if (kill_after) {
      std::this_thread::sleep_for(*kill_after);
      p.kill9();
    } else {
      EXPECT_EQ(p.wait_exit(std::chrono::seconds(60)), 0) << p.log();
    }
    *log = p.log();
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - began);
  }

  // A HASHIRU task whose employee `agent` has the MCP test server's tools.
  static Scenario mcp_employee(const std::string& agent, const std::string& task) {
    Scenario s;
    s.strategy = "hashiru";
    s.task = task;
    s.employee = "  tools:\n    agents:\n      " + agent + ": [\"mcp:t\"]\n";
    s.extra = std::string("mcp_servers:\n  - name: t\n    command: ") + MCP_TEST_SERVER + "\n";
    return s;
  }

  // Runs `s` and kills it (SIGKILL) once `file` exists: the tool writing it is running.
  void run_until_written(const Scenario& s, const std::string& cfg, const std::string& db, const std::string& file) {
    BackgroundProcess p(KAISHA_EXE, run_args(s, cfg, db), {{"KAISHA_MODEL", std::nullopt}, {"KAISHA_DB", std::nullopt}},
                        db + ".log");
    ASSERT_TRUE(wait_for([&] { return read_text_file(file).ok(); }, std::chrono::seconds(30))) << p.log();
    p.kill9();
  }

  void kill_and_resume(const Scenario& s) {
    const int points = std::getenv("KAISHA_KILL_POINTS") ? std::atoi(std::getenv("KAISHA_KILL_POINTS")) : 20;
    const unsigned seed =
        std::getenv("KAISHA_KILL_SEED") ? unsigned(std::atoi(std::getenv("KAISHA_KILL_SEED"))) : std::random_device{}();
    SCOPED_TRACE("strategy " + s.strategy + ", KAISHA_KILL_SEED=" + std::to_string(seed));

    // The uninterrupted run.
    start_mock(s.script);
    std::string log;
    const std::string base_db = dir_.file(s.strategy + "-base.db");
    const auto wall = run_until(s, config(s, s.strategy + "-base.yaml"), base_db, std::nullopt, &log);
    const Outcome base = outcome_of(base_db);
    ASSERT_EQ(base.status, "done") << log;
    ASSERT_FALSE(base.answer.empty());
    ASSERT_GT(base.expense, 0);
    const std::string base_fingerprint =
        s.fingerprint ? s.fingerprint(config(s, s.strategy + "-base.yaml"), base_db, task_in(base_db)->id) : "";

    std::mt19937 rng(seed);
    // Kill points are drawn from the uninterrupted run's wall time; a point
    // that came after the task's end (this run was faster, the machine less
    // loaded) narrows the range for the next ones, so that most points fall
    // inside the task however the load changes.
    int64_t latest = std::max<int64_t>(1, wall.count());
    int interrupted = 0;
    for (int i = 0; i < points; ++i) {
      const auto delay = std::chrono::milliseconds(std::uniform_int_distribution<int64_t>(0, latest)(rng));
      SCOPED_TRACE("kill point " + std::to_string(i) + " at " + std::to_string(delay.count()) + " ms");
      start_mock(s.script);  // a fresh world: the request log counts this point's calls
      const std::string cfg = config(s, s.strategy + "-" + std::to_string(i) + ".yaml");
      const std::string db = dir_.file(s.strategy + "-" + std::to_string(i) + ".db");
      run_until(s, cfg, db, delay, &log);
      auto killed = task_in(db);
      ASSERT_TRUE(killed) << log;
      // A request the killed process sent may reach the mock's log a little
      // later: wait until the log is quiet.
      size_t seen = mock_->request_log().size();
      auto quiet_since = std::chrono::steady_clock::now();
      wait_for(
          [&] {
            const size_t now = mock_->request_log().size();
            if (now != seen) {
              seen = now;
              quiet_since = std::chrono::steady_clock::now();
            }
            return std::chrono::steady_clock::now() - quiet_since > std::chrono::milliseconds(300);
          },
          std::chrono::seconds(10));
      const Outcome before = outcome_of(db);

      RunResult resumed = kaisha({"resume", "--config", cfg, "--db", db, "--json"});
      ASSERT_EQ(resumed.exit_code, 0) << resumed.describe() << "\nkilled run:\n" << log;
      const Outcome after = outcome_of(db);
      if (killed->status == "running") {
        ++interrupted;
        EXPECT_EQ(resumed.result().value("answer", ""), base.answer) << resumed.describe();
      } else {
        latest = std::max<int64_t>(1, delay.count() * 3 / 4);
      }
      EXPECT_EQ(after.status, "done") << resumed.describe();
      EXPECT_EQ(after.answer, base.answer) << resumed.describe();
      if (s.fingerprint) EXPECT_EQ(s.fingerprint(cfg, db, killed->id), base_fingerprint) << resumed.describe();
      // Nothing journaled before the kill is missing.
      for (int64_t id : before.steps) EXPECT_TRUE(after.steps.count(id)) << "step " << id << " is gone";
      // Paid as once: every charge of the uninterrupted run is there, and no
      // other. A call's charge and its kept answer are committed together,
      // so a call run again (listed as re-run) was one whose charge the kill
      // took back with its answer. (Dollars differ a little between any two
      // runs of the pyramid: its prompts list the files that exist when a
      // call starts, and its writers run at once.)
      EXPECT_EQ(after.charges, base.charges) << resumed.describe();
      EXPECT_LE(after.expense, base.expense * 1.05 + 1e-9) << after.reruns << " re-runs\n" << resumed.describe();
      // What the journal kept was not asked for again; the rest was asked for once.
      const size_t left = killed->status == "running" ? base.requests - before.kept_calls : 0;
      EXPECT_EQ(after.requests - before.requests, left) << before.kept_calls << " calls kept\n" << resumed.describe();
      if (std::getenv("KAISHA_KILL_VERBOSE"))
        std::cerr << s.strategy << " point " << i << " at " << delay.count() << " ms: " << killed->status << ", "
                  << before.requests << " calls before the kill (" << before.kept_calls << " kept), " << after.requests
                  << " in all (uninterrupted " << base.requests << "), " << after.reruns << " re-runs, $"
                  << after.expense << " (uninterrupted $" << base.expense << ")\n";
      if (std::getenv("KAISHA_KILL_VERBOSE"))
        for (const auto& r : mock_->request_log())
          std::cerr << "  " << r.value("model", "") << " " << r.value("last_message", "").substr(0, 60) << "\n";
      // The conversations are rebuilt exactly: every request the resumed
      // process sent is one the uninterrupted run sent, message for message
      // (each message's role and first 200 bytes, as the mock logs them).
      // Where the resumed run's dollars differ from the uninterrupted run's
      // (the pyramid's, above), the budgets the tools report differ too, and
      // only those figures may.
      const bool paid_again = after.expense > base.expense + 1e-9;
      std::set<std::string> sent;
      for (const auto& b : base.conversations) sent.insert(paid_again ? without_budgets(b) : b);
      size_t i = 0;
      for (const auto& r : mock_->request_log()) {
        if (i++ < before.requests) continue;
        std::string c = conversation(r, *killed);
        if (paid_again) c = without_budgets(c);
        if (sent.count(c)) continue;
        // The uninterrupted run's request that agrees longest, to show where they part.
        std::string nearest;
        size_t agreed = 0;
        for (const auto& b : sent) {
          const size_t n = static_cast<size_t>(
              std::mismatch(b.begin(), b.begin() + std::min(b.size(), c.size()), c.begin()).first - b.begin());
          if (n >= agreed) agreed = n, nearest = b;
        }
        ADD_FAILURE() << "a request the uninterrupted run never sent: " << c.substr(0, 2000)
                      << "\nthe nearest it sent, parting at byte " << agreed << ": " << nearest.substr(0, 2000);
      }
      if (after.reruns > 0) {
        RunResult history = kaisha({"history", "--config", cfg, "--db", db, "--session", after.session});
        EXPECT_NE(history.out.find("rerun"), std::string::npos) << history.describe();
      }
    }
    // The points fall inside the task, not all after it.
    EXPECT_GT(interrupted, points / 2);
  }
};

// A shell command in flight at the kill is not run again: it is not marked
// safe to repeat, so the resumed task is told so instead, and the file it
// appends to keeps one line.
TEST_F(ResumeTest, AToolNotSafeToRepeatIsReportedInsteadOfRunAgain) {
  if (access("/usr/bin/bwrap", X_OK) != 0) GTEST_SKIP() << "bubblewrap is not installed";
  chmod(dir_.path().c_str(), 0755);  // run as root, the sandbox's uid must pass it to reach the workspace
  start_mock(R"(
rules:
  - match: { model: lead-model, turn: 0 }
    reply: { tool_calls: [ { name: execute_shell, arguments: { command: "echo once >> count.txt; sleep 5" } } ] }
  - match: { model: lead-model, last_tool: "not marked safe to repeat" }
    reply: { tool_calls: [ { name: final_output, arguments: { status: success, output: "NOT-REPEATED" } } ] }
  - match: { model: lead-model }
    reply: { tool_calls: [ { name: final_output, arguments: { status: success, output: "RAN-TWICE" } } ] }
  - match: { model: judge-model }
    reply: { tool_calls: [ { name: final_output, arguments: { status: success, output: "Verified." } } ] }
)");
  const std::string library = dir_.write("shell.yaml", R"(
agents:
  - name: judge_agent
    level: -1
    description: Checks results.
    responsibility: You judge task {task_id}.
    workflow: Rule with final_output.
    available_tools: [final_output]
    model: openai:judge-model
  - name: lead_agent
    level: 1
    description: Runs one command.
    responsibility: You lead task {task_id}.
    workflow: Run the command, then call final_output.
    available_tools: [execute_shell, final_output]
    model: openai:lead-model
)");
  Scenario s;
  s.strategy = "pyramid";
  s.ceo_model = "openai:lead-model";
  s.task = "Count once.";
  s.extra = "pyramid:\n  library: " + library +
            "\n  entry: lead_agent\ntools:\n  workspace_root: " + dir_.file("work") + "\n";
  const std::string cfg = config(s, "shell.yaml.cfg");
  const std::string db = dir_.file("shell.db");
  auto count_files = [&] {
    std::vector<std::string> found;
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(dir_.file("work"), ec);
         it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
      if (it->path().filename() == "count.txt") found.push_back(it->path().string());
    return found;
  };
  BackgroundProcess p(KAISHA_EXE, run_args(s, cfg, db), {{"KAISHA_MODEL", std::nullopt}, {"KAISHA_DB", std::nullopt}},
                      db + ".log");
  ASSERT_TRUE(wait_for([&] { return !count_files().empty(); }, std::chrono::seconds(30))) << p.log();
  p.kill9();

  RunResult resumed = kaisha({"resume", "--config", cfg, "--db", db, "--json"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.describe();
  EXPECT_EQ(resumed.result().value("answer", ""), "NOT-REPEATED") << resumed.describe();
  const auto files = count_files();
  ASSERT_EQ(files.size(), 1u);
  auto text = read_text_file(files[0]);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "once\n");
  const Outcome after = outcome_of(db);
  EXPECT_EQ(after.reruns, 0);
  RunResult history = kaisha({"history", "--config", cfg, "--db", db, "--json"});
  EXPECT_NE(history.out.find("not_repeated"), std::string::npos) << history.describe();
}

// An employee's tool loop killed during an MCP tool the server does not
// call idempotent: on resume the loop's finished model call is not asked or
// paid for again, and the tool is reported instead of run again (the file
// it appends to keeps one line).
TEST_F(ResumeTest, AnEmployeesToolNotSafeToRepeatIsReportedAndItsFinishedCallIsNotPaidAgain) {
  const std::string count = dir_.file("count.txt");
  start_mock(R"(
rules:
  - match: { model: ceo-model, turn: 0 }
    reply: { tool_calls: [ { name: AgentCreator, arguments: { agent_name: Counter, base_model: worker, system_prompt: "You count.", description: "Counts" } } ] }
  - match: { model: ceo-model, turn: 1 }
    reply: { tool_calls: [ { name: AskAgent, arguments: { agent_name: Counter, prompt: "Count once, 一度だけ" } } ] }
  - match: { model: ceo-model }
    reply: { text: "Final: {{last_tool}}" }
  - match: { model: worker-model, last_tool: "not marked safe to repeat" }
    reply: { text: "NOT-REPEATED" }
  - match: { model: worker-model, last_tool_name: t__append }
    reply: { text: "RAN" }
  - match: { model: worker-model }
    reply: { tool_calls: [ { name: t__append, arguments: { path: ")" +
             count + R"(", text: "once", sleep_ms: 10000 } } ] }
)");
  const std::string cfg = config(mcp_employee("Counter", "Count once."), "mcp-loop.yaml");
  const std::string db = dir_.file("mcp-loop.db");
  run_until_written(mcp_employee("Counter", "Count once."), cfg, db, count);
  ASSERT_FALSE(HasFatalFailure());
  ASSERT_EQ(requests_for("worker-model").size(), 1u);

  RunResult resumed = kaisha({"resume", "--config", cfg, "--db", db, "--json"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.describe();
  EXPECT_NE(resumed.result().value("answer", "").find("\"output\":\"NOT-REPEATED\""), std::string::npos)
      << resumed.describe();
  auto text = read_text_file(count);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "once\n");
  // The worker's first call came from the journal: one more request in all, the one after the tool.
  EXPECT_EQ(requests_for("worker-model").size(), 2u);
  RunResult history = kaisha({"history", "--config", cfg, "--db", db, "--json"});
  EXPECT_NE(history.out.find("not_repeated"), std::string::npos) << history.describe();
  // Two calls of the worker's were made, and two were paid for: the first
  // (before the kill, not again) and the one after the tool.
  auto j = open(db);
  ASSERT_TRUE(j);
  auto ledger = j->ledger_entries(outcome_of(db).session);
  ASSERT_TRUE(ledger.ok());
  int paid = 0;
  for (const auto& e : *ledger)
    paid += e.ledger == "expense" && e.kind == "ask_settle" && e.agent == "Counter" && e.amount > 0;
  EXPECT_EQ(paid, 2);
}

// The same, during an MCP tool its server calls idempotent: it runs again,
// with the tools the employee has now, and the loop goes on from there.
TEST_F(ResumeTest, AnEmployeesIdempotentToolInFlightRunsAgain) {
  const std::string out = dir_.file("put.txt");
  start_mock(R"(
rules:
  - match: { model: ceo-model, turn: 0 }
    reply: { tool_calls: [ { name: AgentCreator, arguments: { agent_name: Writer, base_model: worker, system_prompt: "You write.", description: "Writes" } } ] }
  - match: { model: ceo-model, turn: 1 }
    reply: { tool_calls: [ { name: AskAgent, arguments: { agent_name: Writer, prompt: "Write it" } } ] }
  - match: { model: ceo-model }
    reply: { text: "Final: {{last_tool}}" }
  - match: { model: worker-model, last_tool: "written" }
    reply: { text: "RAN" }
  - match: { model: worker-model, last_role: tool }
    reply: { text: "TOOL-FAILED" }
  - match: { model: worker-model }
    reply: { tool_calls: [ { name: t__put, arguments: { path: ")" +
             out + R"(", text: "v", sleep_ms: 10000 } } ] }
)");
  const std::string cfg = config(mcp_employee("Writer", "Write once."), "mcp-put.yaml");
  const std::string db = dir_.file("mcp-put.db");
  run_until_written(mcp_employee("Writer", "Write once."), cfg, db, out);
  ASSERT_FALSE(HasFatalFailure());

  RunResult resumed = kaisha({"resume", "--config", cfg, "--db", db, "--json"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.describe();
  EXPECT_NE(resumed.result().value("answer", "").find("\"output\":\"RAN\""), std::string::npos) << resumed.describe();
  EXPECT_EQ(requests_for("worker-model").size(), 2u);  // the first call came from the journal
  RunResult history = kaisha({"history", "--config", cfg, "--db", db, "--json"});
  EXPECT_NE(history.out.find("tool t__put of Writer"), std::string::npos) << history.describe();
}

// A journal written by the version before this one (schema 6, by its
// binary, kept in tests/e2e/data): a HASHIRU task killed while its worker
// answered the second of two questions. This version migrates the file and
// resumes the task, asking only for what was in flight and what follows.
TEST_F(ResumeTest, ATaskInterruptedUnderThePreviousVersionResumesUnderThisOne) {
  const std::string db = dir_.file("v6.db");
  std::filesystem::copy_file(std::string(KAISHA_SOURCE_DIR) + "/tests/e2e/data/v6_interrupted_hashiru.db", db);
  {
    auto old = store::JournalStore::open_read_only(db);
    ASSERT_FALSE(old.ok());
    EXPECT_NE(old.error().message.find("journal schema version 6"), std::string::npos) << old.error().message;
  }
  Scenario s = hashiru();
  s.employee.clear();  // that version's worker had no tools
  start_mock(R"(
rules:
  - match: { model: ceo-model, turn: 3 }
    reply: { tool_calls: [ { name: FireAgent, arguments: { agent_name: Adder } } ] }
  - match: { model: ceo-model, turn: 4 }
    reply: { text: "合計は 7 です (3 + 4) ✅" }
  - match: { model: worker-model, last_user: "Second" }
    reply: { text: "4" }
)");
  const std::string cfg = config(s, "v6.yaml");
  RunResult resumed = kaisha({"resume", "--config", cfg, "--db", db, "--json"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.describe();
  EXPECT_EQ(resumed.result().value("answer", ""), "合計は 7 です (3 + 4) ✅") << resumed.describe();
  EXPECT_EQ(requests_for("worker-model").size(), 1u);  // the question in flight, not the first one
  EXPECT_EQ(requests_for("ceo-model").size(), 2u);     // the fire and the answer: its first three turns were kept
  auto j = open(db);
  ASSERT_TRUE(j);
  EXPECT_EQ(j->schema_version(), store::JournalStore::current_schema_version());
  EXPECT_EQ(outcome_of(db).status, "done");
}

// Reading a journal the version before wrote says how to migrate it, and
// `kaisha journal compact` does, keeping what `history` shows.
TEST_F(ResumeTest, AJournalFromThePreviousVersionIsMigratedByCompact) {
  const std::string db = dir_.file("v6.db");
  std::filesystem::copy_file(std::string(KAISHA_SOURCE_DIR) + "/tests/e2e/data/v6_interrupted_hashiru.db", db);
  start_mock("rules: []\n");
  const std::string cfg = config(hashiru(), "v6.yaml");
  RunResult before = kaisha({"history", "--config", cfg, "--db", db});
  EXPECT_NE(before.exit_code, 0) << before.describe();
  EXPECT_NE(before.err.find("journal schema version 6 but this kaisha reads version"), std::string::npos)
      << before.describe();
  EXPECT_NE(before.err.find("`kaisha journal compact` migrates it"), std::string::npos) << before.describe();
  RunResult compacted = kaisha({"journal", "compact", "--config", cfg, "--db", db});
  ASSERT_EQ(compacted.exit_code, 0) << compacted.describe();
  RunResult after = kaisha({"history", "--config", cfg, "--db", db});
  ASSERT_EQ(after.exit_code, 0) << after.describe();
  EXPECT_NE(after.out.find("Add up the two numbers"), std::string::npos) << after.describe();
}

// As an operator would: a task interrupted with Ctrl-C, the journal checked
// with SQLite's own integrity check and backed up with `sqlite3 .dump`, the
// dump restored into a new file, and the task resumed from the restored copy
// — without asking the model again for what the journal kept.
TEST_F(ResumeTest, AJournalInterruptedByCtrlCPassesSqlitesChecksAndItsDumpResumes) {
  const Scenario s = hashiru();
  start_mock(s.script);
  std::string log;
  const std::string base_db = dir_.file("base.db");
  run_until(s, config(s, "base.yaml"), base_db, std::nullopt, &log);
  const Outcome base = outcome_of(base_db);
  ASSERT_EQ(base.status, "done") << log;

  start_mock(s.script);
  const std::string cfg = config(s, "ctrl-c.yaml");
  const std::string db = dir_.file("ctrl-c.db");
  {
    BackgroundProcess p(KAISHA_EXE, run_args(s, cfg, db), {{"KAISHA_MODEL", std::nullopt}, {"KAISHA_DB", std::nullopt}},
                        db + ".log");
    // Interrupted once the CEO has hired its worker and asked it once.
    ASSERT_TRUE(wait_for(
        [&] {
          auto t = latest_task(db);
          return (t && t->kept.size() >= 3) || !p.running();
        },
        std::chrono::seconds(30)))
        << p.log();
    p.signal(SIGINT);
    EXPECT_EQ(p.wait_exit(std::chrono::seconds(30)), 130) << p.log();
  }
  ASSERT_EQ(task_in(db)->status, "interrupted");
  EXPECT_EQ(sqlite_integrity(db), "ok");
  RunResult checked = kaisha({"journal", "check", "--db", db});
  EXPECT_EQ(checked.exit_code, 0) << checked.describe();
  EXPECT_EQ(checked.out, db + ": ok\n");
  const Outcome before = outcome_of(db);

  const std::string dump = dir_.file("dump.sql"), restored = dir_.file("restored.db");
  ASSERT_EQ(std::system(("sqlite3 '" + db + "' .dump > '" + dump + "'").c_str()), 0) << "is the sqlite3 CLI installed?";
  ASSERT_EQ(std::system(("sqlite3 -bail '" + restored + "' < '" + dump + "'").c_str()), 0);
  EXPECT_EQ(sqlite_integrity(restored), "ok");
  const Outcome copied = outcome_of(restored);
  EXPECT_EQ(copied.status, "interrupted");
  EXPECT_EQ(copied.steps, before.steps);            // every step, none orphaned
  EXPECT_EQ(copied.kept_calls, before.kept_calls);  // every kept outcome: resumable

  RunResult resumed = kaisha({"resume", "--config", cfg, "--db", restored, "--json"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.describe();
  EXPECT_EQ(resumed.result().value("answer", ""), base.answer) << resumed.describe();
  const Outcome after = outcome_of(restored);
  EXPECT_EQ(after.status, "done");
  EXPECT_EQ(after.requests - before.requests, base.requests - before.kept_calls) << resumed.describe();
  // Ctrl-C journals a call answered but not kept yet (it was paid for); that
  // call runs again, listed as such.
  for (const auto& [what, n] : base.charges) EXPECT_GE(after.charges.count(what) ? after.charges.at(what) : 0, n);
  int charged = 0, paid = 0;
  for (const auto& [what, n] : after.charges) charged += n;
  for (const auto& [what, n] : base.charges) paid += n;
  EXPECT_LE(charged, paid + after.reruns) << resumed.describe();

  // A copy whose task row is gone (a partial restore) is named as broken.
  ASSERT_EQ(std::system(("sqlite3 '" + restored + "' 'PRAGMA foreign_keys=OFF; DELETE FROM tasks;'").c_str()), 0);
  RunResult broken = kaisha({"journal", "check", "--db", restored, "--json"});
  EXPECT_EQ(broken.exit_code, 1) << broken.describe();
  EXPECT_NE(broken.out.find("refers to a tasks row that is not there"), std::string::npos) << broken.describe();
  EXPECT_NE(broken.out.find("\"ok\":false"), std::string::npos) << broken.describe();
}

// The pyramid's quality scores are state kept beyond a task: a verdict
// saved before the kill is not counted again when the resumed task replays
// it. The lead's last call is slow, so the kill lands after the writers'
// verdicts were saved and before the task ends.
TEST_F(ResumeTest, PyramidQualityScoresCountEachVerdictOnceAfterAResume) {
  Scenario s = pyramid(dir_.file("work"));
  const std::string fast = R"(output: "Two haiku: poems/river.md and poems/stone.md" } } ]
      latency_ms: 40)";
  const size_t at = s.script.find(fast);
  ASSERT_NE(at, std::string::npos);
  s.script.replace(at, fast.size(), R"(output: "Two haiku: poems/river.md and poems/stone.md" } } ]
      latency_ms: 4000)");
  auto scores = [&](const std::string& db) {
    std::map<std::string, json> out;
    auto j = open(db);
    auto rows = j ? j->state("pyramid") : Result<std::vector<store::StateRow>>(std::vector<store::StateRow>{});
    if (rows.ok())
      for (const auto& r : *rows) out[r.key] = r.value;
    return out;
  };
  std::string log;
  start_mock(s.script);
  const std::string base_db = dir_.file("base.db");
  run_until(s, config(s, "base.yaml"), base_db, std::nullopt, &log);
  const auto base = scores(base_db);
  ASSERT_TRUE(base.count("lead_agent") && base.count("writer_agent")) << log;

  start_mock(s.script);
  const std::string cfg = config(s, "killed.yaml");
  const std::string db = dir_.file("killed.db");
  {
    BackgroundProcess p(KAISHA_EXE, run_args(s, cfg, db), {{"KAISHA_MODEL", std::nullopt}, {"KAISHA_DB", std::nullopt}},
                        db + ".log");
    ASSERT_TRUE(wait_for([&] { return scores(db).count("writer_agent") > 0; }, std::chrono::seconds(30))) << p.log();
    p.kill9();
  }
  ASSERT_EQ(task_in(db)->status, "running");
  const auto saved = scores(db);
  EXPECT_FALSE(saved.count("lead_agent"));  // its verdict comes after the slow call

  RunResult resumed = kaisha({"resume", "--config", cfg, "--db", db, "--json"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.describe();
  const auto after = scores(db);
  ASSERT_EQ(after.size(), base.size());
  for (const auto& [agent, value] : base) {
    SCOPED_TRACE(agent);
    ASSERT_TRUE(after.count(agent));
    EXPECT_EQ(after.at(agent).at("audits"), value.at("audits")) << "stored before the kill: " << json(saved).dump();
    EXPECT_NEAR(after.at(agent).at("q").get<double>(), value.at("q").get<double>(), 1e-9);
  }
  // The task's result reports the same scores.
  EXPECT_EQ(resumed.result()["metadata"]["quality"]["writer_agent"]["audits"], base.at("writer_agent").at("audits"))
      << resumed.describe();
}

// `kaisha evolve` on examples/hiva, killed (SIGKILL) twice mid-iteration —
// during iteration 2's backward pass (the source's topology decision takes
// 3 s) and, resumed, during iteration 3's forward pass (the reviewer's answer
// takes 3 s) — and finished with `kaisha evolve --resume coders`, ends with
// the graph of an uninterrupted run, version by version. Every call paid
// before a kill stays paid once, and only the calls in flight at a kill are
// asked again: the mock's requests are the uninterrupted run's plus those.
TEST_F(ResumeTest, HivaEvolveKilledMidIterationGoesOnWithResumeToTheSameGraph) {
  const std::string examples = std::string(KAISHA_SOURCE_DIR) + "/examples/hiva/";
  auto read = read_text_file(examples + "scenario.yaml");
  ASSERT_TRUE(read.ok()) << read.error().message;
  std::string script = *read;
  for (const std::string slow : {"reply: { text: \"ADD_PARALLEL: Code reviewer agent\"",
                                 "reply: { text: \"I reviewed nothing: no code reached me.\""}) {
    const size_t at = script.find(slow);
    ASSERT_NE(at, std::string::npos) << slow;
    script.insert(at + std::string("reply: { ").size(), "latency_ms: 3000, ");
  }
  auto evolve_args = [&](const std::string& db, bool resume) {
    std::vector<std::string> a{"evolve", "--config", examples + "config.yaml", "--db", db, "-q"};
    if (resume)
      a.insert(a.end(), {"--resume", "coders"});
    else
      a.insert(a.end(), {"--task-set", examples + "tasks.jsonl", "--iterations", "3", "--name", "coders"});
    return a;
  };
  auto env = [&]() -> std::map<std::string, std::optional<std::string>> {
    return {{"KAISHA_MOCK_PORT", std::to_string(port_)}, {"KAISHA_MODEL", std::nullopt}, {"KAISHA_DB", std::nullopt}};
  };
  // The expense ledger's charges over every session of `db`, by "kind agent".
  auto charges = [&](const std::string& db, double* usd) {
    std::map<std::string, int> out;
    *usd = 0;
    auto j = open(db);
    auto sessions = j ? j->list_sessions() : Result<std::vector<store::SessionRow>>(Error{"e2e", "no journal"});
    if (!sessions.ok()) return out;
    for (const auto& s : *sessions) {
      auto ledger = j->ledger_entries(s.id);
      if (!ledger.ok()) continue;
      for (const auto& e : *ledger)
        if (e.ledger == "expense") {
          ++out[e.kind + " " + e.agent];
          *usd += e.amount;
        }
    }
    return out;
  };
  auto paid = [](const std::map<std::string, int>& c) {
    size_t n = 0;
    for (const auto& [what, count] : c) n += what.rfind("ask_settle ", 0) == 0 ? size_t(count) : 0;
    return n;
  };
  auto versions = [&](const std::string& db) {
    RunResult r = kaisha({"graphs", "coders", "--db", db, "--json"});
    json j = json::parse(r.out, nullptr, false);
    return j.is_object() && j.contains("versions") ? j["versions"] : json::array();
  };
  // Waits until the mock's log has been still for 300 ms: a request the
  // killed process sent may reach it a little later.
  auto quiet = [&] {
    size_t seen = mock_->request_log().size();
    auto since = std::chrono::steady_clock::now();
    wait_for(
        [&] {
          const size_t now = mock_->request_log().size();
          if (now != seen) seen = now, since = std::chrono::steady_clock::now();
          return std::chrono::steady_clock::now() - since > std::chrono::milliseconds(300);
        },
        std::chrono::seconds(10));
  };

  // The uninterrupted run.
  start_mock(script);
  const std::string base_db = dir_.file("evolve-base.db");
  RunResult base = kaisha(evolve_args(base_db, false), env(), std::chrono::seconds(120));
  ASSERT_EQ(base.exit_code, 0) << base.describe();
  double base_usd = 0;
  const auto base_charges = charges(base_db, &base_usd);
  const size_t base_requests = mock_->request_log().size();
  ASSERT_EQ(paid(base_charges), base_requests);  // every model call paid once
  const json base_versions = versions(base_db);
  ASSERT_EQ(base_versions.size(), 3u);

  start_mock(script);
  const std::string db = dir_.file("evolve-killed.db");
  size_t lost = 0;  // requests sent and not paid for, at the last kill
  for (const auto& [rule, args] :
       {std::pair{"source-adds-a-reviewer", evolve_args(db, false)}, std::pair{"reviewer", evolve_args(db, true)}}) {
    SCOPED_TRACE(std::string("killed while the mock answers ") + rule);
    {
      BackgroundProcess p(KAISHA_EXE, args, env(), db + ".log");
      ASSERT_TRUE(wait_for([&] { return !by_rule(rule).empty() || !p.running(); }, std::chrono::seconds(60)))
          << p.log();
      p.kill9();
      ASSERT_EQ(by_rule(rule).size(), 1u) << p.log();
    }
    quiet();
    double usd = 0;
    lost = mock_->request_log().size() - paid(charges(db, &usd));
    EXPECT_GE(lost, 1u);  // the slow call at least
  }
  // Killed in iteration 3: two iterations saved, the task of the third left running.
  EXPECT_EQ(versions(db).size(), 2u);

  RunResult resumed = kaisha(evolve_args(db, true), env(), std::chrono::seconds(120));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.describe();
  EXPECT_NE(resumed.out.find("graph coders: iteration 3 of 3, 3 agents, 2 edges"), std::string::npos)
      << resumed.describe();
  const json after = versions(db);
  ASSERT_EQ(after.size(), 3u) << after.dump();
  for (size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE("iteration " + std::to_string(i + 1));
    for (const char* key : {"iteration", "graph", "diff", "rewards", "success", "answer"})
      EXPECT_EQ(after[i][key], base_versions[i][key]) << key;
  }
  double usd = 0;
  EXPECT_EQ(charges(db, &usd), base_charges);
  EXPECT_NEAR(usd, base_usd, 1e-9);
  EXPECT_EQ(mock_->request_log().size(), base_requests + lost);
}

TEST_F(ResumeTest, HashiruResumesFromAnyKillPointWithoutPayingTwice) { kill_and_resume(hashiru()); }
TEST_F(ResumeTest, EffgenResumesFromAnyKillPointWithoutPayingTwice) { kill_and_resume(effgen()); }
TEST_F(ResumeTest, PyramidResumesFromAnyKillPointWithoutPayingTwice) { kill_and_resume(pyramid(dir_.file("work"))); }
TEST_F(ResumeTest, PyramidCandidateBranchesAndTheirMergeResumeFromAnyKillPoint) {
  kill_and_resume(pyramid_candidates(dir_.file("work")));
}
TEST_F(ResumeTest, HaloResumesFromAnyKillPointWithoutPayingTwice) { kill_and_resume(halo()); }
TEST_F(ResumeTest, HivaResumesFromAnyKillPointWithoutPayingTwice) { kill_and_resume(hiva()); }

}  // namespace
}  // namespace kaisha::e2e
