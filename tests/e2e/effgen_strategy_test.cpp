// The effgen strategy end to end (issue 3): `kaisha run --strategy effgen
// --json` against the scripted mock LLM over real HTTP. Every fact asserted
// here comes from outside the planner: the mock's request log (which rule
// answered which request, in arrival order, and — through a polling watcher —
// when each request arrived and when it was answered), the `--json` event
// lines, the SQLite journal and `kaisha history --json`.
//
// Models: planner openai:planner-7b and judge openai:judge-7b (not in the cost
// table, priced at 0); workers on llama3.2 (Ollama dialect, local, priced in
// resource units: 10 to hire + 40 per call), except in the affordability test.
//
// Worker rules match the line naming the worker's own subtask
// ("Your subtask:\n<description>"); a rule that must see a predecessor's
// output requires it in the same regex, and is followed by a catch-all for
// that subtask named "*-no-context", so a missing context shows up as a
// different rule in the log instead of a silently wrong match.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "e2e_fixture.hpp"

namespace kaisha::e2e::effgen_strategy_test {
namespace {

const char* kComplexTask =
    "Research the three largest cloud providers, compare their pricing for GPU instances, analyze the security "
    "and compliance certifications of each, calculate the total cost of a 6 month training run on each, and "
    "synthesize a recommendation report with a table and a chart for the finance team.";
const char* kSimpleTask = "What is 2+2?";

// Polls the mock's request log from a background thread and records, per log
// index, when the request was first seen and when it first had a status (was
// answered). The mock's log itself carries no times.
class RequestWatcher {
 public:
  // Times are the mock's own (steady clock, µs): when a request arrived and
  // when its answer went out, exact where polling the log is 5 ms coarse.
  struct Seen {
    int64_t arrived = 0;
    std::optional<int64_t> answered;
    json entry;
  };

  explicit RequestWatcher(const mockllm::MockLlmServer& mock) : mock_(mock) {
    thread_ = std::thread([this] {
      while (!stop_) {
        poll();
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      poll();
    });
  }
  ~RequestWatcher() { stop(); }
  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  std::vector<Seen> seen() const {
    std::lock_guard lock(mu_);
    return seen_;
  }

 private:
  void poll() {
    auto log = mock_.request_log();
    std::lock_guard lock(mu_);
    for (size_t i = 0; i < log.size(); ++i) {
      if (i >= seen_.size()) seen_.push_back({log[i].value("received_us", int64_t(0)), std::nullopt, log[i]});
      seen_[i].entry = log[i];
      if (!seen_[i].answered && log[i].value("status", 0) != 0 && log[i].contains("answered_us"))
        seen_[i].answered = log[i]["answered_us"].get<int64_t>();
    }
  }

  const mockllm::MockLlmServer& mock_;
  std::atomic<bool> stop_{false};
  mutable std::mutex mu_;
  std::vector<Seen> seen_;
  std::thread thread_;
};

// A planner rule answering the decomposition prompt with `subtasks_json`.
std::string planner_rule(const std::string& subtasks_json) {
  return "  - name: planner-decomposes\n"
         "    match: { model: planner-7b, last_user: \"task decomposition expert\" }\n"
         "    reply:\n"
         "      text: '{\"subtasks\":" +
         subtasks_json +
         ",\"reasoning\":\"test plan\"}'\n"
         "      usage: { input_tokens: 400, output_tokens: 200 }\n"
         "  - name: planner-synthesises\n"
         "    match: { model: planner-7b, last_user: \"Subtask results\" }\n"
         "    reply: { text: \"SYNTHESIS-FINAL\", usage: { input_tokens: 600, output_tokens: 50 } }\n";
}

std::string subtask(const std::string& id, const std::string& description, const std::vector<std::string>& deps) {
  json s = {{"id", id},
            {"description", description},
            {"depends_on", deps},
            {"expected_output", "A short result"},
            {"estimated_complexity", 4},
            {"required_specialization", "research"},
            {"priority", "medium"}};
  return s.dump();
}

std::string subtasks(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + items[i];
  return out + "]";
}

const char* kJudgeAcceptsAll = R"(
  - name: judge-accepts
    match: { model: judge-7b }
    reply: { text: '{"status":"success","output":"The result meets the instructions.","error_information":""}', usage: { input_tokens: 200, output_tokens: 20 } }
)";

class EffgenE2e : public E2eTest {
 protected:
  // Config for effgen with the given effgen: and judge: extras (indented two spaces).
  std::string effgen_config(const std::string& effgen_extra = "", ConfigOptions o = {},
                            const std::string& worker_model = "llama3.2", const std::string& judge_extra = "") {
    o.resource_total = 400;  // room for 5 llama3.2 workers (5 x 50)
    o.extra +=
        "strategy: effgen\n"
        "effgen:\n"
        "  planner_model: openai:planner-7b\n"
        "  worker_model: " +
        worker_model +
        "\n"
        "  max_concurrent: 5\n" +
        effgen_extra +
        "judge:\n"
        "  model: openai:judge-7b\n" +
        judge_extra;
    return write_config(o);
  }
  RunResult run_effgen(const std::string& cfg, const std::string& task, const std::string& strategy = "effgen",
                       std::vector<std::string> extra = {}) {
    extra.insert(extra.begin(), {"--strategy", strategy});
    return run_json(cfg, task, extra);
  }
  // Index in the request log of the first (or last) entry answered by `rule`; -1 if none.
  long index_of(const std::string& rule, bool last = false) const {
    auto log = mock_->request_log();
    long found = -1;
    for (size_t i = 0; i < log.size(); ++i)
      if (log[i].value("rule", "") == rule) {
        found = long(i);
        if (!last) break;
      }
    return found;
  }
  std::string rules_seen() const {
    std::string s;
    for (auto& r : mock_->request_log()) s += r.value("model", "") + " <- " + r.value("rule", "") + "\n";
    return s;
  }
};

// ------------------------------------------------------------ 1. parallel

TEST_F(EffgenE2e, ParallelDagRunsItsSubtasksConcurrently) {
  std::string script = "rules:\n" +
                       planner_rule(subtasks({subtask("st_1", "Alpha research of GPU prices", {}),
                                              subtask("st_2", "Beta research of certifications", {}),
                                              subtask("st_3", "Gamma research of regions", {})})) +
                       R"(
  - name: worker-alpha
    match: { model: llama3.2, last_user: 're:subtask:\s*Alpha' }
    reply: { text: "ALPHA-OUT", usage: { input_tokens: 100, output_tokens: 10 }, latency_ms: 1000 }
  - name: worker-beta
    match: { model: llama3.2, last_user: 're:subtask:\s*Beta' }
    reply: { text: "BETA-OUT", usage: { input_tokens: 100, output_tokens: 10 }, latency_ms: 1000 }
  - name: worker-gamma
    match: { model: llama3.2, last_user: 're:subtask:\s*Gamma' }
    reply: { text: "GAMMA-OUT", usage: { input_tokens: 100, output_tokens: 10 }, latency_ms: 1000 }
)" + kJudgeAcceptsAll;
  start_mock(script);
  const std::string cfg = effgen_config();
  RequestWatcher watcher(*mock_);
  RunResult r = run_effgen(cfg, kComplexTask);
  watcher.stop();
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  json res = r.result();
  EXPECT_TRUE(res.value("ok", false)) << res;
  EXPECT_EQ(res.value("answer", ""), "SYNTHESIS-FINAL");
  const json& m = res["metadata"];
  EXPECT_EQ(m.value("routing_strategy", ""), "parallel") << m;
  EXPECT_EQ(m.value("num_subtasks", 0), 3) << m;
  EXPECT_EQ(m.value("num_sub_agents", 0), 3) << m;
  ASSERT_TRUE(m.contains("speedup")) << m;
  EXPECT_GT(m["speedup"].get<double>(), 1.8) << m;
  // Three 1 s worker calls: sequentially the task could not take under 3 s.
  EXPECT_LT(res.value("wall_ms", int64_t(0)), 2600) << res;

