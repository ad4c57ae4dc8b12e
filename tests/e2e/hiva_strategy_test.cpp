// HiVA end to end: `kaisha evolve`, `kaisha graphs` and `kaisha run
// --strategy hiva --graph` as a user runs them, on the example of
// examples/hiva/ (its config, prices, task set and mock script, so the
// example is what is tested) against the scripted mock LLM over real HTTP,
// each answer judged by its unit tests in the real sandbox. What is asserted
// comes from outside the strategy: the commands' output, the mock's request
// log, `kaisha graphs` and `kaisha history --tree`, and the SQLite journal.
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <utility>

#include "e2e_fixture.hpp"
#include "runtime/core/data_paths.hpp"
#include "runtime/core/utf8.hpp"

namespace kaisha::e2e {
namespace {

const std::string kHivaExamples = std::string(KAISHA_SOURCE_DIR) + "/examples/hiva/";
// The answer examples/hiva/scenario.yaml's aggregator gives any task but the
// task set's three.
const char* kHivaDoubleAnswer = "```python\ndef double(x):\n    return 2 * x\n```";

class HivaTest : public E2eTest {
 protected:
  // `kaisha ARGS --config examples/hiva/config.yaml --db DB`, the example's
  // provider pointed at this test's mock.
  RunResult hiva_cli(std::vector<std::string> args, const std::string& db) {
    args.insert(args.end(), {"--config", kHivaExamples + "config.yaml", "--db", db});
    return kaisha(args, {{"KAISHA_MOCK_PORT", std::to_string(port_)}}, std::chrono::seconds(120));
  }
  RunResult evolve(const std::string& db, const std::string& task_set, int iterations, const std::string& name,
                   std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"evolve", "--task-set", task_set, "--iterations", std::to_string(iterations),
                                  "--name", name};
    args.insert(args.end(), extra.begin(), extra.end());
    return hiva_cli(args, db);
  }
  // `kaisha graphs NAME --json`'s versions, oldest first.
  json graph_versions(const std::string& db, const std::string& name) {
    RunResult r = kaisha({"graphs", name, "--db", db, "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    json j = json::parse(r.out, nullptr, false);
    return j.is_object() && j.contains("versions") ? j["versions"] : json::array();
  }
  // The saved graphs' names `kaisha graphs --json` lists.
  std::vector<std::string> graph_names(const std::string& db) {
    RunResult r = kaisha({"graphs", "--db", db, "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    std::vector<std::string> names;
    json j = json::parse(r.out, nullptr, false);
    if (j.is_object() && j.contains("graphs"))
      for (const json& g : j["graphs"]) names.push_back(g.value("name", ""));
    return names;
  }
  // HiVA's journaled strategy events named `event`, over every session of `db`.
  std::vector<json> hiva_notes(const std::string& db, const std::string& event) {
    std::vector<json> out;
    auto j = store::JournalStore::open_read_only(db);
    if (!j.ok()) return out;
    auto sessions = (*j)->list_sessions();
    if (!sessions.ok()) return out;
    for (auto s = sessions->rbegin(); s != sessions->rend(); ++s) {
      auto steps = (*j)->session_steps(s->id);
      if (!steps.ok()) continue;
      for (const auto& step : *steps)
        if (step.kind == "note" && step.payload.value("strategy", "") == "hiva" &&
            step.payload.value("event", "") == event)
          out.push_back(step.payload);
    }
    return out;
  }
  // Evolves the example's graph `coders` into `db` (three iterations).
  void evolve_coders(const std::string& db) {
    RunResult r = evolve(db, kHivaExamples + "tasks.jsonl", 3, "coders", {"-q"});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
  }
};

// The example evolves as its scenario says: a coder in series after
// iteration 1, a reviewer beside it after 2, the reviewer pruned after 3;
// every answer passes its unit tests in the sandbox.
TEST_F(HivaTest, TheExampleGrowsACoderThenAReviewerAndPrunesTheReviewer) {
  start_mock_file(kHivaExamples + "scenario.yaml");
  RunResult r = evolve(db(), kHivaExamples + "tasks.jsonl", 3, "coders", {"-q"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("graph coders: iteration 3 of 3, 3 agents, 2 edges\n"), std::string::npos) << r.describe();
  // The summary: every answer right, the dollars spent and CS = P x 100 / (C + 0.01).
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(accuracy 3/3, \$([0-9.e-]+), cost efficiency CS = ([0-9.]+))")))
      << r.describe();
  const double usd = std::stod(m[1]), cs = std::stod(m[2]);
  EXPECT_GT(usd, 0);  // hiva-4o is priced
  EXPECT_NEAR(cs, 100.0 / (usd + 0.01), 0.1) << r.out;

  const json versions = graph_versions(db(), "coders");
  ASSERT_EQ(versions.size(), 3u) << versions.dump();
  for (size_t i = 0; i < versions.size(); ++i) {
    EXPECT_EQ(versions[i].value("iteration", 0), int(i) + 1) << versions[i].dump();
    EXPECT_EQ(versions[i].value("success", json()), json(true)) << versions[i].dump();
  }
  auto diff = [&](size_t i, const char* key) { return versions[i]["diff"][key]; };
  EXPECT_EQ(diff(0, "agents_added"), json::array({"python_coder_agent_1"}));
  EXPECT_EQ(diff(0, "edges_removed"), json::parse(R"([["source","aggregator"]])"));
  EXPECT_EQ(diff(1, "agents_added"), json::array({"code_reviewer_agent_1"}));
  EXPECT_EQ(diff(1, "agents_removed"), json::array());
  EXPECT_EQ(diff(2, "agents_added"), json::array());
  EXPECT_EQ(diff(2, "agents_removed"), json::array({"code_reviewer_agent_1"}));
  // The graph it ends with: v_s -> coder -> v_a.
  std::set<std::pair<std::string, std::string>> edges;
  for (const json& e : versions[2]["graph"]["edges"]) edges.insert({e.value("from", ""), e.value("to", "")});
  EXPECT_EQ(edges, (std::set<std::pair<std::string, std::string>>{{"source", "python_coder_agent_1"},
                                                                  {"python_coder_agent_1", "aggregator"}}));

  // Each verdict came from running the answer's unit tests in the sandbox.
  const auto losses = hiva_notes(db(), "loss");
  ASSERT_EQ(losses.size(), 3u);
  for (const json& l : losses) {
    EXPECT_TRUE(std::regex_match(l.value("feedback", ""), std::regex("All [0-9]+ tests passed\\."))) << l.dump();
    EXPECT_EQ(l.value("success", json()), json(true)) << l.dump();
  }
  // The scenario's calls, each where the story puts it: the two ADDs once,
  // the reviewer judged critical once (iteration 3, the only one it ran in).
  EXPECT_EQ(by_rule("source-adds-a-coder").size(), 1u);
  EXPECT_EQ(by_rule("source-adds-a-reviewer").size(), 1u);
  EXPECT_EQ(by_rule("reward-reviewer").size(), 1u);
  EXPECT_EQ(by_rule("aggregator-add").size(), 1u);
  EXPECT_EQ(by_rule("aggregator-reverse").size(), 1u);
  EXPECT_EQ(by_rule("aggregator-palindrome").size(), 1u);
  EXPECT_TRUE(by_rule("aggregator-other").empty());
}

// The company's embedder (memory.embedding_model, here the mock's OpenAI
// embeddings) is the knowledge cost's: the knowledge graph is embedded in
// one batch as the company starts, then each iteration's task and the
// agents' new prompts, over real HTTP; the example evolves as it does with
// the built-in embedder. A model no provider serves is refused before
// anything is spent.
TEST_F(HivaTest, TheKnowledgeCostEmbedsWithTheConfiguredEmbeddingModel) {
  start_mock_file(kHivaExamples + "scenario.yaml");
  auto example = read_text_file(kHivaExamples + "config.yaml");
  auto costs = read_text_file(kHivaExamples + "costs.yaml");
  ASSERT_TRUE(example.ok() && costs.ok());
  dir_.write("costs.yaml", *costs);
  const std::string config =
      dir_.write("embedding.yaml", *example + "memory:\n  embedding_model: openai:text-embedding-3-small\n");
  RunResult r = kaisha({"evolve", "--task-set", kHivaExamples + "tasks.jsonl", "--iterations", "2", "--name", "coders",
                        "-q", "--config", config, "--db", db()},
                       {{"KAISHA_MOCK_PORT", std::to_string(port_)}}, std::chrono::seconds(120));
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("accuracy 2/2"), std::string::npos) << r.describe();
  const auto embeds = requests_where("kind", "embed");
  ASSERT_GE(embeds.size(), 3u) << embeds.size();
  for (const json& e : embeds) {
    EXPECT_EQ(e.value("model", ""), "text-embedding-3-small") << e.dump();
    EXPECT_EQ(e.value("status", 0), 200) << e.dump();
  }
  // The first: every node of data/hiva/knowledge.json, at once.
  auto kg = read_text_file(data_file("data/hiva/knowledge.json"));
  ASSERT_TRUE(kg.ok());
  EXPECT_EQ(embeds[0]["inputs"].size(), json::parse(*kg)["nodes"].size());
  // Then each task, before its forward pass, with the prompts not embedded yet.
  auto tasks = read_text_file(kHivaExamples + "tasks.jsonl");
  ASSERT_TRUE(tasks.ok());
  std::set<std::string> embedded;
  for (size_t i = 1; i < embeds.size(); ++i)
    for (const json& t : embeds[i]["inputs"]) embedded.insert(t.get<std::string>());
  size_t seen = 0;
  std::istringstream lines(*tasks);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#' || seen == 2) continue;
    const std::string input = json::parse(line).value("input", "");
    EXPECT_TRUE(embedded.count(utf8::truncate(input, 200))) << input;
    ++seen;
  }

  // A model no configured provider serves: refused, naming it, with no call made.
  mock_->reset();
  const std::string bad = dir_.write("bad-embedding.yaml", *example + "memory:\n  embedding_model: nosuch:embedder\n");
  RunResult refused = kaisha({"evolve", "--task-set", kHivaExamples + "tasks.jsonl", "--iterations", "1", "--name",
                              "other", "-q", "--config", bad, "--db", dir_.file("other.db")},
                             {{"KAISHA_MOCK_PORT", std::to_string(port_)}}, std::chrono::seconds(120));
  EXPECT_NE(refused.exit_code, 0) << refused.describe();
  EXPECT_NE(refused.err.find("memory.embedding_model 'nosuch:embedder'"), std::string::npos) << refused.describe();
  EXPECT_TRUE(mock_->request_log().empty());
}

// kaisha evolve fits ω at its end from the routing outcomes the graph's
// snapshot kept (here with a threshold the example's three iterations
// reach), saves it as a new version of the graph, and a graph under the
// default threshold keeps the configured ω, the summary saying why.
TEST_F(HivaTest, EvolveFitsTheKnowledgeWeightsAtItsEndAndSavesThemWithTheGraph) {
  start_mock_file(kHivaExamples + "scenario.yaml");
  auto example = read_text_file(kHivaExamples + "config.yaml");
  auto costs = read_text_file(kHivaExamples + "costs.yaml");
  ASSERT_TRUE(example.ok() && costs.ok());
  dir_.write("costs.yaml", *costs);
  std::string text = *example;
  const std::string top_k = "  top_k: 2";
  ASSERT_NE(text.find(top_k), std::string::npos);
  text.insert(text.find(top_k), "  fit_weights_min_outcomes: 2\n");
  const std::string config = dir_.write("fit.yaml", text);
  RunResult r = kaisha({"evolve", "--task-set", kHivaExamples + "tasks.jsonl", "--iterations", "3", "--name", "coders",
                        "-q", "--config", config, "--db", db()},
                       {{"KAISHA_MOCK_PORT", std::to_string(port_)}}, std::chrono::seconds(120));
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("knowledge weights fitted on "), std::string::npos) << r.describe();
  const json versions = graph_versions(db(), "coders");
  ASSERT_EQ(versions.size(), 4u) << versions.dump();  // three iterations, then the fit
  const json& fit = versions[3];
  EXPECT_EQ(fit.value("iteration", 0), 3);
  ASSERT_TRUE(fit.contains("weight_fit")) << fit.dump();
  const json weights = fit["graph"]["knowledge_weights"];
  ASSERT_TRUE(weights.is_array() && weights.size() == 4) << fit.dump();
  double sum = 0;
  for (const json& w : weights) sum += w.get<double>();
  EXPECT_NEAR(sum, 1.0, 1e-9);
  EXPECT_EQ(weights, fit["weight_fit"]["weights"]);
  EXPECT_GE(fit["weight_fit"]["outcomes"].get<int>(), 2);
  EXPECT_EQ(fit["graph"]["agents"], versions[2]["graph"]["agents"]);  // only ω changed
  RunResult shown = kaisha({"graphs", "coders", "--db", db()});
  EXPECT_NE(shown.out.find("iteration 3: knowledge weights fitted on "), std::string::npos) << shown.out;

  // The default threshold (30) is not reached by three iterations.
  mock_->reset();
  RunResult few = evolve(dir_.file("few.db"), kHivaExamples + "tasks.jsonl", 3, "coders", {"-q"});
  ASSERT_EQ(few.exit_code, 0) << few.describe();
  EXPECT_NE(few.out.find("knowledge weights not fitted: "), std::string::npos) << few.describe();
  EXPECT_NE(few.out.find("the fit needs 30"), std::string::npos) << few.describe();
  EXPECT_EQ(graph_versions(dir_.file("few.db"), "coders").size(), 3u);
}

// The evolved graph answers a new task: its coder (which the singleton does
// not have) runs with the prompt evolution gave it, and the tree shows the
// graph with the edges the task was routed along marked.
TEST_F(HivaTest, RunWithTheEvolvedGraphAnswersFromItAndTheTreeMarksRoutedEdges) {
  start_mock_file(kHivaExamples + "scenario.yaml");
  evolve_coders(db());
  ASSERT_FALSE(HasFatalFailure());
  mock_->reset();
  RunResult r = hiva_cli({"run", "--strategy", "hiva", "--graph", "coders", "--json",
                          "Write a Python function double(x) that returns twice x."},
                         db());
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.result().value("answer", ""), kHivaDoubleAnswer) << r.describe();
  // One forward pass over v_s -> coder -> v_a: no loss, no evolution.
  EXPECT_EQ(by_rule("source").size(), 1u);
  ASSERT_EQ(by_rule("coder").size(), 1u);
  EXPECT_EQ(by_rule("aggregator-other").size(), 1u);
  EXPECT_TRUE(by_rule("reviewer").empty());
  EXPECT_TRUE(by_rule("system-feedback").empty());
  EXPECT_EQ(mock_->request_log().size(), 4u);  // and one instruction, source -> coder
  // The coder was asked with its evolved prompt, not the one it was born with.
  EXPECT_NE(by_rule("coder")[0].dump().find("with its exact signature"), std::string::npos) << by_rule("coder")[0];

  const std::string task = r.result().value("task", "");
  RunResult tree = kaisha({"history", task, "--tree", "--db", db()});
  ASSERT_EQ(tree.exit_code, 0) << tree.describe();
  EXPECT_NE(tree.out.find("source (source) -> python_coder_agent_1*"), std::string::npos) << tree.out;
  EXPECT_NE(tree.out.find("python_coder_agent_1 (Python coder agent) -> aggregator*"), std::string::npos) << tree.out;
  EXPECT_EQ(tree.out.find("code_reviewer"), std::string::npos) << tree.out;
  // Every call of the forward pass counts in its iteration: the agents'
  // answers as well as the instruction (350 tokens in, 85 out).
  // (The graph's three iterations came before: this pass is its fourth.)
  const size_t node = tree.out.find("iteration 4: ");
  ASSERT_NE(node, std::string::npos) << tree.out;
  const std::string line = tree.out.substr(node, tree.out.find('\n', node) - node);
  EXPECT_NE(line.find("(350 in / 85 out"), std::string::npos) << tree.out;
}

// The graph's agents — hired employees — sample as HiVA's settings say, not
// at the employee defaults (employee.temperature 0.2, no seed): an agent's
// step at 0.7, the aggregator at 0.3, each with hiva.seed.
TEST_F(HivaTest, TheGraphsAgentsSampleAtHivasTemperatureAndSeed) {
  start_mock_file(kHivaExamples + "scenario.yaml");
  // The example's config with a seed of its own (and its prices found where they are).
  auto read = read_text_file(kHivaExamples + "config.yaml");
  ASSERT_TRUE(read.ok()) << read.error().message;
  std::string yaml = std::move(read).value();
  for (auto [from, to] :
       {std::pair<std::string, std::string>{"cost_table: costs.yaml", "cost_table: " + kHivaExamples + "costs.yaml"},
        {"\nhiva:\n", "\nhiva:\n  seed: 5\n"}}) {
    const size_t at = yaml.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    yaml.replace(at, from.size(), to);
  }
  const std::string cfg = dir_.write("seeded.yaml", yaml);
  RunResult r = kaisha({"run", "--strategy", "hiva", "--json", "--config", cfg, "--db", db(),
                        "Write a Python function double(x) that returns twice x."},
                       {{"KAISHA_MOCK_PORT", std::to_string(port_)}}, std::chrono::seconds(120));
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  ASSERT_EQ(by_rule("source").size(), 1u);
  ASSERT_EQ(by_rule("aggregator-other").size(), 1u);
  const json source = by_rule("source")[0], aggregator = by_rule("aggregator-other")[0];
  EXPECT_EQ(source["temperature"], 0.7) << source;
  EXPECT_EQ(aggregator["temperature"], 0.3) << aggregator;
  for (const json& e : mock_->request_log()) EXPECT_EQ(e["seed"], 5) << e;
}

// A graph exported from one journal imports into another, where it lists
// and runs; a file from a newer format and a tool that imports os are
// refused, saying why.
TEST_F(HivaTest, AnExportedGraphImportsIntoAnotherJournalAndBadFilesAreRefused) {
  start_mock_file(kHivaExamples + "scenario.yaml");
  evolve_coders(db());
  ASSERT_FALSE(HasFatalFailure());
  const std::string file = dir_.file("coders.json");
  RunResult exported = kaisha({"graphs", "--export", "coders", "--out", file, "--db", db()});
  ASSERT_EQ(exported.exit_code, 0) << exported.describe();
  auto text = read_text_file(file);
  ASSERT_TRUE(text.ok()) << text.error().message;
  const json graph = json::parse(*text, nullptr, false);
  ASSERT_TRUE(graph.is_object()) << *text;
  EXPECT_EQ(graph.value("version", 0), 3);

  const std::string other = dir_.file("other.db");
  RunResult imported = kaisha({"graphs", "--import", file, "--name", "copy", "--db", other});
  ASSERT_EQ(imported.exit_code, 0) << imported.describe();
  EXPECT_EQ(imported.out, "imported copy: 3 agents, 2 edges\n");
  EXPECT_EQ(graph_names(other), std::vector<std::string>{"copy"});
  EXPECT_EQ(graph_versions(other, "copy").back()["graph"], graph);
  mock_->reset();
  RunResult r = hiva_cli({"run", "--strategy", "hiva", "--graph", "copy", "--json",
                          "Write a Python function double(x) that returns twice x."},
                         other);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.result().value("answer", ""), kHivaDoubleAnswer) << r.describe();
  EXPECT_EQ(by_rule("coder").size(), 1u);  // the imported coder ran
  // The same name twice is refused.
  RunResult again = kaisha({"graphs", "--import", file, "--name", "copy", "--db", other});
  EXPECT_EQ(again.exit_code, 2) << again.describe();
  EXPECT_NE(again.err.find("a graph named 'copy' is already saved"), std::string::npos) << again.describe();

