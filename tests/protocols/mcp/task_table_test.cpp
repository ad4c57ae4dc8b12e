// The tasks extension's task table: the state machine, input requests and
// their answers, cancellation, the cap and the TTL.
#include "protocols/mcp/server/task_table.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace kaisha::mcp {
namespace {

// A clock the test moves by hand.
struct FakeClock {
  std::shared_ptr<std::chrono::system_clock::time_point> now = std::make_shared<std::chrono::system_clock::time_point>(
      std::chrono::system_clock::time_point{} + std::chrono::hours(24 * 365 * 56));
  TaskTable::Clock clock() const {
    return [now = now] { return *now; };
  }
  void advance(std::chrono::milliseconds d) { *now += d; }
};

const json kTaskAsk{{"confirm", {{"method", "elicitation/create"}, {"params", {{"message", "Sure?"}}}}}};
const json kTaskYes{{"action", "accept"}, {"content", {{"confirm", true}}}};

std::string id_of(const Result<json>& created) { return (*created)["taskId"].get<std::string>(); }

// Waits (without a time limit a loaded machine could break) until the
// task reports `status`.
json wait_for_status(TaskTable& table, const std::string& id, const std::string& status) {
  while (true) {
    auto t = table.get(id);
    if (!t.ok() || (*t)["status"] == status) return t.ok() ? *t : json();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

TEST(TaskTable, ANewTaskIsWorkingWithItsWireFields) {
  FakeClock c;
  TaskTable table(
      TaskLimits{
          .max_live = 4, .ttl = std::chrono::milliseconds(60'000), .poll_interval = std::chrono::milliseconds(250)},
      c.clock());
  auto created = table.create();
  ASSERT_TRUE(created.ok()) << created.error().message;
  const json& t = *created;
  EXPECT_EQ(t["status"], "working");
  EXPECT_EQ(t["ttlMs"], 60'000);
  EXPECT_EQ(t["pollIntervalMs"], 250);
  EXPECT_EQ(t["taskId"].get<std::string>().size(), 32u);
  EXPECT_EQ(t["createdAt"], "2025-12-18T00:00:00.000Z");
  EXPECT_FALSE(t.contains("result"));
  EXPECT_FALSE(t.contains("ttl"));
  EXPECT_FALSE(t.contains("pollInterval"));
  EXPECT_NE(id_of(table.create()), t["taskId"].get<std::string>());
}

TEST(TaskTable, ACompletedTaskInlinesItsResultAndDoesNotChangeAgain) {
  TaskTable table;
  const std::string id = id_of(table.create());
  table.complete(id, json{{"content", json::array()}, {"isError", true}});
  auto t = table.get(id);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ((*t)["status"], "completed");
  EXPECT_EQ((*t)["result"]["isError"], true);
  EXPECT_FALSE(t->contains("error"));
  table.fail(id, json{{"code", -32603}, {"message", "late"}}, "late");
  ASSERT_TRUE(table.cancel(id).ok());  // acknowledged, and nothing changes
  EXPECT_EQ((*table.get(id))["status"], "completed");
}

TEST(TaskTable, AFailedTaskCarriesTheJsonRpcError) {
  TaskTable table;
  const std::string id = id_of(table.create());
  table.fail(id, json{{"code", -32603}, {"message", "boom"}}, "Tool execution failed: boom");
  auto t = table.get(id);
  EXPECT_EQ((*t)["status"], "failed");
  EXPECT_EQ((*t)["error"]["code"], -32603);
  EXPECT_EQ((*t)["statusMessage"], "Tool execution failed: boom");
  EXPECT_FALSE(t->contains("result"));
}

TEST(TaskTable, CancellingARunningTaskSetsItsFlagAndDropsItsLateResult) {
  TaskTable table;
  const std::string id = id_of(table.create());
  auto flag = table.cancel_flag(id);
  ASSERT_TRUE(flag);
  EXPECT_FALSE(flag->load());
  ASSERT_TRUE(table.cancel(id).ok());
  EXPECT_TRUE(flag->load());
  table.complete(id, json{{"content", json::array()}});
  EXPECT_EQ((*table.get(id))["status"], "cancelled");
}

TEST(TaskTable, UnknownTasksAreNotFound) {
  TaskTable table;
  EXPECT_EQ(table.get("nope").error().code, kTaskNotFound);
  EXPECT_EQ(table.cancel("nope").error().code, kTaskNotFound);
  EXPECT_EQ(table.update("nope", json::object()).error().code, kTaskNotFound);
  EXPECT_EQ(table.update("nope", json::array()).error().code, "invalid_params");
}

TEST(TaskTable, AskWaitsForTasksUpdateAndTheTaskShowsItsInputRequests) {
  TaskTable table;
  const std::string id = id_of(table.create());
  Result<json> answers = Error{"unset", ""};
  std::thread work([&] { answers = table.ask(id, kTaskAsk); });
  json t = wait_for_status(table, id, "input_required");
  EXPECT_EQ(t["inputRequests"], kTaskAsk);
  // An answer to a key never asked is ignored; the task still waits.
  ASSERT_TRUE(table.update(id, json{{"other", kTaskYes}}).ok());
  EXPECT_EQ((*table.get(id))["status"], "input_required");
  ASSERT_TRUE(table.update(id, json{{"confirm", kTaskYes}}).ok());
  work.join();
  ASSERT_TRUE(answers.ok()) << answers.error().message;
  EXPECT_EQ(*answers, json({{"confirm", kTaskYes}}));
  EXPECT_EQ((*table.get(id))["status"], "working");
}

TEST(TaskTable, APartialAnswerLeavesOnlyTheOtherKeyOutstanding) {
  TaskTable table;
  const std::string id = id_of(table.create());
  json two = kTaskAsk;
  two["second"] = kTaskAsk["confirm"];
  Result<json> answers = Error{"unset", ""};
  std::thread work([&] { answers = table.ask(id, two); });
  wait_for_status(table, id, "input_required");
  ASSERT_TRUE(table.update(id, json{{"confirm", kTaskYes}}).ok());
  json t = *table.get(id);
  EXPECT_EQ(t["status"], "input_required");
  EXPECT_FALSE(t["inputRequests"].contains("confirm"));
  EXPECT_TRUE(t["inputRequests"].contains("second"));
  ASSERT_TRUE(table.update(id, json{{"second", kTaskYes}}).ok());
  work.join();
  ASSERT_TRUE(answers.ok());
  EXPECT_EQ(answers->size(), 2u);
}

TEST(TaskTable, AKeyIsNeverReusedOverATasksLife) {
  TaskTable table;
  const std::string id = id_of(table.create());
  for (const char* wire : {"confirm", "confirm-2"}) {
    Result<json> answers = Error{"unset", ""};
    std::thread work([&] { answers = table.ask(id, kTaskAsk); });
    json t = wait_for_status(table, id, "input_required");
    ASSERT_TRUE(t["inputRequests"].contains(wire)) << t.dump();
    ASSERT_TRUE(table.update(id, json{{wire, kTaskYes}}).ok());
    work.join();
    ASSERT_TRUE(answers.ok());
    EXPECT_TRUE(answers->contains("confirm"));  // the asker sees its own key
  }
}

TEST(TaskTable, CancellingEndsAWaitingAsk) {
  TaskTable table;
  const std::string id = id_of(table.create());
  Result<json> answers = json::object();
  std::thread work([&] { answers = table.ask(id, kTaskAsk); });
  wait_for_status(table, id, "input_required");
  ASSERT_TRUE(table.cancel(id).ok());
  work.join();
  ASSERT_FALSE(answers.ok());
  EXPECT_EQ(answers.error().code, kTaskEnded);
  json t = *table.get(id);
  EXPECT_EQ(t["status"], "cancelled");
  EXPECT_FALSE(t.contains("inputRequests"));
}

TEST(TaskTable, TheCapRefusesNewTasksWithAClearError) {
  TaskTable table(TaskLimits{.max_live = 2});
  ASSERT_TRUE(table.create().ok());
  ASSERT_TRUE(table.create().ok());
  auto third = table.create();
  ASSERT_FALSE(third.ok());
  EXPECT_EQ(third.error().code, kTaskCapacity);
  EXPECT_NE(third.error().message.find("at most 2 tasks"), std::string::npos) << third.error().message;
}

TEST(TaskTable, TasksAreKeptForTheirTtlThenDiscardedAndRunningOnesCancelled) {
  FakeClock c;
  TaskTable table(TaskLimits{.max_live = 2, .ttl = std::chrono::milliseconds(1000)}, c.clock());
  const std::string done = id_of(table.create());
  table.complete(done, json::object());
  const std::string running = id_of(table.create());
  auto flag = table.cancel_flag(running);
  std::vector<std::string> told;
  table.set_listener(
      [&](const std::string& id, const json& t) { told.push_back(id + ":" + t["status"].get<std::string>()); });
  c.advance(std::chrono::milliseconds(999));
  EXPECT_TRUE(table.get(done).ok());
  EXPECT_FALSE(table.create().ok());  // still full
  c.advance(std::chrono::milliseconds(1));
  EXPECT_EQ(table.get(done).error().code, kTaskNotFound);
  EXPECT_EQ(table.get(running).error().code, kTaskNotFound);
  EXPECT_TRUE(flag->load());
  EXPECT_EQ(told, std::vector<std::string>{running + ":cancelled"});
  EXPECT_TRUE(table.create().ok());  // room again
}

TEST(TaskTable, TheListenerHearsEveryChangeOfStatus) {
  TaskTable table;
  std::vector<std::string> told;
  table.set_listener([&](const std::string&, const json& t) { told.push_back(t["status"].get<std::string>()); });
  const std::string id = id_of(table.create());
  std::thread work([&] { (void)table.ask(id, kTaskAsk); });
  wait_for_status(table, id, "input_required");
  ASSERT_TRUE(table.update(id, json{{"confirm", kTaskYes}}).ok());
  work.join();
  table.complete(id, json::object());
  EXPECT_EQ(told, (std::vector<std::string>{"input_required", "working", "completed"}));
}

// A restarted server takes its tasks back (restore): same id, creation
// time and TTL, which keeps counting from the creation; an ended task as it
// ended, a running one working again; the cap holds.
TEST(TaskTable, ARestoredTaskKeepsItsIdTimesAndTtl) {
  FakeClock c;
  TaskTable before(TaskLimits{.max_live = 2, .ttl = std::chrono::milliseconds(60'000)}, c.clock());
  const std::string running = id_of(before.create());
  const std::string done = id_of(before.create());
  before.complete(done, json{{"content", json::array({{{"type", "text"}, {"text", "答え"}}})}});
  auto running_snap = before.snapshot(running);
  auto done_snap = before.snapshot(done);
  ASSERT_TRUE(running_snap && done_snap);
  const json done_before = *before.get(done);

  c.advance(std::chrono::milliseconds(50'000));
  // The restarted server's limits changed: a kept task keeps its own TTL.
  TaskTable after(TaskLimits{.max_live = 2, .ttl = std::chrono::milliseconds(1'000)}, c.clock());
  ASSERT_TRUE(after.restore(*running_snap).ok());
  ASSERT_TRUE(after.restore(*done_snap).ok());
  EXPECT_EQ(after.restore(*done_snap).error().code, "exists");
  json r = *after.get(running);
  EXPECT_EQ(r["status"], "working");
  EXPECT_EQ(r["createdAt"], "2025-12-18T00:00:00.000Z");
  EXPECT_EQ(r["ttlMs"], 60'000);
  EXPECT_EQ(*after.get(done), done_before);
  TaskSnapshot third = *running_snap;
  third.id = std::string(32, 'c');
  EXPECT_EQ(after.restore(third).error().code, kTaskCapacity);

  c.advance(std::chrono::milliseconds(10'000));  // 60 s after creation
  EXPECT_EQ(after.get(running).error().code, kTaskNotFound);
  EXPECT_EQ(after.get(done).error().code, kTaskNotFound);
  EXPECT_EQ(after.restore(*running_snap).error().code, kTaskNotFound) << "an expired task is not taken back";
}

}  // namespace
}  // namespace kaisha::mcp
