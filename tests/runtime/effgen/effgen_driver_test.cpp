// The effgen driver fed scripted outcomes: what it asks for, in which order,
// and what it finishes with.
#include "runtime/effgen/effgen_driver.hpp"

#include <gtest/gtest.h>

#include "runtime/core/utf8.hpp"
#include "runtime/effgen/routing/router.hpp"

namespace kaisha::effgen {
namespace {

using namespace driver;

template <class T>
std::vector<T> all_of(const Effects& effects) {
  std::vector<T> out;
  for (const Effect& e : effects)
    if (const T* t = std::get_if<T>(&e)) out.push_back(*t);
  return out;
}

template <class T>
T only(const Effects& effects) {
  auto found = all_of<T>(effects);
  EXPECT_EQ(found.size(), 1u);
  return found.empty() ? T{} : found.front();
}

template <class T>
bool has(const Effects& effects) {
  return !all_of<T>(effects).empty();
}

bool has_report(const Effects& effects, const std::string& kind, const std::string& text_part = "") {
  for (const Report& r : all_of<Report>(effects))
    if (msg::event_kind_name(r.kind) == kind && r.text.find(text_part) != std::string::npos) return true;
  return false;
}

// The outcome of a hire that went through.
HireAnswered hired(const Hire& h) { return HireAnswered{h.id, true, false, "", json::object()}; }

// The outcome of an ask answered with `reply` at no cost.
AskAnswered answered(const Ask& a, const msg::AskReply& reply) {
  return AskAnswered{a.id, true, false, "", reply, 0, json::object()};
}

constexpr const char* kTwoIndependent = R"({"subtasks":[
  {"id":"st_1","description":"Research PyTorch","expected_output":"notes","depends_on":[]},
  {"id":"st_2","description":"Research TensorFlow","expected_output":"notes","depends_on":[]}],
  "reasoning":"independent"})";

json ample_budget() {
  return json{{"resource_budget_enabled", true},
              {"current_remaining_resource_budget", 100.0},
              {"expense_budget_enabled", true},
              {"current_remaining_expense_budget", 100.0}};
}

struct Fixture {
  int64_t now = 1000;
  EffgenSetup setup;

  explicit Fixture(routing::SpawnStrategy spawn, bool audit = false) {
    routing::RoutingConfig rc;
    rc.keywords_file = std::string(KAISHA_SOURCE_DIR) + "/data/effgen/complexity_keywords.yaml";
    rc.spawn_strategy = spawn;
    rc.enable_hierarchical = false;
    auto router = routing::Router::create(rc);
    EXPECT_TRUE(router.ok()) << router.error().message;
    setup.router = std::make_shared<const routing::Router>(std::move(router).value());
    setup.worker_cost.name = "worker-1b";
    setup.worker_cost.model_ref = "mock:worker-1b";
    setup.worker_cost.type = "local";
    setup.worker_cost.create_resource_cost = 1;
    setup.worker_cost.invoke_expense_cost = 0.001;
    setup.planner_cost.name = "planner-7b";
    setup.planner_cost.model_ref = "mock:planner-7b";
    setup.worker_system = "You are a worker.";
    setup.worker_task = "Task: {{task}}\nSubtask: {{subtask}}\nExpected: {{expected_output}}{{context}}";
    setup.synthesis = "Join for {{task}}:\n{{results}}";
    setup.decompose.emplace(routing::Strategy::hybrid, planning::PromptTemplate::from_text("Plan: {{task}}"));
    setup.audit = audit;
    setup.max_judge_retries = 3;
    setup.now_ms = [this] { return now += 10; };
    setup.listening = [] { return true; };
  }
};

