// InterruptGuard: Ctrl-C (SIGINT) or SIGTERM during `kaisha run` / `kaisha
// chat` commits the journal and records the running task as interrupted
// before the process exits (status 130), so nothing already journaled is
// lost and no task is left "running". Construct it before the runtime starts
// its threads (they inherit the blocked signal mask); arm() it once the
// runtime exists.
//
// While a question of the company waits for its user, Ctrl-C declines it
// instead (on_interrupt()), and the command goes on.
#pragma once

#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "actors/company/company_runtime.hpp"

namespace kaisha::cli {

class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  // The runtime a signal interrupts (null: none); replaces those watched.
  void arm(actors::CompanyRuntime* runtime);
  // Several runtimes at once (`kaisha eval --concurrency`): a signal
  // interrupts each one watched. unwatch() before the runtime is destroyed.
  void watch(actors::CompanyRuntime* runtime);
  void unwatch(actors::CompanyRuntime* runtime);
  // Asked first on each SIGINT; when it returns true the signal has been
  // handled and the process goes on. It runs on the guard's own thread.
  void on_interrupt(std::function<bool()> handler);

 private:
  std::mutex mu_;  // guards runtimes_ and handler_
  std::vector<actors::CompanyRuntime*> runtimes_;
  std::function<bool()> handler_;
  std::thread watcher_;
};

}  // namespace kaisha::cli
