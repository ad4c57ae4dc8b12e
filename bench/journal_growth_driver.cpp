// Journal growth and resume time over one long CEO conversation.
//
// A HASHIRU CEO runs one task of N model calls (default 1,000). Each answer
// is a ~2 KB message with one GetBudget tool call, through an in-process
// ChatClient stub that answers at once; the last one ends the task. Printed,
// per window of 100 calls: the bytes the journal grew by (its pages in use),
// per call, and the wall time per call. Linear journal growth shows as a
// flat bytes-per-call column.
//
// Then, for each K in 100, 250, 500, N: a child process runs the same task
// and dies (_exit, no clean-up, like SIGKILL) when the model is asked for call
// K+1; this process resumes it and reports the time from the resume's start
// to its first live model call (the replay of what was kept), and the number
// of calls replayed.
//
// Usage: bench_journal_growth [calls=1000] [dir=/dev/shm]
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <sqlite3.h>

#include "actors/company/company_runtime.hpp"
#include "runtime/store/journal_store.hpp"

namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

// The CEO's model: call i (from 1) answers ~2 KB and asks for GetBudget; call
// `calls` answers the task. `die_at` > 0: the process exits when asked for
// that call. `on_call(i)` runs before each answer.
class ScriptedCeo : public kaisha::company::ChatClient {
 public:
  ScriptedCeo(int calls, int die_at, std::function<void(int)> on_call)
      : calls_(calls), die_at_(die_at), on_call_(std::move(on_call)) {}
  kaisha::Status check_model(const std::string&) const override { return kaisha::Status::Ok(); }
  void chat(const std::string&, kaisha::llm::ChatRequest, kaisha::company::ChatHandlers h) override {
    const int i = ++n_;
    if (die_at_ > 0 && i == die_at_) _exit(0);
    if (on_call_) on_call_(i);
    kaisha::llm::ChatResponse r;
    r.message.role = kaisha::llm::Role::assistant;
    r.message.content = "Step " + std::to_string(i) + ": " + std::string(2000, 'x');
    if (i < calls_) r.message.tool_calls.push_back({"c" + std::to_string(i), "GetBudget", "{}"});
    r.usage = {100, 500, false};
    h.on_done(std::move(r));
  }

 private:
  int calls_, die_at_;
  std::function<void(int)> on_call_;
  std::atomic<int> n_{0};
};

kaisha::actors::RuntimeOptions options(const fs::path& dir, int calls) {
  kaisha::actors::RuntimeOptions o;
  o.config.store_path = (dir / "journal.db").string();
  o.config.ceo.model = "stub:ceo";
  o.config.ceo.max_turns = calls + 10;
  o.config.strategy = "hashiru";
  o.config.budget.resource_total = 1e12;
  o.config.budget.expense_total = 1e9;
  o.config.switches.memory = false;
  o.scheduler_threads = 2;
  return o;
}

