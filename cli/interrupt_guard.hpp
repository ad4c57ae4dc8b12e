// InterruptGuard: Ctrl-C (SIGINT) or SIGTERM during `kaisha run` / `kaisha
// chat` commits the journal and records the running task as interrupted
// before the process exits (status 130), so nothing already journaled is
// lost and no task is left "running". Construct it before the runtime starts
// its threads (they inherit the blocked signal mask); arm() it once the
// runtime exists.
#pragma once

#include <atomic>
#include <thread>

#include "actors/company_runtime.hpp"

namespace kaisha::cli {

class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  void arm(actors::CompanyRuntime* runtime) { runtime_.store(runtime); }

 private:
  std::atomic<actors::CompanyRuntime*> runtime_{nullptr};
  std::thread watcher_;
};

}  // namespace kaisha::cli
