#include "cluster/inline_delivery.hpp"

#include <caf/actor_system.hpp>
#include <caf/execution_unit.hpp>
#include <caf/logger.hpp>
#include <caf/mailbox_element.hpp>
#include <caf/message_id.hpp>
#include <caf/resumable.hpp>
#include <caf/scheduler/abstract_coordinator.hpp>

#include <algorithm>
#include <atomic>
#include <deque>

namespace kaisha::cluster {

namespace {

// Actor runs per delivered envelope. An ask needs about four on the serving
// node (host, employee, host again with the answer, and the model client
// actor) and two or three on the asking node; anything larger than this is
// real work that belongs on the CAF workers, and the I/O thread has sockets to
// serve.
constexpr size_t kMaxInlineRuns = 16;
// Messages one inline run may process. CAF's own limit (max_throughput) is
// unbounded by default, so an actor with a backlog of thousands would keep
// the I/O thread until its mailbox is empty while heartbeats wait unread;
// after this many it goes to the CAF workers with the rest of its mailbox.
constexpr size_t kMaxInlineMessagesPerRun = 8;

thread_local bool inline_allowed = false;

std::atomic<unsigned long long> inline_runs{0};
std::atomic<unsigned long long> handed_over{0};
std::atomic<unsigned long long> yielded{0};
std::atomic<unsigned long long> max_runs{0};

// The I/O thread posing as CAF's execution unit for one delivery: actors
// scheduled through it are queued here and run by drain().
class InlineExecutor final : public caf::execution_unit {
 public:
  explicit InlineExecutor(caf::actor_system& sys) : caf::execution_unit(&sys) {}

  // The actor was idle and now has a message; CAF added a reference for us.
  void exec_later(caf::resumable* job) override { queue_.push_back(job); }

  void drain() {
    auto& scheduler = system().scheduler();
    const size_t throughput = std::min(scheduler.max_throughput(), kMaxInlineMessagesPerRun);
    size_t runs = 0;
    while (!queue_.empty()) {
      caf::resumable* job = queue_.front();
      queue_.pop_front();
      if (runs == kMaxInlineRuns) {
        handed_over.fetch_add(1, std::memory_order_relaxed);
        scheduler.enqueue(job);  // our reference goes with it
        continue;
      }
      ++runs;
      switch (job->resume(this, throughput)) {
        case caf::resumable::resume_later:  // its message budget is used up
          yielded.fetch_add(1, std::memory_order_relaxed);
          scheduler.enqueue(job);
          break;
        case caf::resumable::done:
        case caf::resumable::awaiting_message:
          caf::intrusive_ptr_release(job);
          break;
        case caf::resumable::shutdown_execution_unit:
          break;  // only the scheduler's own shutdown jobs answer this
      }
    }
    inline_runs.fetch_add(runs, std::memory_order_relaxed);
    for (auto seen = max_runs.load(std::memory_order_relaxed);
         runs > seen && !max_runs.compare_exchange_weak(seen, runs, std::memory_order_relaxed);) {
    }
  }

 private:
  std::deque<caf::resumable*> queue_;
};

}  // namespace

InlineDeliveryScope::InlineDeliveryScope() : previous_(inline_allowed) { inline_allowed = true; }

InlineDeliveryScope::~InlineDeliveryScope() { inline_allowed = previous_; }

void deliver(const caf::actor& dest, caf::message msg) {
  if (!dest) return;
  auto element = caf::make_mailbox_element(nullptr, caf::make_message_id(), {}, std::move(msg));
  if (!inline_allowed) {
    dest->enqueue(std::move(element), nullptr);  // caf::anon_send
    return;
  }
  inline_allowed = false;  // what the actors run here send is queued, not nested
  caf::actor_system& sys = dest->home_system();
  // The drain counts as a running actor: ~actor_system waits for running
  // actors only, and an actor run here may process its exit and finish its
  // cleanup on this thread after its own count went down. Without this, its
  // owner could destroy the system under that cleanup (the CAF workers are
  // joined by ~actor_system; this thread is not).
  sys.registry().inc_running();
  InlineExecutor executor{sys};
  dest->enqueue(std::move(element), &executor);
  executor.drain();
  sys.registry().dec_running();
  // An actor run here that spawned another (a hire) set this thread's CAF
  // logger, a reference that outlives the delivery: ~actor_system waits for
  // its logger to go, so the node would never finish stopping. The I/O
  // thread is not CAF's; it keeps no logger.
  caf::logger::set_current_actor_system(nullptr);
  inline_allowed = true;
}

InlineDeliveryStats inline_delivery_stats() {
  return {inline_runs.load(std::memory_order_relaxed), handed_over.load(std::memory_order_relaxed),
          yielded.load(std::memory_order_relaxed), max_runs.load(std::memory_order_relaxed)};
}

}  // namespace kaisha::cluster