// The journal's size in use (its pages less the free ones, the write-ahead
// log's committed frames included), as a reader sees it: the files
// themselves grow in steps (the log is reused after each checkpoint), and
// free pages are reused by later writes.
uintmax_t journal_bytes(const fs::path& dir) {
  sqlite3* db = nullptr;
  uintmax_t n = 0;
  if (sqlite3_open_v2((dir / "journal.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(
            db,
            "SELECT (page_count - freelist_count) * page_size FROM pragma_page_count(), pragma_freelist_count(), "
            "pragma_page_size()",
            -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
      n = uintmax_t(sqlite3_column_int64(st, 0));
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return n;
}

const char* kTask = "Count to a thousand, checking the budget at every step.";

}  // namespace

int main(int argc, char** argv) {
  const int calls = argc > 1 ? std::atoi(argv[1]) : 1000;
  const char* where = argc > 2 ? argv[2] : (fs::exists("/dev/shm") ? "/dev/shm" : nullptr);
  const fs::path base =
      (where ? fs::path(where) : fs::temp_directory_path()) / ("kaisha-journal-bench-" + std::to_string(::getpid()));

  // 1. Growth over one uninterrupted task.
  {
    const fs::path dir = base / "growth";
    fs::create_directories(dir);
    auto o = options(dir, calls);
    Clock::time_point window_start = Clock::now();
    uintmax_t window_bytes = 0;
    std::printf("journal growth over a %d-call CEO conversation (2 KB per answer), journal in %s\n", calls,
                base.c_str());
    std::printf("%10s %16s %14s\n", "calls", "bytes_per_call", "ms_per_call");
    o.chat = std::make_shared<ScriptedCeo>(calls, 0, [&](int i) {
      if (i == 1) {
        window_start = Clock::now();
        window_bytes = journal_bytes(dir);
      }
      if (i > 1 && (i - 1) % 100 == 0) {
        const uintmax_t now = journal_bytes(dir);
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - window_start).count();
        std::printf("%10d %16.0f %14.3f\n", i - 1, double(now - window_bytes) / 100.0, ms / 100.0);
        window_bytes = now;
        window_start = Clock::now();
      }
    });
    auto rt = kaisha::actors::CompanyRuntime::start(o);
    if (!rt.ok()) {
      std::fprintf(stderr, "start failed: %s\n", rt.error().message.c_str());
      return 1;
    }
    kaisha::msg::TaskResult r = (*rt)->run_task(kTask);
    if (!r.ok) {
      std::fprintf(stderr, "task failed: %s\n", r.error.c_str());
      return 1;
    }
    rt->reset();
    std::printf("after the task: %.1f MB in use (the task's kept outcomes are deleted when it ends)\n",
                double(journal_bytes(dir)) / 1e6);
  }

  // 2. Resume time against what is replayed.
  std::printf("\n%10s %10s %14s %14s\n", "killed_at", "replayed", "replay_ms", "ms_per_call");
  for (int k : {100, 250, 500, calls}) {
    if (k > calls) continue;
    const fs::path dir = base / ("resume-" + std::to_string(k));
    fs::create_directories(dir);
    const pid_t child = fork();
    if (child == 0) {
      auto o = options(dir, calls);
      o.chat = std::make_shared<ScriptedCeo>(calls, k + 1 > calls ? calls : k + 1, nullptr);
      auto rt = kaisha::actors::CompanyRuntime::start(o);
      if (!rt.ok()) _exit(2);
      (*rt)->run_task(kTask);
      _exit(3);  // not reached: the model call k+1 exits first
    }
    int status = 0;
    waitpid(child, &status, 0);
    auto st = kaisha::store::JournalStore::open_read_only((dir / "journal.db").string());
    if (!st.ok()) return 1;
    auto session = (*st)->latest_session();
    if (!session.ok() || !session->has_value()) return 1;
    const std::string session_id = (**session).id;
    auto tasks = (*st)->tasks(session_id);
    if (!tasks.ok() || tasks->empty()) return 1;
    auto kept = (*st)->kept_outcomes(tasks->front().id);
    if (!kept.ok()) return 1;
    int replayed = 0;  // model answers kept
    for (const auto& k2 : *kept) replayed += k2.find("\"type\":\"model\"") != std::string::npos;
    st.value().reset();

    auto o = options(dir, calls);
    o.session_id = session_id;
    o.resume = true;
    Clock::time_point started, first_live;
    bool seen = false;
    // Numbered on from the kept answers, so the task ends after `calls` in all.
    o.chat = std::make_shared<ScriptedCeo>(calls - replayed, 0, [&](int) {
      if (!seen) first_live = Clock::now();
      seen = true;
    });
    started = Clock::now();
    auto rt = kaisha::actors::CompanyRuntime::start(o);
    if (!rt.ok()) {
      std::fprintf(stderr, "resume start failed: %s\n", rt.error().message.c_str());
      return 1;
    }
    auto results = (*rt)->resume_interrupted();
    if (!results.ok() || results->empty() || !results->front().ok) {
      std::fprintf(stderr, "resume failed: %s\n",
                   results.ok() ? (results->empty() ? "nothing resumed" : results->front().error.c_str())
                                : results.error().message.c_str());
      return 1;
    }
    const double ms = std::chrono::duration<double, std::milli>(first_live - started).count();
    std::printf("%10d %10d %14.1f %14.4f\n", k, replayed, ms, ms / std::max(1, replayed));
    rt->reset();
  }
  fs::remove_all(base);
  return 0;
}
