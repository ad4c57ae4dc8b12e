// SpawningThread (actors/caf/spawning_thread.hpp): an actor system started, and
// given actors, on a thread that lives on can be destroyed on another thread
// meanwhile.
#include <gtest/gtest.h>

#include <caf/all.hpp>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "actors/caf/spawning_thread.hpp"

namespace kaisha::actors {
namespace {

TEST(SpawningThreadTest, ASystemStartedOnAThreadThatLivesOnIsDestroyedWithoutWaitingForIt) {
  caf::actor_system_config cfg;
  cfg.set("logger.console", caf::atom("none"));
  std::mutex mu;
  std::condition_variable cv;
  std::unique_ptr<caf::actor_system> system;
  caf::actor echo;
  bool destroyed = false;
  bool destroyed_while_starter_waited = false;
  // The starter, like an MCP request thread opening a company session, lives
  // on after starting the system: until the system is destroyed, or up to a
  // bound far above what a destruction takes.
  std::thread starter([&] {
    std::unique_ptr<caf::actor_system> started;
    caf::actor spawned;
    {
      const SpawningThread spawning;
      started = std::make_unique<caf::actor_system>(cfg);
      spawned = started->spawn([]() -> caf::behavior { return {[](int x) { return x; }}; });
    }
    std::unique_lock<std::mutex> lock(mu);
    system = std::move(started);
    echo = std::move(spawned);
    cv.notify_all();
    destroyed_while_starter_waited = cv.wait_for(lock, std::chrono::seconds(60), [&] { return destroyed; });
  });
  std::unique_ptr<caf::actor_system> doomed;
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return system != nullptr; });
    caf::anon_send_exit(echo, caf::exit_reason::user_shutdown);
    echo = nullptr;
    doomed = std::move(system);
  }
  doomed.reset();  // waits for the actor only, not for the starter to end
  {
    std::lock_guard<std::mutex> lock(mu);
    destroyed = true;
  }
  cv.notify_all();
  starter.join();
  EXPECT_TRUE(destroyed_while_starter_waited);
}

}  // namespace
}  // namespace kaisha::actors
