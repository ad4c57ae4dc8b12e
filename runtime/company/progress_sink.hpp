// ProgressSink receives the live events of a running company (hires, asks,
// tool calls, tokens, $ and resource use) for a person or a program to watch.
// emit() is called from actor threads: implementations must be thread-safe
// and must not block for long (print and return).
#pragma once

#include "runtime/messages/agent_messages.hpp"

namespace kaisha::company {

class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  virtual void emit(const msg::ProgressEvent& event) = 0;
  // False when events are discarded anyway: callers may skip building them.
  virtual bool listening() const { return true; }
};

// Discards everything; the default when nobody watches.
class NullProgressSink : public ProgressSink {
 public:
  void emit(const msg::ProgressEvent&) override {}
  bool listening() const override { return false; }
};

}  // namespace kaisha::company
