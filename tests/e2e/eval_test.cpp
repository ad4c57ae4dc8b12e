// `kaisha eval` end to end: a four-item suite in four formats (exact,
// numeric, multiple choice, code) run through the HASHIRU strategy against
// the scripted mock LLM, which answers three right and one wrong. What is
// asserted comes from outside the command: the table and JSON lines it
// prints, the mock's request log (every model call, so a call paid twice
// shows), the CSV file and the journal's "eval" state.
#include <sys/stat.h>

#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "cluster_fixture.hpp"
#include "e2e_fixture.hpp"
#include "runtime/sandbox/sandbox.hpp"

namespace kaisha::e2e {
namespace eval_test {

const char* kSuite =
    R"({"id": "capital", "input": "What is the capital of Australia? Reply with the city's name only.", "answer": "Canberra"}
{"id": "apples", "input": "Ann has 3 baskets of 12 apples and gives away 7. How many are left? End with '#### <number>'.", "answer": 29, "format": "numeric"}
# the mock picks (C): wrong
{"id": "red-planet", "input": "Which planet is known as the Red Planet?\n(A) Venus\n(B) Mars\n(C) Jupiter\n(D) Saturn", "answer": "B", "format": "multiple_choice"}
{"id": "add", "input": "Write a Python function add(a, b) that returns a + b.", "tests": "assert add(2, 3) == 5\nassert add(-1, 1) == 0"}
)";

// One rule per item, named after it, so the log counts each item's calls.
// `slow_red_planet`: the first call for the third item waits 60 s (a
// process to kill while it waits); the call made again answers at once.
std::string script(bool slow_red_planet = false) {
  std::string s = "rules:\n";
  s += "  - name: capital\n    match: { model: ceo-model, last_user: \"capital of Australia\" }\n"
       "    reply: { text: \"Canberra\" }\n";
  s += "  - name: apples\n    match: { model: ceo-model, last_user: \"baskets of 12 apples\" }\n"
       "    reply: { text: \"3 x 12 = 36 and 36 - 7 = 29.\\n#### 29\" }\n";
  if (slow_red_planet)
    s += "  - name: red-planet-slow\n    match: { model: ceo-model, last_user: \"Red Planet\" }\n    times: 1\n"
         "    reply: { text: \"The answer is (C).\", latency_ms: 60000 }\n";
  s += "  - name: red-planet\n    match: { model: ceo-model, last_user: \"Red Planet\" }\n"
       "    reply: { text: \"The answer is (C).\" }\n";
  s += "  - name: add\n    match: { model: ceo-model, last_user: \"function add(a, b)\" }\n"
       "    reply: { text: \"```python\\ndef add(a, b):\\n    return a + b\\n```\" }\n";
  return s;
}

class EvalTest : public E2eTest {
 protected:
  void SetUp() override {
    Status s = sandbox::sandbox_available();
    if (!s) GTEST_SKIP() << "the code item needs the sandbox: " << s.error().message;
  }

  std::string config() {
    ConfigOptions o;
    // Generous for a loaded machine: the code item's tests run in the sandbox.
    o.extra = "tools:\n  sandbox: { timeout_ms: 30000, cpu_seconds: 30 }\n";
    return write_config(o);
  }

  std::vector<std::string> eval_args(const std::string& cfg, std::vector<std::string> extra) {
    std::vector<std::string> args = {"eval", "--config", cfg};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }

  // The "eval" state's item rows of run `name`, by key.
  std::map<std::string, json> scored(const std::string& name) {
    std::map<std::string, json> out;
    auto j = journal();
    if (!j) return out;
    auto rows = j->state("eval");
    if (!rows.ok()) return out;
    const std::string prefix = "run/" + name + "/item/";
    for (const auto& r : *rows)
      if (r.key.rfind(prefix, 0) == 0) out[r.key] = r.value;
    return out;
  }

