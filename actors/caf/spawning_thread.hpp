// A guard for a thread outside CAF that starts an actor system or spawns
// actors in one: when it goes, the thread keeps no reference to the system.
//
// CAF 0.17 gives a thread that constructs an actor_system, or spawns an
// actor in it, a reference to the system's logger (a thread-local, for
// CAF's log macros), and the system's destructor waits until the logger is
// gone. That reference goes only when the thread touches another system or
// ends. So a system started on a long-lived thread (an MCP request thread
// opening a company session, then waiting idle for its next request) and
// destroyed on another one (the main thread, at shutdown) would keep its
// destructor waiting until the first thread ends.
#pragma once

namespace kaisha::actors {

class SpawningThread {
 public:
  SpawningThread() = default;
  ~SpawningThread();  // drops this thread's reference, whichever system it is to
  SpawningThread(const SpawningThread&) = delete;
  SpawningThread& operator=(const SpawningThread&) = delete;
};

}  // namespace kaisha::actors
