// TreeLimits: enforces SandboxLimits' memory, process and disk limits over a
// whole run rather than per process or per file.
//
// Memory and processes: a cgroup of its own for the run (CgroupJail, v2 or
// v1) where this process may create one; the kernel then refuses forks past
// the pids limit and OOM-kills past the memory limit, and over() notices
// either from the cgroup's counters. Where cgroups are not usable, the
// supervisor samples the tree below bwrap from /proc (resident memory of
// every process, number of processes) and reports it over a limit; RLIMIT_NPROC
// inside the sandbox stays as a hard backstop for forks between samples.
// Disk: the workspace's allocated size is sampled in both modes (no cgroup
// limits disk); a run that grows it past disk_bytes is over. A workspace that
// is already over when the run starts may still shrink (a clean-up run), but
// not grow.
//
// Samples can miss what happens between them: the supervisor's memory figure
// can overshoot by what the tree allocates in one interval, and the disk
// figure by what it writes in one (a few tens of ms); memory the supervisor
// cannot see as RSS (pipe buffers, unmapped memfd pages) is bounded only by
// the per-process limits.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/core/result.hpp"
#include "runtime/sandbox/cgroup_jail.hpp"
#include "runtime/sandbox/limits.hpp"

namespace kaisha::sandbox {

enum class LimitEnforcement {
  automatic,   // cgroups when usable, else the supervisor
  cgroup,      // cgroups or an Error (for tests and strict deployments)
  supervisor,  // always the /proc sampler (for tests)
};

struct LimitHit {
  std::string limit;    // "memory" | "processes" | "disk"
  int64_t value = 0;    // the limit: bytes, or a process count
  std::string message;  // for the user: which limit, its value, how enforced
};

class TreeLimits {
 public:
  // `workspace` is the host directory bound at /workspace ("" for none).
  static Result<std::unique_ptr<TreeLimits>> start(const SandboxLimits& limits, const std::string& workspace,
                                                   LimitEnforcement how);

  // "cgroup v2", "cgroup v1" or "supervisor".
  const std::string& mechanism() const { return mechanism_; }
  // Why cgroups were not used ("" when they were, or were not asked for).
  const std::string& cgroup_unusable_reason() const { return why_no_cgroup_; }
  // The cgroup.procs files the sandbox's first process joins (empty for the supervisor).
  std::vector<std::string> join_files() const;

  // Called every few tens of ms with bwrap's pid while it runs: true once a
  // limit is exceeded (the caller then kills the run).
  bool over(pid_t bwrap_pid);
  // After the run: the limit that was exceeded, if any (counters re-read).
  std::optional<LimitHit> hit();

 private:
  TreeLimits() = default;
  bool check_disk();

  SandboxLimits limits_;
  std::string workspace_;
  std::string mechanism_;
  std::string why_no_cgroup_;
  std::unique_ptr<CgroupJail> jail_;
  dev_t workspace_dev_ = 0;
  pid_t tree_root_ = -1;  // bwrap's pid once over() was given it: whose open files count
  int64_t disk_at_start_ = 0;
  int64_t disk_now_ = 0;
  std::chrono::steady_clock::time_point next_disk_check_{};
  std::optional<LimitHit> hit_;
};

}  // namespace kaisha::sandbox
