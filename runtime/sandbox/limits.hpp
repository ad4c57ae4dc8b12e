// SandboxLimits: the resource ceilings one sandboxed run gets. The defaults
// suit a generated tool; tests pass much smaller values so that each escape
// attempt is stopped in a second or two.
//
// memory_bytes, max_processes and disk_bytes hold for the whole run — every
// process the program starts, and the workspace as a whole — not per process
// or per file (see tree_limits.hpp for how they are enforced). A run that
// goes over one is killed, and SandboxResult::limit says which one.
#pragma once

#include <cstdint>

namespace kaisha::sandbox {

struct SandboxLimits {
  // RLIMIT_CPU soft limit: SIGXCPU at this many CPU seconds, SIGKILL one
  // second later (the hard limit), so a busy loop dies even without a clock.
  int64_t cpu_seconds = 10;
  // Memory of the whole process tree (a memory cgroup, or the sum of the
  // processes' resident sets). Also each process's RLIMIT_AS, so one huge
  // allocation fails inside the tool (MemoryError / ENOMEM) first.
  int64_t memory_bytes = 512ll << 20;
  // Processes inside the sandbox at once, its init included; one more stops
  // the run (a pids cgroup, or a count of the tree plus RLIMIT_NPROC).
  int64_t max_processes = 32;
  // RLIMIT_FSIZE: largest file a process may write (SIGXFSZ / EFBIG beyond).
  // Also the size of the sandbox's private /tmp and /dev/shm.
  int64_t max_file_bytes = 64ll << 20;
  // Disk used by the workspace as a whole (allocated blocks of everything
  // under it); growing past it stops the run.
  int64_t disk_bytes = 1ll << 30;
  // Wall clock for the whole run, enforced by the parent with SIGKILL.
  int64_t wall_timeout_ms = 10000;
  // Per stream (stdout and stderr each); the rest is read and dropped.
  int64_t max_output_bytes = 1ll << 20;
};

}  // namespace kaisha::sandbox