TEST(EffgenDriver, ASimpleTaskGoesToOneHiredWorkerWhoseAnswerFinishesIt) {
  Fixture f(routing::SpawnStrategy::never);
  EffgenPlaybook book(f.setup);
  EffgenDriver d(book, "What is 6 times 7?");

  Effects e = d.start();
  EXPECT_EQ(only<Journal>(e).kind, msg::EventKind::note);
  EXPECT_TRUE(has_report(e, "plan", "single agent: spawn_strategy=never"));
  Hire hire = only<Hire>(e);
  EXPECT_EQ(hire.spec.name, "Worker1");
  EXPECT_EQ(hire.spec.model_ref, "mock:worker-1b");
  EXPECT_EQ(hire.spec.system_prompt, "You are a worker.");
  EXPECT_FALSE(has<CallModel>(e));  // routing costs no model call

  e = d.on(Outcome{hired(hire)});
  Ask ask = only<Ask>(e);
  EXPECT_EQ(ask.agent, "Worker1");
  EXPECT_EQ(ask.job, "task");
  EXPECT_EQ(ask.prompt, "What is 6 times 7?");  // no optimizer: as written

  msg::AskReply reply;
  reply.output = "42";
  reply.usage.input_tokens = 12;
  reply.usage.output_tokens = 3;
  e = d.on(Outcome{AskAnswered{ask.id, true, false, "", reply, 0.25, json::object()}});
  Journal answer = only<Journal>(e);
  EXPECT_EQ(answer.kind, msg::EventKind::llm_response);
  EXPECT_EQ(answer.agent, "Worker1");
  EXPECT_EQ(answer.tokens_in, 12);
  EXPECT_DOUBLE_EQ(answer.usd, 0.25);
  EXPECT_EQ(only<Fire>(e).agent, "Worker1");
  Finish fin = only<Finish>(e);
  EXPECT_TRUE(fin.ok);
  EXPECT_EQ(fin.text, "42");
  EXPECT_EQ(fin.metadata["strategy"], "effgen");
  EXPECT_EQ(fin.metadata["routing_strategy"], "single");
  EXPECT_EQ(fin.metadata["num_sub_agents"], 1);
  EXPECT_EQ(fin.metadata["fallback"], false);
  EXPECT_EQ(fin.metadata["backend"], "mock:worker-1b");
  EXPECT_TRUE(fin.metadata.contains("routing"));
  EXPECT_FALSE(fin.metadata.contains("speedup"));  // no DAG ran
  // The fire is last but one: the task's answer waits for it.
  EXPECT_TRUE(std::holds_alternative<Fire>(e[e.size() - 2]));
  EXPECT_TRUE(d.finished());
  EXPECT_TRUE(d.on(Outcome{answered(ask, reply)}).empty());
}

TEST(EffgenDriver, ARefusedHireEndsTheTaskWithTheLedgersReason) {
  Fixture f(routing::SpawnStrategy::never);
  EffgenPlaybook book(f.setup);
  EffgenDriver d(book, "hello");
  Hire hire = only<Hire>(d.start());
  Effects e = d.on(Outcome{HireAnswered{hire.id, false, true, "Not enough resource budget", json::object()}});
  Journal refusal = only<Journal>(e);
  EXPECT_EQ(refusal.kind, msg::EventKind::refusal);
  EXPECT_EQ(refusal.payload["hire"], "Worker1");
  EXPECT_FALSE(has<Fire>(e));  // nobody was hired
  Finish fin = only<Finish>(e);
  EXPECT_FALSE(fin.ok);
  EXPECT_EQ(fin.text, "Could not hire a worker: Not enough resource budget");
}

