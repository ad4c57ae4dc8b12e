// deliver() (cluster/inline_delivery.hpp): inside an InlineDeliveryScope the
// calling thread runs the receiving actor, and the idle actors it sends to,
// up to a budget; outside, it is a plain asynchronous send.
#include <gtest/gtest.h>

#include <caf/all.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "actors/caf/scheduler_tuning.hpp"
#include "cluster/inline_delivery.hpp"

namespace kaisha::cluster {
namespace {

using namespace std::chrono_literals;

struct Config : caf::actor_system_config {
  Config() { actors::use_prompt_wakeups(*this); }
};

// Records on which thread each actor of a chain ran.
struct Trace {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::thread::id> threads;
  size_t expected = 0;

  void record() {
    std::lock_guard<std::mutex> lock(mu);
    threads.push_back(std::this_thread::get_id());
    cv.notify_all();
  }
  bool wait_all(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, timeout, [&] { return threads.size() >= expected; });
  }
};

// A freshly spawned actor is still being launched by a CAF worker; pass one
// message down the chain first and let the workers go idle, so that every
// actor of the chain is waiting for its next message.
void settle(caf::actor& first, Trace& trace) {
  caf::anon_send(first, 0);
  ASSERT_TRUE(trace.wait_all(10s));
  std::this_thread::sleep_for(100ms);
  std::lock_guard<std::mutex> lock(trace.mu);
  trace.threads.clear();
}

// A chain of n actors: each records its thread and passes the int on.
std::vector<caf::actor> chain(caf::actor_system& sys, Trace& trace, size_t n) {
  std::vector<caf::actor> actors(n);
  for (size_t i = n; i-- > 0;) {
    caf::actor next = i + 1 < n ? actors[i + 1] : caf::actor{};
    actors[i] = sys.spawn([&trace, next](caf::event_based_actor* self) -> caf::behavior {
      return {[&trace, next, self](int x) {
        trace.record();
        if (next) self->send(next, x + 1);
      }};
    });
  }
  trace.expected = n;
  return actors;
}

TEST(InlineDelivery, InsideAScopeTheCallingThreadRunsTheReceiverAndTheActorsItSendsTo) {
  Config cfg;
  caf::actor_system sys{cfg};
  Trace trace;
  auto actors = chain(sys, trace, 3);
  settle(actors[0], trace);
  {
    InlineDeliveryScope scope;
    deliver(actors[0], caf::make_message(1));
    // Everything ran before deliver() returned, on this thread.
    std::lock_guard<std::mutex> lock(trace.mu);
    ASSERT_EQ(trace.threads.size(), 3u);
    for (auto id : trace.threads) EXPECT_EQ(id, std::this_thread::get_id());
  }
  for (auto& a : actors) caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
}

TEST(InlineDelivery, OutsideAScopeItIsAnAsynchronousSend) {
  Config cfg;
  caf::actor_system sys{cfg};
  Trace trace;
  auto actors = chain(sys, trace, 2);
  deliver(actors[0], caf::make_message(1));
  ASSERT_TRUE(trace.wait_all(10s));
  std::lock_guard<std::mutex> lock(trace.mu);
  for (auto id : trace.threads) EXPECT_NE(id, std::this_thread::get_id());
  for (auto& a : actors) caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
}

// A chain longer than the budget still completes: the I/O thread hands the
// rest to the CAF workers instead of running the whole chain itself.
TEST(InlineDelivery, WorkBeyondTheBudgetGoesToTheCafWorkers) {
  Config cfg;
  caf::actor_system sys{cfg};
  Trace trace;
  auto actors = chain(sys, trace, 40);
  settle(actors[0], trace);
  const auto before = inline_delivery_stats();
  {
    InlineDeliveryScope scope;
    deliver(actors[0], caf::make_message(1));
  }
  ASSERT_TRUE(trace.wait_all(10s));
  const auto after = inline_delivery_stats();
  EXPECT_EQ(after.inline_runs - before.inline_runs, 16u);
  EXPECT_EQ(after.handed_over - before.handed_over, 1u);
  std::lock_guard<std::mutex> lock(trace.mu);
  ASSERT_EQ(trace.threads.size(), 40u);
  for (size_t i = 0; i < 16; ++i) EXPECT_EQ(trace.threads[i], std::this_thread::get_id()) << i;
  for (size_t i = 16; i < 40; ++i) EXPECT_NE(trace.threads[i], std::this_thread::get_id()) << i;
  for (auto& a : actors) caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
}

// A backlog does not keep the delivering thread: an actor with 10,000
// messages waiting processes only its per-run budget inline; the rest of its
// mailbox goes to the CAF workers, in order.
TEST(InlineDelivery, ABacklogOfTenThousandMessagesRunsOnlyItsBudgetInline) {
  Config cfg;
  caf::actor_system sys{cfg};
  constexpr int kBacklog = 10000;
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::pair<int, std::thread::id>> seen;
  auto sink = sys.spawn([&](caf::event_based_actor*) -> caf::behavior {
    return {[&](int x) {
      std::lock_guard<std::mutex> lock(mu);
      seen.emplace_back(x, std::this_thread::get_id());
      cv.notify_all();
    }};
  });
  // The feeder, run inline, fills the idle sink's mailbox in one run.
  auto feeder = sys.spawn([sink](caf::event_based_actor* self) -> caf::behavior {
    return {[=](int n) {
      for (int i = 0; i < n; ++i) self->send(sink, i);
    }};
  });
  caf::anon_send(sink, -1);  // let both finish launching on the workers
  {
    std::unique_lock<std::mutex> lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, 10s, [&] { return seen.size() == 1; }));
    seen.clear();
  }
  std::this_thread::sleep_for(100ms);
  const auto before = inline_delivery_stats();
  size_t inline_messages = 0;
  {
    InlineDeliveryScope scope;
    deliver(feeder, caf::make_message(kBacklog));
    std::lock_guard<std::mutex> lock(mu);
    for (auto& [x, id] : seen) inline_messages += id == std::this_thread::get_id();
  }
  const auto after = inline_delivery_stats();
  EXPECT_EQ(after.yielded - before.yielded, 1u) << "the sink kept the thread for its whole backlog";
  EXPECT_LE(after.inline_runs - before.inline_runs, 2u);
  EXPECT_GE(inline_messages, 1u);
  EXPECT_LE(inline_messages, 8u);
  std::unique_lock<std::mutex> lock(mu);
  ASSERT_TRUE(cv.wait_for(lock, 60s, [&] { return seen.size() == size_t(kBacklog); }));
  for (int i = 0; i < kBacklog; ++i) ASSERT_EQ(seen[i].first, i);
  lock.unlock();
  caf::anon_send_exit(sink, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(feeder, caf::exit_reason::user_shutdown);
}

