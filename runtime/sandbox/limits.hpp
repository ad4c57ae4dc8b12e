// SandboxLimits: the resource ceilings one sandboxed run gets. The defaults
// suit a generated tool; tests pass much smaller values so that each escape
// attempt is stopped in a second or two.
#pragma once

#include <cstdint>

namespace kaisha::sandbox {

struct SandboxLimits {
  // RLIMIT_CPU soft limit: SIGXCPU at this many CPU seconds, SIGKILL one
  // second later (the hard limit), so a busy loop dies even without a clock.
  int64_t cpu_seconds = 10;
  // RLIMIT_AS: address space per process, so a huge allocation fails inside
  // the tool (MemoryError / ENOMEM) instead of pressuring the host.
  int64_t memory_bytes = 512ll << 20;
  // RLIMIT_NPROC inside the sandbox's own user namespace (see bwrap_argv.hpp
  // for why it is applied there and not before bwrap starts).
  int64_t max_processes = 32;
  // RLIMIT_FSIZE: largest file a process may write (SIGXFSZ / EFBIG beyond).
  int64_t max_file_bytes = 64ll << 20;
  // Wall clock for the whole run, enforced by the parent with SIGKILL.
  int64_t wall_timeout_ms = 10000;
  // Per stream (stdout and stderr each); the rest is read and dropped.
  int64_t max_output_bytes = 1ll << 20;
};

}  // namespace kaisha::sandbox
