#include "runtime/sandbox/sandbox.hpp"

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "runtime/core/confined_fs.hpp"
#include "runtime/core/json.hpp"
#include "runtime/sandbox/bwrap_argv.hpp"
#include "runtime/sandbox/process_runner.hpp"

namespace kaisha::sandbox {

namespace {

constexpr const char* kBwrap = "/usr/bin/bwrap";
constexpr const char* kPrlimit = "/usr/bin/prlimit";

// When kaisha is root, bwrap runs as the sandbox uid (root is exempt from
// RLIMIT_NPROC), so the workspace must belong to that uid to be writable.
// Earlier runs may have left symlinks or be rearranging the tree right now:
// the walk goes through directory descriptors and never follows a link.
Status hand_workspace_to_sandbox(const std::string& workspace) {
  auto dir = open_root_dir(workspace);
  Status s = dir ? chown_tree(dir->get(), kSandboxUid, kSandboxGid) : Status(dir.error());
  if (!s)
    return Error{"sandbox_setup", "run_sandboxed: cannot give workspace " + workspace + " to uid " +
                                      std::to_string(kSandboxUid) + ": " + s.error().message};
  return Status::Ok();
}

// As root the program runs as the sandbox's uid, and bubblewrap binds the
// workspace as that uid too: every directory above it must let others pass
// (o+x), or bwrap fails with a bare "Permission denied". Says which does not.
Status reachable_by_sandbox(const std::string& workspace) {
  std::string dir = workspace;
  while (true) {
    const size_t slash = dir.rfind('/');
    dir = slash == 0 ? "/" : dir.substr(0, slash);
    struct stat st {};
    if (stat(dir.c_str(), &st) != 0) break;
    const bool passes = (st.st_mode & S_IXOTH) ||
                        (st.st_uid == static_cast<uid_t>(kSandboxUid) && (st.st_mode & S_IXUSR)) ||
                        (st.st_gid == static_cast<gid_t>(kSandboxGid) && (st.st_mode & S_IXGRP));
    if (!passes) {
      char mode[8];
      std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
      return Error{"sandbox_setup", "run_sandboxed: the sandbox's uid " + std::to_string(kSandboxUid) +
                                        " cannot reach workspace " + workspace + ": " + dir + " is mode " + mode +
                                        " and lets no one else pass; make it searchable (chmod o+x " + dir +
                                        ") or put the workspace elsewhere"};
    }
    if (dir == "/") break;
  }
  return Status::Ok();
}

bool executable(const char* path) { return access(path, X_OK) == 0; }

// bwrap reports its own setup failures as exit 1 with "bwrap: ..." on
// stderr, before the program could write anything, or without a child pid.
bool looks_like_setup_failure(const ProcessOutcome& p) {
  bool child_started = p.status_data.find("child-pid") != std::string::npos;
  bool bwrap_message = p.stderr_data.rfind("bwrap: ", 0) == 0 && p.stdout_data.empty();
  return p.exited && p.exit_code == 1 && (!child_started || bwrap_message);
}

std::string first_line(const std::string& s) {
  std::string line = s.substr(0, s.find('\n'));
  return line.empty() ? "(no message)" : line;
}

}  // namespace

Result<SandboxResult> run_sandboxed(const SandboxRequest& request) {
  if (!executable(kBwrap))
    return Error{"sandbox_unavailable", std::string("run_sandboxed: ") + kBwrap +
                                            " not found or not executable; install the Debian package "
                                            "bubblewrap (scripts/install-deps.sh). Refusing to run unsandboxed."};
  if (!executable(kPrlimit))
    return Error{"sandbox_unavailable", std::string("run_sandboxed: ") + kPrlimit +
                                            " (util-linux) is missing; it applies the process limit "
                                            "inside the sandbox. Refusing to run."};
  const SandboxLimits& lim = request.limits;
  if (lim.cpu_seconds <= 0 || lim.memory_bytes <= 0 || lim.max_processes <= 0 || lim.max_file_bytes <= 0 ||
      lim.disk_bytes <= 0 || lim.wall_timeout_ms <= 0 || lim.max_output_bytes < 0)
    return Error{"sandbox_request", "run_sandboxed: every limit must be positive"};

  std::string workspace;
  if (!request.workspace.empty()) {
    char real[PATH_MAX];
    struct stat st {};
    if (!realpath(request.workspace.c_str(), real) || stat(real, &st) != 0 || !S_ISDIR(st.st_mode))
      return Error{"sandbox_setup", "run_sandboxed: workspace " + request.workspace +
                                        " is not an existing directory: " + std::strerror(errno ? errno : ENOTDIR)};
    workspace = real;
    if (workspace == "/") return Error{"sandbox_request", "run_sandboxed: the host root cannot be the workspace"};
    // As root the workspace is handed to the sandbox's uid, tree and all: a
    // shared directory such as /tmp must never be.
    if (st.st_mode & S_ISVTX)
      return Error{"sandbox_request",
                   "run_sandboxed: workspace " + workspace +
                       " is a shared directory (sticky bit, like /tmp); give a directory of its own"};
  }

  const bool root = geteuid() == 0;
  if (root && !workspace.empty()) {
    if (Status s = reachable_by_sandbox(workspace); !s) return s.error();
    if (Status s = hand_workspace_to_sandbox(workspace); !s) return s.error();
  }

  auto tree = TreeLimits::start(lim, workspace, request.enforcement);
  if (!tree) return tree.error();
  TreeLimits& limits = *tree.value();

  BwrapPaths paths;
  paths.bwrap = kBwrap;
  paths.prlimit = kPrlimit;
  paths.status_fd = 3;
  auto argv = build_bwrap_argv(request, workspace, paths);
  if (!argv) return argv.error();

  ProcessSpec spec;
  spec.path = kBwrap;
  spec.argv = std::move(argv.value());
  spec.env = {"PATH=/usr/bin:/bin", "LANG=C.UTF-8"};  // bwrap's own; --clearenv sets the program's
  spec.stdin_data = request.stdin_data;
  // Per-process limits inherited through bwrap by the program. CPU gets a
  // hard limit one second above the soft one: SIGXCPU first, then SIGKILL.
  auto u = [](int64_t v) { return static_cast<uint64_t>(v); };
  spec.rlimits = {{RLIMIT_CPU, u(lim.cpu_seconds), u(lim.cpu_seconds + 1)},
                  {RLIMIT_AS, u(lim.memory_bytes), u(lim.memory_bytes)},
                  {RLIMIT_FSIZE, u(lim.max_file_bytes), u(lim.max_file_bytes)},
                  {RLIMIT_CORE, 0, 0}};
  if (root) spec.run_as = std::make_pair(static_cast<uid_t>(kSandboxUid), static_cast<gid_t>(kSandboxGid));
  spec.status_pipe = true;
  spec.wall_timeout_ms = lim.wall_timeout_ms;
  spec.max_output_bytes = lim.max_output_bytes;
  spec.join_files = limits.join_files();
  spec.watch = [&limits](pid_t bwrap) { return limits.over(bwrap); };

  auto ran = run_process(spec);
  if (!ran) return ran.error();
  const ProcessOutcome& p = ran.value();
  std::optional<LimitHit> hit = limits.hit();
  if (!p.timed_out && !hit && looks_like_setup_failure(p))
    return Error{"sandbox_setup", "run_sandboxed: bubblewrap could not set up the sandbox (workspace '" + workspace +
                                      "'): " + first_line(p.stderr_data) + ". Refusing to run."};

  SandboxResult r;
  r.timed_out = p.timed_out;
  r.stdout_data = p.stdout_data;
  r.stderr_data = p.stderr_data;
  r.output_truncated = p.output_truncated;
  r.wall_ms = p.wall_ms;
  r.limit = std::move(hit);
  r.enforcement = limits.mechanism();
  if (p.exited) {
    r.exit_code = p.exit_code;
    // bwrap turns "killed by signal N" into exit status 128+N.
    if (p.exit_code > 128 && p.exit_code <= 128 + 64) r.signal = p.exit_code - 128;
  } else {
    r.exit_code = 128 + p.signal;  // bwrap itself was killed (our wall clock)
    r.signal = p.signal;
  }
  return r;
}

Status sandbox_available() {
  static std::atomic<bool> ok{false};
  if (ok.load()) return Status::Ok();
  SandboxRequest probe;
  probe.argv = {"true"};
  probe.limits.cpu_seconds = 2;
  probe.limits.wall_timeout_ms = 5000;
  auto r = run_sandboxed(probe);
  if (!r) return Error{"sandbox_unavailable", r.error().message};
  if (r->timed_out || r->exit_code != 0)
    return Error{"sandbox_unavailable",
                 "sandbox_available: a trivial sandboxed `true` " +
                     std::string(r->timed_out ? "timed out" : "exited " + std::to_string(r->exit_code)) + ": " +
                     first_line(r->stderr_data)};
  ok.store(true);
  return Status::Ok();
}

}  // namespace kaisha::sandbox
