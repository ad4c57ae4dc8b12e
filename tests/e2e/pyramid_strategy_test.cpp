// The pyramid strategy end to end: `kaisha run --strategy pyramid --json`
// against the scripted mock LLM over real HTTP, with a three-agent library
// (a lead that delegates to a writer twice in one turn, and the judge). What
// is asserted comes from outside the strategy: the mock's request log (which
// rule answered, and what each request held), the `--json` events, the files
// in the task's directory and the SQLite journal.
#include <filesystem>

#include "e2e_fixture.hpp"
#include "runtime/core/data_paths.hpp"

namespace kaisha::e2e {
namespace {

// The library and script of examples/pyramid/, so the example is what is tested.
const std::string kExamples = std::string(KAISHA_SOURCE_DIR) + "/examples/pyramid/";

class PyramidTest : public E2eTest {
 protected:
  std::string config(const std::string& extra = "") {
    const std::string lib = kExamples + "writers.yaml";
    ConfigOptions o;
    o.ceo_model = "openai:lead-model";
    o.extra = "strategy: pyramid\npyramid:\n  library: " + lib + "\n  model: openai:worker-model\n" + extra +
              "tools:\n  workspace_root: " + dir_.file("work") + "\n";
    return write_config(o);
  }
  std::vector<json> by_rule(const std::string& rule) const {
    std::vector<json> v;
    for (auto& r : mock_->request_log())
      if (r.value("rule", "") == rule) v.push_back(r);
    return v;
  }
};

TEST_F(PyramidTest, ALeadDelegatesToAWriterAndTheJudgeAuditsEverySuccess) {
  start_mock_file(kExamples + "scenario.yaml");
  RunResult r = run_json(config("  entry: lead_agent\n"), "Write two haiku, one about rivers and one about stones");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  json res = r.result();
  EXPECT_TRUE(res.value("ok", false)) << r.describe();
  EXPECT_EQ(res.value("answer", ""), "Two haiku: poems/river.md and poems/stone.md");

  // Each agent hired once for the task, fired at its end.
  std::map<std::string, int> hires, fires;
  for (const auto& e : r.events("hire")) ++hires[e.value("text", "")];
  for (const auto& e : r.events("fire")) ++fires[e.value("text", "")];
  EXPECT_EQ(hires, (std::map<std::string, int>{{"judge_agent", 1}, {"lead_agent", 1}, {"writer_agent", 1}}));
  EXPECT_EQ(fires, hires);

  // The writer's stone result was rejected once and redone; the others were approved at once.
  EXPECT_EQ(by_rule("judge-rejects-stone-once").size(), 1u);
  EXPECT_EQ(by_rule("writer-stone").size(), 1u);
  EXPECT_EQ(by_rule("writer-stone-done").size(), 2u);
  EXPECT_EQ(by_rule("judge-approves").size(), 3u);  // river, stone (2nd), lead

  // The two writer calls of one turn ran at the same time: the second started
  // before the first had answered (each takes 300 ms at the mock).
  auto river = by_rule("writer-river"), stone = by_rule("writer-stone");
  ASSERT_EQ(river.size(), 1u);
  ASSERT_EQ(stone.size(), 1u);
  EXPECT_LT(std::max(river[0].value("received_us", int64_t(0)), stone[0].value("received_us", int64_t(0))),
            std::min(river[0].value("answered_us", int64_t(0)), stone[0].value("answered_us", int64_t(0))));

  // The lead's second turn holds the writers' final_output JSON as its tool
  // results, in call order, and nothing of their turns.
  auto finish = by_rule("lead-finishes");
  ASSERT_EQ(finish.size(), 1u);
  std::vector<std::string> results;
  for (const auto& m : finish[0]["messages"])
    if (m.value("role", "") == "tool") results.push_back(m.value("content", ""));
  ASSERT_EQ(results.size(), 2u) << finish[0].dump();
  EXPECT_NE(results[0].find("a haiku about rivers"), std::string::npos) << results[0];
  EXPECT_NE(results[1].find("a haiku about stones"), std::string::npos) << results[1];
  EXPECT_EQ(finish[0].dump().find("SECRET-WRITER-THOUGHT"), std::string::npos);
  // The writer never saw the lead's own conversation.
  for (const auto& w : by_rule("writer-river")) EXPECT_EQ(w.dump().find("SECRET-LEAD-PLAN"), std::string::npos);

  // The files are in the task's own directory.
  const std::string task = res.value("task", "");
  ASSERT_FALSE(task.empty());
  const std::string session = session_of(r);
  const std::string where = dir_.file("work/" + session + "/tasks/" + task + "/poems/");
  auto river_file = read_text_file(where + "river.md"), stone_file = read_text_file(where + "stone.md");
  ASSERT_TRUE(river_file.ok()) << river_file.error().message;
  ASSERT_TRUE(stone_file.ok()) << stone_file.error().message;
  EXPECT_EQ(*river_file, "川は流れる 🌊");
  EXPECT_EQ(*stone_file, "石は待つ");

  // The journal holds every call's ask and answer.
  auto j = journal();
  ASSERT_TRUE(j);
  auto steps = j->task_steps(task);
  ASSERT_TRUE(steps.ok()) << steps.error().message;
  int asks = 0, answers = 0;
  for (const auto& s : *steps) {
    asks += s.kind == "ask";
    answers += s.kind == "answer";
  }
  EXPECT_EQ(asks, 7);  // lead, 2 writers, 4 judge calls
  EXPECT_EQ(asks, answers);
}

// Items 30-31: Q is kept in the journal and the next run continues from it.
// The writer's three verdicts per run are approve, reject, approve: from 0.5
// with alpha 0.8 that is 0.6, 0.48, 0.584; the second run goes on to 0.627008.
TEST_F(PyramidTest, QualityScoresCarryOverToTheNextRun) {
  const std::string task = "Write two haiku, one about rivers and one about stones";
  start_mock_file(kExamples + "scenario.yaml");
  RunResult first = run_json(config("  entry: lead_agent\n"), task);
  ASSERT_EQ(first.exit_code, 0) << first.describe();
  auto stored = [&](const std::string& agent) {
    auto j = journal();
    auto row = j ? j->load_quality("pyramid/" + agent) : Result<std::optional<store::QualityRow>>(std::nullopt);
    return row.ok() && row->has_value() ? **row : store::QualityRow{"", -1, -1, 0};
  };
  EXPECT_NEAR(stored("writer_agent").q, 0.584, 1e-9);
  EXPECT_EQ(stored("writer_agent").verdicts, 3);
  EXPECT_NEAR(stored("lead_agent").q, 0.6, 1e-9);

  start_mock_file(kExamples + "scenario.yaml");
  RunResult second = run_json(config("  entry: lead_agent\n"), task);
  ASSERT_EQ(second.exit_code, 0) << second.describe();
  EXPECT_NEAR(stored("writer_agent").q, 0.627008, 1e-9);
  EXPECT_EQ(stored("writer_agent").verdicts, 6);
  const json quality = second.result()["metadata"]["quality"];
  EXPECT_NEAR(quality["writer_agent"]["q"].get<double>(), 0.627008, 1e-9) << quality;
  EXPECT_EQ(quality["lead_agent"]["audits"], 2) << quality;
}

TEST_F(PyramidTest, TheRouterSendsAMatchingQueryStraightToALeafAgent) {
  start_mock_file(kExamples + "scenario.yaml");
  RunResult r = run_json(config(), "Write a haiku about rivers to poems/river.md");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  auto routes = r.events("route");
  ASSERT_EQ(routes.size(), 1u) << r.describe();
  EXPECT_EQ(routes[0]["data"]["route"]["agent"], "writer_agent");
  // No lead was hired or asked: one hop.
  EXPECT_TRUE(by_rule("lead-delegates").empty());
  for (const auto& e : r.events("hire")) EXPECT_NE(e.value("text", ""), "lead_agent");
  EXPECT_TRUE(r.result().value("ok", false)) << r.describe();
}

TEST_F(PyramidTest, AMissingLibraryIsAClearConfigError) {
  start_mock_file(kExamples + "scenario.yaml");
  ConfigOptions o;
  o.extra = "strategy: pyramid\n";
  RunResult r = run_json(write_config(o), "anything");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("pyramid.library"), std::string::npos) << r.describe();
}

}  // namespace
}  // namespace kaisha::e2e
