// effGen's short-term memory on the CEO's conversation (effgen.md §8.1, §23
// item 35) through the real binary: a task whose tool rounds push the
// conversation past 0.85 of memory.short_term.context_tokens gets one
// summary call, and the next model request carries the system prompt, the
// summary and the last 10 messages.
#include "e2e_fixture.hpp"

namespace kaisha::e2e {
namespace {

// Nine rounds of "think at length, then GetAgents"; the summary rule answers
// the summarising call, which offers no tools. Each round is ~330 estimated
// tokens, almost all of it the model's text (1,200 characters), so the
// figures below do not hang on the exact size of a tool result.
std::string long_task_script() {
  std::string thinking;
  while (thinking.size() < 1200) thinking += "I check the agents once more before answering. ";
  return R"(
rules:
  - name: summary
    match: { model: ceo-model, last_user: "Summarize the conversation so far" }
    reply: { text: "SUMMARY-OF-EARLIER-TURNS: the user asked for an audit of the agents; none are hired." }
  - name: work
    match: { model: ceo-model, has_tools: true }
    times: 9
    reply:
      text: ")" +
         thinking + R"("
      tool_calls: [ { name: GetAgents, arguments: {} } ]
  - name: answer
    match: { model: ceo-model }
    reply: { text: "No agents are hired." }
)";
}

// 0.85 x 2953 = 2510 tokens: crossed after the 8th round (~19 + 8 x 330),
// and after the summary (~60 + 5 x 330) the 9th round stays below.
constexpr const char* kContextTokens = "2953";

class ShortTermMemoryTest : public E2eTest {
 protected:
  std::string config(const std::string& short_term) {
    ConfigOptions o;
    // A short system prompt, so the figures below are the rounds'.
    o.ceo_extra = "  system_prompt_file: " + dir_.write("ceo.md", "You are the CEO. Use your tools.") + "\n";
    o.extra = "memory: { short_term: " + short_term + " }\n";
    return write_config(o);
  }
};

TEST_F(ShortTermMemoryTest, ALongTaskIsSummarisedOnceAndGoesOnWithTheSummaryAndTheLastTen) {
  start_mock(long_task_script());
  RunResult r =
      run_json(config(std::string("{ context_tokens: ") + kContextTokens + ", threshold: 0.85, keep_recent: 10 }"),
               "Audit the agents, checking them repeatedly.");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.result()["answer"], "No agents are hired.");

  std::vector<json> ceo = requests_for("ceo-model");
  std::vector<size_t> summaries;
  for (size_t i = 0; i < ceo.size(); ++i)
    if (ceo[i]["last_message"].get<std::string>().find("Summarize the conversation so far") != std::string::npos)
      summaries.push_back(i);
  ASSERT_EQ(summaries.size(), 1u) << r.describe();
  ASSERT_LT(summaries[0] + 1, ceo.size());
  // The summarising call lists the older messages, not the system prompt.
  EXPECT_EQ(ceo[summaries[0]]["messages"].size(), 1u);

  // The next request: system prompt, summary, then the last 10 messages,
  // starting with a model answer (never a tool result cut from its call).
  const json& next = ceo[summaries[0] + 1]["messages"];
  ASSERT_EQ(next.size(), 12u) << next.dump(1);
  EXPECT_EQ(next[0]["role"], "system");
  EXPECT_EQ(next[0]["content"], "You are the CEO. Use your tools.");
  EXPECT_EQ(next[1]["role"], "system");
  EXPECT_NE(next[1]["content"].get<std::string>().find("SUMMARY-OF-EARLIER-TURNS"), std::string::npos);
  EXPECT_EQ(next[2]["role"], "assistant");
  EXPECT_EQ(next[11]["role"], "tool");
  // The request before the summary carried every message so far.
  EXPECT_GT(ceo[summaries[0] - 1]["messages"].size(), next.size());

  // Shown as progress and journaled as SUMMARIZATION_TRIGGER, with the tokens saved.
  auto shown = r.events("summary");
  ASSERT_EQ(shown.size(), 1u) << r.describe();
  const json& d = shown[0]["data"];
  EXPECT_EQ(d["event"], "SUMMARIZATION_TRIGGER");
  EXPECT_GT(d["original_tokens"].get<int64_t>(), d["summarized_tokens"].get<int64_t>());
  EXPECT_GT(d["reduction_ratio"].get<double>(), 0.5);
  EXPECT_LT(d["conversation_tokens_after"].get<int64_t>(), d["conversation_tokens_before"].get<int64_t>());
  auto j = journal();
  ASSERT_TRUE(j);
  auto steps = j->session_steps(session_of(r));
  ASSERT_TRUE(steps.ok());
  int triggers = 0;
  for (const auto& s : *steps)
    if (s.kind == "note" && s.payload.value("event", "") == "SUMMARIZATION_TRIGGER") {
      ++triggers;
      EXPECT_EQ(s.agent, "CEO");
      EXPECT_GT(s.tokens_in, 0);  // the summarising call's usage, charged like any CEO call
      EXPECT_GT(s.tokens_out, 0);
    }
  EXPECT_EQ(triggers, 1);
}

TEST_F(ShortTermMemoryTest, SwitchedOffTheConversationIsNeverSummarised) {
  start_mock(long_task_script());
  RunResult r = run_json(config(std::string("{ enabled: false, context_tokens: ") + kContextTokens + " }"),
                         "Audit the agents, checking them repeatedly.");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(r.events("summary").empty());
  std::vector<json> ceo = requests_for("ceo-model");
  ASSERT_EQ(ceo.size(), 10u);                     // nine rounds and the answer
  EXPECT_EQ(ceo.back()["messages"].size(), 20u);  // system, task, nine rounds of two
}

}  // namespace
}  // namespace kaisha::e2e
