// The scheduler kaisha's actor systems use (actors/caf/scheduler_tuning.hpp):
// CAF work stealing with prompt wake-ups and a clock that wakes its thread
// only when a timer is due or must be re-planned.
#include <gtest/gtest.h>

#include <caf/all.hpp>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "actors/caf/scheduler_tuning.hpp"

namespace kaisha::actors {
namespace {

using namespace std::chrono_literals;

struct PromptConfig : caf::actor_system_config {
  PromptConfig() { use_prompt_wakeups(*this); }
};

caf::behavior echo(caf::event_based_actor*) {
  return {[](int x) { return x; }};
}

caf::behavior silent(caf::event_based_actor*) {
  return {[](int) -> caf::result<int> { return caf::delegated<int>(); }};
}

TEST(SchedulerTuning, SystemsConfiguredForPromptWakeUpsUseTheLazyClock) {
  PromptConfig cfg;
  caf::actor_system sys{cfg};
  EXPECT_TRUE(clock_activity(sys).lazy);

  caf::actor_system_config plain_cfg;
  caf::actor_system plain{plain_cfg};
  EXPECT_FALSE(clock_activity(plain).lazy);
}

// 500 requests with a 30 s timeout, each answered at once: CAF's own clock
// wakes its thread twice per request (set, cancel); this one only for the
// first timer, whose deadline the later ones all come after.
TEST(SchedulerTuning, AnsweredRequestsDoNotWakeTheClockThread) {
  PromptConfig cfg;
  caf::actor_system sys{cfg};
  auto server = sys.spawn(echo);
  caf::scoped_actor self{sys};
  const auto before = clock_activity(sys);
  int answered = 0;
  for (int i = 0; i < 500; ++i) {
    self->request(server, 30s, i)
        .receive([&](int x) { answered += (x == i); }, [&](caf::error& e) { ADD_FAILURE() << sys.render(e); });
  }
  EXPECT_EQ(answered, 500);
  const auto after = clock_activity(sys);
  EXPECT_LE(after.notifications - before.notifications, 2u);
  EXPECT_LE(after.wakeups - before.wakeups, 3u);
}

TEST(SchedulerTuning, AnUnansweredRequestStillTimesOut) {
  PromptConfig cfg;
  caf::actor_system sys{cfg};
  auto server = sys.spawn(silent);
  caf::scoped_actor self{sys};
  bool timed_out = false;
  self->request(server, 50ms, 1)
      .receive([&](int) { ADD_FAILURE() << "silent actor answered"; },
               [&](caf::error& e) { timed_out = (e == caf::sec::request_timeout); });
  EXPECT_TRUE(timed_out);
}

// A timer set after a later one must not wait for the later one's deadline:
// the thread sleeping towards 20 s is woken to re-plan for 20 ms. The system
// then shuts down with the 20 s timer still pending.
TEST(SchedulerTuning, AnEarlierTimerSetLaterFiresWithoutWaitingForTheLaterOne) {
  PromptConfig cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  const auto start = std::chrono::steady_clock::now();
  self->delayed_send(self, 20s, std::string{"late"});
  std::this_thread::sleep_for(50ms);  // the clock thread now sleeps towards 20 s
  self->delayed_send(self, 20ms, std::string{"early"});
  std::string first;
  self->receive([&](const std::string& s) { first = s; },
                caf::after(std::chrono::seconds(10)) >> [&] { first = "nothing"; });
  EXPECT_EQ(first, "early");
  // With a clock that slept on towards the 20 s timer, "early" would come at 20 s.
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
}

// Messages from many threads outside CAF all arrive (the enqueue path whose
// wake-up moved out of the worker's mutex).
TEST(SchedulerTuning, EnqueuesFromManyOutsideThreadsAllArrive) {
  PromptConfig cfg;
  caf::actor_system sys{cfg};
  std::atomic<int> received{0};
  auto counter =
      sys.spawn([&](caf::event_based_actor*) -> caf::behavior { return {[&](int) { received.fetch_add(1); }}; });
  constexpr int kThreads = 4, kEach = 5000;
  std::vector<std::thread> senders;
  for (int t = 0; t < kThreads; ++t)
    senders.emplace_back([&] {
      for (int i = 0; i < kEach; ++i) {
        caf::anon_send(counter, i);
        // Let the workers go idle now and then, so that sends find them asleep.
        if (i % 500 == 0) std::this_thread::sleep_for(1ms);
      }
    });
  for (auto& s : senders) s.join();
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (received.load() < kThreads * kEach && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(1ms);
  EXPECT_EQ(received.load(), kThreads * kEach);
  caf::anon_send_exit(counter, caf::exit_reason::user_shutdown);
}

}  // namespace
}  // namespace kaisha::actors
