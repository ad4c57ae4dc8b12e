// The pyramid strategy end to end: `kaisha run --strategy pyramid --json`
// against the scripted mock LLM over real HTTP, with a three-agent library
// (a lead that delegates to a writer twice in one turn, and the judge). What
// is asserted comes from outside the strategy: the mock's request log (which
// rule answered, and what each request held), the `--json` events, the files
// in the task's directory and the SQLite journal.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>

#include "e2e_fixture.hpp"
#include "runtime/core/data_paths.hpp"

namespace kaisha::e2e {
namespace {

// The library and script of examples/pyramid/, so the example is what is tested.
const std::string kPyramidExamples = std::string(KAISHA_SOURCE_DIR) + "/examples/pyramid/";

class PyramidTest : public E2eTest {
 protected:
  std::string config(const std::string& extra = "") {
    const std::string lib = kPyramidExamples + "writers.yaml";
    ConfigOptions o;
    o.ceo_model = "openai:lead-model";
    o.extra = "strategy: pyramid\npyramid:\n  library: " + lib + "\n  model: openai:worker-model\n" + extra +
              "tools:\n  workspace_root: " + dir_.file("work") + "\n";
    return write_config(o);
  }
  // A config for one of examples/pyramid/'s libraries, every task entering at `entry`.
  std::string example_config(const std::string& ceo_model, const std::string& library, const std::string& entry) {
    ConfigOptions o;
    o.ceo_model = ceo_model;
    o.extra = "strategy: pyramid\npyramid:\n  library: " + kPyramidExamples + library + "\n  entry: " + entry + "\n" +
              "tools:\n  workspace_root: " + dir_.file("work") + "\n";
    return write_config(o);
  }
  // InfiHelper's library (entering at its top agent) on its paper-writing
  // task, against the mock as the test started it.
  RunResult run_infihelper() {
    return run_json(example_config("openai:worker-model", "infihelper.yaml", "infihelper_agent"),
                    "Write a short paper on learning-rate warm-up and decay for small language models");
  }
  // The directory run `r`'s task worked in.
  std::string task_dir(const RunResult& r) {
    return dir_.file("work/.tasks/" + session_of(r) + "/" + r.result().value("task", "") + "/");
  }
};

TEST_F(PyramidTest, ALeadDelegatesToAWriterAndTheJudgeAuditsEverySuccess) {
  start_mock_file(kPyramidExamples + "scenario.yaml");
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
  const std::string where = dir_.file("work/.tasks/" + session + "/" + task + "/poems/");
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

  // `kaisha history` keeps an agent's name apart from the step's kind, even
  // when the name fills its column ("writer_agent" is 12 characters).
  RunResult history = kaisha({"history", "--config", config("  entry: lead_agent\n"), "--session", session});
  ASSERT_EQ(history.exit_code, 0) << history.describe();
  EXPECT_NE(history.out.find(" writer_agent ask "), std::string::npos) << history.out;
}

// Items 30-31: Q is kept in the journal and the next run continues from it.
// The lead gets one approval per run: from 0.5 with alpha 0.8 that is 0.6,
// then 0.68 in the second run. (The writer's three verdicts per run come in
// either order, as its two calls run at once, so only their count is fixed.)
TEST_F(PyramidTest, QualityScoresCarryOverToTheNextRun) {
  const std::string task = "Write two haiku, one about rivers and one about stones";
  start_mock_file(kPyramidExamples + "scenario.yaml");
  RunResult first = run_json(config("  entry: lead_agent\n"), task);
  ASSERT_EQ(first.exit_code, 0) << first.describe();
  auto stored = [&](const std::string& agent) {
    auto j = journal();
    auto rows = j ? j->state("pyramid") : Result<std::vector<store::StateRow>>(std::vector<store::StateRow>{});
    if (rows.ok())
      for (const auto& r : *rows)
        if (r.key == agent) return store::QualityRow{agent, r.value.at("q"), r.value.at("audits"), r.at};
    return store::QualityRow{"", -1, -1, 0};
  };
  EXPECT_NEAR(stored("lead_agent").q, 0.6, 1e-9);
  EXPECT_EQ(stored("lead_agent").verdicts, 1);
  EXPECT_EQ(stored("writer_agent").verdicts, 3);

  start_mock_file(kPyramidExamples + "scenario.yaml");
  RunResult second = run_json(config("  entry: lead_agent\n"), task);
  ASSERT_EQ(second.exit_code, 0) << second.describe();
  EXPECT_NEAR(stored("lead_agent").q, 0.68, 1e-9);
  EXPECT_EQ(stored("lead_agent").verdicts, 2);
  EXPECT_EQ(stored("writer_agent").verdicts, 6);
  const json quality = second.result()["metadata"]["quality"];
  EXPECT_NEAR(quality["lead_agent"]["q"].get<double>(), 0.68, 1e-9) << quality;
  EXPECT_EQ(quality["writer_agent"]["audits"], 6) << quality;
}

TEST_F(PyramidTest, TheRouterSendsAMatchingQueryStraightToALeafAgent) {
  start_mock_file(kPyramidExamples + "scenario.yaml");
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

// The router embeds with the company's embedder (memory.embedding_model,
// here the mock's OpenAI embeddings over real HTTP): the agents'
// descriptions in one batch as the company starts, then the task's input,
// which the driver asks for as a tool run before routing.
TEST_F(PyramidTest, TheRouterEmbedsWithTheConfiguredEmbeddingModel) {
  start_mock_file(kPyramidExamples + "scenario.yaml");
  const std::string cfg = config("memory:\n  embedding_model: openai:text-embedding-3-small\n");
  RunResult r = run_json(cfg, "Write a haiku about rivers to poems/river.md");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const auto embeds = requests_where("kind", "embed");
  ASSERT_GE(embeds.size(), 2u) << r.describe();
  EXPECT_EQ(embeds[0].value("model", ""), "text-embedding-3-small");
  EXPECT_EQ(embeds[0]["inputs"].size(), 2u) << embeds[0].dump();  // lead_agent and writer_agent
  EXPECT_EQ(embeds[1]["inputs"], json::array({"Write a haiku about rivers to poems/river.md"})) << embeds[1].dump();
  auto routes = r.events("route");
  ASSERT_EQ(routes.size(), 1u) << r.describe();
  EXPECT_EQ(routes[0]["data"]["route"]["method"], "embedding");
  EXPECT_FALSE(routes[0]["data"]["route"].contains("fallback")) << routes[0].dump();
  EXPECT_TRUE(r.result().value("ok", false)) << r.describe();
}

// InfiHelper's verbatim prompts say to write under
// "workspace/tasks/{task_id}/...". A model that obeys them literally — here
// the writer names its file so, placeholder and all — lands in the task's
// directory, not in a nested copy of that path.
TEST_F(PyramidTest, PathsAsThePromptsSpellThemLandInTheTasksDirectory) {
  std::ifstream in(kPyramidExamples + "scenario.yaml");
  std::string script((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string plain = "{ file_path: poems/river.md,";
  const size_t at = script.find(plain);
  ASSERT_NE(at, std::string::npos);
  script.replace(at, plain.size(), "{ file_path: \"workspace/tasks/{task_id}/poems/river.md\",");
  start_mock(script);
  RunResult r = run_json(config(), "Write a haiku about rivers to poems/river.md");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(by_rule("writer-river").size(), 1u);
  EXPECT_TRUE(std::filesystem::exists(task_dir(r) + "poems/river.md")) << r.describe();
  EXPECT_FALSE(std::filesystem::exists(task_dir(r) + "workspace")) << r.describe();
  EXPECT_TRUE(r.result().value("ok", false)) << r.describe();
}

// Item 13: with `router: model` the routing model scores every agent and
// its choice wins over the embedding's (which picks the writer for this
// task, as the test above shows); the decision and how it was made are in
// the event and the journal, and the call is charged like any other.
TEST_F(PyramidTest, TheRoutingModelChoosesTheEntryAgent) {
  std::ifstream in(kPyramidExamples + "scenario.yaml");
  std::string script((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string router_rule = R"(rules:
  - name: router-scores
    match: { model: router-model }
    reply:
      text: "```json\n{\"scores\": {\"lead_agent\": 0.9, \"writer_agent\": 0.4}}\n```"
)";
  script.replace(script.find("rules:\n"), 7, router_rule);
  start_mock(script);
  RunResult r = run_json(config("  router: model\n  router_model: openai:router-model\n"),
                         "Write a haiku about rivers to poems/river.md");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  auto asked = by_rule("router-scores");
  ASSERT_EQ(asked.size(), 1u) << r.describe();
  EXPECT_EQ(asked[0]["messages"][0]["content"].get<std::string>().rfind("You route a task", 0), 0u) << asked[0];
  auto routes = r.events("route");
  ASSERT_EQ(routes.size(), 1u) << r.describe();
  EXPECT_EQ(routes[0]["data"]["route"]["agent"], "lead_agent");
  EXPECT_EQ(routes[0]["data"]["route"]["method"], "model");
  EXPECT_FALSE(by_rule("lead-delegates").empty());
  EXPECT_TRUE(r.result().value("ok", false)) << r.describe();

  // The journal keeps the decision, and the routing model's answer with its tokens.
  auto j = journal();
  ASSERT_TRUE(j);
  auto steps = j->session_steps(session_of(r));
  ASSERT_TRUE(steps.ok()) << steps.error().message;
  bool route_note = false, route_call = false;
  for (const auto& s : *steps) {
    if (s.kind == "note" && s.payload.contains("route"))
      route_note = s.payload["route"]["method"] == "model" && s.payload["route"]["agent"] == "lead_agent";
    if (s.kind == "llm_response" && s.payload.value("call", "") == "route") route_call = s.tokens_in > 0;
  }
  EXPECT_TRUE(route_note);
  EXPECT_TRUE(route_call);
}

// An agent with candidate models
// (examples/pyramid/candidates.yaml). One call of it runs three times at
// once, each candidate hired as its own employee on its own branch of the
// task's directory: three branches, three programs. small-a's program is
// rejected by the judge; small-b's and large's are approved and both write
// code_run/fib.py differently: a conflict, which small-b wins (equal Q,
// first in candidate order); large's is kept as a rejected commit. The
// branches are collected afterwards; the task's history keeps every
// change set, shows its diffs, and a revert restores a commit byte for byte.
TEST_F(PyramidTest, CandidateModelsWorkOnTheirOwnBranchesAndTheHistoryKeepsThem) {
  start_mock_file(kPyramidExamples + "candidates_scenario.yaml");
  const std::string cfg = example_config("openai:lead-model", "candidates.yaml", "lead_agent");
  RunResult r = run_json(cfg, "Write a program that prints the 10th Fibonacci number");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  json res = r.result();
  ASSERT_TRUE(res.value("ok", false)) << r.describe();

  // Three employees, one per candidate, each on its model.
  std::set<std::string> hired;
  for (const auto& e : r.events("hire")) hired.insert(e.value("text", ""));
  for (const char* a : {"coder_agent__1", "coder_agent__2", "coder_agent__3"}) EXPECT_TRUE(hired.count(a)) << a;
  EXPECT_EQ(by_rule("small-a-writes").size(), 1u);
  EXPECT_EQ(by_rule("small-b-writes").size(), 1u);
  EXPECT_EQ(by_rule("large-writes").size(), 1u);

  // small-b's program is in the task's directory; the branches are gone.
  const std::string task = res.value("task", "");
  const std::string main_dir = dir_.file("work/.tasks/" + session_of(r) + "/" + task + "/");
  auto read = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  const std::string merged = read(main_dir + "code_run/fib.py");
  EXPECT_NE(merged.find("a, b = b, a + b"), std::string::npos) << merged;
  EXPECT_FALSE(std::filesystem::exists(dir_.file("work/.tasks/" + session_of(r) + "/.branches/" + task + "/f1-1")));

  // The event names every branch's outcome, change set and commit.
  auto forks = r.events("branches");
  ASSERT_EQ(forks.size(), 1u) << r.describe();
  const json b = forks[0]["data"]["branches"];
  ASSERT_EQ(b.size(), 3u) << b;
  EXPECT_EQ(b[0]["status"], "error");
  EXPECT_EQ(b[0]["error_information"], "I cannot fix it") << b[0];
  EXPECT_EQ(b[1]["merged"], true);
  EXPECT_EQ(b[1]["changes"]["added"], json({"code_run/fib.py"}));
  EXPECT_EQ(b[2]["status"], "success");
  EXPECT_EQ(b[2]["merged"], false);
  EXPECT_NE(b[2].value("rejected", "").find("conflict with openai:small-b's"), std::string::npos) << b[2];
  EXPECT_EQ(by_rule("judge-rejects-small-a").size(), 1u);
  EXPECT_EQ(by_rule("small-a-gives-up").size(), 1u);

  // The history: the directory before the merge, small-b's merge, and the
  // two change sets that did not reach it.
  RunResult commits = kaisha({"history", "--config", cfg, task, "--commits", "--json"});
  ASSERT_EQ(commits.exit_code, 0) << commits.describe();
  const json c = json::parse(commits.out)["commits"];
  ASSERT_EQ(c.size(), 4u) << c;
  EXPECT_EQ(c[0]["kind"], "base");
  EXPECT_EQ(c[1]["kind"], "merge");
  EXPECT_EQ(c[1]["model"], "openai:small-b");
  EXPECT_EQ(c[1]["verdict"]["status"], "success");
  EXPECT_EQ(c[2]["kind"], "rejected");
  EXPECT_EQ(c[2]["model"], "openai:small-a");
  EXPECT_EQ(c[3]["kind"], "rejected");
  EXPECT_EQ(c[3]["model"], "openai:large");
  RunResult diff = kaisha({"history", "--config", cfg, task, "--diff", "4"});
  ASSERT_EQ(diff.exit_code, 0) << diff.describe();
  EXPECT_NE(diff.out.find("+@cache"), std::string::npos) << diff.out;
  EXPECT_NE(diff.out.find("-a, b = 0, 1"), std::string::npos) << diff.out;

  // Revert to before the merge, then to the merge: the same bytes again.
  RunResult back = kaisha({"history", "--config", cfg, task, "--revert", "1"});
  ASSERT_EQ(back.exit_code, 0) << back.describe();
  EXPECT_FALSE(std::filesystem::exists(main_dir + "code_run/fib.py"));
  RunResult forward = kaisha({"history", "--config", cfg, task, "--revert", "2"});
  ASSERT_EQ(forward.exit_code, 0) << forward.describe();
  EXPECT_EQ(read(main_dir + "code_run/fib.py"), merged);
  // The tree shows the branches, the merge and the reverts.
  RunResult tree = kaisha({"history", "--config", cfg, task, "--tree"});
  ASSERT_EQ(tree.exit_code, 0) << tree.describe();
  EXPECT_NE(tree.out.find("merged openai:small-b"), std::string::npos) << tree.out;
  EXPECT_NE(tree.out.find("revert to commit 2"), std::string::npos) << tree.out;

  // Bad input: a commit that does not exist says so.
  RunResult none = kaisha({"history", "--config", cfg, task, "--revert", "9"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("no commit 9: the task's commits are 1 to 6"), std::string::npos) << none.describe();
}

// Items 60, 49, 29, 22 and 18: InfiHelper (examples/pyramid/infihelper.yaml)
// takes a topic through its four modules, scripted by
// examples/pyramid/infihelper_scenario.yaml, and leaves the artefacts of
// every stage in the task's directory.
TEST_F(PyramidTest, InfiHelperTakesATopicFromTheLiteratureToAPaper) {
  if (access("/usr/bin/bwrap", X_OK) != 0) GTEST_SKIP() << "bubblewrap is not installed";
  chmod(dir_.path().c_str(), 0755);  // run as root, the sandbox's uid must pass it to reach the workspace
  start_mock_file(kPyramidExamples + "infihelper_scenario.yaml");
  RunResult r = run_infihelper();
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  json res = r.result();
  ASSERT_TRUE(res.value("ok", false)) << r.describe();

  // Item 60: the artefacts of each module. Item 49: the planner's design files, code under code_run/.
  const std::string where = task_dir(r);
  for (const char* f : {"literature/review.md", "literature/methods/method_1.md", "literature/experiment_guide.md",
                        "generated_ideas/method_1/ideas.json", "generated_ideas/method_2/ideas.json",
                        "brainstorming/brainstorming_results.json", "planning/research_plan.md",
                        "project_designs/project_design_utils.md", "project_designs/project_design_main.md",
                        "project_designs/project_design_summary.md", "code_run/utils.py", "code_run/main.py",
                        "paper/manuscript.md", "paper/references.bib"})
    EXPECT_TRUE(std::filesystem::is_regular_file(where + f)) << f;

  // Every agent of the library was hired once and fired.
  std::map<std::string, int> hires, fires;
  for (const auto& e : r.events("hire")) ++hires[e.value("text", "")];
  for (const auto& e : r.events("fire")) ++fires[e.value("text", "")];
  EXPECT_EQ(hires.size(), 11u);
  for (const auto& [agent, n] : hires) EXPECT_EQ(n, 1) << agent;
  EXPECT_EQ(fires, hires);

  // Item 29: the coder runs a module script before asking the judge, and
  // sends an entry script straight to the judge.
  std::vector<std::string> coder;
  for (const auto& e : r.events("tool_call"))
    if (e.value("agent", "") == "code_builder_agent")
      coder.push_back(e.value("text", "").substr(0, e.value("text", "").find(' ')));
  EXPECT_EQ(coder,
            (std::vector<std::string>{"file_write", "execute_code", "judge_agent", "file_write", "judge_agent"}));
  // Item 22: the judge ran code_run/main.py by the coder's relative path, and
  // main.py imported utils.py.
  auto judged_main = by_rule("judge-approves-main");
  ASSERT_EQ(judged_main.size(), 1u);
  EXPECT_NE(judged_main[0].dump().find("warmup_cosine: final loss"), std::string::npos) << judged_main[0].dump();

  // Item 18: idea_agent's sub-agents ran one after another, in its order.
  int64_t previous = 0;
  for (const char* rule : {"generate-1-writes", "generate-2-writes", "brainstorm-writes", "plan-writes"}) {
    auto req = by_rule(rule);
    ASSERT_EQ(req.size(), 1u) << rule;
    EXPECT_GT(req[0].value("received_us", int64_t(0)), previous) << rule;
    previous = req[0].value("received_us", int64_t(0));
  }

  // The judge audited the 9 agents that did not ask it themselves, and the
  // planner and the coder (twice) asked it: every success was audited.
  EXPECT_EQ(by_rule("judge-approves").size(), 11u);
  EXPECT_EQ(by_rule("judge-runs-main").size(), 1u);
}

// InfiHelper's scenario as a model that follows the verbatim prompts to the
// letter would run it: every path it names — files written and read,
// directories made and listed, scripts run, the files its final outputs
// list — is spelled "workspace/tasks/{task_id}/...", as the prompts say. The
// paper's artefacts land in the task's directory, nothing lands in a nested
// "workspace/" copy, and the task succeeds as the plain scenario does.
TEST_F(PyramidTest, InfiHelperFollowingThePromptsPathsToTheLetterWritesIntoTheTasksDirectory) {
  if (access("/usr/bin/bwrap", X_OK) != 0) GTEST_SKIP() << "bubblewrap is not installed";
  chmod(dir_.path().c_str(), 0755);  // as above: the sandbox's uid must reach the workspace
  auto script = read_text_file(kPyramidExamples + "infihelper_scenario.yaml");
  ASSERT_TRUE(script.ok()) << script.error().message;
  // Every path argument (`file_path: x`, `path: x`, `dir_path: x`, in flow or
  // block style) gets the prompts' prefix.
  const std::regex path_arg(R"((\b(?:file_path|dir_path|path): )([A-Za-z_][A-Za-z0-9_./-]*))");
  const std::string literal = std::regex_replace(*script, path_arg, "$1\"workspace/tasks/{task_id}/$2\"");
  size_t prefixed = 0;
  for (size_t at = literal.find("workspace/tasks/"); at != std::string::npos;
       at = literal.find("workspace/tasks/", at + 1))
    ++prefixed;
  ASSERT_GE(prefixed, 40u) << "the scenario's paths were rewritten";
  start_mock(literal);
  RunResult r = run_infihelper();
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  json res = r.result();
  ASSERT_TRUE(res.value("ok", false)) << r.describe();
  const std::string where = task_dir(r);
  for (const char* f : {"literature/review.md", "generated_ideas/method_1/ideas.json", "planning/research_plan.md",
                        "project_designs/project_design_main.md", "code_run/utils.py", "code_run/main.py",
                        "paper/manuscript.md", "paper/references.bib"})
    EXPECT_TRUE(std::filesystem::is_regular_file(where + f)) << f;
  EXPECT_FALSE(std::filesystem::exists(where + "workspace")) << "no nested copy of the prompts' path";
  // The judge ran the entry script by the prefixed path and it found utils.py.
  auto judged_main = by_rule("judge-approves-main");
  ASSERT_EQ(judged_main.size(), 1u);
  EXPECT_NE(judged_main[0].dump().find("warmup_cosine: final loss"), std::string::npos) << judged_main[0].dump();
  EXPECT_EQ(by_rule("judge-approves").size(), 11u);
}

TEST_F(PyramidTest, AMissingLibraryIsAClearConfigError) {
  start_mock_file(kPyramidExamples + "scenario.yaml");
  ConfigOptions o;
  o.extra = "strategy: pyramid\n";
  RunResult r = run_json(write_config(o), "anything");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("pyramid.library"), std::string::npos) << r.describe();
}

}  // namespace
}  // namespace kaisha::e2e
