// CompanyHost: queued tasks, progress streams with one terminal event,
// replay for late subscribers, cancellation of waiting and running tasks,
// over the real actors, a real SQLite store and the mock LLM over HTTP.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <thread>

#include "actors/company/company_host.hpp"
#include "runtime/mockllm/mock_llm_server.hpp"
#include "runtime/mockllm/mock_script.hpp"
#include "runtime/store/journal_store.hpp"

namespace kaisha::actors {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

const char* kScript = R"(
rules:
  - name: slow
    match: { last_user: "slowly" }
    reply: { text: "finally done", latency_ms: 20000 }
  - name: echo
    reply: { text: "answer to {{last_user}}" }
)";

// Collects one task's events; tells when the terminal one arrived.
class Recorder {
 public:
  company::TaskListener listener() {
    return [this](const msg::ProgressEvent& e) {
      std::lock_guard lock(mu_);
      events_.push_back(e);
      cv_.notify_all();
    };
  }
  bool wait_for_kind(const std::string& kind, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] {
      for (auto& e : events_)
        if (msg::event_kind_name(e.kind) == kind) return true;
      return false;
    });
  }
  std::vector<msg::ProgressEvent> events() {
    std::lock_guard lock(mu_);
    return events_;
  }
  int count_terminal() {
    int n = 0;
    for (auto& e : events())
      if (e.kind == msg::EventKind::final || e.kind == msg::EventKind::error || e.kind == msg::EventKind::canceled) ++n;
    return n;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<msg::ProgressEvent> events_;
};

class CompanyHostTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto script = mockllm::parse_mock_script(kScript, "company_host_test");
    ASSERT_TRUE(script) << script.error().message;
    mock_ = std::make_unique<mockllm::MockLlmServer>(std::move(script).value());
    auto port = mock_->start("127.0.0.1", 0);
    ASSERT_TRUE(port) << port.error().message;
    char tmpl[] = "/tmp/kaisha-host-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    config::Config c;
    config::ProviderConfig p;
    p.name = "ollama";
    p.dialect = "ollama";
    p.base_url = "http://127.0.0.1:" + std::to_string(*port);
    p.timeout_ms = 60000;
    c.providers["ollama"] = p;
    c.ceo.model = "ollama:ceo";
    c.store_path = (fs::path(dir_) / "kaisha.db").string();
    RuntimeOptions o;
    o.config = c;
    o.scheduler_threads = 2;
    auto host = CompanyHost::start(std::move(o));
    ASSERT_TRUE(host.ok()) << host.error().message;
    host_ = std::move(host).value();
  }
  void TearDown() override {
    host_.reset();
    mock_.reset();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string db() const { return (fs::path(dir_) / "kaisha.db").string(); }

  std::string dir_;
  std::unique_ptr<mockllm::MockLlmServer> mock_;
  std::unique_ptr<CompanyHost> host_;
};

TEST_F(CompanyHostTest, TasksRunInOrderAndEndWithOneTerminalEvent) {
  Recorder a, b;
  auto ia = host_->submit("first question", a.listener());
  auto ib = host_->submit("second question", b.listener());
  ASSERT_TRUE(ia.ok() && ib.ok());
  auto rb = host_->wait(*ib, 30s);
  ASSERT_TRUE(rb.ok()) << rb.error().message;
  EXPECT_EQ(rb->state, company::TaskState::completed);
  EXPECT_EQ(rb->answer, "answer to second question");
  auto ra = host_->task(*ia);
  ASSERT_TRUE(ra);
  EXPECT_EQ(ra->state, company::TaskState::completed);
  EXPECT_EQ(ra->answer, "answer to first question");
  EXPECT_LE(ra->updated_ms, rb->updated_ms);

  for (Recorder* r : {&a, &b}) {
    ASSERT_TRUE(r->wait_for_kind("final", 5s));
    EXPECT_EQ(r->count_terminal(), 1);
    EXPECT_EQ(r->events().back().kind, msg::EventKind::final);
    EXPECT_EQ(r->events().front().kind, msg::EventKind::task);
  }
  EXPECT_EQ(a.events().back().data["state"], "completed");

  auto list = host_->tasks(10);
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].id, *ib);  // newest first
  auto steps = host_->journal(*ia);
  ASSERT_TRUE(steps.ok()) << steps.error().message;
  ASSERT_FALSE(steps->empty());
  bool saw_response = false;
  for (auto& s : *steps) saw_response = saw_response || s["kind"] == "llm_response";
  EXPECT_TRUE(saw_response) << steps->dump();
}

// wait() returns only once the terminal event has reached every listener,
// so a caller may destroy its listener right after. ThreadSanitizer found
// wait() returning while the host's thread was still inside the listener.
TEST_F(CompanyHostTest, WaitReturnsAfterTheListenersHaveTheEnd) {
  std::atomic<bool> inside_terminal{false}, terminal_done{false};
  auto id = host_->submit("first question", [&](const msg::ProgressEvent& e) {
    if (!msg::ends_task(e.kind, true)) return;
    inside_terminal = true;
    std::this_thread::sleep_for(500ms);  // a slow reader: wait() must not return meanwhile
    terminal_done = true;
  });
  ASSERT_TRUE(id.ok());
  // Ask while the host is inside the listener: the task's state is final by then.
  for (int i = 0; i < 6000 && !inside_terminal; ++i) std::this_thread::sleep_for(10ms);
  ASSERT_TRUE(inside_terminal);
  auto r = host_->wait(*id, 60s);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->state, company::TaskState::completed);
  EXPECT_TRUE(terminal_done);
}