TEST(EffgenDriver, APlanRunsItsSubtasksSideBySideAndIsSynthesisedAfterTheWorkersAreFired) {
  Fixture f(routing::SpawnStrategy::always);
  EffgenPlaybook book(f.setup);
  EffgenDriver d(book, "Compare PyTorch and TensorFlow");

  CallModel plan_call = only<CallModel>(d.start());
  EXPECT_EQ(plan_call.purpose, "decomposition");
  EXPECT_FALSE(plan_call.await_settle);
  ASSERT_EQ(plan_call.request.messages.size(), 1u);
  EXPECT_EQ(plan_call.request.messages[0].content, "Plan: Compare PyTorch and TensorFlow");

  llm::ChatResponse plan;
  plan.message.content = kTwoIndependent;
  Effects e = d.on(Outcome{ModelAnswered{plan_call.id, true, false, "", plan, 0.01}});
  auto steps = all_of<Journal>(e);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].kind, msg::EventKind::llm_response);
  EXPECT_EQ(steps[1].payload["plan"].size(), 2u);
  ReadBudget read = only<ReadBudget>(e);
  EXPECT_FALSE(has<Hire>(e));  // the plan is priced before anybody is hired

  e = d.on(Outcome{BudgetRead{read.id, ample_budget()}});
  auto hires = all_of<Hire>(e);
  ASSERT_EQ(hires.size(), 2u);                               // as many as can run side by side
  EXPECT_TRUE(d.on(Outcome{hired(hires[0])}).size() == 1u);  // its report
  e = d.on(Outcome{hired(hires[1])});
  auto asks = all_of<Ask>(e);
  ASSERT_EQ(asks.size(), 2u);  // both subtasks at once, in plan order
  EXPECT_EQ(asks[0].job, "st_1");
  EXPECT_EQ(asks[0].agent, "Worker1");
  EXPECT_EQ(asks[1].job, "st_2");
  EXPECT_EQ(asks[1].agent, "Worker2");
  EXPECT_NE(asks[1].prompt.find("Subtask: Research TensorFlow"), std::string::npos);

  msg::AskReply r2;
  r2.output = "TF notes";
  e = d.on(Outcome{answered(asks[1], r2)});
  EXPECT_FALSE(has<Fire>(e));
  msg::AskReply r1;
  r1.output = "PT notes";
  e = d.on(Outcome{answered(asks[0], r1)});
  auto fires = all_of<Fire>(e);
  ASSERT_EQ(fires.size(), 2u);
  CallModel synth = only<CallModel>(e);
  EXPECT_EQ(synth.purpose, "synthesis");
  EXPECT_TRUE(synth.await_settle);
  const std::string& prompt = synth.request.messages.at(0).content;
  EXPECT_NE(prompt.find("PT notes"), std::string::npos);
  EXPECT_NE(prompt.find("TF notes"), std::string::npos);

  llm::ChatResponse joined;
  joined.message.content = "Both are fine.";
  e = d.on(Outcome{ModelAnswered{synth.id, true, false, "", joined, 0.02}});
  EXPECT_FALSE(has<Fire>(e));  // fired once only
  Finish fin = only<Finish>(e);
  EXPECT_TRUE(fin.ok);
  EXPECT_EQ(fin.text, "Both are fine.");
  EXPECT_EQ(fin.metadata["num_subtasks"], 2);
  EXPECT_EQ(fin.metadata["num_sub_agents"], 2);
  EXPECT_EQ(fin.metadata["subtasks"].size(), 2u);
  EXPECT_TRUE(fin.metadata.contains("speedup"));
  EXPECT_TRUE(fin.metadata.contains("plan_worst_case_expense"));
}

TEST(EffgenDriver, APlanBeyondTheExpenseBudgetIsRefusedBeforeAnyHire) {
  Fixture f(routing::SpawnStrategy::always);
  EffgenPlaybook book(f.setup);
  EffgenDriver d(book, "Compare PyTorch and TensorFlow");
  CallModel plan_call = only<CallModel>(d.start());
  llm::ChatResponse plan;
  plan.message.content = kTwoIndependent;
  ReadBudget read = only<ReadBudget>(d.on(Outcome{ModelAnswered{plan_call.id, true, false, "", plan, 0}}));
  json poor = ample_budget();
  poor["current_remaining_expense_budget"] = 0.0;
  Effects e = d.on(Outcome{BudgetRead{read.id, poor}});
  EXPECT_FALSE(has<Hire>(e));
  EXPECT_EQ(only<Journal>(e).kind, msg::EventKind::refusal);
  EXPECT_TRUE(has_report(e, "refusal", "The plan cannot be afforded: its 2 subtasks need up to $"));
  Finish fin = only<Finish>(e);
  EXPECT_FALSE(fin.ok);
  EXPECT_NE(fin.text.find("Authorise an increase (kaisha budget --raise-expense USD)."), std::string::npos);
}