  // Overlap, measured at the mock: every worker request arrived before any
  // worker request was answered.
  std::vector<RequestWatcher::Seen> workers;
  for (auto& s : watcher.seen())
    if (s.entry.value("model", "") == "llama3.2") workers.push_back(s);
  ASSERT_EQ(workers.size(), 3u) << rules_seen();
  auto last_arrival = workers[0].arrived;
  std::optional<int64_t> first_answer;
  for (auto& w : workers) {
    last_arrival = std::max(last_arrival, w.arrived);
    ASSERT_TRUE(w.answered) << w.entry;
    if (!first_answer || *w.answered < *first_answer) first_answer = w.answered;
  }
  EXPECT_LT(last_arrival, *first_answer) << "a worker request arrived only after another was answered";
  for (const char* rule : {"worker-alpha", "worker-beta", "worker-gamma"})
    EXPECT_EQ(by_rule(rule).size(), 1u) << rule << "\n" << rules_seen();
  EXPECT_EQ(by_rule("planner-synthesises").size(), 1u) << rules_seen();
}

// ------------------------------------------------------------ 2. sequential

TEST_F(EffgenE2e, SequentialChainPassesOutputsForwardAndAnswersWithTheLast) {
  std::string script = "rules:\n" +
                       planner_rule(subtasks({subtask("st_1", "Step one gathers the prices", {}),
                                              subtask("st_2", "Step two computes the totals", {"st_1"}),
                                              subtask("st_3", "Step three writes the report", {"st_2"})})) +
                       R"(
  - name: worker-1
    match: { model: llama3.2, last_user: 're:subtask:\s*Step one' }
    reply: { text: "OUTONE4417 prices are 3 and 4", usage: { input_tokens: 100, output_tokens: 10 } }
  - name: worker-2
    match: { model: llama3.2, last_user: 're:subtask:\s*Step two[\s\S]*\[st_1\][^\n]*\nResult:\nOUTONE4417' }
    reply: { text: "OUTTWO9921 total is 7", usage: { input_tokens: 100, output_tokens: 10 } }
  - name: worker-2-no-context
    match: { model: llama3.2, last_user: 're:subtask:\s*Step two' }
    reply: { text: "MISSING-CONTEXT-2" }
  - name: worker-3
    match: { model: llama3.2, last_user: 're:subtask:\s*Step three[\s\S]*\[st_2\][^\n]*\nResult:\nOUTTWO9921' }
    reply: { text: "OUTTHREE5150 the report says 7", usage: { input_tokens: 100, output_tokens: 10 } }
  - name: worker-3-no-context
    match: { model: llama3.2, last_user: 're:subtask:\s*Step three' }
    reply: { text: "MISSING-CONTEXT-3" }
)" + kJudgeAcceptsAll;
  start_mock(script);
  const std::string cfg = effgen_config();
  RunResult r = run_effgen(cfg, kComplexTask);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  json res = r.result();
  EXPECT_EQ(res["metadata"].value("routing_strategy", ""), "sequential") << res;
  // The answer is st_3's output itself, with no synthesis.
  EXPECT_EQ(res.value("answer", ""), "OUTTHREE5150 the report says 7") << res;
  EXPECT_EQ(by_rule("worker-1").size(), 1u) << rules_seen();
  EXPECT_EQ(by_rule("worker-2").size(), 1u) << rules_seen();
  EXPECT_EQ(by_rule("worker-3").size(), 1u) << rules_seen();
  EXPECT_TRUE(by_rule("worker-2-no-context").empty()) << rules_seen();
  EXPECT_TRUE(by_rule("worker-3-no-context").empty()) << rules_seen();
  // The planner's model was asked once: to decompose, never to synthesise.
  EXPECT_TRUE(by_rule("planner-synthesises").empty()) << rules_seen();
  EXPECT_EQ(requests_for("planner-7b").size(), 1u) << rules_seen();
  for (auto& req : mock_->request_log())
    EXPECT_EQ(req.value("last_message", "").find("Subtask results"), std::string::npos) << req;
}