TEST_F(CompanyHostTest, LateSubscriberGetsTheReplayIncludingTheEnd) {
  auto id = host_->submit("replay me", nullptr);
  ASSERT_TRUE(id.ok());
  ASSERT_TRUE(host_->wait(*id, 30s).ok());
  Recorder late;
  ASSERT_TRUE(host_->subscribe(*id, late.listener()).ok());
  EXPECT_EQ(late.count_terminal(), 1);
  EXPECT_EQ(late.events().back().kind, msg::EventKind::final);
  EXPECT_FALSE(host_->subscribe("t-nope", late.listener()).ok());
}

// A stream whose reader went away unsubscribes: its listener gets nothing
// more, while other subscribers of the task still get its end.
TEST_F(CompanyHostTest, AnUnsubscribedListenerGetsNoMoreEvents) {
  auto slow = host_->submit("answer slowly please", nullptr);
  auto queued = host_->submit("queued question", nullptr);  // waits behind the slow one
  ASSERT_TRUE(slow.ok() && queued.ok());
  Recorder gone, stays;
  auto sub = host_->subscribe(*queued, gone.listener());
  ASSERT_TRUE(sub.ok());
  ASSERT_TRUE(host_->subscribe(*queued, stays.listener()).ok());
  const size_t replayed = gone.events().size();
  host_->unsubscribe(*queued, *sub);
  host_->unsubscribe(*queued, *sub);  // again, and unknown ones: nothing
  host_->unsubscribe("t-nope", 1);
  ASSERT_TRUE(host_->cancel(*slow).ok());  // the queued one runs now
  ASSERT_TRUE(host_->wait(*queued, 60s).ok());
  ASSERT_TRUE(stays.wait_for_kind("final", 5s));
  EXPECT_EQ(gone.events().size(), replayed);
}

TEST_F(CompanyHostTest, CancelStopsARunningTaskAndTheCompanyGoesOn) {
  Recorder slow;
  auto id = host_->submit("answer slowly please", slow.listener());
  ASSERT_TRUE(id.ok());
  Recorder queued;
  auto waiting = host_->submit("queued question", queued.listener());
  ASSERT_TRUE(waiting.ok());
  // Running once the CEO's model request went out.
  for (int i = 0; i < 500; ++i) {
    auto t = host_->task(*id);
    if (t && t->state == company::TaskState::working) break;
    std::this_thread::sleep_for(10ms);
  }
  ASSERT_EQ(host_->task(*id)->state, company::TaskState::working);
  EXPECT_EQ(host_->task(*waiting)->state, company::TaskState::submitted);

  ASSERT_TRUE(host_->cancel(*id).ok());
  auto r = host_->wait(*id, 10s);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->state, company::TaskState::canceled) << r->error;
  ASSERT_TRUE(slow.wait_for_kind("canceled", 5s));
  EXPECT_EQ(slow.count_terminal(), 1);
  // Canceling twice is an error that says why.
  Status again = host_->cancel(*id);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.error().message.find("already ended"), std::string::npos) << again.error().message;

  // The queued task runs next, in the same session.
  auto next = host_->wait(*waiting, 30s);
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->state, company::TaskState::completed);
  EXPECT_EQ(next->answer, "answer to queued question");

  // The journal says canceled.
  auto st = store::JournalStore::open_read_only(db());
  ASSERT_TRUE(st.ok());
  auto row = (*st)->get_task(*id);
  ASSERT_TRUE(row.ok() && row->has_value());
  EXPECT_EQ((**row).status, "canceled");
}

TEST_F(CompanyHostTest, CancelOfAWaitingTaskMeansItNeverStarts) {
  auto slow = host_->submit("answer slowly please", nullptr);
  Recorder rec;
  auto waiting = host_->submit("never asked", rec.listener());
  ASSERT_TRUE(slow.ok() && waiting.ok());
  ASSERT_TRUE(host_->cancel(*waiting).ok());
  EXPECT_EQ(host_->task(*waiting)->state, company::TaskState::canceled);
  EXPECT_EQ(rec.count_terminal(), 1);
  EXPECT_EQ(rec.events().back().kind, msg::EventKind::canceled);
  ASSERT_TRUE(host_->cancel(*slow).ok());
  EXPECT_EQ(host_->wait(*slow, 10s)->state, company::TaskState::canceled);
  // The mock was asked only for the slow task.
  auto st = store::JournalStore::open_read_only(db());
  ASSERT_TRUE(st.ok());
  auto steps = (*st)->task_steps(*waiting);
  ASSERT_TRUE(steps.ok());
  EXPECT_TRUE(steps->empty());
}

TEST_F(CompanyHostTest, BadRequestsGetClearErrors) {
  auto empty = host_->submit("  \n", nullptr);
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().message.find("empty"), std::string::npos);
  EXPECT_FALSE(host_->task("t-unknown").has_value());
  Status c = host_->cancel("t-unknown");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("t-unknown"), std::string::npos);
  EXPECT_FALSE(host_->journal("t-unknown").ok());
  EXPECT_FALSE(host_->wait("t-unknown", 10ms).ok());
  EXPECT_TRUE(host_->budget().contains("current_remaining_expense_budget")) << host_->budget().dump();
  EXPECT_TRUE(host_->agents().is_object()) << host_->agents().dump();
}

}  // namespace
}  // namespace kaisha::actors