TEST(EffgenDriver, AnUnusablePlanIsAskedForOnceMoreThenTheTaskFallsBackToOneWorker) {
  Fixture f(routing::SpawnStrategy::always);
  EffgenPlaybook book(f.setup);
  EffgenDriver d(book, "Compare PyTorch and TensorFlow");
  CallModel first = only<CallModel>(d.start());
  llm::ChatResponse junk;
  junk.message.content = "I would rather not.";
  Effects e = d.on(Outcome{ModelAnswered{first.id, true, false, "", junk, 0}});
  EXPECT_TRUE(has_report(e, "retry", "the decomposition was not usable: "));
  CallModel second = only<CallModel>(e);
  ASSERT_EQ(second.request.messages.size(), 3u);  // the prompt, the answer, the parser's complaint
  EXPECT_EQ(second.request.messages[1].content, "I would rather not.");

  e = d.on(Outcome{ModelAnswered{second.id, true, false, "", junk, 0}});
  EXPECT_TRUE(has_report(e, "plan", "single agent: no usable decomposition: "));
  Hire hire = only<Hire>(e);
  Ask ask = only<Ask>(d.on(Outcome{hired(hire)}));
  msg::AskReply reply;
  reply.output = "done alone";
  Finish fin = only<Finish>(d.on(Outcome{answered(ask, reply)}));
  EXPECT_TRUE(fin.ok);
  EXPECT_EQ(fin.metadata["fallback"], true);
}

TEST(EffgenDriver, TheJudgesRejectionGoesBackToTheWorkerWithItsFeedback) {
  Fixture f(routing::SpawnStrategy::never, /*audit=*/true);
  EffgenPlaybook book(f.setup);
  EffgenDriver d(book, "Give the boiling point of water");
  Hire hire = only<Hire>(d.start());
  Ask ask = only<Ask>(d.on(Outcome{hired(hire)}));
  msg::AskReply reply;
  reply.output = "100";
  Audit audit = only<Audit>(d.on(Outcome{answered(ask, reply)}));
  EXPECT_EQ(audit.producer, "Worker1");
  EXPECT_EQ(audit.instruction, "Give the boiling point of water");
  EXPECT_EQ(audit.claim, "100");

  JudgeRuled no;
  no.id = audit.id;
  no.verdict.status = planning::VerdictStatus::error;
  no.verdict.output = "Units are missing.";
  no.verdict.error_information = "no units";
  Effects e = d.on(Outcome{no});
  EXPECT_TRUE(has_report(e, "retry", "task: the judge rejected the result, asking again"));
  Ask again = only<Ask>(e);
  EXPECT_NE(again.prompt.find("A reviewer rejected your previous answer:\n"), std::string::npos);
  EXPECT_FALSE(has<Finish>(e));

  reply.output = "100 °C";
  Audit second = only<Audit>(d.on(Outcome{answered(again, reply)}));
  JudgeRuled yes;
  yes.id = second.id;
  yes.verdict.status = planning::VerdictStatus::success;
  yes.verdict.output = "ok";
  Finish fin = only<Finish>(d.on(Outcome{yes}));
  EXPECT_TRUE(fin.ok);
  EXPECT_EQ(fin.text, "100 °C");
  EXPECT_EQ(fin.metadata["judge_calls"], 2);
}

TEST(EffgenDriver, AJudgeThatDoesNotAnswerFailsTheJob) {
  Fixture f(routing::SpawnStrategy::never, /*audit=*/true);
  EffgenPlaybook book(f.setup);
  EffgenDriver d(book, "hello");
  Hire hire = only<Hire>(d.start());
  Ask ask = only<Ask>(d.on(Outcome{hired(hire)}));
  msg::AskReply reply;
  reply.output = "hi";
  Audit audit = only<Audit>(d.on(Outcome{answered(ask, reply)}));
  JudgeRuled lost;
  lost.id = audit.id;
  lost.kind = JudgeRuled::Kind::no_answer;
  lost.error = "timeout";
  Finish fin = only<Finish>(d.on(Outcome{lost}));
  EXPECT_FALSE(fin.ok);
  EXPECT_EQ(fin.text, "The worker could not complete the task: the judge did not answer: timeout");
}