  // Calls the mock answered, by rule name.
  std::map<std::string, size_t> calls() {
    std::map<std::string, size_t> n;
    for (const auto& r : mock_->request_log()) ++n[r.value("rule", "")];
    return n;
  }
};

TEST_F(EvalTest, ScoresThreeOfFourAndPrintsTheWilsonInterval) {
  start_mock(script());
  const std::string suite = dir_.write("mixed.jsonl", kSuite);
  RunResult r = kaisha(eval_args(config(), {"--suite", suite, "--strategy", "hashiru"}), {}, std::chrono::seconds(120));
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  // 3/4 = 75 %, Wilson 95 %: [0.3006, 0.9544].
  EXPECT_NE(r.out.find("eval mixed: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("strategy hashiru"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("4      3        75.0%     [30.1%, 95.4%]"), std::string::npos) << r.out;
  EXPECT_EQ(calls(), (std::map<std::string, size_t>{{"add", 1}, {"apples", 1}, {"capital", 1}, {"red-planet", 1}}));
  // Each task in a session of its own: no request carries another task's conversation.
  for (const auto& req : mock_->request_log()) {
    int users = 0;
    for (const auto& m : req["messages"]) users += m.value("role", "") == "user";
    EXPECT_EQ(users, 1) << req.dump();
  }

  // Each answer is kept with its verdict; the wrong one says what it picked.
  auto rows = scored("mixed");
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows["run/mixed/item/capital/1"]["correct"], true);
  EXPECT_EQ(rows["run/mixed/item/apples/1"]["correct"], true);
  EXPECT_EQ(rows["run/mixed/item/add/1"]["correct"], true);
  EXPECT_EQ(rows["run/mixed/item/add/1"]["score"], 1.0);
  const json wrong = rows["run/mixed/item/red-planet/1"];
  EXPECT_EQ(wrong["correct"], false);
  EXPECT_EQ(wrong["answer"], "The answer is (C).");
  EXPECT_NE(wrong["feedback"].get<std::string>().find("the right option is (B)"), std::string::npos) << wrong;
  EXPECT_GT(wrong["tokens_in"].get<int64_t>(), 0);

  // The same name again is refused; resuming a finished run asks nothing.
  RunResult again = kaisha(eval_args(config(), {"--suite", suite, "--strategy", "hashiru"}));
  EXPECT_EQ(again.exit_code, 2) << again.describe();
  EXPECT_NE(again.err.find("--resume mixed"), std::string::npos) << again.err;
  RunResult resumed = kaisha(eval_args(config(), {"--resume", "mixed"}));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.describe();
  EXPECT_NE(resumed.out.find("[30.1%, 95.4%]"), std::string::npos) << resumed.out;
  EXPECT_EQ(mock_->request_log().size(), 4u);
}

TEST_F(EvalTest, AShorterRunResumedOnTheWholeSuiteAsksOnlyTheRest) {
  start_mock(script());
  const std::string suite = dir_.write("mixed.jsonl", kSuite);
  const std::string cfg = config();
  RunResult first =
      kaisha(eval_args(cfg, {"--suite", suite, "--strategy", "hashiru", "--name", "m", "--limit", "2", "--json"}), {},
             std::chrono::seconds(120));
  ASSERT_EQ(first.exit_code, 0) << first.describe();
  ASSERT_EQ(first.events("item").size(), 2u) << first.out;
  json s = first.events("summary").at(0);
  EXPECT_EQ(s["items"], 2);
  EXPECT_EQ(s["correct"], 2);
  EXPECT_EQ(calls(), (std::map<std::string, size_t>{{"apples", 1}, {"capital", 1}}));

  const std::string csv = dir_.file("m.csv");
  RunResult rest =
      kaisha(eval_args(cfg, {"--resume", "m", "--limit", "4", "--json", "--csv", csv}), {}, std::chrono::seconds(120));
  ASSERT_EQ(rest.exit_code, 0) << rest.describe();
  // Only the two new items ran; the summary covers all four.
  auto items = rest.events("item");
  ASSERT_EQ(items.size(), 2u) << rest.out;
  EXPECT_EQ(items[0]["item"], "red-planet");
  EXPECT_EQ(items[1]["item"], "add");
  s = rest.events("summary").at(0);
  EXPECT_EQ(s["items"], 4);
  EXPECT_EQ(s["correct"], 3);
  EXPECT_DOUBLE_EQ(s["accuracy"].get<double>(), 0.75);
  EXPECT_NEAR(s["wilson_low"].get<double>(), 0.300641842582402, 1e-9);
  EXPECT_NEAR(s["wilson_high"].get<double>(), 0.954412739190299, 1e-9);
  EXPECT_TRUE(s["complete"].get<bool>());
  EXPECT_EQ(calls(), (std::map<std::string, size_t>{{"add", 1}, {"apples", 1}, {"capital", 1}, {"red-planet", 1}}));

  // One CSV row per answer, in suite order (a quoted field may hold line breaks).
  std::ifstream in(csv, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> lines(1);
  bool quoted = false;
  for (char ch : text) {
    if (ch == '"') quoted = !quoted;
    if (ch == '\n' && !quoted)
      lines.emplace_back();
    else
      lines.back() += ch;
  }
  if (lines.back().empty()) lines.pop_back();
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0].rfind("item,run,format,correct,score,", 0), 0u) << lines[0];
  EXPECT_EQ(lines[1].rfind("capital,1,exact,1,", 0), 0u) << lines[1];
  EXPECT_EQ(lines[3].rfind("red-planet,1,multiple_choice,0,", 0), 0u) << lines[3];
  EXPECT_EQ(lines[4].rfind("add,1,code,1,", 0), 0u) << lines[4];
  EXPECT_NE(lines[2].find(",\"3 x 12 = 36 and 36 - 7 = 29.\n#### 29\","), std::string::npos) << lines[2];
}

TEST_F(EvalTest, EachRunAsksEveryItemAgainAndIsSummedApart) {
  start_mock(script());
  const std::string suite = dir_.write("mixed.jsonl", kSuite);
  RunResult r =
      kaisha(eval_args(config(), {"--suite", suite, "--strategy", "hashiru", "--limit", "3", "--runs", "2", "--json"}),
             {}, std::chrono::seconds(120));
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.events("item").size(), 6u);
  json s = r.events("summary").at(0);
  EXPECT_EQ(s["items"], 6);
  EXPECT_EQ(s["correct"], 4);
  ASSERT_EQ(s["runs"].size(), 2u) << s;
  for (const auto& run : s["runs"]) {
    EXPECT_EQ(run["items"], 3);
    EXPECT_EQ(run["correct"], 2);
  }
  EXPECT_EQ(calls(), (std::map<std::string, size_t>{{"apples", 2}, {"capital", 2}, {"red-planet", 2}}));
  EXPECT_EQ(scored("mixed").count("run/mixed/item/red-planet/2"), 1u);
}

