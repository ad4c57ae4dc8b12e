#include "protocols/mcp/server/request_threads.hpp"

#include <atomic>
#include <future>
#include <set>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace kaisha::mcp {
namespace {

// Waits (up to 30 s: a loaded machine) until `done` holds.
template <class F>
bool eventually(F done) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// Jobs run at once even when every thread is busy: none waits behind a
// blocked one (a request blocked on its client's answer must not hold others).
TEST(RequestThreads, AJobNeverWaitsBehindABlockedOne) {
  RequestThreads threads(2);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> started{0};
  for (int i = 0; i < 5; ++i)
    threads.run([&, released] {
      ++started;
      released.wait();
    });
  std::promise<void> ran;
  threads.run([&] { ran.set_value(); });
  EXPECT_EQ(ran.get_future().wait_for(std::chrono::seconds(30)), std::future_status::ready);
  release.set_value();
}

// One job after another reuses the thread the first one left idle.
TEST(RequestThreads, ASequenceOfJobsReusesOneThread) {
  RequestThreads threads(4);
  std::set<std::thread::id> ids;
  for (int i = 0; i < 20; ++i) {
    std::promise<std::thread::id> id;
    threads.run([&] { id.set_value(std::this_thread::get_id()); });
    ids.insert(id.get_future().get());
    ASSERT_TRUE(eventually([&] { return threads.idle() == 1; }));  // back to waiting for the next
  }
  EXPECT_EQ(ids.size(), 1u);
  EXPECT_EQ(threads.threads(), 1u);
}

TEST(RequestThreads, IdleThreadsBeyondTheLimitEnd) {
  RequestThreads threads(1);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::vector<std::promise<void>> done(3);
  for (auto& d : done)
    threads.run([released, &d] {
      released.wait();
      d.set_value();
    });
  release.set_value();
  for (auto& d : done) d.get_future().wait();
  EXPECT_TRUE(eventually([&] { return threads.threads() == 1; }));  // one kept idle, the others ended
  EXPECT_EQ(threads.idle(), 1u);
}

TEST(RequestThreads, TheDestructorWaitsForRunningJobs) {
  std::atomic<bool> finished{false};
  {
    RequestThreads threads;
    threads.run([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      finished = true;
    });
  }
  EXPECT_TRUE(finished);
}

}  // namespace
}  // namespace kaisha::mcp