// ------------------------------------------------------------ 3. hybrid

TEST_F(EffgenE2e, HybridLevelsStartADependentOnlyAfterAllItsPredecessors) {
  std::string script = "rules:\n" +
                       planner_rule(subtasks({subtask("st_1", "Fast research of prices", {}),
                                              subtask("st_2", "Slow research of certifications", {}),
                                              subtask("st_3", "Merge both findings", {"st_1", "st_2"}),
                                              subtask("st_4", "Final report from the merge", {"st_3"})})) +
                       R"(
  - name: worker-fast
    match: { model: llama3.2, last_user: 're:subtask:\s*Fast research' }
    reply: { text: "FASTOUT11", usage: { input_tokens: 100, output_tokens: 10 }, latency_ms: 50 }
  - name: worker-slow
    match: { model: llama3.2, last_user: 're:subtask:\s*Slow research' }
    reply: { text: "SLOWOUT22", usage: { input_tokens: 100, output_tokens: 10 }, latency_ms: 500 }
  - name: worker-merge
    match: { model: llama3.2, last_user: 're:subtask:\s*Merge both[\s\S]*FASTOUT11[\s\S]*SLOWOUT22' }
    reply: { text: "MERGEOUT33", usage: { input_tokens: 100, output_tokens: 10 } }
  - name: worker-merge-no-context
    match: { model: llama3.2, last_user: 're:subtask:\s*Merge both' }
    reply: { text: "MISSING-CONTEXT-MERGE" }
  - name: worker-report
    match: { model: llama3.2, last_user: 're:subtask:\s*Final report[\s\S]*MERGEOUT33' }
    reply: { text: "REPORTOUT44", usage: { input_tokens: 100, output_tokens: 10 } }
  - name: worker-report-no-context
    match: { model: llama3.2, last_user: 're:subtask:\s*Final report' }
    reply: { text: "MISSING-CONTEXT-REPORT" }
  - name: judge-fast
    match: { model: judge-7b, last_user: 're:instructions:\s*Fast research' }
    reply: { text: '{"status":"success","output":"ok","error_information":""}' }
  - name: judge-slow
    match: { model: judge-7b, last_user: 're:instructions:\s*Slow research' }
    reply: { text: '{"status":"success","output":"ok","error_information":""}' }
)" + kJudgeAcceptsAll;
  start_mock(script);
  const std::string cfg = effgen_config();
  RequestWatcher watcher(*mock_);
  RunResult r = run_effgen(cfg, kComplexTask);
  watcher.stop();
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  json res = r.result();
  EXPECT_EQ(res["metadata"].value("routing_strategy", ""), "hybrid") << res;
  EXPECT_EQ(res.value("answer", ""), "SYNTHESIS-FINAL") << res;
  // Two workers at most: the widest level has two subtasks.
  EXPECT_EQ(res["metadata"].value("num_sub_agents", 0), 2) << res;
  for (const char* rule : {"worker-fast", "worker-slow", "worker-merge", "worker-report", "judge-fast", "judge-slow"})
    EXPECT_EQ(by_rule(rule).size(), 1u) << rule << "\n" << rules_seen();
  EXPECT_TRUE(by_rule("worker-merge-no-context").empty()) << rules_seen();
  EXPECT_TRUE(by_rule("worker-report-no-context").empty()) << rules_seen();

  // Order in the request log: both first-level results were audited (hence
  // answered) before st_3's request arrived, and st_4 came after st_3.
  const long merge = index_of("worker-merge");
  EXPECT_GT(merge, index_of("judge-fast")) << rules_seen();
  EXPECT_GT(merge, index_of("judge-slow")) << rules_seen();
  EXPECT_GT(index_of("worker-report"), merge) << rules_seen();
  EXPECT_GT(index_of("planner-synthesises"), index_of("worker-report")) << rules_seen();
  // And by time: st_1 and st_2 ran side by side; st_3 arrived after both answered.
  std::map<std::string, RequestWatcher::Seen> at;
  for (auto& s : watcher.seen()) at.emplace(s.entry.value("rule", ""), s);
  ASSERT_TRUE(at.count("worker-fast") && at.count("worker-slow") && at.count("worker-merge")) << rules_seen();
  ASSERT_TRUE(at["worker-fast"].answered && at["worker-slow"].answered);
  EXPECT_LT(at["worker-slow"].arrived, *at["worker-fast"].answered);
  EXPECT_GT(at["worker-merge"].arrived, *at["worker-slow"].answered);
  EXPECT_GT(at["worker-merge"].arrived, *at["worker-fast"].answered);
}