TEST(EffgenDriver, CancelFiresTheWorkersAndFinishesWithTheReason) {
  Fixture f(routing::SpawnStrategy::never);
  EffgenPlaybook book(f.setup);
  EffgenDriver d(book, "hello");
  Hire hire = only<Hire>(d.start());
  Ask ask = only<Ask>(d.on(Outcome{hired(hire)}));
  Effects e = d.cancel("canceled by the user");
  EXPECT_EQ(only<Fire>(e).agent, "Worker1");
  Finish fin = only<Finish>(e);
  EXPECT_FALSE(fin.ok);
  EXPECT_EQ(fin.text, "canceled by the user");
  // The late answer finds no task.
  msg::AskReply reply;
  EXPECT_TRUE(d.on(Outcome{answered(ask, reply)}).empty());
}

TEST(EffgenDriver, JapaneseAndEmojiReachTheWorkerWholeAndTheProgressPreviewIsCutAtACharacter) {
  Fixture f(routing::SpawnStrategy::never);
  EffgenPlaybook book(f.setup);
  std::string input;
  for (int i = 0; i < 40; ++i) input += "東京の川🌊";  // 16 bytes each: the 200-byte preview falls inside a character
  EffgenDriver d(book, input);
  Hire hire = only<Hire>(d.start());
  Effects e = d.on(Outcome{hired(hire)});
  EXPECT_EQ(only<Ask>(e).prompt, input);
  bool previewed = false;
  for (const Report& r : all_of<Report>(e)) {
    if (r.kind != msg::EventKind::ask) continue;
    previewed = true;
    EXPECT_TRUE(utf8::valid(r.text)) << r.text;
    EXPECT_LT(r.text.size(), input.size());
  }
  EXPECT_TRUE(previewed);
  msg::AskReply reply;
  reply.output = "はい、できました 🎉";
  Finish fin = only<Finish>(d.on(Outcome{answered(only<Ask>(e), reply)}));
  EXPECT_EQ(fin.text, "はい、できました 🎉");
}

TEST(EffgenDriver, AnswersWithUnknownIdsChangeNothing) {
  Fixture f(routing::SpawnStrategy::never);
  EffgenPlaybook book(f.setup);
  EffgenDriver d(book, "hello");
  Hire hire = only<Hire>(d.start());
  EXPECT_TRUE(d.on(Outcome{HireAnswered{hire.id + 100, true, false, "", json::object()}}).empty());
  EXPECT_TRUE(d.on(Outcome{BudgetRead{hire.id, json::object()}}).empty());
  EXPECT_EQ(only<Ask>(d.on(Outcome{hired(hire)})).agent, "Worker1");
}

}  // namespace
}  // namespace kaisha::effgen

