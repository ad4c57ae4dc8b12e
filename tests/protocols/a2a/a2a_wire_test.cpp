#include "protocols/a2a/a2a_wire.hpp"
#include "protocols/a2a/company_agent.hpp"

#include <gtest/gtest.h>

#include <set>

namespace kaisha::a2a {
namespace {

using company::TaskState;

TEST(A2aWire, MethodNamesOfBothErasMapToOneCanonicalName) {
  auto v1 = classify_method("SendMessage");
  ASSERT_TRUE(v1);
  EXPECT_EQ(v1->canonical, "SendMessage");
  EXPECT_EQ(v1->version, WireVersion::v1_0);
  auto v03 = classify_method("message/stream");
  ASSERT_TRUE(v03);
  EXPECT_EQ(v03->canonical, "SendStreamingMessage");
  EXPECT_EQ(v03->version, WireVersion::v0_3);
  EXPECT_EQ(classify_method("tasks/cancel")->canonical, "CancelTask");
  EXPECT_EQ(classify_method("tasks/get")->canonical, "GetTask");
  EXPECT_FALSE(classify_method("tasks/list"));  // v0.3 had no ListTasks
  EXPECT_FALSE(classify_method("sendMessage"));
}

TEST(A2aWire, VersionHeaderMissingMeansZeroThreeAndUnknownIsRefused) {
  EXPECT_EQ(*parse_version_header(""), WireVersion::v0_3);
  EXPECT_EQ(*parse_version_header("0.3"), WireVersion::v0_3);
  EXPECT_EQ(*parse_version_header("1.0"), WireVersion::v1_0);
  auto bad = parse_version_header("2.0");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, "-32009");
  EXPECT_NE(bad.error().message.find("'2.0'"), std::string::npos);
}

TEST(A2aWire, EveryKaishaStateRoundTripsThroughBothEras) {
  for (TaskState s :
       {TaskState::submitted, TaskState::working, TaskState::completed, TaskState::failed, TaskState::canceled}) {
    for (WireVersion v : {WireVersion::v1_0, WireVersion::v0_3}) {
      auto back = parse_state(state_name(s, v));
      ASSERT_TRUE(back.ok()) << state_name(s, v);
      EXPECT_EQ(back->state, s);
      EXPECT_EQ(back->terminal, company::is_final(s));
    }
  }
  EXPECT_EQ(state_name(TaskState::canceled, WireVersion::v1_0), "TASK_STATE_CANCELED");
  EXPECT_EQ(state_name(TaskState::working, WireVersion::v0_3), "working");
}

TEST(A2aWire, StatesKaishaDoesNotHaveAreReportedNotGuessed) {
  auto rejected = parse_state(json("TASK_STATE_REJECTED"));
  ASSERT_TRUE(rejected.ok());
  EXPECT_FALSE(rejected->state);
  EXPECT_TRUE(rejected->terminal);
  auto input = parse_state(json("input-required"));
  ASSERT_TRUE(input.ok());
  EXPECT_TRUE(input->interrupted);
  EXPECT_EQ(input->name, "input-required");
  EXPECT_FALSE(parse_state(json("TASK_STATE_BOGUS")).ok());
  EXPECT_FALSE(parse_state(json(3)).ok());
}

TEST(A2aWire, ReadsMessagesOfBothEras) {
  json v1 = {{"messageId", "m1"}, {"role", "ROLE_USER"}, {"parts", {{{"text", "hello"}}, {{"data", {{"k", 1}}}}}}};
  auto a = read_message(v1);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->message_id, "m1");
  EXPECT_EQ(a->role, "user");
  EXPECT_EQ(a->text, "hello\n{\"k\":1}");
  json v03 = {{"kind", "message"},
              {"messageId", "m2"},
              {"role", "user"},
              {"contextId", "c"},
              {"parts", {{{"kind", "text"}, {"text", "hi"}}}}};
  auto b = read_message(v03);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->text, "hi");
  EXPECT_EQ(b->context_id, "c");
}

