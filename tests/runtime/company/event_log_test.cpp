#include "runtime/company/event_log.hpp"

#include <gtest/gtest.h>

#include <thread>

#include "runtime/messages/progress_event_json.hpp"

namespace kaisha::company {
namespace {

msg::ProgressEvent event(const std::string& text) {
  msg::ProgressEvent e;
  e.kind = msg::EventKind::ask;
  e.text = text;
  return e;
}

struct Seen {
  std::vector<std::string> ids, texts;
  EventLog::Listener listener() {
    return [this](const std::string& id, const LoggedEvent& e) {
      ids.push_back(id);
      texts.push_back(json::parse(e.line).value("text", ""));
      return true;
    };
  }
};

TEST(EventLog, NumbersEventsUnderItsEpochAndReplaysWhatFollowsAnId) {
  EventLog log(100, 7);
  EXPECT_EQ(log.last_id(), "");
  log.emit(event("a"));
  log.emit(event("b"));
  log.emit(event("c"));
  EXPECT_EQ(log.last_id(), "7-3");
  Seen all, after_first;
  EXPECT_FALSE(log.subscribe("", all.listener()).missed);
  auto sub = log.subscribe("7-1", after_first.listener());
  EXPECT_FALSE(sub.missed);
  EXPECT_EQ(all.texts, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(all.ids, (std::vector<std::string>{"7-1", "7-2", "7-3"}));
  EXPECT_EQ(after_first.texts, (std::vector<std::string>{"b", "c"}));
  log.emit(event("d"));
  EXPECT_EQ(after_first.texts.back(), "d");
  EXPECT_EQ(after_first.ids.back(), "7-4");
  log.unsubscribe(sub.handle);
  log.emit(event("e"));
  EXPECT_EQ(after_first.texts.back(), "d");
  EXPECT_EQ(all.texts.back(), "e");
}

TEST(EventLog, AReaderTooFarBehindOrFromAnotherProcessIsToldItMissedEvents) {
  EventLog log(2, 7);
  for (const char* t : {"a", "b", "c", "d"}) log.emit(event(t));
  for (const std::string after : {"7-1", "6-3", "garbage", "7-99", "-1", "7-", "99999999999999999999999-1"}) {
    Seen s;
    bool told = false;
    auto sub = log.subscribe(after, s.listener(), [&] { told = true; });
    EXPECT_TRUE(sub.missed) << after;
    EXPECT_TRUE(told) << after;
    EXPECT_EQ(s.texts, (std::vector<std::string>{"c", "d"})) << after;
  }
  Seen s;
  auto sub = log.subscribe("7-2", s.listener());  // the one just before the oldest held: nothing lost
  EXPECT_FALSE(sub.missed);
  EXPECT_EQ(s.texts, (std::vector<std::string>{"c", "d"}));
}

TEST(EventLog, KeepsEachEventAsItsJsonLineWithWhatReadersFilterOn) {
  EventLog log(10, 3);
  msg::ProgressEvent e = event("日本語 🚀");
  e.task_id = "t1";
  e.session_id = "s1";
  log.emit(e);
  std::vector<LoggedEvent> got;
  log.subscribe("", [&](const std::string&, const LoggedEvent& l) {
    got.push_back(l);
    return true;
  });
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].kind, msg::EventKind::ask);
  EXPECT_EQ(got[0].task_id, "t1");
  EXPECT_EQ(got[0].session_id, "s1");
  EXPECT_EQ(got[0].line, msg::progress_event_line(e));
}

TEST(EventLog, AListenerThatReturnsFalseOrThrowsIsDropped) {
  EventLog log(10, 1);
  int calls = 0;
  log.subscribe("", [&](const std::string&, const LoggedEvent&) {
    ++calls;
    return false;
  });
  log.subscribe("", [&](const std::string&, const LoggedEvent&) -> bool { throw std::runtime_error("x"); });
  log.emit(event("a"));
  log.emit(event("b"));
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(log.subscribers(), 0u);
  // Ending during the replay: no subscription is left behind.
  auto sub = log.subscribe("", [&](const std::string&, const LoggedEvent&) { return false; });
  EXPECT_EQ(sub.handle, 0u);
  EXPECT_EQ(log.subscribers(), 0u);
}

TEST(EventLog, ConcurrentWritersAreSeenInOneOrderWithoutGapsOrRepeats) {
  EventLog log(100000, 1);
  std::vector<uint64_t> numbers;
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t)
    writers.emplace_back([&] {
      for (int i = 0; i < 500; ++i) log.emit(event("x"));
    });
  // Joins half way: replay and live must meet exactly.
  while (log.last_id().empty()) std::this_thread::yield();
  log.subscribe("", [&](const std::string& id, const LoggedEvent&) {
    numbers.push_back(EventLog::parse_id(id)->second);
    return true;
  });
  for (auto& w : writers) w.join();
  ASSERT_EQ(numbers.size(), 2000u);
  for (size_t i = 0; i < numbers.size(); ++i) EXPECT_EQ(numbers[i], i + 1);
}

}  // namespace
}  // namespace kaisha::company
