#include "runtime/sandbox/bwrap_argv.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <map>

namespace kaisha::sandbox {

namespace {

// The only /etc entries shown: enough for the dynamic loader and python;
// notably not passwd, shadow, group, hosts or anything with secrets.
constexpr const char* kEtcFiles[] = {"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
                                     "/etc/localtime"};
// With share_network only: name resolution and TLS trust.
constexpr const char* kNetworkEtcFiles[] = {"/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf",  "/etc/host.conf",
                                            "/etc/gai.conf",    "/etc/ssl",   "/etc/ca-certificates"};

bool is_symlink(const std::string& path, std::string& target) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return false;
  char buf[4096];
  ssize_t n = readlink(path.c_str(), buf, sizeof buf - 1);
  if (n <= 0) return false;
  target.assign(buf, static_cast<size_t>(n));
  return true;
}

bool is_dir(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool valid_target(const std::string& t) {
  return !t.empty() && t[0] == '/' && t.find("..") == std::string::npos && t != "/";
}

}  // namespace

Result<std::vector<std::string>> build_bwrap_argv(const SandboxRequest& request, const std::string& workspace,
                                                  const BwrapPaths& paths) {
  if (request.argv.empty()) return Error{"sandbox_request", "run_sandboxed: argv is empty; nothing to run"};
  const SandboxLimits& lim = request.limits;
  std::vector<std::string> a = {paths.bwrap};
  auto add = [&a](std::initializer_list<std::string> xs) { a.insert(a.end(), xs); };

  // Every namespace, the user one explicitly so --uid/--gid apply; no caps.
  add({"--unshare-all", "--unshare-user", "--uid", std::to_string(kSandboxUid), "--gid", std::to_string(kSandboxGid),
       "--hostname", "sandbox", "--die-with-parent", "--new-session"});
  if (request.share_network) add({"--share-net"});
  if (paths.status_fd >= 0) add({"--json-status-fd", std::to_string(paths.status_fd)});

  add({"--ro-bind", "/usr", "/usr"});
  // On merged-/usr systems these are symlinks into /usr; mirror them as such.
  for (const char* top : {"/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"}) {
    std::string target;
    if (is_symlink(top, target))
      add({"--symlink", target, top});
    else if (is_dir(top))
      add({"--ro-bind", top, top});
  }
  for (const char* etc : kEtcFiles) add({"--ro-bind-try", etc, etc});
  if (request.share_network)
    for (const char* etc : kNetworkEtcFiles) add({"--ro-bind-try", etc, etc});
  add({"--proc", "/proc", "--dev", "/dev"});
  // /tmp and /dev/shm (otherwise a directory of /dev's unbounded tmpfs) are
  // capped at the file-size limit so they cannot eat host memory.
  add({"--size", std::to_string(lim.max_file_bytes), "--tmpfs", "/tmp"});
  add({"--size", std::to_string(lim.max_file_bytes), "--tmpfs", "/dev/shm"});
  if (workspace.empty())
    add({"--size", std::to_string(lim.max_file_bytes), "--tmpfs", "/workspace"});
  else
    add({"--bind", workspace, "/workspace"});
  for (const auto& b : request.ro_binds) {
    if (b.source.empty() || b.source[0] != '/' || !valid_target(b.target))
      return Error{"sandbox_request", "run_sandboxed: read-only bind '" + b.source + "' -> '" + b.target +
                                          "' needs an absolute source and an absolute target without '..'"};
    add({"--ro-bind", b.source, b.target});
  }
  // bwrap's root and /dev are tmpfs owned by the sandbox user: read-only, so
  // the only writable places are the size-capped ones and the workspace.
  add({"--remount-ro", "/dev", "--remount-ro", "/"});
  add({"--chdir", "/workspace"});

  std::map<std::string, std::string> env = {
      {"PATH", "/usr/local/bin:/usr/bin:/bin"}, {"HOME", "/workspace"}, {"TMPDIR", "/tmp"}};
  for (const auto& name : request.env_allow)
    if (const char* v = std::getenv(name.c_str())) env[name] = v;
  for (const auto& [k, v] : request.env) {
    if (k.empty() || k.find('=') != std::string::npos)
      return Error{"sandbox_request", "run_sandboxed: bad environment variable name '" + k + "'"};
    env[k] = v;
  }
  add({"--clearenv"});
  for (const auto& [k, v] : env) add({"--setenv", k, v});

  // The program, behind prlimit for RLIMIT_NPROC (see header for why). One
  // above the limit: it is a backstop, the tree limit (sandbox.cpp) stops
  // the run when the count goes past max_processes.
  std::string nproc = std::to_string(lim.max_processes + 1);
  add({paths.prlimit, "--nproc=" + nproc + ":" + nproc, "--"});
  a.insert(a.end(), request.argv.begin(), request.argv.end());
  return a;
}

}  // namespace kaisha::sandbox
