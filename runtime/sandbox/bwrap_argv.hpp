// build_bwrap_argv: turns a SandboxRequest into the bubblewrap command line.
// Kept apart from process handling so the policy (what is visible, what is
// shared) can be read and tested in one place.
//
// Why RLIMIT_NPROC is applied by /usr/bin/prlimit inside the sandbox rather
// than with setrlimit before exec like the others: the kernel skips the
// NPROC check for processes owned by host root and counts it per (user
// namespace, uid). Set before bwrap, the limit would also become the new
// namespace's ceiling on *all* processes of that uid on the host. Set inside,
// it counts only the sandbox's own processes.
#pragma once

#include <string>
#include <vector>

#include "runtime/core/result.hpp"
#include "runtime/sandbox/sandbox.hpp"

namespace kaisha::sandbox {

struct BwrapPaths {
  std::string bwrap = "/usr/bin/bwrap";
  std::string prlimit = "/usr/bin/prlimit";  // must be visible inside (under /usr)
  int status_fd = -1;                        // when >= 0, passed as --json-status-fd
};

// The full argv (argv[0] is the bwrap path). `workspace` must already be the
// canonical host path ("" for a private tmpfs /workspace). The environment
// inside is exactly: PATH, HOME=/workspace, TMPDIR=/tmp (unless overridden),
// each name in env_allow that is set on the host, then request.env.
Result<std::vector<std::string>> build_bwrap_argv(const SandboxRequest& request, const std::string& workspace,
                                                  const BwrapPaths& paths);

}  // namespace kaisha::sandbox
