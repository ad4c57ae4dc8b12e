// UserQuestions: the AskUser tool's waiting questions — answered, withdrawn,
// timed out, one per task — with real threads (its timer) and no sleeps in
// what is asserted.
#include "runtime/company/user_questions.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <condition_variable>
#include <mutex>

namespace kaisha::company {
namespace {

using namespace std::chrono_literals;

// A tool call's result, waited for.
struct Outcome {
  std::mutex mu;
  std::condition_variable cv;
  std::optional<ToolResult> result;
  std::function<void(ToolResult)> done() {
    return [this](ToolResult r) {
      std::lock_guard lock(mu);
      result = std::move(r);
      cv.notify_all();
    };
  }
  std::optional<ToolResult> wait(std::chrono::milliseconds timeout = 10s) {
    std::unique_lock lock(mu);
    cv.wait_for(lock, timeout, [&] { return result.has_value(); });
    return result;
  }
};

ToolCallContext task(const std::string& id) {
  ToolCallContext c;
  c.task_id = id;
  c.agent = "CEO";
  return c;
}

TEST(UserQuestions, AQuestionWaitsForItsAnswer) {
  std::vector<std::pair<std::string, std::string>> asked;
  auto q = UserQuestions::create(60s, {[&](const std::string& t, const std::string& text) {
                                         asked.push_back({t, text});
                                       },
                                       nullptr, nullptr});
  ASSERT_TRUE(q.ok()) << q.error().message;
  ASSERT_EQ((*q)->specs().size(), 1u);
  EXPECT_EQ((*q)->specs()[0].name, "AskUser");
  Outcome o;
  (*q)->call("AskUser", json{{"question", "どの都市ですか？"}}, task("t1"), o.done());
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0].first, "t1");
  EXPECT_EQ(asked[0].second, "どの都市ですか？");
  EXPECT_EQ((*q)->question("t1"), "どの都市ですか？");
  EXPECT_FALSE(o.wait(10ms));  // nothing until the answer
  EXPECT_FALSE((*q)->answer("t2", "wrong task"));
  EXPECT_TRUE((*q)->answer("t1", "大阪 🏯"));
  auto r = o.wait();
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->ok);
  EXPECT_EQ(r->output["answer"], "大阪 🏯");
  EXPECT_FALSE((*q)->question("t1"));
  EXPECT_FALSE((*q)->answer("t1", "twice"));
}

TEST(UserQuestions, OneQuestionPerTaskAndAnEmptyOneIsRefused) {
  // Declared before the questions: stopping them answers what still waits.
  Outcome first, second, empty, outside;
  auto q = UserQuestions::create(60s, {});
  ASSERT_TRUE(q.ok());
  (*q)->call("AskUser", json{{"question", "A?"}}, task("t1"), first.done());
  (*q)->call("AskUser", json{{"question", "B?"}}, task("t1"), second.done());
  auto r = second.wait();
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->ok);
  EXPECT_NE(r->message.find("already waiting"), std::string::npos) << r->message;
  (*q)->call("AskUser", json{{"question", "  "}}, task("t2"), empty.done());
  ASSERT_TRUE(empty.wait());
  EXPECT_NE(empty.wait()->message.find("empty"), std::string::npos);
  (*q)->call("AskUser", json{{"question", "C?"}}, ToolCallContext{}, outside.done());
  ASSERT_TRUE(outside.wait());
  EXPECT_FALSE(outside.wait()->ok);
  EXPECT_EQ((*q)->question("t1"), "A?");
}

TEST(UserQuestions, WithdrawAndStopEndWaitingQuestionsWithErrors) {
  auto q = UserQuestions::create(60s, {});
  ASSERT_TRUE(q.ok());
  Outcome a, b;
  (*q)->call("AskUser", json{{"question", "A?"}}, task("t1"), a.done());
  (*q)->call("AskUser", json{{"question", "B?"}}, task("t2"), b.done());
  (*q)->withdraw("t1", "the task was canceled");
  ASSERT_TRUE(a.wait());
  EXPECT_FALSE(a.wait()->ok);
  EXPECT_EQ(a.wait()->message, "the task was canceled");
  (*q)->stop();
  ASSERT_TRUE(b.wait());
  EXPECT_FALSE(b.wait()->ok);
  Outcome late;
  (*q)->call("AskUser", json{{"question", "C?"}}, task("t3"), late.done());
  ASSERT_TRUE(late.wait());
  EXPECT_FALSE(late.wait()->ok);
}

TEST(UserQuestions, AnUnansweredQuestionTimesOutAndSaysSo) {
  std::atomic<int> timed_out{0};
  std::string which;
  auto q = UserQuestions::create(50ms, {nullptr,
                                        [&](const std::string& t) {
                                          which = t;
                                          ++timed_out;
                                        },
                                        nullptr});
  ASSERT_TRUE(q.ok());
  Outcome o;
  (*q)->call("AskUser", json{{"question", "Anyone?"}}, task("t9"), o.done());
  auto r = o.wait();
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->ok);
  EXPECT_NE(r->message.find("no answer came from the user"), std::string::npos) << r->message;
  for (int i = 0; i < 1000 && timed_out == 0; ++i) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(timed_out.load(), 1);
  EXPECT_EQ(which, "t9");
  EXPECT_FALSE((*q)->answer("t9", "too late"));
}

