// run_sandboxed: runs code the system did not ship (generated tools,
// execute_code) as a child process under bubblewrap, with no network, a
// read-only view of the system, one writable workspace, rlimits, limits on
// the whole run's memory, processes and workspace disk (tree_limits.hpp) and
// a wall clock. It fails closed: when the sandbox cannot be built the run does not
// happen and the Error says why.
//
// What the sandboxed process sees:
//   /usr (ro), /bin /lib /lib64 /sbin as on the host (symlinks or ro binds),
//   a handful of /etc files python needs (never passwd, shadow or the rest),
//   fresh /proc, a minimal read-only /dev, empty size-capped tmpfs /tmp and
//   /dev/shm, the workspace at
//   /workspace (rw, the working directory), extra read-only binds the caller
//   names, and only the environment variables it was given.
//   No network unless the request asks for it (share_network).
// It runs as uid/gid 65534 in its own user, pid, net, ipc, uts and cgroup
// namespaces with no capabilities.
//
// Host requirements: /usr/bin/bwrap (Debian package bubblewrap), user
// namespaces enabled, /usr/bin/prlimit (util-linux). When kaisha runs as
// root, bwrap is started as uid 65534 instead (see process_runner.hpp) and the
// workspace tree is chowned to that uid so the sandbox can write it; its path
// and every extra bind must then be reachable (search permission) by 65534.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/core/result.hpp"
#include "runtime/sandbox/limits.hpp"
#include "runtime/sandbox/tree_limits.hpp"

namespace kaisha::sandbox {

// A host path shown read-only inside the sandbox at `target`.
struct SandboxBind {
  std::string source;
  std::string target;
};

struct SandboxRequest {
  std::vector<std::string> argv;  // argv[0] is looked up on the sandbox PATH
  std::string stdin_data;
  std::string workspace;               // host dir, bound read-write at /workspace
  std::vector<std::string> env_allow;  // names copied from the host env
  // Off: no network at all (a private, empty net namespace). On: the host's
  // network plus the /etc files DNS and TLS need — for tools a user allowed
  // to call external APIs; everything else stays as above.
  bool share_network = false;
  std::map<std::string, std::string> env;  // set explicitly (wins over allow)
  SandboxLimits limits;
  std::vector<SandboxBind> ro_binds;
  LimitEnforcement enforcement = LimitEnforcement::automatic;
};

struct SandboxResult {
  int exit_code = -1;      // as bwrap reports it; 128+N when killed by signal N
  int signal = 0;          // N when the sandboxed process died of signal N
  bool timed_out = false;  // the wall clock ran out and the run was killed
  std::string stdout_data, stderr_data;
  bool output_truncated = false;
  int64_t wall_ms = 0;
  // Set when the run went over a whole-run limit (memory, processes, disk)
  // and was stopped; its message names the limit, its value and the mechanism.
  std::optional<LimitHit> limit;
  // How memory and processes were limited: "cgroup v2", "cgroup v1" or
  // "supervisor" (tree_limits.hpp).
  std::string enforcement;
};

// The sandbox uid/gid inside (and, when kaisha is root, outside) the sandbox.
inline constexpr int kSandboxUid = 65534;
inline constexpr int kSandboxGid = 65534;

// Error codes: "sandbox_unavailable" (bwrap missing or namespaces refused),
// "sandbox_setup" (bwrap could not build this sandbox: bad workspace, bind,
// ...), "sandbox_request" (the request itself is unusable), "sandbox_io"
// (fork/pipe failures on the host). A program that ran and failed is not an
// Error: its exit code, signal and output are in the SandboxResult.
Result<SandboxResult> run_sandboxed(const SandboxRequest& request);

// Probes that bwrap exists and can create the namespaces here by running
// `true` in a minimal sandbox. Cached after the first success.
Status sandbox_available();

}  // namespace kaisha::sandbox
