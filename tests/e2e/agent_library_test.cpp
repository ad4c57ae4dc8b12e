// `kaisha agents --library FILE`: a pyramid agent library is checked and its
// shape shown; a mistake names file, line and key and exits 2.
// `kaisha agents --generate DOMAIN --out FILE`: the model writes one, checked
// by the same loader; a refused answer goes back with the loader's error.
#include "e2e_fixture.hpp"

namespace kaisha::e2e {
namespace {

TEST_F(E2eTest, AgentLibraryShowsItsShape) {
  const std::string lib = dir_.write("agents.yaml", R"(agents:
  - {name: judge_agent, level: -1, description: checks, available_tools: [file_read, dir_list, execute_code, final_output]}
  - {name: coder, level: 1, description: コードを書く, available_tools: [judge_agent, file_write, final_output]}
  - {name: writer, level: 1, description: 文章 ✍, available_tools: [file_write, final_output]}
  - {name: boss, level: 2, description: plans, available_tools: [coder, writer, judge_agent], model: mock:boss}
)");
  RunResult r = kaisha({"agents", "--library", lib});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_NE(r.out.find("level 2  boss  (2 sub-agents)  model mock:boss"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("depth L 1, functional agents N_func 2, mean branching b 2"), std::string::npos) << r.out;
  RunResult j = kaisha({"agents", "--library", lib, "--json"});
  ASSERT_EQ(j.exit_code, 0) << j.describe();
  json doc = json::parse(j.out);
  EXPECT_EQ(doc["shape"]["functional_agents"], 2);
  EXPECT_EQ(doc["agents"][1]["description"], "コードを書く");
}

TEST_F(E2eTest, AgentLibraryMistakeNamesFileLineAndKey) {
  const std::string lib = dir_.write("bad.yaml", R"(agents:
  - {name: coder, level: 1, description: d, available_tools: [final_output]}
  - {name: boss, level: 2, description: d, available_tools: [coder, dir_lst]}
)");
  RunResult r = kaisha({"agents", "--library", lib});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_NE(r.err.find(lib + ":3: agents[1].available_tools[1]: unknown tool or agent 'dir_lst' (did you mean "
                             "'dir_list'?)"),
            std::string::npos)
      << r.err;
}

// The model's first library calls a tool that does not exist; its second,
// written after the loader's error, passes. A priced model (gemini-2.0-flash
// is in the cost table) makes the cost a number.
constexpr const char* kGenerateScript = R"(
rules:
  - name: fixed
    match: { model: gemini-2.0-flash, last_user: "re:loader refused" }
    reply:
      usage: { input_tokens: 1000, output_tokens: 400 }
      text: |
        Here is the fixed library.
        ```yaml
        agents:
          - name: judge_agent
            level: -1
            description: 結果を確認する
            responsibility: You judge task {task_id}.
            workflow: Read the files, then rule with final_output.
            available_tools: [file_read, dir_list, final_output]
          - name: translator_agent
            level: 1
            description: Translates documents 🌐
            responsibility: You translate for task {task_id}.
            workflow: Write the translation, then call final_output.
            available_tools: [file_read, file_write, judge_agent, final_output]
          - name: lead_agent
            level: 2
            description: Plans the translation work.
            responsibility: You lead task {task_id}.
            workflow: Ask translator_agent for each document, then call final_output.
            available_tools: [translator_agent, final_output]
        ```
  - name: first
    match: { model: gemini-2.0-flash }
    reply:
      usage: { input_tokens: 800, output_tokens: 300 }
      text: |
        ```yaml
        agents:
          - name: lead_agent
            level: 1
            description: Plans.
            responsibility: You lead.
            workflow: Do it.
            available_tools: [translate_everything, final_output]
        ```
)";

TEST_F(E2eTest, AgentsGenerateWritesALibraryTheLoaderAcceptsAfterSendingBackItsError) {
  start_mock(kGenerateScript);
  ConfigOptions o;
  o.ceo_model = "gemini:gemini-2.0-flash";
  const std::string cfg = write_config(o);
  const std::string out = dir_.file("translators.yaml");
  RunResult r =
      kaisha({"agents", "--config", cfg, "--generate", "法律文書の翻訳 (legal translation) 🌐", "--out", out, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  json line = json::parse(r.out);
  EXPECT_EQ(line["status"], "written");
  EXPECT_EQ(line["attempts"], 2);
  EXPECT_EQ(line["tokens_in"], 1800);
  EXPECT_EQ(line["tokens_out"], 700);
  EXPECT_GT(line["usd"].get<double>(), 0.0);
  // The second request carried the loader's own error for the first answer.
  const auto fixed = by_rule("fixed");
  ASSERT_EQ(fixed.size(), 1u);
  EXPECT_NE(fixed[0].dump().find("unknown tool or agent 'translate_everything'"), std::string::npos) << fixed[0].dump();
  const auto first = by_rule("first");
  ASSERT_EQ(first.size(), 1u);
  EXPECT_NE(first[0].dump().find("legal translation"), std::string::npos) << first[0].dump();
  // What was written is what `kaisha agents --library` accepts.
  RunResult check = kaisha({"agents", "--library", out});
  ASSERT_EQ(check.exit_code, 0) << check.describe();
  EXPECT_NE(check.out.find("level 2  lead_agent  (1 sub-agents)"), std::string::npos) << check.out;
  // It never replaces a file.
  RunResult again = kaisha({"agents", "--config", cfg, "--generate", "anything", "--out", out});
  EXPECT_EQ(again.exit_code, 2) << again.describe();
  EXPECT_NE(again.err.find(out + " exists"), std::string::npos) << again.err;
}

TEST_F(E2eTest, AgentsGenerateGivesUpAfterItsAttemptsAndWritesNothing) {
  start_mock(R"(
rules:
  - match: { model: ceo-model }
    reply: { text: "I would rather not write YAML." }
)");
  const std::string cfg = write_config();
  const std::string out = dir_.file("never.yaml");
  RunResult r = kaisha({"agents", "--config", cfg, "--generate", "a research team", "--out", out, "--attempts", "2"});
  EXPECT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_NE(r.err.find("no valid library after 2 answers"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_EQ(requests_for("ceo-model").size(), 2u);
  RunResult no_out = kaisha({"agents", "--config", cfg, "--generate", "a research team"});
  EXPECT_EQ(no_out.exit_code, 2) << no_out.describe();
  EXPECT_NE(no_out.err.find("needs --out"), std::string::npos) << no_out.err;
}

}  // namespace
}  // namespace kaisha::e2e

namespace kaisha::e2e {
namespace {

// The pools as the pyramid saves them (runtime/pyramid/candidate_pool.hpp):
// idea_agent's first candidate pruned, writer_agent running its default.
void save_pools(const std::string& db) {
  auto st = store::JournalStore::open(db);
  ASSERT_TRUE(st.ok()) << st.error().message;
  const json idea = json::parse(R"({"verdicts": {"openai:small": [false, false, false, false, false],
                                                 "openai:big": [true, true, false, true, true]},
                                    "answered": [], "pruned": ["openai:small"], "default": ""})");
  const json writer = json::parse(R"({"verdicts": {"ollama:qwen3:8b": [true, true, true, true, true]},
                                      "answered": [], "pruned": [], "default": "ollama:qwen3:8b"})");
  ASSERT_TRUE((*st)->save_state({"pyramid", "pool/idea_agent", idea, "", "outcome 7", 1}).ok());
  ASSERT_TRUE((*st)->save_state({"pyramid", "pool/writer_agent", writer, "", "outcome 9", 2}).ok());
  ASSERT_TRUE((*st)->save_state({"pyramid", "idea_agent", json{{"q", 0.7}, {"audits", 5}}, "", "outcome 7", 3}).ok());
}

TEST_F(E2eTest, AgentsPoolsShowsThePoolsAndUndoesAPruneOrADefaultByHand) {
  save_pools(db());
  RunResult shown = kaisha({"agents", "--db", db(), "--pools", "--json"});
  ASSERT_EQ(shown.exit_code, 0) << shown.describe();
  json pools = json::parse(shown.out)["pools"];
  ASSERT_EQ(pools.size(), 2u) << "only the pools, not the quality scores";
  EXPECT_EQ(pools[0]["agent"], "idea_agent");
  EXPECT_EQ(pools[0]["pruned"], json::array({"openai:small"}));
  EXPECT_DOUBLE_EQ(pools[0]["windowed_q"]["openai:big"].get<double>(), 0.8);
  EXPECT_EQ(pools[1]["default"], "ollama:qwen3:8b");

  RunResult restored = kaisha({"agents", "--db", db(), "--restore-candidate", "idea_agent:openai:small"});
  ASSERT_EQ(restored.exit_code, 0) << restored.describe();
  EXPECT_NE(restored.out.find("idea_agent: restored candidate openai:small"), std::string::npos) << restored.out;
  RunResult revoked = kaisha({"agents", "--db", db(), "--revoke-default", "writer_agent"});
  ASSERT_EQ(revoked.exit_code, 0) << revoked.describe();

  // Each undo is a new version of the pool, saying what was undone; the pyramid reads the latest.
  auto j = journal();
  ASSERT_TRUE(j);
  auto versions = j->state_versions("pyramid", "pool/idea_agent");
  ASSERT_TRUE(versions.ok()) << versions.error().message;
  ASSERT_EQ(versions->size(), 2u);
  EXPECT_EQ(versions->back().change, "by hand: restored candidate openai:small");
  EXPECT_EQ(versions->back().value["pruned"], json::array());
  EXPECT_EQ(versions->back().value["verdicts"]["openai:small"], json::array()) << "its window starts afresh";
  auto writer = j->state_versions("pyramid", "pool/writer_agent");
  ASSERT_TRUE(writer.ok());
  EXPECT_EQ(writer->back().value["default"], "");
  EXPECT_EQ(writer->back().change, "by hand: revoked default ollama:qwen3:8b");

  // What cannot be undone says why, and changes nothing.
  RunResult again = kaisha({"agents", "--db", db(), "--restore-candidate", "idea_agent:openai:small"});
  EXPECT_EQ(again.exit_code, 2) << again.describe();
  EXPECT_NE(again.err.find("candidate 'openai:small' of agent 'idea_agent' is not pruned"), std::string::npos)
      << again.err;
  RunResult unknown = kaisha({"agents", "--db", db(), "--revoke-default", "翻訳_agent"});
  EXPECT_EQ(unknown.exit_code, 2) << unknown.describe();
  EXPECT_NE(unknown.err.find("agent '翻訳_agent' has no candidate pool (agents with one: idea_agent, writer_agent)"),
            std::string::npos)
      << unknown.err;
  RunResult malformed = kaisha({"agents", "--db", db(), "--restore-candidate", "idea_agent"});
  EXPECT_EQ(malformed.exit_code, 2) << malformed.describe();
  EXPECT_NE(malformed.err.find("expected AGENT:MODEL"), std::string::npos) << malformed.err;
  EXPECT_EQ(j->state_versions("pyramid", "pool/idea_agent")->size(), 2u);
}

}  // namespace
}  // namespace kaisha::e2e
