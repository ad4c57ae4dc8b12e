#include "actors/caf/scheduler_tuning.hpp"

#include "actors/caf/lazy_actor_clock.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/policy/work_stealing.hpp>
#include <caf/scheduler/coordinator.hpp>

#include <pthread.h>

#include <mutex>
#include <thread>

namespace kaisha::actors {

namespace {

// CAF's work stealing, except that an enqueue from outside CAF signals the
// sleeping worker after releasing its mutex (see the header, item 2). The
// sleeping flag is still read under the mutex, so no wake-up is lost: a
// worker that set it is inside wait() or re-checks its queue before waiting.
struct PromptWorkStealing : caf::policy::work_stealing {
  template <class Worker>
  void external_enqueue(Worker* self, caf::resumable* job) {
    auto& data = self->data();
    data.queue.append(job);
    bool sleeping;
    {
      std::lock_guard<std::mutex> guard(data.waitdata.lock);
      sleeping = data.waitdata.sleeping;
    }
    if (sleeping) data.waitdata.cv.notify_one();
  }
};

// CAF's coordinator with the policy above and a LazyActorClock. The base
// class still starts its own clock thread; nothing reaches that clock, since
// clock() returns ours, so the thread just sleeps until shutdown.
class PromptCoordinator final : public caf::scheduler::coordinator<PromptWorkStealing> {
 public:
  using super = caf::scheduler::coordinator<PromptWorkStealing>;

  explicit PromptCoordinator(caf::actor_system& sys) : super(sys) {}

  static caf::actor_system::module* make(caf::actor_system& sys, caf::detail::type_list<>) {
    return new PromptCoordinator(sys);
  }

  LazyActorClock& clock() noexcept override { return lazy_clock_; }

 protected:
  void start() override {
    clock_thread_ = std::thread([this] {
      pthread_setname_np(pthread_self(), "kaisha.clock");
      system().thread_started();
      lazy_clock_.run();
      system().thread_terminates();
    });
    super::start();
  }

  void stop() override {
    super::stop();  // workers and utility actors first: they may still set timers
    lazy_clock_.stop();
    clock_thread_.join();
  }

 private:
  LazyActorClock lazy_clock_;
  std::thread clock_thread_;
};

}  // namespace

void use_prompt_wakeups(caf::actor_system_config& cfg) {
  cfg.set("work-stealing.moderate-poll-attempts", 0);
  cfg.load<PromptCoordinator>();
}

ClockActivity clock_activity(caf::actor_system& system) {
  ClockActivity activity;
  auto* clock = dynamic_cast<LazyActorClock*>(&system.clock());
  if (clock == nullptr) return activity;
  activity.lazy = true;
  activity.wakeups = clock->wakeups();
  activity.notifications = clock->notifications();
  return activity;
}

}  // namespace kaisha::actors