// ------------------------------------------------------------ 4. judge retries

TEST_F(EffgenE2e, JudgeRejectsTwiceThenAcceptsAndTheTaskSucceeds) {
  std::string script = "rules:\n" +
                       planner_rule(subtasks({subtask("st_1", "Alpha research of GPU prices", {}),
                                              subtask("st_2", "Beta research of certifications", {})})) +
                       R"(
  - name: worker-alpha
    match: { model: llama3.2, last_user: 're:subtask:\s*Alpha' }
    reply: { text: "ALPHA-OUT", usage: { input_tokens: 100, output_tokens: 10 } }
  - name: worker-beta-fixed
    match: { model: llama3.2, last_user: 're:subtask:\s*Beta[\s\S]*reviewer rejected[\s\S]*Cite the auditor' }
    reply: { text: "BETA-OUT-FIXED", usage: { input_tokens: 100, output_tokens: 10 } }
  - name: worker-beta
    match: { model: llama3.2, last_user: 're:subtask:\s*Beta' }
    reply: { text: "BETA-OUT", usage: { input_tokens: 100, output_tokens: 10 } }
  - name: judge-rejects-beta
    match: { model: judge-7b, last_user: 're:instructions:\s*Beta' }
    times: 2
    reply: { text: '{"status":"error","output":"Unsourced.","error_information":"Cite the auditor for each certification."}' }
  - name: judge-accepts-beta
    match: { model: judge-7b, last_user: 're:instructions:\s*Beta' }
    reply: { text: '{"status":"success","output":"Sourced now.","error_information":""}' }
)" + kJudgeAcceptsAll;
  start_mock(script);
  const std::string cfg = effgen_config("  max_subtask_retries: 0\n");
  RunResult r = run_effgen(cfg, kComplexTask);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  json res = r.result();
  EXPECT_TRUE(res.value("ok", false)) << res;
  EXPECT_EQ(res.value("answer", ""), "SYNTHESIS-FINAL") << res;
  // Exactly 3 judge calls for st_2 (2 rejections, 1 acceptance), 1 for st_1.
  EXPECT_EQ(by_rule("judge-rejects-beta").size(), 2u) << rules_seen();
  EXPECT_EQ(by_rule("judge-accepts-beta").size(), 1u) << rules_seen();
  EXPECT_EQ(by_rule("judge-accepts").size(), 1u) << rules_seen();
  EXPECT_EQ(requests_for("judge-7b").size(), 4u) << rules_seen();
  EXPECT_EQ(res["metadata"].value("judge_calls", 0), 4) << res;
  // The worker was asked again twice, each time with the judge's feedback.
  EXPECT_EQ(by_rule("worker-beta").size(), 1u) << rules_seen();
  EXPECT_EQ(by_rule("worker-beta-fixed").size(), 2u) << rules_seen();
  EXPECT_EQ(r.events("retry").size(), 2u) << r.out;
  // st_2 completed on its first scheduler attempt.
  bool st2_completed = false;
  for (auto& s : res["metadata"]["subtasks"])
    if (s.value("id", "") == "st_2") st2_completed = s.value("state", "") == "completed" && s.value("attempts", 0) == 1;
  EXPECT_TRUE(st2_completed) << res["metadata"];
}

// ------------------------------------------------------------ 5. judge exhausted

