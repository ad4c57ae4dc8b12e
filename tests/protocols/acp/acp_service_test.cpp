#include "protocols/acp/acp_service.hpp"

#include <gtest/gtest.h>

#include <mutex>

#include "tests/protocols/fake_company_service.hpp"

namespace kaisha::acp {
namespace {

using testing::FakeCompanyService;

std::string run_body(const std::string& text, const std::string& mode, json extra = json::object()) {
  json b{{"agent_name", "kaisha"},
         {"mode", mode},
         {"input", {{{"role", "user"}, {"parts", {{{"content_type", "text/plain"}, {"content", text}}}}}}}};
  b.update(extra);
  return b.dump();
}

RunRequest parsed(const AcpService& s, const std::string& body) {
  AcpReply err;
  auto r = s.parse_run_request(body, &err);
  EXPECT_TRUE(r.ok()) << err.body.dump();
  return r.ok() ? *r : RunRequest{};
}

std::vector<std::string> types(const json& events) {
  std::vector<std::string> out;
  for (const auto& e : events) out.push_back(e["type"]);
  return out;
}

TEST(AcpRun, SevenStatesRoundTripAndTerminalOnesAreThree) {
  int terminal = 0;
  for (auto s : {RunStatus::created, RunStatus::in_progress, RunStatus::awaiting, RunStatus::cancelling,
                 RunStatus::cancelled, RunStatus::completed, RunStatus::failed}) {
    EXPECT_EQ(run_status_from(to_string(s)), s);
    terminal += is_terminal(s);
  }
  EXPECT_EQ(terminal, 3);
  EXPECT_EQ(std::string(to_string(RunStatus::in_progress)), "in-progress");
  EXPECT_FALSE(run_status_from("running"));
  EXPECT_EQ(run_status_of(company::TaskState::canceled), RunStatus::cancelled);
  EXPECT_EQ(run_status_of(company::TaskState::submitted), RunStatus::created);
}

TEST(AcpRun, UuidsAreVersionFourAndChecked) {
  const std::string u = new_uuid();
  EXPECT_TRUE(is_uuid(u)) << u;
  EXPECT_EQ(u[14], '4');
  EXPECT_NE(u, new_uuid());
  EXPECT_FALSE(is_uuid("t1"));
  EXPECT_FALSE(is_uuid("123e4567-e89b-12d3-a456-42661417400g"));
}

TEST(AcpRun, InputTextJoinsMessagesAndNamesBadParts) {
  json in = {{{"role", "user"}, {"parts", {{{"content", "a"}}, {{"content", "b"}}}}},
             {{"role", "user"}, {"parts", {{{"content_type", "text/markdown"}, {"content", "c"}}}}}};
  EXPECT_EQ(*input_text(in), "ab\n\nc");
  auto img = input_text(json{{{"parts", {{{"content_type", "image/png"}, {"content", "xx"}}}}}});
  ASSERT_FALSE(img.ok());
  EXPECT_NE(img.error().message.find("input[0].parts[0]"), std::string::npos);
  EXPECT_FALSE(input_text(json::array()).ok());
  EXPECT_FALSE(input_text(json{{{"parts", {{{"content", 5}}}}}}).ok());
  EXPECT_FALSE(input_text(json{{{"parts", {{{"content_url", "http://x"}}}}}}).ok());
}

TEST(AcpService, PingAgentsAndUnknownAgent) {
  FakeCompanyService company;
  AcpService s(company);
  EXPECT_EQ(s.ping().body, json::object());
  AcpReply a = s.agents(10, 0);
  ASSERT_EQ(a.body["agents"].size(), 1u);
  EXPECT_EQ(a.body["agents"][0]["name"], "kaisha");
  EXPECT_EQ(a.body["agents"][0]["input_content_types"], json::array({"text/plain"}));
  EXPECT_TRUE(s.agents(10, 1).body["agents"].empty());
  AcpReply none = s.agent("nope");
  EXPECT_EQ(none.status, 404);
  EXPECT_EQ(none.body["code"], "not_found");
}

TEST(AcpService, SyncRunAnswersWithTheCompletedRun) {
  FakeCompanyService company;
  company.auto_answer = [](const std::string& in) { return "answer: " + in; };
  AcpService s(company);
  AcpReply r = s.start_run(parsed(s, run_body("hello", "sync")));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body["status"], "completed");
  EXPECT_TRUE(is_uuid(r.body["run_id"].get<std::string>()));
  EXPECT_EQ(r.headers["Run-ID"], r.body["run_id"]);
  EXPECT_EQ(r.body["output"][0]["role"], "agent/kaisha");
  EXPECT_EQ(r.body["output"][0]["parts"][0]["content"], "answer: hello");
  EXPECT_FALSE(r.body["finished_at"].is_null());
  AcpReply ev = s.run_events(r.body["run_id"]);
  EXPECT_EQ(types(ev.body["events"]),
            (std::vector<std::string>{"run.created", "run.in-progress", "generic", "message.created", "message.part",
                                      "message.completed", "run.completed"}));
}

TEST(AcpService, AsyncRunIsAcceptedThenFollowsTheTask) {
  FakeCompanyService company;
  AcpService s(company);
  AcpReply r = s.start_run(parsed(s, run_body("long", "async")));
  EXPECT_EQ(r.status, 202);
  EXPECT_EQ(r.body["status"], "created");
  const std::string id = r.body["run_id"];
  company.start("t1", "thinking");
  EXPECT_EQ(s.get_run(id).body["status"], "in-progress");
  company.fail("t1", "no budget left");
  json run = s.get_run(id).body;
  EXPECT_EQ(run["status"], "failed");
  EXPECT_EQ(run["error"]["code"], "server_error");
  EXPECT_EQ(run["error"]["message"], "no budget left");
  EXPECT_EQ(types(s.run_events(id).body["events"]).back(), "run.failed");
}

TEST(AcpService, CancelGoesThroughCancellingToCancelled) {
  FakeCompanyService company;
  AcpService s(company);
  const std::string id = s.start_run(parsed(s, run_body("x", "async"))).body["run_id"];
  company.start("t1", "busy");
  AcpReply c = s.cancel_run(id);
  EXPECT_EQ(c.status, 202);
  EXPECT_EQ(c.body["status"], "cancelling");
  EXPECT_EQ(company.cancels, 1);
  EXPECT_EQ(s.get_run(id).body["status"], "cancelled");
  AcpReply again = s.cancel_run(id);
  EXPECT_EQ(again.status, 403);
  EXPECT_EQ(company.cancels, 1);
  EXPECT_EQ(s.cancel_run("nope").status, 404);
}

TEST(AcpService, StreamDeliversEveryEventInOrderAndEnds) {
  FakeCompanyService company;
  AcpService s(company);
  std::vector<json> got;
  int done = 0;
  const std::string id = s.stream_run(
                              parsed(s, run_body("go", "stream")),
                              [&](const json& e) {
                                got.push_back(e);
                                return true;
                              },
                              [&] { ++done; })
                             .run_id;
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0]["type"], "run.created");
  EXPECT_EQ(got[0]["run"]["run_id"], id);
  company.start("t1", "planning");
  company.complete("t1", "fin");
  EXPECT_EQ(done, 1);
  EXPECT_EQ(types(got), types(s.run_events(id).body["events"]));
  EXPECT_EQ(got.back()["type"], "run.completed");
  EXPECT_EQ(got.back()["run"]["output"][0]["parts"][0]["content"], "fin");
  std::string parts;
  for (const auto& e : got)
    if (e["type"] == "message.part") parts += e["part"]["content"].get<std::string>();
  EXPECT_EQ(parts, "fin");
}