TEST(A2aWire, MalformedMessagesNameTheField) {
  auto no_role = read_message(json{{"parts", {{{"text", "x"}}}}});
  ASSERT_FALSE(no_role.ok());
  EXPECT_NE(no_role.error().message.find("params.message.role"), std::string::npos);
  auto no_parts = read_message(json{{"role", "user"}, {"parts", json::array()}});
  ASSERT_FALSE(no_parts.ok());
  EXPECT_NE(no_parts.error().message.find("params.message.parts"), std::string::npos);
  auto bad_text = read_message(json{{"role", "user"}, {"parts", {{{"text", 5}}}}});
  ASSERT_FALSE(bad_text.ok());
  EXPECT_NE(bad_text.error().message.find("parts[0].text"), std::string::npos);
  auto empty_part = read_message(json{{"role", "user"}, {"parts", {json::object()}}});
  ASSERT_FALSE(empty_part.ok());
  EXPECT_NE(empty_part.error().message.find("parts[0]"), std::string::npos);
  auto bad_url = read_message(json{{"role", "user"}, {"parts", {{{"url", 3}}}}});
  ASSERT_FALSE(bad_url.ok());
  EXPECT_NE(bad_url.error().message.find("parts[0].url"), std::string::npos);
  EXPECT_FALSE(read_message(json("text")).ok());
  EXPECT_FALSE(read_message(json{{"role", "user"}, {"messageId", 7}, {"parts", {{{"text", "x"}}}}}).ok());
}

company::TaskInfo done_task() {
  company::TaskInfo t;
  t.id = "t1";
  t.input = "write a haiku";
  t.state = TaskState::completed;
  t.answer = "an old silent pond";
  t.created_ms = 1700000000000;
  t.updated_ms = 1700000000123;
  return t;
}

TEST(A2aWire, TaskInV1HasProtoJsonShapes) {
  json t = task_json(company_task(done_task(), "s1"), WireVersion::v1_0);
  EXPECT_EQ(t["id"], "t1");
  EXPECT_EQ(t["contextId"], "s1");
  EXPECT_FALSE(t.contains("kind"));
  EXPECT_EQ(t["status"]["state"], "TASK_STATE_COMPLETED");
  EXPECT_EQ(t["status"]["timestamp"], "2023-11-14T22:13:20.123Z");
  ASSERT_EQ(t["artifacts"].size(), 1u);
  EXPECT_EQ(t["artifacts"][0]["parts"][0]["text"], "an old silent pond");
  EXPECT_EQ(t["history"][0]["role"], "ROLE_USER");
  EXPECT_EQ(t["history"][0]["parts"][0]["text"], "write a haiku");
  EXPECT_EQ(send_result(t, WireVersion::v1_0)["task"], t);
}

// The questions a task asked and the answers it got follow its first message
// in its history, in order; the question waiting now is its status message.
TEST(A2aWire, HistoryHoldsEachQuestionAndAnswer) {
  company::TaskInfo t = done_task();
  t.state = TaskState::input_required;
  t.answer.clear();
  t.exchanges = {{"どの都市ですか？", "大阪 🏯"}, {"何日ですか？", "明日"}};
  t.question = "午前ですか？";
  json j = task_json(company_task(t, "s1"), WireVersion::v1_0);
  ASSERT_EQ(j["history"].size(), 5u) << j.dump();
  const std::vector<std::pair<std::string, std::string>> want = {{"ROLE_USER", "write a haiku"},
                                                                 {"ROLE_AGENT", "どの都市ですか？"},
                                                                 {"ROLE_USER", "大阪 🏯"},
                                                                 {"ROLE_AGENT", "何日ですか？"},
                                                                 {"ROLE_USER", "明日"}};
  std::set<std::string> ids;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(j["history"][i]["role"], want[i].first) << i;
    EXPECT_EQ(j["history"][i]["parts"][0]["text"], want[i].second) << i;
    ids.insert(j["history"][i]["messageId"].get<std::string>());
  }
  ids.insert(j["status"]["message"]["messageId"].get<std::string>());
  EXPECT_EQ(ids.size(), 6u);  // every message has its own id
  EXPECT_EQ(j["status"]["message"]["parts"][0]["text"], "午前ですか？");
  EXPECT_EQ(task_json(company_task(t, "s1"), WireVersion::v1_0, 2)["history"][0]["parts"][0]["text"],
            "何日ですか？");  // historyLength keeps the latest
}

TEST(A2aWire, TaskInV03HasKindsAndLowercaseStates) {
  json t = task_json(company_task(done_task(), "s1"), WireVersion::v0_3, 0);
  EXPECT_EQ(t["kind"], "task");
  EXPECT_EQ(t["status"]["state"], "completed");
  EXPECT_EQ(t["artifacts"][0]["parts"][0]["kind"], "text");
  EXPECT_TRUE(t["history"].empty());  // historyLength 0
  EXPECT_EQ(send_result(t, WireVersion::v0_3), t);
}