TEST_F(EffgenE2e, JudgeAlwaysRejectingEndsTheTaskWithAnErrorAfterFourAudits) {
  start_mock(R"(
rules:
  - name: worker
    match: { model: llama3.2 }
    reply: { text: "It is 5.", usage: { input_tokens: 50, output_tokens: 5 } }
  - name: judge-rejects
    match: { model: judge-7b }
    reply: { text: '{"status":"error","output":"Wrong.","error_information":"2+2 is not 5."}' }
)");
  // judge.max_retries 3: 1 audit + 3 retries = 4 judge calls.
  const std::string cfg = effgen_config("  max_subtask_retries: 0\n", {}, "llama3.2", "  max_retries: 3\n");
  RunResult r = run_effgen(cfg, kSimpleTask);
  ASSERT_EQ(r.exit_code, 1) << r.describe();
  json res = r.result();
  EXPECT_FALSE(res.value("ok", true)) << res;
  EXPECT_EQ(res["metadata"].value("routing_strategy", ""), "single") << res;
  EXPECT_EQ(by_rule("judge-rejects").size(), 4u) << rules_seen();
  EXPECT_EQ(by_rule("worker").size(), 4u) << rules_seen();
  EXPECT_EQ(res["metadata"].value("judge_calls", 0), 4) << res;
  const std::string err = res.value("error", "");
  EXPECT_NE(err.find("judge"), std::string::npos) << err;
  EXPECT_NE(err.find("2+2 is not 5."), std::string::npos) << err;
  // The task is recorded as failed in the journal.
  auto j = journal();
  ASSERT_TRUE(j);
  auto tasks = j->tasks(session_of(r));
  ASSERT_TRUE(tasks.ok());
  ASSERT_EQ(tasks->size(), 1u);
  EXPECT_EQ((*tasks)[0].status, "failed");
}

// In a plan, a subtask the judge always rejects fails after 4 audits per
// scheduler attempt; max_subtask_retries re-runs it (a fresh audit loop), so
// 0 retries give exactly 4 judge calls and 1 retry gives 8. The plan still
// answers: synthesis is told which subtask failed and why.
class EffgenE2ePlanJudge : public EffgenE2e {
 public:
  void run(int subtask_retries, size_t expected_beta_audits) {
    std::string script = "rules:\n" + std::string(R"(
  - name: planner-synth-with-gap
    match: { model: planner-7b, last_user: 're:Subtask results[\s\S]*\[st_2 FAILED\][^\n]*\nError:[^\n]*judge[^\n]*Beta is hopeless' }
    reply: { text: "SYNTHESIS-WITH-GAP" }
)") +
                         planner_rule(subtasks({subtask("st_1", "Alpha research of GPU prices", {}),
                                                subtask("st_2", "Beta research of certifications", {})})) +
                         R"(
  - name: worker-alpha
    match: { model: llama3.2, last_user: 're:subtask:\s*Alpha' }
    reply: { text: "ALPHA-OUT" }
  - name: worker-beta
    match: { model: llama3.2, last_user: 're:subtask:\s*Beta' }
    reply: { text: "BETA-OUT" }
  - name: judge-rejects-beta
    match: { model: judge-7b, last_user: 're:instructions:\s*Beta' }
    reply: { text: '{"status":"error","output":"No.","error_information":"Beta is hopeless."}' }
)" + kJudgeAcceptsAll;
    start_mock(script);
    const std::string cfg = effgen_config("  max_subtask_retries: " + std::to_string(subtask_retries) + "\n", {},
                                          "llama3.2", "  max_retries: 3\n");
    RunResult r = run_effgen(cfg, kComplexTask);
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    json res = r.result();
    EXPECT_EQ(res.value("answer", ""), "SYNTHESIS-WITH-GAP") << res << "\n" << rules_seen();
    EXPECT_EQ(by_rule("judge-rejects-beta").size(), expected_beta_audits) << rules_seen();
    EXPECT_EQ(by_rule("worker-beta").size(), expected_beta_audits) << rules_seen();
    EXPECT_EQ(by_rule("judge-accepts").size(), 1u) << rules_seen();
    EXPECT_EQ(res["metadata"].value("judge_calls", 0), int(expected_beta_audits) + 1) << res;
    EXPECT_FALSE(res["metadata"].value("fallback", true)) << res;
    bool st2_failed = false;
    for (auto& s : res["metadata"]["subtasks"])
      if (s.value("id", "") == "st_2")
        st2_failed = s.value("state", "") == "failed" && s.value("attempts", 0) == subtask_retries + 1;
    EXPECT_TRUE(st2_failed) << res["metadata"];
  }
};

TEST_F(EffgenE2ePlanJudge, HopelessSubtaskWithoutSchedulerRetriesGetsExactlyFourAudits) { run(0, 4); }
TEST_F(EffgenE2ePlanJudge, HopelessSubtaskWithOneSchedulerRetryGetsEightAudits) { run(1, 8); }

// ------------------------------------------------------------ 6. quality score

