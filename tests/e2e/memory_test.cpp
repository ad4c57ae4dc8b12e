// The memory function end to end (hashiru.md §5 Appendix Example 1, Case
// Study 4): the real kaisha binary against the scripted mock LLM, memories in
// their SQLite file next to the journal, the built-in embedder.
#include "e2e_fixture.hpp"

namespace kaisha::e2e {
namespace {

std::vector<json> memory_events(const RunResult& r) { return r.events("memories"); }

// Example 1, across three runs of one session (`--continue`).
TEST_F(E2eTest, VegetarianDialogueStoresRetrievesAndDeletesTheMemory) {
  start_mock(R"(
rules:
  - match: { model: ceo-model, last_user: "I am vegetarian.", turn: 0 }
    reply:
      text: "Okay, I'll keep that in mind. I'll store this preference in my memory."
      tool_calls: [ { name: MemoryManager, arguments: { memory: "The user is vegetarian.", action: add_memory, key: vegetarian } } ]
  - match: { model: ceo-model, last_user: "I am vegetarian.", turn: 1 }
    reply: { text: "I have stored that you are vegetarian. How can I help you today?" }
  - match: { model: ceo-model, any: "I can eat bacon actually", last_user: "re:relevant memories.*The user is vegetarian", turn: 0 }
    reply:
      text: "I see. My apologies for the confusion. I had a conflicting memory that you were vegetarian. I will remove that memory and proceed with finding a bacon pasta recipe."
      tool_calls: [ { name: MemoryManager, arguments: { action: delete_memory, key: "The user is vegetarian." } } ]
  - match: { model: ceo-model, any: "I can eat bacon actually", turn: 1 }
    reply:
      text: "OK, I have removed the memory. Now I will search for a bacon pasta recipe."
      tool_calls: [ { name: GoogleSearchTool, arguments: { query: "bacon pasta recipe" } } ]
  - match: { model: ceo-model, any: "I can eat bacon actually", turn: 2 }
    reply: { text: "Here are some bacon pasta recipes I found: Garlic Bacon Pasta, Creamy Bacon Pasta Sauce. Would you like me to get the content of any of these websites?" }
  - match: { model: ceo-model, any: "Give me a bacon pasta recipe.", last_user: "re:relevant memories.*The user is vegetarian", turn: 0 }
    reply: { text: "My apologies, but I cannot provide a bacon pasta recipe since you are vegetarian. Would you like a vegetarian pasta recipe instead?" }
  - match: { model: ceo-model }
    reply: { text: "NO MEMORY SEEN" }
)");
  const std::string cfg = write_config();

  RunResult first = run_json(cfg, "I am vegetarian.");
  ASSERT_EQ(first.exit_code, 0) << first.describe();
  EXPECT_TRUE(memory_events(first).empty());  // nothing stored yet
  auto added = first.tool_results("MemoryManager");
  ASSERT_EQ(added.size(), 1u) << first.describe();
  EXPECT_EQ(added[0]["status"], "success");
  EXPECT_EQ(added[0]["message"], "Memory added successfully");

  RunResult second = run_json(cfg, "Give me a bacon pasta recipe.", {"--continue"});
  ASSERT_EQ(second.exit_code, 0) << second.describe();
  auto shown = memory_events(second);
  ASSERT_EQ(shown.size(), 1u) << second.describe();
  EXPECT_EQ(shown[0]["text"], "Memories: ['The user is vegetarian.']");
  EXPECT_EQ(shown[0]["data"]["memories"][0]["key"], "vegetarian");
  EXPECT_NE(second.result()["answer"].get<std::string>().find("vegetarian pasta recipe"), std::string::npos)
      << second.describe();

  RunResult third = run_json(cfg, "I can eat bacon actually", {"--continue"});
  ASSERT_EQ(third.exit_code, 0) << third.describe();
  ASSERT_EQ(memory_events(third).size(), 1u) << third.describe();  // the same memory, again
  auto deleted = third.tool_results("MemoryManager");
  ASSERT_EQ(deleted.size(), 1u) << third.describe();
  EXPECT_EQ(deleted[0]["status"], "success") << deleted[0];
  EXPECT_EQ(deleted[0]["output"]["key"], "vegetarian");  // deleted by its text
  EXPECT_NE(third.result()["answer"].get<std::string>().find("Garlic Bacon Pasta"), std::string::npos);

  // The retrieval is journaled with the turn.
  auto j = journal();
  ASSERT_TRUE(j);
  auto steps = j->session_steps(session_of(second));
  ASSERT_TRUE(steps.ok());
  int notes = 0;
  for (const auto& s : *steps)
    if (s.kind == "note" && s.payload.contains("memories")) ++notes;
  EXPECT_EQ(notes, 2);

  // Once deleted, it is not retrieved any more.
  RunResult fourth = run_json(cfg, "Give me a bacon pasta recipe.", {"--continue"});
  ASSERT_EQ(fourth.exit_code, 0) << fourth.describe();
  EXPECT_TRUE(memory_events(fourth).empty()) << fourth.describe();
  EXPECT_EQ(fourth.result()["answer"], "NO MEMORY SEEN");
}

TEST_F(E2eTest, MemorySwitchOffMeansNoRetrieval) {
  start_mock(R"(
rules:
  - match: { model: ceo-model, last_user: "Remember", turn: 0 }
    reply: { tool_calls: [ { name: MemoryManager, arguments: { action: add_memory, key: colour, memory: "The user likes green." } } ] }
  - match: { model: ceo-model, last_user: "re:relevant memories" }
    reply: { text: "MEMORY INJECTED" }
  - match: { model: ceo-model }
    reply: { text: "plain" }
)");
  ConfigOptions o;
  o.extra = "switches: { memory: false }\n";
  const std::string cfg = write_config(o);
  ASSERT_EQ(run_json(cfg, "Remember that I like green.").exit_code, 0);
  RunResult r = run_json(cfg, "Which colour do I like? green?");
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(memory_events(r).empty());
  EXPECT_EQ(r.result()["answer"], "plain");
}

// Case Study 4: an answer marked wrong makes the CEO store a critique, and a
// reworded question in a new session retrieves it.
TEST_F(E2eTest, ErrorReflectionIsRetrievedForAParaphrase) {
  start_mock(R"(
rules:
  - match: { model: ceo-model, any: "was marked wrong", turn: 0 }
    reply:
      tool_calls:
        - name: MemoryManager
          arguments: { action: add_memory, key: ErrorAnalysis_AustralianCapital, memory: "Critique: I answered Sydney for the capital of Australia, but the capital is Canberra. Guidance: the largest city is not always the capital; for Australia's capital answer Canberra." }
  - match: { model: ceo-model, any: "was marked wrong", turn: 1 }
    reply: { text: "I stored the critique as ErrorAnalysis_AustralianCapital." }
  - match: { model: ceo-model, last_user: "re:relevant memories.*ErrorAnalysis_AustralianCapital" }
    reply: { text: "Taking into account the previous error I made, as indicated by the memory ErrorAnalysis_AustralianCapital: the capital is Canberra." }
  - match: { model: ceo-model, last_user: "capital of Australia" }
    reply: { text: "Sydney." }
  - match: { model: ceo-model }
    reply: { text: "NO MEMORY SEEN" }
)");
  const std::string cfg = write_config();
  RunResult asked = run_json(cfg, "What is the capital of Australia?");
  ASSERT_EQ(asked.exit_code, 0) << asked.describe();
  const std::string task = asked.result().value("task", "");
  ASSERT_FALSE(task.empty());

  RunResult fb = kaisha(
      {"feedback", task, "--wrong", "The capital of Australia is Canberra, not Sydney.", "--config", cfg, "--json"});
  ASSERT_EQ(fb.exit_code, 0) << fb.describe();
  auto stored = fb.tool_results("MemoryManager");
  ASSERT_EQ(stored.size(), 1u) << fb.describe();
  EXPECT_EQ(stored[0]["status"], "success");

  // The verdict is journaled on the task.
  auto j = journal();
  ASSERT_TRUE(j);
  auto steps = j->task_steps(task);
  ASSERT_TRUE(steps.ok());
  bool verdict = false;
  for (const auto& s : *steps)
    if (s.kind == "note" && s.payload.value("feedback", "") == "wrong") verdict = true;
  EXPECT_TRUE(verdict);

  // A reworded question, in a new session.
  RunResult again = run_json(cfg, "Which city is Australia's capital?");
  ASSERT_EQ(again.exit_code, 0) << again.describe();
  auto shown = memory_events(again);
  ASSERT_EQ(shown.size(), 1u) << again.describe();
  EXPECT_EQ(shown[0]["data"]["memories"][0]["key"], "ErrorAnalysis_AustralianCapital");
  EXPECT_NE(again.result()["answer"].get<std::string>().find("Canberra"), std::string::npos) << again.describe();
}

// Case Study 4 through the judge: an answer the judge rejects for good is
// marked wrong (journaled), the CEO writes the critique in the same task, and
// a reworded question in a new session retrieves it.
TEST_F(E2eTest, JudgeRejectionWritesACritiqueRetrievedForAParaphrase) {
  start_mock(R"(
rules:
  - match: { model: ceo-model, any: "was marked wrong", last_role: tool }
    reply: { text: "I stored the critique as ErrorAnalysis_AustralianCapital." }
  - match: { model: ceo-model, last_user: "was marked wrong" }
    reply:
      tool_calls:
        - name: MemoryManager
          arguments: { action: add_memory, key: ErrorAnalysis_AustralianCapital, memory: "Critique: I answered Sydney for the capital of Australia, but the capital is Canberra. Guidance: the largest city is not always the capital; for Australia's capital answer Canberra." }
  - match: { model: ceo-model, last_user: "re:relevant memories.*ErrorAnalysis_AustralianCapital" }
    reply: { text: "Taking into account the previous error I made (ErrorAnalysis_AustralianCapital): the capital is Canberra." }
  - match: { model: ceo-model, last_user: "capital of Australia" }
    reply: { text: "Sydney." }
  - match: { model: ceo-model }
    reply: { text: "NO MEMORY SEEN" }
  - match: { model: judge-model, any: "the capital is Canberra" }
    reply: { text: '{"status":"success","output":"Correct.","error_information":""}' }
  - match: { model: judge-model }
    reply: { text: '{"status":"error","output":"Wrong city.","error_information":"The capital of Australia is Canberra, not Sydney."}' }
)");
  ConfigOptions o;
  o.extra = "judge: { final_answer: true, model: \"openai:judge-model\", max_retries: 0 }\n";
  const std::string cfg = write_config(o);
  RunResult asked = run_json(cfg, "What is the capital of Australia?");
  ASSERT_EQ(asked.exit_code, 1) << asked.describe();  // the task still fails with the judge's report
  EXPECT_NE(asked.result()["error"].get<std::string>().find("Canberra, not Sydney"), std::string::npos)
      << asked.describe();
  ASSERT_EQ(asked.events("reflection").size(), 1u) << asked.describe();
  auto stored = asked.tool_results("MemoryManager");
  ASSERT_EQ(stored.size(), 1u) << asked.describe();
  EXPECT_EQ(stored[0]["status"], "success");
  // The reflection turn was given the task, the rejected answer and the judge's reason.
  auto ceo = requests_for("ceo-model");
  ASSERT_EQ(ceo.size(), 3u);  // the answer, the critique (MemoryManager), its closing words
  const std::string reflection = ceo[1].dump();
  for (const char* want : {"was marked wrong", "What is the capital of Australia?", "Sydney.", "Canberra, not Sydney"})
    EXPECT_NE(reflection.find(want), std::string::npos) << want << " in " << reflection;

  // The verdict is journaled on the task, as kaisha feedback's is.
  const std::string task = asked.result().value("task", "");
  auto j = journal();
  ASSERT_TRUE(j);
  auto steps = j->task_steps(task);
  ASSERT_TRUE(steps.ok());
  int verdicts = 0;
  for (const auto& s : *steps)
    if (s.kind == "note" && s.payload.value("feedback", "") == "wrong" && s.payload.value("by", "") == "judge")
      ++verdicts;
  EXPECT_EQ(verdicts, 1);

  // A reworded question, in a new session.
  RunResult again = run_json(cfg, "Which city is Australia's capital?");
  ASSERT_EQ(again.exit_code, 0) << again.describe();
  auto shown = memory_events(again);
  ASSERT_EQ(shown.size(), 1u) << again.describe();
  EXPECT_EQ(shown[0]["data"]["memories"][0]["key"], "ErrorAnalysis_AustralianCapital");
  EXPECT_NE(again.result()["answer"].get<std::string>().find("Canberra"), std::string::npos) << again.describe();
}

TEST_F(E2eTest, NoCritiqueWhenErrorReflectionIsOff) {
  start_mock(R"(
rules:
  - match: { model: ceo-model }
    reply: { text: "Sydney." }
  - match: { model: judge-model }
    reply: { text: '{"status":"error","output":"Wrong city.","error_information":"Not Sydney."}' }
)");
  ConfigOptions o;
  o.extra =
      "judge: { final_answer: true, model: \"openai:judge-model\", max_retries: 0 }\n"
      "memory: { error_reflection: false }\n";
  RunResult r = run_json(write_config(o), "What is the capital of Australia?");
  ASSERT_EQ(r.exit_code, 1) << r.describe();
  EXPECT_TRUE(r.events("reflection").empty());
  EXPECT_EQ(requests_for("ceo-model").size(), 1u);
}

TEST_F(E2eTest, FeedbackOnAnUnknownTaskIsAUsageError) {
  start_mock("rules: []\n");
  const std::string cfg = write_config();
  RunResult r = kaisha({"feedback", "t-nope", "--wrong", "because", "--config", cfg});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_NE(r.err.find("no task 't-nope'"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace kaisha::e2e
