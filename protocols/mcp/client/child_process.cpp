#include "protocols/mcp/client/child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

extern char** environ;

namespace kaisha::mcp {
namespace {

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "was killed by signal " + std::to_string(WTERMSIG(status));
  return "ended (wait status " + std::to_string(status) + ")";
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

Result<std::unique_ptr<ChildProcess>> ChildProcess::spawn(const ChildSpec& spec) {
  if (spec.command.empty()) return Error{"spawn", "no command given"};
  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) != 0) return Error{"spawn", std::string("pipe: ") + std::strerror(errno)};
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]), ::close(in[1]);
    return Error{"spawn", std::string("pipe: ") + std::strerror(errno)};
  }
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(in[0]), ::close(in[1]), ::close(out[0]), ::close(out[1]);
    return Error{"spawn", std::string("pipe: ") + std::strerror(errno)};
  }

  // The environment: ours, with the spec's entries added or replaced.
  std::map<std::string, std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string kv = *e;
    auto eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const auto& [k, v] : spec.env) env[k] = v;
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);

  std::vector<std::string> argv_strings{spec.command};
  argv_strings.insert(argv_strings.end(), spec.args.begin(), spec.args.end());
  std::vector<char*> argv;
  for (auto& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err[1], 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Own process group (so the whole tree can be signalled) and default
  // signal handling (kaisha may ignore SIGPIPE; the server should not inherit that).
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

  pid_t pid = -1;
  const int rc = ::posix_spawnp(&pid, spec.command.c_str(), &fa, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  ::close(in[0]), ::close(out[1]), ::close(err[1]);
  if (rc != 0) {
    ::close(in[1]), ::close(out[0]), ::close(err[0]);
    return Error{"spawn", "cannot start '" + spec.command + "': " + std::strerror(rc)};
  }
  std::unique_ptr<ChildProcess> c(new ChildProcess());
  c->pid_ = pid;
  c->in_ = in[1];
  c->out_ = out[0];
  c->err_ = err[0];
  for (int fd : {c->in_, c->out_, c->err_}) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  return c;
}

ChildProcess::~ChildProcess() {
  terminate(std::chrono::milliseconds(500));
  close_fd(in_);
  close_fd(out_);
  close_fd(err_);
}

void ChildProcess::close_stdin() { close_fd(in_); }

std::optional<std::string> ChildProcess::try_reap() {
  if (ended_) return ended_;
  if (pid_ <= 0) return std::nullopt;
  int status = 0;
  pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_)
    ended_ = describe_status(status);
  else if (r < 0 && errno == ECHILD)
    ended_ = "ended (already reaped)";
  return ended_;
}

std::string ChildProcess::terminate(std::chrono::milliseconds grace) {
  if (pid_ <= 0) return "not started";
  auto wait_for = [&](std::chrono::milliseconds d) {
    const auto until = std::chrono::steady_clock::now() + d;
    while (!try_reap()) {
      if (std::chrono::steady_clock::now() >= until) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
  };
  close_stdin();
  if (wait_for(grace)) return *ended_;
  ::kill(-pid_, SIGTERM);
  if (wait_for(grace)) return *ended_;
  ::kill(-pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  ended_ = describe_status(status);
  return *ended_;
}

}  // namespace kaisha::mcp