TEST_F(EffgenE2e, QualityScoreFollowsTheVerdictsAndIsStored) {
  // A two-step chain runs on one worker (the widest level has one subtask):
  // Worker1 gets verdicts accept (st_1), reject, accept (st_2).
  std::string script = "rules:\n" +
                       planner_rule(subtasks({subtask("st_1", "Step one gathers the prices", {}),
                                              subtask("st_2", "Step two computes the totals", {"st_1"})})) +
                       R"(
  - name: worker-1
    match: { model: llama3.2, last_user: 're:subtask:\s*Step one' }
    reply: { text: "OUTONE", usage: { input_tokens: 100, output_tokens: 10 } }
  - name: worker-2
    match: { model: llama3.2, last_user: 're:subtask:\s*Step two' }
    reply: { text: "OUTTWO", usage: { input_tokens: 100, output_tokens: 10 } }
  - name: judge-rejects-step-two-once
    match: { model: judge-7b, last_user: 're:instructions:\s*Step two' }
    times: 1
    reply: { text: '{"status":"error","output":"No.","error_information":"Show the sum."}' }
)" + kJudgeAcceptsAll;
  start_mock(script);
  const std::string cfg = effgen_config("  max_subtask_retries: 0\n");
  RunResult r = run_effgen(cfg, kComplexTask);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.result()["metadata"].value("num_sub_agents", 0), 1) << r.result();
  auto verdicts = r.events("verdict");
  ASSERT_EQ(verdicts.size(), 3u) << r.out;
  const std::vector<bool> success = {true, false, true};
  const std::vector<double> q = {0.6, 0.48, 0.584};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(verdicts[i]["data"].value("producer", ""), "Worker1") << verdicts[i];
    EXPECT_EQ(verdicts[i]["data"].value("success", !success[i]), success[i]) << verdicts[i];
    EXPECT_NEAR(verdicts[i]["data"].value("quality", -1.0), q[i], 1e-9) << verdicts[i];
  }
  auto j = journal();
  ASSERT_TRUE(j);
  auto row = j->load_quality("Worker1");
  ASSERT_TRUE(row.ok()) << row.error().message;
  ASSERT_TRUE(row->has_value());
  EXPECT_NEAR((*row)->q, 0.584, 1e-9);
  EXPECT_EQ((*row)->verdicts, 3);
}

// ------------------------------------------------------------ 7. affordability

TEST_F(EffgenE2e, UnaffordablePlanIsRefusedBeforeAnyWorkerIsHired) {
  std::string script = "rules:\n" +
                       planner_rule(subtasks({subtask("st_1", "Alpha research of GPU prices", {}),
                                              subtask("st_2", "Beta research of certifications", {}),
                                              subtask("st_3", "Gamma research of regions", {})})) +
                       R"(
  - name: worker
    match: { model: gemini-2.0-flash }
    reply: { text: "WORKER-OUT" }
)" + kJudgeAcceptsAll;
  start_mock(script);
  ConfigOptions o;
  // Three gemini-2.0-flash subtasks at 1024 output tokens ($0.40/1M) each
  // need over $0.001 in the worst case.
  o.expense_total = 0.0005;
  const std::string cfg = effgen_config("", o, "gemini-2.0-flash");
  RunResult r = run_effgen(cfg, kComplexTask);
  ASSERT_EQ(r.exit_code, 1) << r.describe();
  json res = r.result();
  EXPECT_FALSE(res.value("ok", true));
  EXPECT_NE(res.value("error", "").find("cannot be afforded"), std::string::npos) << res;
  EXPECT_EQ(by_rule("planner-decomposes").size(), 1u) << rules_seen();
  EXPECT_TRUE(requests_for("gemini-2.0-flash").empty()) << rules_seen();
  EXPECT_TRUE(requests_for("judge-7b").empty()) << rules_seen();
  EXPECT_TRUE(r.events("hire").empty()) << r.out;
  EXPECT_EQ(res["metadata"].value("num_sub_agents", -1), 0) << res;
  auto j = journal();
  ASSERT_TRUE(j);
  auto agents = j->all_agents(session_of(r));
  ASSERT_TRUE(agents.ok());
  EXPECT_TRUE(agents->empty());
  // Nothing was spent on workers.
  EXPECT_DOUBLE_EQ(r.ledgers().value("current_expense", -1.0), 0.0) << r.ledgers();
}

// ------------------------------------------------------------ 8. bad decomposition

TEST_F(EffgenE2e, InvalidDecompositionIsRetriedOnceThenFallsBackToOneAgent) {
  start_mock(R"(
rules:
  - name: planner-retry
    match: { model: planner-7b, last_user: "Your decomposition could not be used: " }
    reply: { text: "Still no JSON here, sorry." }
  - name: planner-first
    match: { model: planner-7b, last_user: "task decomposition expert" }
    reply: { text: "Sure! First research, then compare, then write." }
  - name: worker
    match: { model: llama3.2 }
    reply: { text: "SINGLE-AGENT-ANSWER", usage: { input_tokens: 300, output_tokens: 30 } }
)" + std::string(kJudgeAcceptsAll));
  const std::string cfg = effgen_config();
  RunResult r = run_effgen(cfg, kComplexTask);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  json res = r.result();
  EXPECT_EQ(res.value("answer", ""), "SINGLE-AGENT-ANSWER") << res;
  EXPECT_TRUE(res["metadata"].value("fallback", false)) << res;
  EXPECT_EQ(res["metadata"].value("routing_strategy", ""), "single") << res;
  EXPECT_EQ(by_rule("planner-first").size(), 1u) << rules_seen();
  EXPECT_EQ(by_rule("planner-retry").size(), 1u) << rules_seen();
  EXPECT_EQ(requests_for("planner-7b").size(), 2u) << rules_seen();
  EXPECT_EQ(by_rule("worker").size(), 1u) << rules_seen();
  // The retry carried the first answer's parse error.
  auto retries = r.events("retry");
  ASSERT_EQ(retries.size(), 1u) << r.out;
  const std::string prefix = "the decomposition was not usable: ";
  std::string reason = retries[0].value("text", "");
  ASSERT_EQ(reason.rfind(prefix, 0), 0u) << reason;
  reason = reason.substr(prefix.size());
  ASSERT_FALSE(reason.empty());
  const std::string sent = by_rule("planner-retry")[0].value("last_message", "");
  const std::string expected = "user: Your decomposition could not be used: " + reason;
  // The parse error (the planner's answer had no JSON) reached the
  // model (last_message is cut at 200 characters).
  EXPECT_NE(reason.find("JSON"), std::string::npos) << reason;
  EXPECT_EQ(sent.rfind(expected.substr(0, std::min<size_t>(expected.size(), 200)), 0), 0u) << sent;
  // The whole task went to the one worker.
  EXPECT_EQ(res["metadata"].value("num_sub_agents", 0), 1) << res;
}