TEST(AcpService, StreamWhosePeerLeftIsDropped) {
  FakeCompanyService company;
  AcpService s(company);
  int sent = 0, done = 0;
  s.stream_run(
      parsed(s, run_body("go", "stream")), [&](const json&) { return ++sent < 2; }, [&] { ++done; });
  company.start("t1", "planning");  // the second send fails
  EXPECT_EQ(done, 1);
  company.complete("t1", "fin");
  EXPECT_EQ(done, 1);
  EXPECT_EQ(sent, 2);
}

// The HTTP server calls `stop` when the stream's client goes away: the run
// lets go of the stream at once, not at its next event.
TEST(AcpService, AStoppedStreamIsReleasedAtOnce) {
  FakeCompanyService company;
  AcpService s(company);
  int sent = 0, done = 0;
  auto stream = s.stream_run(
      parsed(s, run_body("go", "stream")), [&](const json&) { return ++sent > 0; }, [&] { ++done; });
  EXPECT_EQ(sent, 1);
  stream.stop();
  EXPECT_EQ(done, 1);
  company.start("t1", "planning");
  company.complete("t1", "fin");
  EXPECT_EQ(sent, 1) << "a stopped stream was sent events";
  EXPECT_EQ(done, 1);
  stream.stop();  // again: nothing
  EXPECT_EQ(done, 1);
}

TEST(AcpService, ARefusedSubmissionFailsTheRunAndEndsItsStream) {
  FakeCompanyService company;
  company.refuse = Error{"stopping", "the company is shutting down"};
  AcpService s(company);
  AcpReply sync = s.start_run(parsed(s, run_body("late", "sync")));
  EXPECT_EQ(sync.body["status"], "failed");
  EXPECT_EQ(sync.body["error"]["message"], "the company refused the task: the company is shutting down");
  EXPECT_FALSE(sync.body["finished_at"].is_null());

  std::vector<json> got;
  int done = 0;
  const std::string id = s.stream_run(
                              parsed(s, run_body("late", "stream")),
                              [&](const json& e) {
                                got.push_back(e);
                                return true;
                              },
                              [&] { ++done; })
                             .run_id;
  EXPECT_EQ(done, 1);
  EXPECT_EQ(types(got), (std::vector<std::string>{"run.created", "run.failed"}));
  EXPECT_EQ(s.get_run(id).body["status"], "failed");
  EXPECT_TRUE(company.inputs.empty());
}