// A second run compared with the first, answer by answer: the mock picks
// the wrong option for the Red Planet once, then the right one, so the
// second run is right where the first was wrong, on one item.
TEST_F(EvalTest, ARunComparedWithItsBaselineCountsTheItemsOnlyOneGotRight) {
  std::string s = script();
  const std::string wrong_once =
      "  - name: red-planet\n    match: { model: ceo-model, last_user: \"Red Planet\" }\n    times: 1\n"
      "    reply: { text: \"The answer is (C).\" }\n";
  const size_t at = s.find("  - name: red-planet\n");
  s.replace(s.find("(C)", at), 3, "(B)");  // the rule after the first call
  s.insert(at, wrong_once);
  start_mock(s);
  const std::string suite = dir_.write("mixed.jsonl", kSuite);
  const std::string cfg = config();
  auto run = [&](std::vector<std::string> extra) {
    return kaisha(eval_args(cfg, std::move(extra)), {}, std::chrono::seconds(120));
  };
  RunResult first = run({"--suite", suite, "--strategy", "hashiru", "--name", "first", "--limit", "3"});
  ASSERT_EQ(first.exit_code, 0) << first.describe();
  RunResult second = run(
      {"--suite", suite, "--strategy", "hashiru", "--name", "second", "--limit", "3", "--baseline", "first", "--json"});
  ASSERT_EQ(second.exit_code, 0) << second.describe();
  json b = second.events("summary").at(0)["baseline"];
  EXPECT_EQ(b["run"], "first") << b;
  EXPECT_EQ(b["paired"], 3) << b;
  EXPECT_EQ(b["candidate"]["correct"], 3) << b;
  EXPECT_EQ(b["baseline"]["correct"], 2) << b;
  EXPECT_EQ(b["mcnemar"]["b"], 1) << b;
  EXPECT_EQ(b["mcnemar"]["c"], 0) << b;
  EXPECT_DOUBLE_EQ(b["mcnemar"]["exact_p"].get<double>(), 1.0) << b;

  // The comparison is kept with the run: its report shows it again, asking nothing.
  const size_t asked = mock_->request_log().size();
  RunResult again = run({"--resume", "second"});
  ASSERT_EQ(again.exit_code, 0) << again.describe();
  EXPECT_NE(again.out.find("against first (strategy hashiru"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("accuracy 100.0% vs 66.7% (+33.3 points)"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("McNemar: 1 right only here, 0 right only there"), std::string::npos) << again.out;
  EXPECT_EQ(mock_->request_log().size(), asked);

  // A baseline that is not there, or of another suite, is refused before anything runs.
  RunResult none = run({"--resume", "second", "--baseline", "nosuch"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("--baseline nosuch: no eval run of that name"), std::string::npos) << none.err;
  const std::string other = dir_.write("other.jsonl", kSuite);
  RunResult elsewhere = run({"--suite", other, "--strategy", "hashiru", "--name", "third", "--baseline", "first"});
  EXPECT_EQ(elsewhere.exit_code, 2);
  EXPECT_NE(elsewhere.err.find("--baseline first: that run evaluates"), std::string::npos) << elsewhere.err;
  EXPECT_EQ(mock_->request_log().size(), asked);
}

// --baseline PROVIDER:MODEL: the suite is answered first by that model
// alone (one call per task with the task's text, no CEO, no tools), as run
// RUN-alone, then by the strategy, and the two are compared answer by
// answer. Resumed, neither is asked again.
TEST_F(EvalTest, ABaselineModelAnswersAloneFirstAndTheRunIsComparedWithIt) {
  std::string s = script();
  s += "  - name: alone-capital\n    match: { model: alone-model, last_user: \"capital of Australia\" }\n"
       "    reply: { text: \"Sydney\" }\n"
       "  - name: alone-apples\n    match: { model: alone-model, last_user: \"baskets of 12 apples\" }\n"
       "    reply: { text: \"#### 36\" }\n"
       "  - name: alone-red-planet\n    match: { model: alone-model, last_user: \"Red Planet\" }\n"
       "    reply: { text: \"火星です 🔴 (B)\" }\n";
  start_mock(s);
  const std::string suite = dir_.write("mixed.jsonl", kSuite);
  RunResult r = kaisha(eval_args(config(), {"--suite", suite, "--strategy", "hashiru", "--name", "cmp", "--limit", "3",
                                            "--baseline", "openai:alone-model", "--json"}),
                       {}, std::chrono::seconds(120));
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  // The model alone was asked each task's text and nothing else.
  const auto alone = requests_for("alone-model");
  ASSERT_EQ(alone.size(), 3u);
  for (const auto& req : alone) {
    EXPECT_EQ(req["messages"].size(), 1u) << req.dump();
    EXPECT_TRUE(req.value("tools", json::array()).empty()) << req.dump();
  }
  const json summaries = r.events("summary");
  ASSERT_EQ(summaries.size(), 2u) << r.out;
  EXPECT_EQ(summaries[0]["run"], "cmp-alone");
  EXPECT_EQ(summaries[0]["strategy"], "model-alone");
  EXPECT_EQ(summaries[0]["correct"], 1);
  const json b = summaries[1]["baseline"];
  EXPECT_EQ(b["run"], "cmp-alone") << b;
  EXPECT_EQ(b["candidate"]["correct"], 2) << b;
  EXPECT_EQ(b["baseline"]["correct"], 1) << b;
  EXPECT_EQ(b["mcnemar"]["b"], 2) << b;  // right only with the company: capital, apples
  EXPECT_EQ(b["mcnemar"]["c"], 1) << b;  // right only alone: the Red Planet

  const size_t asked = mock_->request_log().size();
  RunResult again = kaisha(eval_args(config(), {"--resume", "cmp"}), {}, std::chrono::seconds(120));
  ASSERT_EQ(again.exit_code, 0) << again.describe();
  EXPECT_NE(again.out.find("against cmp-alone (strategy model-alone"), std::string::npos) << again.out;
  EXPECT_EQ(mock_->request_log().size(), asked);
}

// --ablate runs the suite again with each named switch off, as a run of
// its own compared with the full one: the CEO's requests in the ablation
// run lack the tools the switch takes away, and the table lists each run.
TEST_F(EvalTest, AblationsRunTheSuiteAgainWithEachSwitchOff) {
  // For the capital, the CEO first tries to hire (a model nobody has), then answers.
  std::string s = script();
  s.insert(s.find("  - name: capital\n"),
           "  - name: capital-hire\n    match: { model: ceo-model, last_user: \"capital of Australia\", turn: 0 }\n"
           "    reply:\n      tool_calls:\n        - name: AgentCreator\n"
           "          arguments: { agent_name: Geo, base_model: no-such-model, system_prompt: \"You know maps.\", "
           "description: \"maps\" }\n");
  start_mock(s);
  const std::string suite = dir_.write("mixed.jsonl", kSuite);
  const std::string cfg = config();
  RunResult r = kaisha(eval_args(cfg, {"--suite", suite, "--strategy", "hashiru", "--name", "abl", "--limit", "2",
                                       "--ablate", "agent_creation", "tool_invocation"}),
                       {}, std::chrono::seconds(180));
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("ablations of abl (strategy hashiru)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no agent_creation"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no tool_invocation"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("eval abl-no-agent_creation: "), std::string::npos) << r.out;
  // Each run asked each item once: 3 runs × 2 items, the capital in two calls.
  EXPECT_EQ(calls(), (std::map<std::string, size_t>{{"apples", 3}, {"capital", 3}, {"capital-hire", 3}}));
  // What the CEO's hire came back with, run by run: refused for the switch
  // only in the run that turned agent creation off.
  std::vector<std::string> hire_results;
  for (const auto& req : mock_->request_log())
    if (req.value("rule", "") == "capital") hire_results.push_back(req["messages"].back().value("content", ""));
  ASSERT_EQ(hire_results.size(), 3u);
  const std::string off = "Agent creation mode is disabled.";
  EXPECT_EQ(hire_results[0].find(off), std::string::npos) << hire_results[0];
  EXPECT_NE(hire_results[1].find(off), std::string::npos) << hire_results[1];
  EXPECT_EQ(hire_results[2].find(off), std::string::npos) << hire_results[2];
  // Each ablation run is kept as a run of its own, compared with the full one.
  EXPECT_EQ(scored("abl-no-agent_creation").size(), 2u);
  EXPECT_EQ(scored("abl-no-tool_invocation").size(), 2u);

  // Resumed, nothing is asked again; an unknown switch is refused, naming the ones there are.
  const size_t asked = mock_->request_log().size();
  RunResult again = kaisha(eval_args(cfg, {"--resume", "abl", "--json"}), {}, std::chrono::seconds(120));
  ASSERT_EQ(again.exit_code, 0) << again.describe();
  ASSERT_EQ(again.events("ablations").size(), 1u) << again.out;
  EXPECT_EQ(again.events("ablations")[0]["arms"].size(), 2u);
  EXPECT_EQ(mock_->request_log().size(), asked);

  // --plot: accuracy against cost, a point for the full run and one per
  // ablation, each in its own colour (decoded here by Python's zlib).
  const std::string png = dir_.file("abl.png");
  RunResult plotted = kaisha(eval_args(cfg, {"--resume", "abl", "--plot", png}), {}, std::chrono::seconds(120));
  ASSERT_EQ(plotted.exit_code, 0) << plotted.describe();
  EXPECT_NE(plotted.out.find("plot: " + png), std::string::npos) << plotted.out;
  const std::string decode = dir_.write("decode.py", R"PY(import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n"
pos, idat, w, h = 8, b"", 0, 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    assert zlib.crc32(kind + body) == struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0]
    if kind == b"IHDR": w, h = struct.unpack(">II", body[:8])
    if kind == b"IDAT": idat += body
    pos += 12 + n
raw = zlib.decompress(idat)
count = {}
for y in range(h):
    row = raw[y * (w * 3 + 1) + 1:(y + 1) * (w * 3 + 1)]
    for x in range(w):
        px = row[3 * x:3 * x + 3]
        count[px] = count.get(px, 0) + 1
print(w, h, count.get(bytes([0, 114, 178]), 0), count.get(bytes([213, 94, 0]), 0), count.get(bytes([0, 158, 115]), 0))
)PY");
  RunResult py = run_process("/usr/bin/python3", {decode, png});
  ASSERT_EQ(py.exit_code, 0) << py.describe();
  std::istringstream seen(py.out);
  int w = 0, h = 0, full = 0, first = 0, second = 0;
  seen >> w >> h >> full >> first >> second;
  EXPECT_EQ(w, 800);
  EXPECT_EQ(h, 500);
  // Each point shows (here they coincide: earlier ones are drawn larger, a
  // ring around the later), and each legend has its 7x7 mark.
  for (int n : {full, first, second}) EXPECT_GE(n, 49 + 40) << py.out;
  // A plot that cannot be written says so; the run itself is kept.
  RunResult unwritable = kaisha(eval_args(cfg, {"--resume", "abl", "--plot", dir_.file("no-such-dir/abl.png")}), {},
                                std::chrono::seconds(120));
  EXPECT_EQ(unwritable.exit_code, 1);
  EXPECT_NE(unwritable.err.find("--plot: cannot write " + dir_.file("no-such-dir/abl.png")), std::string::npos)
      << unwritable.err;
  EXPECT_EQ(mock_->request_log().size(), asked);

  RunResult bad = kaisha(eval_args(cfg, {"--suite", suite, "--strategy", "hashiru", "--name", "b", "--ablate", "x"}));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--ablate: 'x' is not a switch of hashiru (agent_creation"), std::string::npos) << bad.err;
}

// --timeout: a task still running when its time is up is stopped and
// counted wrong, saying so, and the run goes on (the mock's first answer
// for the Red Planet takes 60 s).
TEST_F(EvalTest, ATaskOverItsTimeoutIsStoppedAndCountedWrong) {
  start_mock(script(/*slow_red_planet=*/true));
  const std::string suite = dir_.write("mixed.jsonl", kSuite);
  const auto started = std::chrono::steady_clock::now();
  RunResult r = kaisha(
      eval_args(config(), {"--suite", suite, "--strategy", "hashiru", "--name", "t", "--timeout", "3", "--json"}), {},
      std::chrono::seconds(120));
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(55));
  json s = r.events("summary").at(0);
  EXPECT_EQ(s["items"], 4);
  EXPECT_EQ(s["correct"], 3);
  auto rows = scored("t");
  const json late = rows["run/t/item/red-planet/1"];
  EXPECT_EQ(late["correct"], false) << late;
  EXPECT_EQ(late["feedback"], "no answer within 3 s (--timeout)") << late;
  EXPECT_EQ(calls()["red-planet-slow"], 1u);
  EXPECT_EQ(calls().count("red-planet"), 0u);  // not asked again
  // The journal has the task as failed, with the reason.
  auto j = journal();
  ASSERT_TRUE(j);
  auto t = j->get_task(late["task_id"].get<std::string>());
  ASSERT_TRUE(t.ok() && t->has_value());
  EXPECT_EQ((*t)->status, "failed");
  EXPECT_NE((*t)->error.find("--timeout"), std::string::npos) << (*t)->error;
}

// --concurrency 2: two items are answered at once, each in a company of its
// own. While the Red Planet's first answer waits (60 s, until the provider's
// 10 s per-attempt timeout asks again), the other worker answers the items
// after it, so the last item is scored before the third; one at a time, the
// third would come first. The scores are those of a run without
// --concurrency.
TEST_F(EvalTest, ConcurrentWorkersAnswerTheOtherItemsWhileOneWaits) {
  start_mock(script(/*slow_red_planet=*/true));
  const std::string suite = dir_.write("mixed.jsonl", kSuite);
  RunResult r = kaisha(eval_args(config(), {"--suite", suite, "--strategy", "hashiru", "--name", "c", "--timeout", "15",
                                            "--concurrency", "2", "--json"}),
                       {}, std::chrono::seconds(120));
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  std::vector<std::string> order;
  for (const json& e : r.events("item")) order.push_back(e.value("item", ""));
  ASSERT_EQ(order.size(), 4u) << r.out;
  EXPECT_EQ(order.back(), "red-planet") << r.out;
  EXPECT_EQ(std::set<std::string>(order.begin(), order.end()),
            (std::set<std::string>{"capital", "apples", "red-planet", "add"}));
  EXPECT_EQ(calls(), (std::map<std::string, size_t>{
                         {"add", 1}, {"apples", 1}, {"capital", 1}, {"red-planet-slow", 1}, {"red-planet", 1}}));
  auto rows = scored("c");
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows["run/c/item/capital/1"]["correct"], true);
  EXPECT_EQ(rows["run/c/item/apples/1"]["correct"], true);
  EXPECT_EQ(rows["run/c/item/add/1"]["correct"], true);
  EXPECT_EQ(rows["run/c/item/red-planet/1"]["correct"], false);
  EXPECT_EQ(r.events("summary").at(0)["correct"], 3);
  // Four sessions, one task each: no request carries another task's conversation.
  for (const auto& req : mock_->request_log()) {
    int users = 0;
    for (const auto& m : req["messages"]) users += m.value("role", "") == "user";
    EXPECT_EQ(users, 1) << req.dump();
  }
}

// Before anything is spent, the most the run can spend is shown (each task
// runs under the config's expense budget); --max-usd stops the run cleanly
// before the next task once it has spent that much, and --resume goes on.
TEST_F(EvalTest, TheWorstCaseIsShownFirstAndMaxUsdStopsTheRunCleanly) {
  start_mock(script());
  const std::string suite = dir_.write("mixed.jsonl", kSuite);
  ConfigOptions o;
  o.expense_total = 2.5;
  // About 1,000 tokens a call at $100 per million: about $0.10 a task.
  o.extra = "cost_table: " +
            dir_.write("costs.yaml",
                       "models:\n  ceo-model: { model_ref: openai:ceo-model, type: cloud, invoke_expense_cost: 100, "
                       "output_expense_cost: 100 }\n") +
            "\ntools:\n  sandbox: { timeout_ms: 30000, cpu_seconds: 30 }\n";
  const std::string cfg = write_config(o);
  RunResult r = kaisha(eval_args(cfg, {"--suite", suite, "--strategy", "hashiru", "--name", "m", "--limit", "3",
                                       "--max-usd", "0.01", "--json"}),
                       {}, std::chrono::seconds(120));
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  json estimate = r.events("estimate").at(0);
  EXPECT_EQ(estimate["tasks"], 3);
  EXPECT_DOUBLE_EQ(estimate["max_usd_per_task"].get<double>(), 2.5);
  EXPECT_DOUBLE_EQ(estimate["max_usd"].get<double>(), 7.5);
  json summary = r.events("summary").at(0);
  EXPECT_EQ(summary["items"], 1) << summary;
  EXPECT_GT(summary["usd"].get<double>(), 0.01) << summary;
  EXPECT_NE(summary["stopped"].get<std::string>().find("its --max-usd is $0.0100; go on with --resume m"),
            std::string::npos)
      << summary;
  EXPECT_EQ(mock_->request_log().size(), 1u);

  RunResult rest = kaisha(eval_args(cfg, {"--resume", "m", "--json"}), {}, std::chrono::seconds(120));
  ASSERT_EQ(rest.exit_code, 0) << rest.describe();
  EXPECT_EQ(rest.events("estimate").at(0)["tasks"], 2);
  EXPECT_EQ(rest.events("summary").at(0)["items"], 3);
  EXPECT_EQ(mock_->request_log().size(), 3u);  // the first task not asked again
}

// --seed with --limit: a seeded sample of the suite, the same items for the
// same seed; a seed without a sample size is refused.
TEST_F(EvalTest, ASeededSampleIsTheSameForTheSameSeed) {
  start_mock(script());
  const std::string suite = dir_.write("mixed.jsonl", kSuite);
  const std::string cfg = config();
  auto items_of = [&](const std::string& name) {
    std::set<std::string> out;
    RunResult r = kaisha(eval_args(cfg, {"--suite", suite, "--strategy", "hashiru", "--name", name, "--limit", "2",
                                         "--seed", "7", "--json"}),
                         {}, std::chrono::seconds(120));
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    for (const json& e : r.events("item")) out.insert(e.value("item", ""));
    return out;
  };
  const std::set<std::string> first = items_of("s1");
  EXPECT_EQ(first.size(), 2u);
  EXPECT_EQ(items_of("s2"), first);
  RunResult bad = kaisha(eval_args(cfg, {"--suite", suite, "--strategy", "hashiru", "--name", "s3", "--seed", "7"}));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--seed: give --limit N"), std::string::npos) << bad.err;
}

TEST_F(EvalTest, KilledAfterTwoItemsItGoesOnWithoutAskingThemAgain) {
  start_mock(script(/*slow_red_planet=*/true));
  const std::string suite = dir_.write("mixed.jsonl", kSuite);
  const std::string cfg = config();
  {
    BackgroundProcess p(KAISHA_EXE, {"eval", "--config", cfg, "--suite", suite, "--strategy", "hashiru", "--name", "k"},
                        {{"KAISHA_MODEL", std::nullopt}, {"KAISHA_DB", std::nullopt}}, dir_.file("eval.log"));
    // Killed while the third item's model call waits: two answers scored.
    ASSERT_TRUE(
        wait_for([&] { return !calls().empty() && calls().count("red-planet-slow"); }, std::chrono::seconds(90)))
        << p.log();
    p.kill9();
  }
  EXPECT_EQ(scored("k").size(), 2u);

  RunResult r = kaisha(eval_args(cfg, {"--resume", "k", "--json"}), {}, std::chrono::seconds(120));
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  json s = r.events("summary").at(0);
  EXPECT_EQ(s["items"], 4);
  EXPECT_EQ(s["correct"], 3);
  // The first two were not asked again; the interrupted call was made once more.
  EXPECT_EQ(calls(), (std::map<std::string, size_t>{
                         {"add", 1}, {"apples", 1}, {"capital", 1}, {"red-planet", 1}, {"red-planet-slow", 1}}));
  EXPECT_EQ(scored("k").size(), 4u);
}

TEST_F(EvalTest, AFailedTaskStopsTheRunAndIsAskedAgainOnResume) {
  // The provider refuses the third item's first call (HTTP 400: not retried).
  std::string s = script();
  s.insert(s.find("  - name: red-planet\n"),
           "  - name: red-planet-refused\n    match: { model: ceo-model, last_user: \"Red Planet\" }\n    times: 1\n"
           "    fault: { status: 400 }\n");
  start_mock(s);
  const std::string suite = dir_.write("mixed.jsonl", kSuite);
  const std::string cfg = config();
  RunResult first =
      kaisha(eval_args(cfg, {"--suite", suite, "--strategy", "hashiru", "--name", "f"}), {}, std::chrono::seconds(120));
  EXPECT_EQ(first.exit_code, 1) << first.describe();
  EXPECT_NE(first.err.find("task red-planet (run 1) failed"), std::string::npos) << first.err;
  EXPECT_NE(first.err.find("go on with --resume f"), std::string::npos) << first.err;
  EXPECT_NE(first.out.find("(incomplete)"), std::string::npos) << first.out;
  EXPECT_EQ(scored("f").size(), 2u);

  RunResult rest = kaisha(eval_args(cfg, {"--resume", "f", "--json"}), {}, std::chrono::seconds(120));
  ASSERT_EQ(rest.exit_code, 0) << rest.describe();
  EXPECT_EQ(rest.events("summary").at(0)["correct"], 3);
  EXPECT_EQ(scored("f")["run/f/item/red-planet/1"]["task_id"], "eval-f-1-red-planet-attempt-2");
  EXPECT_EQ(calls(), (std::map<std::string, size_t>{
                         {"add", 1}, {"apples", 1}, {"capital", 1}, {"red-planet", 1}, {"red-planet-refused", 1}}));
}

TEST_F(EvalTest, ASuiteItCannotScoreIsRefusedBeforeAnyCall) {
  start_mock(script());
  const std::string suite = dir_.write(
      "bad.jsonl", std::string(kSuite) + R"({"id": "room", "input": "A room.", "turns": [{"reply": "Done."}]})" + "\n");
  RunResult r = kaisha(eval_args(config(), {"--suite", suite, "--strategy", "hashiru"}));
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_NE(r.err.find("task room (format interactive)"), std::string::npos) << r.err;
  const std::string broken = dir_.write("broken.jsonl", "{\"input\": \"x\", \"anwser\": 1}\n");
  RunResult b = kaisha(eval_args(config(), {"--suite", broken, "--strategy", "hashiru"}));
  EXPECT_EQ(b.exit_code, 2) << b.describe();
  EXPECT_NE(b.err.find("broken.jsonl:1: unknown field \"anwser\""), std::string::npos) << b.err;
  EXPECT_TRUE(mock_->request_log().empty());
}

}  // namespace eval_test
}  // namespace kaisha::e2e
