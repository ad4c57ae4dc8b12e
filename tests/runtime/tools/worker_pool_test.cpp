// WorkerPool: every job is called once; a full queue refuses at once instead
// of growing; jobs still queued at destruction are told so.
#include "runtime/tools/worker_pool.hpp"

#include <atomic>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace kaisha::tools {
namespace {

using Skipped = WorkerPool::Skipped;

TEST(WorkerPool, AFullQueueRefusesAtOnceAndEveryJobIsCalledOnce) {
  std::promise<void> release;
  std::shared_future<void> gate = release.get_future().share();
  std::vector<Skipped> fates(5, Skipped::shutting_down);
  std::atomic<int> calls{0};
  {
    WorkerPool pool(1, 2);
    std::promise<void> busy;
    pool.submit([&, gate](Skipped s) {
      fates[0] = s;
      ++calls;
      busy.set_value();
      gate.wait();  // holds the only worker
    });
    busy.get_future().wait();
    std::promise<void> second_ran;
    for (int i = 1; i <= 3; ++i)
      pool.submit([&, i](Skipped s) {
        fates[static_cast<size_t>(i)] = s;
        ++calls;
        if (i == 2) second_ran.set_value();
      });
    // Two wait in the queue; the third was refused on the caller's thread.
    EXPECT_EQ(fates[3], Skipped::queue_full);
    EXPECT_NE(pool.why(Skipped::queue_full).find("2 queued"), std::string::npos) << pool.why(Skipped::queue_full);
    release.set_value();
    second_ran.get_future().wait();  // the queue is empty again
    std::promise<void> last;
    pool.submit([&](Skipped s) {
      fates[4] = s;
      ++calls;
      last.set_value();
    });
    last.get_future().wait();
  }
  EXPECT_EQ(calls.load(), 5);
  EXPECT_EQ(fates[0], Skipped::no);
  EXPECT_EQ(fates[1], Skipped::no);
  EXPECT_EQ(fates[2], Skipped::no);
  EXPECT_EQ(fates[4], Skipped::no);
}

TEST(WorkerPool, JobsQueuedAtDestructionAreToldBeforeTheRunningOnesFinish) {
  std::promise<void> release;
  std::shared_future<void> gate = release.get_future().share();
  std::promise<void> busy, all_told;
  std::atomic<int> shutting_down{0};
  auto pool = std::make_unique<WorkerPool>(1, 8);
  pool->submit([&, gate](Skipped) {
    busy.set_value();
    gate.wait();  // still running when the pool is destroyed
  });
  busy.get_future().wait();
  for (int i = 0; i < 3; ++i)
    pool->submit([&](Skipped s) {
      if (s == Skipped::shutting_down && ++shutting_down == 3) all_told.set_value();
    });
  std::thread destroyer([&] { pool.reset(); });
  // The queued jobs hear while the running one still holds the worker.
  all_told.get_future().wait();
  EXPECT_EQ(shutting_down.load(), 3);
  release.set_value();
  destroyer.join();
}

}  // namespace
}  // namespace kaisha::tools