// The owner ends the task before the error answer reaches it: an answer
// first would let the task's model turn go on and finish the task before the
// owner's cancel came (serve then reported it completed, not failed).
TEST(UserQuestions, TheOwnerIsToldOfATimeoutBeforeTheQuestionIsAnswered) {
  std::atomic<bool> told{false};
  auto q = UserQuestions::create(20ms, {nullptr, [&](const std::string&) { told = true; }, nullptr});
  ASSERT_TRUE(q.ok());
  std::promise<bool> told_first;
  (*q)->call("AskUser", json{{"question", "何色?"}}, task("t10"),
             [&](ToolResult r) { told_first.set_value(!r.ok && told.load()); });
  auto f = told_first.get_future();
  ASSERT_EQ(f.wait_for(30s), std::future_status::ready);
  EXPECT_TRUE(f.get());
}

TEST(UserQuestions, TheYesWordsAuthoriseInAnyLanguageAndNothingElseDoes) {
  const json yes = json::array({"yes", "ok", "はい", "承認します", "好的", "oui"});
  for (const char* a : {"yes", "Yes.", "  YES!  ", "OK", "はい", "はい。", "承認します！", "好的", "Oui"})
    EXPECT_TRUE(UserQuestions::authorises(a, yes)) << a;
  for (const char* a : {"", "no", "yes but only $1", "いいえ", "not ok", "yess", "ye"})
    EXPECT_FALSE(UserQuestions::authorises(a, yes)) << a;
}

TEST(UserQuestions, ABudgetRaiseHappensOnlyWhenTheUserSaysYes) {
  std::vector<std::string> asked;
  std::vector<std::pair<std::string, double>> raised;
  UserQuestions::Hooks hooks;
  hooks.asked = [&](const std::string&, const std::string& text) { asked.push_back(text); };
  hooks.raise = [&](const std::string& which, double amount) {
    raised.push_back({which, amount});
    return Status::Ok();
  };
  auto q = UserQuestions::create(60s, hooks);
  ASSERT_TRUE(q.ok()) << q.error().message;
  ASSERT_EQ((*q)->specs().size(), 2u);
  EXPECT_EQ((*q)->specs()[1].name, "RequestBudgetIncrease");

  Outcome yes;
  (*q)->call("RequestBudgetIncrease",
             json{{"budget", "expense"}, {"amount", 2.5}, {"reason", "翻訳をもう一度頼むため。"}}, task("t1"),
             yes.done());
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_NE(asked[0].find("expense budget by $2.50"), std::string::npos) << asked[0];
  EXPECT_NE(asked[0].find("翻訳をもう一度頼むため。"), std::string::npos) << asked[0];
  EXPECT_TRUE(raised.empty());  // nothing before the answer
  EXPECT_TRUE((*q)->answer("t1", "はい。"));
  auto r = yes.wait();
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->ok) << r->message;
  EXPECT_EQ(r->output["authorised"], true);
  EXPECT_EQ(raised, (std::vector<std::pair<std::string, double>>{{"expense", 2.5}}));

  Outcome no;
  (*q)->call("RequestBudgetIncrease", json{{"budget", "resource"}, {"amount", 10}, {"reason", "A bigger local model."}},
             task("t2"), no.done());
  EXPECT_TRUE((*q)->answer("t2", "no, not today"));
  r = no.wait();
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->ok);
  EXPECT_EQ(r->output["authorised"], false);
  EXPECT_NE(r->message.find("no, not today"), std::string::npos) << r->message;
  EXPECT_EQ(raised.size(), 1u);  // still only the first

  // What the model got wrong is named; nothing is asked.
  for (const json& bad : {json{{"budget", "time"}, {"amount", 1}, {"reason", "x"}},
                          json{{"budget", "expense"}, {"amount", -1}, {"reason", "x"}},
                          json{{"budget", "expense"}, {"amount", "lots"}, {"reason", "x"}},
                          json{{"budget", "expense"}, {"amount", 1}, {"reason", "  "}}}) {
    Outcome o;
    (*q)->call("RequestBudgetIncrease", bad, task("t3"), o.done());
    auto e = o.wait();
    ASSERT_TRUE(e);
    EXPECT_FALSE(e->ok) << bad.dump();
    EXPECT_EQ(e->message.rfind("RequestBudgetIncrease: ", 0), 0u) << e->message;
  }
  EXPECT_EQ(asked.size(), 2u);
}

TEST(UserQuestions, WithoutARaiseHookThereIsNoBudgetTool) {
  auto q = UserQuestions::create(60s, {});
  ASSERT_TRUE(q.ok());
  ASSERT_EQ((*q)->specs().size(), 1u);
  Outcome o;
  (*q)->call("RequestBudgetIncrease", json{{"budget", "expense"}, {"amount", 1}, {"reason", "x"}}, task("t1"),
             o.done());
  auto r = o.wait();
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->ok);
}

// A zero timeout (the terminal's questions): the question waits for its user
// however long they take.
TEST(UserQuestions, AZeroTimeoutWaitsWithoutDeadline) {
  std::atomic<int> timed_out{0};
  auto q = UserQuestions::create(0ms, {nullptr, [&](const std::string&) { ++timed_out; }, nullptr});
  ASSERT_TRUE(q.ok());
  Outcome o;
  (*q)->call("AskUser", json{{"question", "急ぎませんか？"}}, task("t1"), o.done());
  EXPECT_FALSE(o.wait(200ms));
  EXPECT_EQ(timed_out.load(), 0);
  EXPECT_TRUE((*q)->answer("t1", "ゆっくりで 🐢"));
  auto r = o.wait();
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->ok);
  EXPECT_NE(r->message.find("ゆっくりで 🐢"), std::string::npos) << r->message;
}

}  // namespace
}  // namespace kaisha::company
