// Restart persistence (hashiru.md §9 item 55): a second `kaisha run` process
// on the same session finds the employees and the budget of the first, and
// `kaisha history` lists both tasks with their steps.
#include "cluster_fixture.hpp"
#include "e2e_fixture.hpp"
#include "runtime/store/session_lock.hpp"

namespace kaisha::e2e {
namespace {

TEST_F(E2eTest, SecondProcessContinuesTheSessionsAgentsAndBudget) {
  start_mock(R"(
rules:
  - match: { model: ceo-model, last_user: "Hire", turn: 0 }
    reply: { tool_calls: [ { name: AgentCreator, arguments: { agent_name: Keeper, base_model: mistral, system_prompt: "Keep.", description: "Keeps things" } } ] }
  - match: { model: ceo-model, last_user: "Hire", turn: 1 }
    reply: { text: "Keeper is hired." }
  - match: { model: ceo-model, last_user: "Who", turn: 0 }
    reply: { tool_calls: [ { name: GetAgents, arguments: {} }, { name: GetBudget, arguments: {} } ] }
  - match: { model: ceo-model, last_user: "Who", turn: 1 }
    reply: { text: "I still employ Keeper." }
)");
  const std::string cfg = write_config();
  RunResult first = run_json(cfg, "Hire a keeper.");
  ASSERT_EQ(first.exit_code, 0) << first.describe();
  const std::string session = session_of(first);
  EXPECT_DOUBLE_EQ(first.ledgers()["current_resource_usage"].get<double>(), 20);

  RunResult second = run_json(cfg, "Who works here?", {"--session", session});
  ASSERT_EQ(second.exit_code, 0) << second.describe();
  EXPECT_EQ(session_of(second), session);
  auto agents = second.tool_results("GetAgents");
  ASSERT_EQ(agents.size(), 1u);
  ASSERT_TRUE(agents[0]["output"].contains("Keeper")) << agents[0];
  EXPECT_EQ(agents[0]["output"]["Keeper"]["base_model"], "mistral");
  auto budgets = second.tool_results("GetBudget");
  ASSERT_EQ(budgets.size(), 1u);
  // Restored, not re-charged: still one hire's worth.
  EXPECT_DOUBLE_EQ(budgets[0]["output"]["current_resource_usage"].get<double>(), 20);
  EXPECT_EQ(budgets[0]["output"]["hired_agents"], 1);

  RunResult history = kaisha({"history", "--config", cfg, "--json", "--session", session});
  ASSERT_EQ(history.exit_code, 0) << history.describe();
  json h = json::parse(history.out);
  ASSERT_EQ(h["tasks"].size(), 2u);
  EXPECT_EQ(h["tasks"][0]["input"], "Hire a keeper.");
  EXPECT_EQ(h["tasks"][0]["status"], "done");
  EXPECT_EQ(h["tasks"][0]["final_answer"], "Keeper is hired.");
  EXPECT_EQ(h["tasks"][1]["input"], "Who works here?");
  EXPECT_EQ(h["tasks"][1]["final_answer"], "I still employ Keeper.");
  std::map<std::string, std::set<std::string>> kinds;  // task id -> step kinds
  for (auto& s : h["steps"]) kinds[s["task"]].insert(s["kind"].get<std::string>());
  const std::string t1 = h["tasks"][0]["id"], t2 = h["tasks"][1]["id"];
  EXPECT_TRUE(kinds[t1].count("hire"));
  EXPECT_TRUE(kinds[t1].count("llm_response"));
  EXPECT_TRUE(kinds[t2].count("tool_call"));
  EXPECT_TRUE(kinds[t2].count("tool_result"));
  EXPECT_FALSE(kinds[t2].count("hire"));

  // `--continue` picks the latest session too.
  RunResult third = run_json(cfg, "Who is still here?", {"--continue"});
  ASSERT_EQ(third.exit_code, 0) << third.describe();
  EXPECT_EQ(session_of(third), session);
}

// One process runs a session at a time: a second `kaisha run` on a session
// another process is running is refused, naming that process; once the
// first is killed (SIGKILL, no cleanup), its lock is free and the session
// continues.
TEST_F(E2eTest, ASecondProcessOnARunningSessionIsRefusedUntilTheFirstDies) {
  start_mock(R"(
rules:
  - match: { model: ceo-model, last_user: "Start" }
    reply: { text: "Started." }
  - match: { model: ceo-model, last_user: "Wait" }
    reply: { text: "Waited.", latency_ms: 60000 }
  - match: { model: ceo-model, last_user: "Again" }
    reply: { text: "Here again." }
)");
  const std::string cfg = write_config();
  RunResult first = run_json(cfg, "Start.");
  ASSERT_EQ(first.exit_code, 0) << first.describe();
  const std::string session = session_of(first);

  BackgroundProcess waiting(KAISHA_EXE, {"run", "--config", cfg, "--json", "--session", session, "Wait."},
                            {{"KAISHA_MODEL", std::nullopt}, {"KAISHA_DB", std::nullopt}}, dir_.file("waiting.log"));
  std::optional<std::string> holder;
  ASSERT_TRUE(wait_for(
      [&] {
        auto h = store::SessionLock::holder(db(), session);
        if (h.ok() && *h && h->value().find("pid ") != std::string::npos) holder = **h;
        return holder.has_value();
      },
      std::chrono::seconds(30)))
      << waiting.log();
  EXPECT_NE(holder->find("kaisha run"), std::string::npos) << *holder;

  RunResult refused = run_json(cfg, "Again.", {"--session", session});
  EXPECT_NE(refused.exit_code, 0) << refused.describe();
  EXPECT_NE(refused.err.find("session " + session + " is already running in " + *holder), std::string::npos)
      << refused.describe();
  RunResult refused_latest = run_json(cfg, "Again.", {"--continue"});
  EXPECT_NE(refused_latest.exit_code, 0) << refused_latest.describe();
  EXPECT_NE(refused_latest.err.find("is already running"), std::string::npos) << refused_latest.describe();

  // Killed without a chance to clean up: the kernel drops its lock.
  waiting.kill9();
  RunResult again = run_json(cfg, "Again.", {"--session", session});
  ASSERT_EQ(again.exit_code, 0) << again.describe();
  EXPECT_EQ(again.result()["answer"], "Here again.") << again.describe();
  // The killed process's task is no longer shown as running.
  auto tasks = journal()->tasks(session);
  ASSERT_TRUE(tasks.ok());
  ASSERT_EQ(tasks->size(), 3u);
  EXPECT_EQ((*tasks)[1].input, "Wait.");
  EXPECT_EQ((*tasks)[1].status, "interrupted");
  EXPECT_NE((*tasks)[1].error.find("the process running this task stopped before it finished"), std::string::npos)
      << (*tasks)[1].error;
  EXPECT_GE((*tasks)[1].finished_at, (*tasks)[1].started_at);
  EXPECT_EQ((*tasks)[2].status, "done");
  // A new session is never refused: it has a lock of its own.
  BackgroundProcess waiting_again(KAISHA_EXE, {"run", "--config", cfg, "--json", "--session", session, "Wait."},
                                  {{"KAISHA_MODEL", std::nullopt}, {"KAISHA_DB", std::nullopt}},
                                  dir_.file("waiting2.log"));
  ASSERT_TRUE(wait_for(
      [&] {
        auto h = store::SessionLock::holder(db(), session);
        return h.ok() && *h;
      },
      std::chrono::seconds(30)));
  RunResult fresh = run_json(cfg, "Start.");
  EXPECT_EQ(fresh.exit_code, 0) << fresh.describe();
  EXPECT_NE(session_of(fresh), session);
  waiting_again.kill9();
}

}  // namespace
}  // namespace kaisha::e2e