  // A newer format: upgrade kaisha.
  json newer = graph;
  newer["version"] = 4;
  const std::string newer_file = dir_.write("newer.json", newer.dump(2));
  RunResult refused = kaisha({"graphs", "--import", newer_file, "--name", "newer", "--db", other});
  EXPECT_EQ(refused.exit_code, 2) << refused.describe();
  EXPECT_NE(
      refused.err.find(newer_file + ": graph format version 4 is newer than this kaisha reads (3); upgrade kaisha"),
      std::string::npos)
      << refused.describe();

  // A file of the format before tool versions were kept still imports.
  json older = graph;
  older["version"] = 2;
  for (json& a : older["agents"]) a.erase("tool_versions");
  const std::string older_file = dir_.write("older.json", older.dump(2));
  RunResult old_import = kaisha({"graphs", "--import", older_file, "--name", "older", "--db", dir_.file("old.db")});
  EXPECT_EQ(old_import.exit_code, 0) << old_import.describe();
  EXPECT_EQ(old_import.out, "imported older: 3 agents, 2 edges\n");

  // A tool importing os, whoever wrote it, never reaches the sandbox.
  json bad = graph;
  bool found = false;
  for (json& a : bad["agents"])
    if (a.value("id", "") == "python_coder_agent_1") {
      a["tool_code"] = "import os\n\ndef tool_function(input_data):\n    return os.listdir('/')\n";
      a["tool_description"] = "lists the root";
      a["tool_version"] = 1;
      a.erase("tool_versions");
      found = true;
    }
  ASSERT_TRUE(found) << graph.dump();
  const std::string bad_file = dir_.write("os.json", bad.dump(2));
  RunResult gated = kaisha({"graphs", "--import", bad_file, "--name", "os", "--db", other});
  EXPECT_EQ(gated.exit_code, 2) << gated.describe();
  EXPECT_NE(gated.err.find("agent python_coder_agent_1's tool"), std::string::npos) << gated.describe();
  EXPECT_NE(gated.err.find("imports os"), std::string::npos) << gated.describe();
  EXPECT_EQ(graph_names(other), std::vector<std::string>{"copy"});  // nothing else was saved
}

// A task set with a broken line is refused with its file and line, before
// anything is spent: the mock saw no request and no graph was saved.
TEST_F(HivaTest, ATaskSetWithABrokenLineIsRefusedBeforeAnyCall) {
  start_mock_file(kHivaExamples + "scenario.yaml");
  const std::string tasks =
      dir_.write("tasks.jsonl",
                 "{\"id\": \"add\", \"input\": \"Write a Python function add(a, b).\", \"answer\": \"x\"}\n"
                 "{\"id\": \"川\", \"input\": \"二倍にする関数 🐍\", \"answer\": \n"
                 "{\"id\": \"c\", \"input\": \"z\", \"answer\": \"3\"}\n");
  RunResult r = evolve(db(), tasks, 3, "broken");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_NE(r.err.find("kaisha evolve: " + tasks + ":2: not valid JSON"), std::string::npos) << r.describe();
  EXPECT_TRUE(mock_->request_log().empty());
  EXPECT_TRUE(graph_names(db()).empty());
  // Nothing half-made stands in the way: fixed, the same name evolves.
  dir_.write("tasks.jsonl",
             "{\"id\": \"add\", \"input\": \"Write a Python function add(a, b) that returns the sum of a and b.\", "
             "\"format\": \"code\", \"tests\": \"assert add(2, 3) == 5\"}\n");
  RunResult fixed = evolve(db(), tasks, 1, "broken", {"-q"});
  EXPECT_EQ(fixed.exit_code, 0) << fixed.describe();
  EXPECT_NE(fixed.out.find("accuracy 1/1"), std::string::npos) << fixed.describe();
}

// Evolving under a name that is already saved is refused, pointing at
// --resume, and spends nothing.
TEST_F(HivaTest, EvolvingUnderANameAlreadySavedIsRefusedPointingAtResume) {
  start_mock_file(kHivaExamples + "scenario.yaml");
  evolve_coders(db());
  ASSERT_FALSE(HasFatalFailure());
  const size_t requests = mock_->request_log().size();
  RunResult r = evolve(db(), kHivaExamples + "tasks.jsonl", 3, "coders");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_NE(r.err.find("a graph named 'coders' is already saved: go on with --resume coders"), std::string::npos)
      << r.describe();
  EXPECT_EQ(mock_->request_log().size(), requests);
  EXPECT_EQ(graph_versions(db(), "coders").size(), 3u);
  // An imported graph's name is taken too.
  RunResult imported = kaisha({"graphs", "--export", "coders", "--out", dir_.file("g.json"), "--db", db()});
  ASSERT_EQ(imported.exit_code, 0) << imported.describe();
  ASSERT_EQ(kaisha({"graphs", "--import", dir_.file("g.json"), "--name", "mine", "--db", db()}).exit_code, 0);
  RunResult taken = evolve(db(), kHivaExamples + "tasks.jsonl", 1, "mine");
  EXPECT_EQ(taken.exit_code, 2) << taken.describe();
  EXPECT_NE(taken.err.find("--resume mine"), std::string::npos) << taken.describe();
  EXPECT_EQ(mock_->request_log().size(), requests);
}

// Japanese and emoji in a task's text, its tests and the graph's name go
// through evolve, the sandbox, graphs, run and the tree intact.
TEST_F(HivaTest, JapaneseAndEmojiInTasksAndNamesWorkEndToEnd) {
  start_mock_file(kHivaExamples + "scenario.yaml");
  const std::string input =
      "足し算 🧮: Write a Python function add(a, b) that returns the sum of a and b. 川 🌊";
  const std::string tasks =
      dir_.write("タスク.jsonl", json{{"id", "足し算"},
                                      {"input", input},
                                      {"format", "code"},
                                      {"tests", "assert add('川', '🌊') == '川🌊'\nassert add(2, 3) == 5"}}
                                         .dump() +
                                     "\n");
  const std::string name = "川の木 🌊";
  RunResult r = evolve(db(), tasks, 1, name, {"-q"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("graph " + name + ": iteration 1 of 1"), std::string::npos) << r.describe();
  EXPECT_NE(r.out.find("accuracy 1/1"), std::string::npos) << r.describe();
  EXPECT_EQ(by_rule("aggregator-add").size(), 1u);
  const auto losses = hiva_notes(db(), "loss");
  ASSERT_EQ(losses.size(), 1u);
  EXPECT_EQ(losses[0].value("feedback", ""), "All 2 tests passed.") << losses[0].dump();
  EXPECT_EQ(graph_names(db()), std::vector<std::string>{name});
  RunResult shown = kaisha({"graphs", name, "--db", db()});
  ASSERT_EQ(shown.exit_code, 0) << shown.describe();
  EXPECT_NE(shown.out.find("graph " + name + "\niteration 1 "), std::string::npos) << shown.out;

  const std::string question = "二倍にする関数 🐍: Write a Python function double(x) that returns twice x. ✅";
  RunResult run = hiva_cli({"run", "--strategy", "hiva", "--graph", name, "--json", question}, db());
  ASSERT_EQ(run.exit_code, 0) << run.describe();
  EXPECT_EQ(run.result().value("answer", ""), kHivaDoubleAnswer) << run.describe();
  EXPECT_EQ(by_rule("coder").size(), 1u);  // the evolved graph's coder
  // The question reached the source agent whole.
  bool whole = false;
  for (const json& q : by_rule("source")) whole = whole || q.dump().find("二倍にする関数 🐍") != std::string::npos;
  EXPECT_TRUE(whole);
  RunResult tree = kaisha({"history", run.result().value("task", ""), "--tree", "--db", db()});
  ASSERT_EQ(tree.exit_code, 0) << tree.describe();
  EXPECT_NE(tree.out.find("二倍にする関数 🐍"), std::string::npos) << tree.out;
  auto j = journal();
  ASSERT_TRUE(j);
  auto t = j->get_task(run.result().value("task", ""));
  ASSERT_TRUE(t.ok() && t->has_value());
  EXPECT_EQ((*t)->input, question);
  EXPECT_EQ((*t)->strategy, "hiva");
  EXPECT_EQ((*t)->status, "done");
}

// Algorithm 1 updates an agent's semantics, then its topology: the
// topology decision and the new agent's prompt read the agent's rewritten
// prompt, however late the rewrite's answer comes (the same graph and seed
// send the same requests whatever order the answers arrive in).
TEST_F(HivaTest, TheTopologyDecisionReadsThePromptTheSemanticUpdateWrote) {
  auto read = read_text_file(kHivaExamples + "scenario.yaml");
  ASSERT_TRUE(read.ok()) << read.error().message;
  std::string script = *read;
  const std::string slow = "reply: { text: \"<IMPROVED_VARIABLE>You are the first agent of a team that writes Python";
  const size_t at = script.find(slow);
  ASSERT_NE(at, std::string::npos);
  script.insert(at + std::string("reply: { ").size(), "latency_ms: 1500, ");
  start_mock(script);
  RunResult r = evolve(db(), kHivaExamples + "tasks.jsonl", 1, "slow", {"-q"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const std::string rewritten = "You are the first agent of a team that writes Python";
  for (const char* rule : {"source-adds-a-coder", "new-coder"}) {
    const auto asked = by_rule(rule);
    ASSERT_EQ(asked.size(), 1u) << rule;
    EXPECT_NE(asked[0].dump().find(rewritten), std::string::npos) << rule << ": " << asked[0].dump();
  }
  // The parallelizability analysis is part of the topology step: it comes
  // after the rewrite too.
  const auto log = mock_->request_log();
  size_t rewrite = log.size(), analysis = log.size();
  for (size_t i = 0; i < log.size(); ++i) {
    if (log[i].value("rule", "") == "prompt-source") rewrite = std::min(rewrite, i);
    if (log[i].value("rule", "") == "parallelizability") analysis = std::min(analysis, i);
  }
  ASSERT_LT(rewrite, log.size());
  EXPECT_LT(rewrite, analysis);
}

}  // namespace
}  // namespace kaisha::e2e