TEST(AcpService, BadRunRequestsGetAcpErrors) {
  FakeCompanyService company;
  AcpService s(company);
  AcpReply err;
  EXPECT_FALSE(s.parse_run_request("{", &err).ok());
  EXPECT_EQ(err.status, 400);
  EXPECT_EQ(err.body["code"], "invalid_input");
  EXPECT_FALSE(s.parse_run_request(json{{"input", json::array()}}.dump(), &err).ok());
  EXPECT_NE(err.body["message"].get<std::string>().find("agent_name"), std::string::npos);
  EXPECT_FALSE(s.parse_run_request(run_body("x", "turbo"), &err).ok());
  EXPECT_NE(err.body["message"].get<std::string>().find("mode"), std::string::npos);
  EXPECT_FALSE(s.parse_run_request(run_body("x", "sync", {{"session_id", "abc"}}), &err).ok());
  EXPECT_NE(err.body["message"].get<std::string>().find("session_id"), std::string::npos);
  json unknown = json::parse(run_body("x", "sync"));
  unknown["agent_name"] = "other";
  EXPECT_FALSE(s.parse_run_request(unknown.dump(), &err).ok());
  EXPECT_EQ(err.status, 404);
  EXPECT_TRUE(company.inputs.empty());
  // A session id given is echoed back.
  const std::string sid = new_uuid();
  company.auto_answer = [](const std::string&) { return "ok"; };
  EXPECT_EQ(s.start_run(parsed(s, run_body("x", "sync", {{"session_id", sid}}))).body["session_id"], sid);
}

TEST(AcpService, ResumeSaysWhyItCannotAndChecksItsBody) {
  FakeCompanyService company;
  company.auto_answer = [](const std::string&) { return "ok"; };
  AcpService s(company);
  const std::string id = s.start_run(parsed(s, run_body("x", "sync"))).body["run_id"];
  json resume{{"await_resume", {{"type", "message"}, {"message", {{"role", "user"}, {"parts", json::array()}}}}},
              {"mode", "sync"}};
  AcpReply r = s.resume_run(id, resume.dump());
  EXPECT_EQ(r.status, 403);
  EXPECT_NE(r.body["message"].get<std::string>().find("completed"), std::string::npos);
  EXPECT_EQ(s.resume_run(id, "[]").status, 400);
  EXPECT_EQ(s.resume_run(new_uuid(), resume.dump()).status, 404);
}

// A run id outlives the service that gave it out: a new AcpService on the
// same company (a restarted server, the handles in its journal) answers an
// ended run as it ended and follows a running one to its end.
TEST(AcpService, RunIdsAreKeptAndAnsweredByTheNextService) {
  FakeCompanyService company;
  std::string done_id, running_id, task_of_running;
  json done_run;
  {
    AcpService first(company);
    company.auto_answer = [](const std::string&) { return "答え"; };
    done_run = first.start_run(parsed(first, run_body("quick", "sync"))).body;
    done_id = done_run["run_id"];
    company.auto_answer = [](const std::string&) { return ""; };  // stays working
    running_id = first.start_run(parsed(first, run_body("slow", "async"))).body["run_id"];
    task_of_running = company.tasks(1).front().id;
  }
  AcpService next(company);
  AcpReply done = next.get_run(done_id);
  ASSERT_EQ(done.status, 200) << done.body.dump();
  EXPECT_EQ(done.body["status"], "completed");
  // The answer as it was (its time is the journal's record of the task's end).
  EXPECT_EQ(done.body["output"][0]["parts"], done_run["output"][0]["parts"]);
  EXPECT_EQ(done.body["created_at"], done_run["created_at"]);
  EXPECT_EQ(next.get_run(running_id).body["status"], "in-progress");
  company.complete(task_of_running, "遅い答え");
  AcpReply finished = next.get_run(running_id);
  EXPECT_EQ(finished.body["status"], "completed") << finished.body.dump();
  EXPECT_EQ(finished.body["output"][0]["parts"][0]["content"], "遅い答え");
  EXPECT_EQ(types(next.run_events(running_id).body["events"]).back(), "run.completed");
  EXPECT_EQ(next.get_run(new_uuid()).status, 404);
  EXPECT_EQ(next.get_run(task_of_running).status, 404) << "a task id is no run id";
}

// A run whose id cannot be kept is not started: 500 saying why, its task canceled.
TEST(AcpService, ARunThatCannotBeKeptIsRefusedAndItsTaskCanceled) {
  FakeCompanyService company;
  company.auto_answer = [](const std::string&) { return ""; };
  company.refuse_handles = Error{"journal", "disk full"};
  AcpService s(company);
  AcpReply r = s.start_run(parsed(s, run_body("x", "async")));
  EXPECT_EQ(r.status, 500) << r.body.dump();
  EXPECT_NE(r.body.value("message", "").find("disk full"), std::string::npos) << r.body.dump();
  EXPECT_EQ(company.cancels, 1);
  EXPECT_FALSE(r.headers.count("Run-ID"));
}

}  // namespace
}  // namespace kaisha::acp