namespace kaisha::effgen {
namespace {

using namespace driver;

// The company's memory on the effgen path: memories are recalled before
// the task is routed and go with it to the worker; a task that succeeded is
// stored as a memory before it finishes, and one that could not be stored
// is noted without failing the task.
TEST(EffgenDriverMemory, RecalledMemoriesGoWithTheTaskAndASuccessIsRememberedBeforeItFinishes) {
  Fixture f(routing::SpawnStrategy::never);
  f.setup.recall = true;
  f.setup.remember = true;
  f.setup.memory_note = "Task: {{task}} | how: {{how}} | answer: {{answer}}";
  EffgenPlaybook book(f.setup);
  EffgenDriver d(book, "東京の人口は? 🗼");

  Effects e = d.start();
  Recall recall = only<Recall>(e);
  EXPECT_EQ(recall.query, "東京の人口は? 🗼");
  EXPECT_FALSE(has<Hire>(e)) << "routed only once the memories are in";

  json found{{"injection", "Here are the relevant memories: [\"Tokyo has 14 million people\"]"},
             {"transcript", "memories: ['Tokyo has 14 million people']"},
             {"memories", json::array({{{"key", "tokyo"}, {"memory", "Tokyo has 14 million people"}}})}};
  e = d.on(Outcome{Recalled{recall.id, found}});
  EXPECT_TRUE(has_report(e, "memories", "Tokyo has 14 million people"));
  Hire hire = only<Hire>(e);
  e = d.on(Outcome{hired(hire)});
  Ask ask = only<Ask>(e);
  EXPECT_EQ(ask.prompt, "Here are the relevant memories: [\"Tokyo has 14 million people\"]\n\n東京の人口は? 🗼");

  msg::AskReply reply;
  reply.output = "約1400万人";
  e = d.on(Outcome{answered(ask, reply)});
  EXPECT_FALSE(has<Finish>(e)) << "the memory first";
  RunTool store = only<RunTool>(e);
  EXPECT_EQ(store.tool, "MemoryManager");
  const json args = json::parse(store.arguments);
  EXPECT_EQ(args["action"], "add_memory");
  EXPECT_EQ(args["key"], "effgen: 東京の人口は? 🗼");
  EXPECT_EQ(args["memory"], "Task: 東京の人口は? 🗼 | how: one worker | answer: 約1400万人");

  e = d.on(Outcome{ToolRan{store.id, company::ToolResult::success("stored")}});
  Finish fin = only<Finish>(e);
  EXPECT_TRUE(fin.ok);
  EXPECT_EQ(fin.text, "約1400万人");
  EXPECT_EQ(fin.metadata["retrieved_memories"], 1);
  EXPECT_EQ(fin.metadata["stored_memory"], true);
}

TEST(EffgenDriverMemory, AMemoryThatCannotBeStoredIsNotedAndARetrievalErrorIsReported) {
  Fixture f(routing::SpawnStrategy::never);
  f.setup.recall = true;
  f.setup.remember = true;
  f.setup.memory_note = "{{task}} {{how}} {{answer}}";
  EffgenPlaybook book(f.setup);
  EffgenDriver d(book, "hello");
  Recall recall = only<Recall>(d.start());
  Effects e = d.on(Outcome{Recalled{recall.id, json{{"error", "the embedding model is down"}}}});
  EXPECT_TRUE(has_report(e, "error", "memory retrieval failed: the embedding model is down"));
  e = d.on(Outcome{hired(only<Hire>(e))});
  Ask ask = only<Ask>(e);
  EXPECT_EQ(ask.prompt, "hello");
  msg::AskReply reply;
  reply.output = "hi";
  RunTool store = only<RunTool>(d.on(Outcome{answered(ask, reply)}));
  e = d.on(Outcome{ToolRan{store.id, company::ToolResult::error("a memory with key 'effgen: hello' exists")}});
  EXPECT_EQ(only<Journal>(e).payload["memory_not_stored"], "a memory with key 'effgen: hello' exists");
  Finish fin = only<Finish>(e);
  EXPECT_TRUE(fin.ok);
  EXPECT_EQ(fin.metadata["retrieved_memories"], 0);
  EXPECT_FALSE(fin.metadata.contains("stored_memory"));
}

TEST(EffgenDriverMemory, AFailedOrCanceledTaskIsNotRemembered) {
  Fixture f(routing::SpawnStrategy::never);
  f.setup.remember = true;
  f.setup.memory_note = "{{task}} {{how}} {{answer}}";
  EffgenPlaybook book(f.setup);
  EffgenDriver failed(book, "hello");
  Hire hire = only<Hire>(failed.start());
  Effects e = failed.on(Outcome{HireAnswered{hire.id, false, true, "Not enough resource budget", json::object()}});
  EXPECT_FALSE(has<RunTool>(e));
  EXPECT_FALSE(only<Finish>(e).ok);

  EffgenDriver canceled(book, "hello");
  hire = only<Hire>(canceled.start());
  e = canceled.on(Outcome{hired(hire)});
  e = canceled.cancel("the user stopped it");
  EXPECT_FALSE(has<RunTool>(e));
  EXPECT_EQ(only<Finish>(e).text, "the user stopped it");
}

}  // namespace
}  // namespace kaisha::effgen