// ------------------------------------------------------------ 9. routing

const char* kRoutingScript = R"(
rules:
  - name: planner-decomposes
    match: { model: planner-7b, last_user: "task decomposition expert" }
    reply:
      text: '{"subtasks":[{"id":"st_1","description":"Alpha part","depends_on":[]},{"id":"st_2","description":"Beta part","depends_on":[]}]}'
  - name: planner-synthesises
    match: { model: planner-7b, last_user: "Subtask results" }
    reply: { text: "SYNTHESIS-FINAL" }
  - name: worker
    match: { model: llama3.2 }
    reply: { text: "WORKER-SAYS-4" }
  - name: ceo
    match: { model: ceo-model }
    reply: { text: "CEO-SAYS-4" }
  - name: judge-accepts
    match: { model: judge-7b }
    reply: { text: '{"status":"success","output":"ok","error_information":""}' }
)";

TEST_F(EffgenE2e, SimpleTaskRoutesToOneWorkerWithoutAskingThePlanner) {
  start_mock(kRoutingScript);
  const std::string cfg = effgen_config();
  RunResult r = run_effgen(cfg, kSimpleTask);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  json res = r.result();
  EXPECT_EQ(res.value("answer", ""), "WORKER-SAYS-4") << res;
  EXPECT_EQ(res["metadata"].value("routing_strategy", ""), "single") << res;
  EXPECT_FALSE(res["metadata"].value("fallback", true)) << res;
  EXPECT_LT(res["metadata"].value("complexity_score", 99.0), 7.0) << res;
  EXPECT_TRUE(requests_for("planner-7b").empty()) << rules_seen();
  EXPECT_TRUE(requests_for("ceo-model").empty()) << rules_seen();
  EXPECT_EQ(by_rule("worker").size(), 1u) << rules_seen();
}

// effgen with the company's memory: a task that succeeded is kept as a
// memory; the next task like it recalls it before it is routed, and the
// worker gets it with the task. With the memory switch off, neither.
TEST_F(EffgenE2e, ATaskThatSucceededIsRememberedAndTheNextOneRecallsIt) {
  start_mock(kRoutingScript);
  const std::string cfg = effgen_config();
  RunResult first = run_effgen(cfg, kSimpleTask);
  ASSERT_EQ(first.exit_code, 0) << first.describe();
  json m1 = first.result()["metadata"];
  EXPECT_EQ(m1.value("retrieved_memories", -1), 0) << m1;
  EXPECT_TRUE(m1.value("stored_memory", false)) << m1;

  RunResult second = run_effgen(cfg, "What is 2+2? Answer again, please 🙏");
  ASSERT_EQ(second.exit_code, 0) << second.describe();
  json m2 = second.result()["metadata"];
  EXPECT_GE(m2.value("retrieved_memories", 0), 1) << m2;
  ASSERT_EQ(by_rule("worker").size(), 2u) << rules_seen();
  const std::string asked = by_rule("worker")[1].dump();
  EXPECT_NE(asked.find("A task effGen solved"), std::string::npos) << asked;
  EXPECT_NE(asked.find("effgen: What is 2+2?"), std::string::npos) << "the first task, remembered: " << asked;
  EXPECT_EQ(by_rule("worker")[0].dump().find("A task effGen solved"), std::string::npos);
  EXPECT_FALSE(second.events("memories").empty()) << second.out;

  // The memory switch off: nothing recalled, nothing stored.
  ConfigOptions off;
  off.extra = "switches:\n  memory: false\n";
  RunResult third = run_effgen(effgen_config("", off), "What is 2+2? Once more.");
  ASSERT_EQ(third.exit_code, 0) << third.describe();
  json m3 = third.result()["metadata"];
  EXPECT_EQ(m3.value("retrieved_memories", -1), 0) << m3;
  EXPECT_FALSE(m3.contains("stored_memory")) << m3;
  EXPECT_EQ(by_rule("worker").back().dump().find("A task effGen solved"), std::string::npos);
}

TEST_F(EffgenE2e, AutoStrategySendsASimpleTaskToTheHashiruCeo) {
  start_mock(kRoutingScript);
  const std::string cfg = effgen_config();
  RunResult r = run_effgen(cfg, kSimpleTask, "auto");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.result().value("answer", ""), "CEO-SAYS-4") << r.out;
  EXPECT_EQ(by_rule("ceo").size(), 1u) << rules_seen();
  EXPECT_TRUE(requests_for("planner-7b").empty()) << rules_seen();
  EXPECT_TRUE(requests_for("llama3.2").empty()) << rules_seen();
  EXPECT_TRUE(requests_for("judge-7b").empty()) << rules_seen();
}