TEST(A2aWire, FailedTaskCarriesItsErrorAsAStatusMessage) {
  company::TaskInfo t = done_task();
  t.state = TaskState::failed;
  t.answer.clear();
  t.error = "expense budget exhausted";
  json j = task_json(company_task(t, "s1"), WireVersion::v1_0);
  EXPECT_EQ(j["status"]["state"], "TASK_STATE_FAILED");
  EXPECT_EQ(j["status"]["message"]["role"], "ROLE_AGENT");
  EXPECT_EQ(j["status"]["message"]["parts"][0]["text"], "expense budget exhausted");
  EXPECT_TRUE(j["artifacts"].empty());
}

TEST(A2aWire, StreamEventsReadBackInBothEras) {
  for (WireVersion v : {WireVersion::v1_0, WireVersion::v0_3}) {
    auto task = read_stream_event(stream_task(task_json(company_task(done_task(), "s1"), v), v));
    ASSERT_TRUE(task.ok()) << task.error().message;
    EXPECT_EQ(task->kind, StreamEvent::Kind::task);
    EXPECT_EQ(task->task_id, "t1");
    EXPECT_EQ(task->text, "an old silent pond");
    EXPECT_EQ(task->state.state, TaskState::completed);

    auto status = read_stream_event(stream_status("t1", "s1", a2a::TaskState::failed, 0,
                                                  agent_message("m", "no budget", "s1", "t1", WireVersion::v1_0), v));
    ASSERT_TRUE(status.ok());
    EXPECT_EQ(status->kind, StreamEvent::Kind::status);
    EXPECT_EQ(status->state.state, TaskState::failed);
    EXPECT_TRUE(status->state.terminal);
    EXPECT_EQ(status->text, "no budget");

    auto art = read_stream_event(stream_artifact(
        "t1", "s1", Artifact{"a1", "answer", json::array({text_part("pond", WireVersion::v1_0)})}, false, true, v));
    ASSERT_TRUE(art.ok());
    EXPECT_EQ(art->kind, StreamEvent::Kind::artifact);
    EXPECT_EQ(art->text, "pond");

    json msg = agent_message("m", "echo: hi", "", "", v);
    auto m = read_stream_event(v == WireVersion::v1_0 ? json{{"message", msg}} : msg);
    ASSERT_TRUE(m.ok());
    EXPECT_EQ(m->kind, StreamEvent::Kind::message);
    EXPECT_EQ(m->text, "echo: hi");
  }
  json v03_final = stream_status("t1", "s1", a2a::TaskState::completed, 0, nullptr, WireVersion::v0_3);
  EXPECT_EQ(v03_final["final"], true);
  EXPECT_EQ(v03_final["kind"], "status-update");
}

TEST(A2aWire, UnknownStreamPayloadsAreErrors) {
  EXPECT_FALSE(read_stream_event(json{{"foo", 1}}).ok());
  EXPECT_FALSE(read_stream_event(json("x")).ok());
  EXPECT_FALSE(read_stream_event(json{{"statusUpdate", {{"taskId", "t"}}}}).ok());  // no status
  EXPECT_FALSE(read_stream_event(json{{"task", {{"id", "t"}, {"status", {{"state", "nope"}}}}}}).ok());
}

TEST(A2aWire, IsoTimestampsReadBackToTheSameInstant) {
  const int64_t ms = 1764410400123;  // 2025-11-29T10:00:00.123Z
  EXPECT_EQ(parse_iso_timestamp(iso_timestamp(ms)), ms);
  EXPECT_EQ(parse_iso_timestamp("2025-11-29T10:00:00Z"), 1764410400000);
  EXPECT_EQ(parse_iso_timestamp("2025-11-29T19:00:00+09:00"), 1764410400000);
  EXPECT_EQ(parse_iso_timestamp("2025-11-29T10:00:00.5Z"), 1764410400500);
  EXPECT_EQ(parse_iso_timestamp("2025-11-29T10:00:00.123456789Z"), 1764410400123);
  for (const char* bad :
       {"", "2025-11-29", "2025-11-29T10:00:00", "2025-13-01T00:00:00Z", "2025-02-30T00:00:00Z",
        "2025-11-29T10:00:00.Z", "2025-11-29T10:00:00Zjunk", "2025-11-29T25:00:00Z", "2025-11-29T10:00:00+0900"})
    EXPECT_FALSE(parse_iso_timestamp(bad).has_value()) << bad;
}

}  // namespace
}  // namespace kaisha::a2a
