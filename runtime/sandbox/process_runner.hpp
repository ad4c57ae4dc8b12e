// run_process: fork/exec one program with piped stdin/stdout/stderr, rlimits
// set in the child before exec, an optional status pipe at fd 3, and a wall
// clock enforced from the parent. It never blocks past the deadline (plus a
// short grace to drain pipes) and always reaps the child, so no zombies.
//
// Safe to call from a multi-threaded process: everything the child needs is
// prepared before fork, and the child only makes async-signal-safe calls.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "runtime/core/result.hpp"

namespace kaisha::sandbox {

struct RlimitSetting {
  int resource;  // RLIMIT_*
  uint64_t soft;
  uint64_t hard;
};

struct ProcessSpec {
  std::string path;               // absolute path of the program
  std::vector<std::string> argv;  // argv[0] included
  std::vector<std::string> env;   // "NAME=value", the whole environment
  std::string stdin_data;
  std::vector<RlimitSetting> rlimits;
  // When set, the child drops to this uid/gid (and no supplementary groups)
  // before exec; used so that a root kaisha does not run bwrap as root.
  std::optional<std::pair<uid_t, gid_t>> run_as;
  bool status_pipe = false;  // child gets a write-only pipe at fd 3
  // Files the child writes "0" to before rlimits and run_as apply: the
  // cgroup.procs files of the cgroups it joins (and its descendants with it).
  std::vector<std::string> join_files;
  // Called with the child's pid about every watch_interval_ms while it runs;
  // returning true kills it (SIGKILL) and sets ProcessOutcome::stopped.
  std::function<bool(pid_t)> watch;
  int64_t watch_interval_ms = 25;
  int64_t wall_timeout_ms = 10000;
  int64_t max_output_bytes = 1 << 20;  // per stream
};

struct ProcessOutcome {
  bool exited = false;  // WIFEXITED
  int exit_code = -1;
  int signal = 0;  // WTERMSIG when the program itself was killed
  bool timed_out = false;
  bool stopped = false;  // the watch asked for the kill
  std::string stdout_data, stderr_data, status_data;
  bool output_truncated = false;
  int64_t wall_ms = 0;
};

// An Error ("sandbox_io") only when the host could not start the program
// (pipe, fork, exec, setuid failures), naming the failing step.
Result<ProcessOutcome> run_process(const ProcessSpec& spec);

}  // namespace kaisha::sandbox
