// Delivery of a message that came off the network to a local actor, run on
// the gateway's I/O thread instead of waking a CAF worker for it.
//
// A hand-off from the I/O thread to a sleeping CAF worker is a futex wake-up
// and two context switches, once on the node serving an ask and once on the
// node receiving its answer; on a 2-core machine that was the largest part of
// the gap between a cross-node ask and a raw ZeroMQ round trip. So, while the
// I/O thread handles an inbound envelope (an InlineDeliveryScope is open),
// deliver() enqueues the message with the I/O thread as CAF's execution unit:
// if the actor was idle, the I/O thread runs it at once, and then every idle
// actor it sends to on the way (the agent host, the employee, the requester
// on the asking node), up to a fixed number of actor runs per envelope. What
// is left after that goes to the CAF workers as usual. CAF's own rules still
// hold: an actor runs on one thread at a time, and one that is already
// running or scheduled just gets the message in its mailbox. CAF's I/O
// module runs its brokers on its multiplexer thread the same way.
//
// Outside such a scope (any other thread), deliver() is caf::anon_send.
#pragma once

#include <caf/actor.hpp>
#include <caf/message.hpp>

namespace kaisha::cluster {

// Marks the current thread as one that may run actors inline while the scope
// lives. Not nestable across actor runs: actors run inline never run further
// actors inline themselves (their sends are queued to the same drain loop).
// Each inline run processes at most a few messages of its actor's mailbox, so
// a backlog cannot hold the I/O thread (and starve heartbeats).
class InlineDeliveryScope {
 public:
  InlineDeliveryScope();
  ~InlineDeliveryScope();
  InlineDeliveryScope(const InlineDeliveryScope&) = delete;
  InlineDeliveryScope& operator=(const InlineDeliveryScope&) = delete;

 private:
  bool previous_;
};

// Sends `msg` to `dest` without a sender, as caf::anon_send does, running the
// receiver on this thread if an InlineDeliveryScope is open here.
void deliver(const caf::actor& dest, caf::message msg);

// What deliver() did since the process started. For tests, benchmarks and
// `kaisha cluster status`.
struct InlineDeliveryStats {
  unsigned long long inline_runs = 0;  // actor runs on the delivering thread
  unsigned long long handed_over = 0;  // runs left to the CAF workers by the per-envelope budget
  unsigned long long yielded = 0;      // inline runs stopped by the per-run message budget
  unsigned long long max_runs_per_envelope = 0;
};
InlineDeliveryStats inline_delivery_stats();

}  // namespace kaisha::cluster
