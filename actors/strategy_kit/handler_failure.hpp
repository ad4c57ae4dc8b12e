// What an actor does when one of its message handlers throws.
//
// CAF 0.17 then calls the actor's exception handler and stops the actor; it
// answers none of the requests the actor has taken and not answered yet, so
// whoever awaits one (run_task, a protocol request, the CEO awaiting an
// employee) would wait forever. Each actor that holds requests (CEO,
// planner, judge, employee) therefore installs an exception handler that
// answers all of them with a failure naming the exception, stops the actors
// it started, and returns the error it stops with. Requests sent after that
// are bounced by CAF at once, so nothing waits on the stopped actor.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <string>

#include <caf/error.hpp>

namespace kaisha::actors {

// "<actor> stopped after an error in a message handler: <what()>".
std::string describe_handler_failure(const std::string& actor, const std::exception_ptr& e);

// The error an actor stops with, carrying `text` (monitors and links see it).
caf::error handler_failure_error(const std::string& text);

// The requests an actor holds beyond the handler that took them (answered
// later, from a callback), each with how to answer it with a failure. Not
// thread-safe: lives in the actor's state.
class PendingReplies {
 public:
  // Remembers `fail`; returns the ticket to pass to done().
  uint64_t add(std::function<void(const std::string& why)> fail) {
    pending_.emplace(++last_, std::move(fail));
    return last_;
  }
  // The request was answered: it is forgotten.
  void done(uint64_t ticket) { pending_.erase(ticket); }
  // Answers every request still held with `why` (the actor is stopping).
  void fail_all(const std::string& why) {
    auto all = std::move(pending_);
    pending_.clear();
    for (auto& [_, fail] : all) fail(why);
  }
  size_t size() const { return pending_.size(); }

 private:
  uint64_t last_ = 0;
  std::map<uint64_t, std::function<void(const std::string&)>> pending_;
};

}  // namespace kaisha::actors