TEST_F(EffgenE2e, AutoStrategySendsAComplexTaskToThePlanner) {
  start_mock(kRoutingScript);
  const std::string cfg = effgen_config();
  RunResult r = run_effgen(cfg, kComplexTask, "auto");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  json res = r.result();
  EXPECT_EQ(res.value("answer", ""), "SYNTHESIS-FINAL") << res;
  EXPECT_EQ(res["metadata"].value("strategy", ""), "effgen") << res;
  EXPECT_NEAR(res["metadata"].value("complexity_score", 0.0), 7.9, 0.05) << res;
  EXPECT_EQ(by_rule("planner-decomposes").size(), 1u) << rules_seen();
  EXPECT_TRUE(requests_for("ceo-model").empty()) << rules_seen();
  EXPECT_EQ(by_rule("worker").size(), 2u) << rules_seen();
}

// ------------------------------------------------------------ 10. journal

TEST_F(EffgenE2e, RoutingDecisionAndPlanAreJournaledAndShownByHistory) {
  start_mock(kRoutingScript);
  const std::string cfg = effgen_config();
  RunResult r = run_effgen(cfg, kComplexTask);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const std::string session = session_of(r);
  ASSERT_FALSE(session.empty());

  RunResult h = kaisha({"history", "--config", cfg, "--session", session, "--json"});
  ASSERT_EQ(h.exit_code, 0) << h.describe();
  json hist = json::parse(h.out, nullptr, false);
  ASSERT_FALSE(hist.is_discarded()) << h.out;
  ASSERT_EQ(hist["tasks"].size(), 1u) << hist;
  EXPECT_EQ(hist["tasks"][0].value("status", ""), "done");
  EXPECT_EQ(hist["tasks"][0].value("final_answer", ""), "SYNTHESIS-FINAL");
  const json* routing = nullptr;
  const json* plan = nullptr;
  for (auto& s : hist["steps"]) {
    if (s.value("kind", "") != "note" || s.value("agent", "") != "Planner") continue;
    if (s["payload"].contains("routing")) routing = &s;
    if (s["payload"].contains("plan")) plan = &s;
  }
  ASSERT_NE(routing, nullptr) << hist.dump(2);
  const json& d = (*routing)["payload"]["routing"];
  EXPECT_NEAR(d.value("complexity_score", 0.0), 7.9, 0.05) << d;
  EXPECT_NE(d.value("kind", ""), "single") << d;
  EXPECT_DOUBLE_EQ(d.value("tau", 0.0), 7.0) << d;
  const json& factors = d["score"]["factors"];
  for (const char* f : {"length", "requirements", "domain", "tools", "reasoning"})
    EXPECT_TRUE(factors.contains(f) && factors[f].is_number()) << f << " in " << d;
  ASSERT_NE(plan, nullptr) << hist.dump(2);
  const json& p = (*plan)["payload"]["plan"];
  ASSERT_EQ(p.size(), 2u) << p;
  EXPECT_EQ(p[0].value("id", ""), "st_1");
  EXPECT_EQ(p[1].value("id", ""), "st_2");
  EXPECT_EQ((*plan)["payload"].value("shape", ""), "parallel");
  // The routing note comes before the plan.
  EXPECT_LT((*routing).value("seq", 0), (*plan).value("seq", 0));
  // Each subtask's answer is one step: the worker's llm_response, with the
  // subtask it answers (journaled by the planner, which knows the job and the
  // cost), after the worker's own llm_request; no second copy of it.
  for (const char* job : {"st_1", "st_2"}) {
    std::vector<json> answers;
    for (auto& s : hist["steps"])
      if (s["payload"].value("job", "") == job) answers.push_back(s);
    ASSERT_EQ(answers.size(), 1u) << job << "\n" << hist.dump(2);
    const json& a = answers[0];
    EXPECT_EQ(a.value("kind", ""), "llm_response") << a;
    EXPECT_EQ(a["payload"].value("text", ""), "WORKER-SAYS-4") << a;
    EXPECT_GT(a.value("tokens_out", 0), 0) << a;
    const std::string worker = a.value("agent", "");
    EXPECT_EQ(worker.rfind("Worker", 0), 0u) << a;
    bool asked_before = false;
    for (auto& s : hist["steps"])
      asked_before = asked_before || (s.value("agent", "") == worker && s.value("kind", "") == "llm_request" &&
                                      s.value("seq", 0) < a.value("seq", 0));
    EXPECT_TRUE(asked_before) << worker << "\n" << hist.dump(2);
  }
  size_t worker_answers = 0;
  for (auto& s : hist["steps"])
    if (s.value("kind", "") == "llm_response" && s.value("agent", "").rfind("Worker", 0) == 0) ++worker_answers;
  EXPECT_EQ(worker_answers, 2u) << hist.dump(2);
}

}  // namespace
}  // namespace kaisha::e2e::effgen_strategy_test