// An actor that is busy on a CAF worker is not run a second time: the message
// waits in its mailbox and the worker processes it, in order.
TEST(InlineDelivery, AnActorAlreadyRunningElsewhereJustGetsTheMessage) {
  Config cfg;
  caf::actor_system sys{cfg};
  std::mutex mu;
  std::condition_variable cv;
  std::vector<int> seen;
  std::atomic<bool> release{false};
  std::atomic<bool> busy{false};
  auto a = sys.spawn([&](caf::event_based_actor*) -> caf::behavior {
    return {[&](int x) {
      if (x == 0) {
        busy = true;
        while (!release.load()) std::this_thread::sleep_for(1ms);
      }
      std::lock_guard<std::mutex> lock(mu);
      seen.push_back(x);
      cv.notify_all();
    }};
  });
  caf::anon_send(a, 0);
  while (!busy.load()) std::this_thread::sleep_for(1ms);
  {
    InlineDeliveryScope scope;
    deliver(a, caf::make_message(1));  // returns at once: the actor is busy
  }
  release = true;
  std::unique_lock<std::mutex> lock(mu);
  ASSERT_TRUE(cv.wait_for(lock, 10s, [&] { return seen.size() == 2; }));
  EXPECT_EQ(seen, (std::vector<int>{0, 1}));
  lock.unlock();
  caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
}

// An actor run inline may stop there, and its cleanup goes on after it stopped
// counting as a running actor. The system must not be destroyed under that
// cleanup: ~actor_system waits for the inline run to end. (It crashed in CAF's
// timeout cleanup when a node's I/O thread answered an employee's ask as the
// test that owned the employee was ending.)
TEST(InlineDelivery, TheSystemOutlivesAnActorThatStopsInline) {
  Config cfg;
  auto sys = std::make_unique<caf::actor_system>(cfg);
  std::mutex mu;
  std::condition_variable cv;
  bool in_cleanup = false;
  bool destroyed = false;
  int destroyed_under_cleanup = -1;
  caf::actor a = sys->spawn([](caf::event_based_actor* self) -> caf::behavior {
    return {[](const std::string&) {}, [self](int) { self->quit(); }};
  });
  a->attach_functor([&] {
    std::unique_lock<std::mutex> lock(mu);
    in_cleanup = true;
    cv.notify_all();
    // Time for a system destroyed too early to finish being destroyed.
    cv.wait_for(lock, 300ms, [&] { return destroyed; });
    destroyed_under_cleanup = destroyed ? 1 : 0;
  });
  caf::anon_send(a, std::string("launch"));  // let a CAF worker launch it first
  std::this_thread::sleep_for(100ms);
  std::thread io([target = a] {
    InlineDeliveryScope scope;
    deliver(target, caf::make_message(1));
  });
  {
    std::unique_lock<std::mutex> lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, 10s, [&] { return in_cleanup; }));
  }
  a = caf::actor();
  sys.reset();
  {
    std::lock_guard<std::mutex> lock(mu);
    destroyed = true;
    cv.notify_all();
  }
  io.join();
  EXPECT_EQ(destroyed_under_cleanup, 0);
}

}  // namespace
}  // namespace kaisha::cluster
