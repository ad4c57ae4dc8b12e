#include "runtime/sandbox/process_runner.hpp"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace kaisha::sandbox {

namespace {

using Clock = std::chrono::steady_clock;

// Child-side failure report: which step failed and its errno, written to a
// close-on-exec pipe so the parent learns of it (EOF means exec succeeded).
struct ChildFailure {
  int step;
  int err;
};
enum ChildStep { kDup = 1, kJoin, kRlimit, kSetgroups, kSetgid, kSetuid, kPdeath, kExec };

const char* step_name(int step) {
  switch (step) {
    case kDup:
      return "dup2 of the stdio pipes";
    case kJoin:
      return "joining the cgroup";
    case kRlimit:
      return "setrlimit";
    case kSetgroups:
      return "setgroups";
    case kSetgid:
      return "setgid";
    case kSetuid:
      return "setuid";
    case kPdeath:
      return "prctl(PR_SET_PDEATHSIG)";
    case kExec:
      return "execve";
  }
  return "child setup";
}

[[noreturn]] void child_fail(int err_fd, int step) {
  ChildFailure f{step, errno};
  ssize_t ignored = write(err_fd, &f, sizeof f);
  (void)ignored;
  _exit(127);
}

// An owned fd, closed once; -1 means closed.
struct Fd {
  int fd = -1;
  Fd() = default;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  void reset() {
    if (fd >= 0) close(fd);
    fd = -1;
  }
};

bool make_pipe(Fd& r, Fd& w) {
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) return false;
  r.fd = p[0];
  w.fd = p[1];
  return true;
}

void set_nonblocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

int64_t ms_since(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count();
}

// Appends what is readable on `fd` to `out` up to `cap` bytes, dropping the
// rest so a chatty program cannot grow our memory. Returns false at EOF.
bool drain(int fd, std::string& out, int64_t cap, bool& truncated) {
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
      int64_t room = cap - static_cast<int64_t>(out.size());
      if (room > 0) out.append(buf, static_cast<size_t>(std::min<int64_t>(room, n)));
      if (n > room) truncated = true;
      continue;
    }
    if (n == 0) return false;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK;  // other errors: treat as EOF
  }
}

}  // namespace

Result<ProcessOutcome> run_process(const ProcessSpec& spec) {
  if (spec.argv.empty() || spec.path.empty())
    return Error{"sandbox_request", "run_process: empty program path or argv"};

  // Everything the child touches is built before fork (no allocation after).
  std::vector<char*> argv, envp;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : spec.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  std::vector<const char*> join;
  for (const auto& f : spec.join_files) join.push_back(f.c_str());

  // stdin is a socketpair so that writing to a program that quit early gives
  // EPIPE via send(MSG_NOSIGNAL) instead of a SIGPIPE in the host process.
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return Error{"sandbox_io", std::string("run_process: socketpair for stdin: ") + std::strerror(errno)};
  Fd in_child(sv[0]), in_parent(sv[1]);
  Fd out_r, out_w, err_r, err_w, st_r, st_w, fail_r, fail_w;
  if (!make_pipe(out_r, out_w) || !make_pipe(err_r, err_w) || !make_pipe(fail_r, fail_w) ||
      (spec.status_pipe && !make_pipe(st_r, st_w)))
    return Error{"sandbox_io", std::string("run_process: pipe: ") + std::strerror(errno)};

  const pid_t parent_pid = getpid();
  const auto start = Clock::now();
  pid_t pid = fork();
  if (pid < 0) return Error{"sandbox_io", std::string("run_process: fork: ") + std::strerror(errno)};
  if (pid == 0) {
    // Child: fd layout 0,1,2 stdio, 3 status (optional), 4 failure pipe,
    // everything else closed so no host fd leaks into the sandbox. Sources
    // are first moved to >= 10 so no dup2 below can clobber another source.
    int hi_in = fcntl(in_child.fd, F_DUPFD_CLOEXEC, 10);
    int hi_out = fcntl(out_w.fd, F_DUPFD_CLOEXEC, 10);
    int hi_err = fcntl(err_w.fd, F_DUPFD_CLOEXEC, 10);
    int hi_fail = fcntl(fail_w.fd, F_DUPFD_CLOEXEC, 10);
    int hi_st = spec.status_pipe ? fcntl(st_w.fd, F_DUPFD_CLOEXEC, 10) : -2;
    if (hi_fail < 0 || dup2(hi_fail, 4) < 0) _exit(127);  // cannot even report
    const int fail = 4;
    fcntl(fail, F_SETFD, FD_CLOEXEC);
    if (hi_in < 0 || hi_out < 0 || hi_err < 0 || hi_st == -1) child_fail(fail, kDup);
    if (dup2(hi_in, 0) < 0 || dup2(hi_out, 1) < 0 || dup2(hi_err, 2) < 0) child_fail(fail, kDup);
    if (spec.status_pipe) {
      if (dup2(hi_st, 3) < 0) child_fail(fail, kDup);
    } else {
      close(3);
    }
    syscall(SYS_close_range, 5u, ~0u, 0u);
    signal(SIGPIPE, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    for (const char* f : join) {
      int fd = open(f, O_WRONLY | O_CLOEXEC);
      if (fd < 0 || write(fd, "0", 1) != 1) child_fail(fail, kJoin);
      close(fd);
    }
    for (const auto& r : spec.rlimits) {
      struct rlimit rl {
        static_cast<rlim_t>(r.soft), static_cast<rlim_t>(r.hard)
      };
      if (setrlimit(r.resource, &rl) != 0) child_fail(fail, kRlimit);
    }
    if (spec.run_as) {
      if (setgroups(0, nullptr) != 0) child_fail(fail, kSetgroups);
      if (setgid(spec.run_as->second) != 0) child_fail(fail, kSetgid);
      if (setuid(spec.run_as->first) != 0) child_fail(fail, kSetuid);
    }
    // After the uid change, which clears it: die if kaisha dies.
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) child_fail(fail, kPdeath);
    if (getppid() != parent_pid) _exit(127);
    execve(spec.path.c_str(), argv.data(), envp.data());
    child_fail(fail, kExec);
  }

  // Parent.
  in_child.reset();
  out_w.reset();
  err_w.reset();
  st_w.reset();
  fail_w.reset();

  ProcessOutcome out;
  int status = 0;
  bool reaped = false;

  // Did the child reach exec? The failure pipe closes on exec (CLOEXEC).
  ChildFailure failure{};
  ssize_t got;
  do got = read(fail_r.fd, &failure, sizeof failure);
  while (got < 0 && errno == EINTR);
  if (got == static_cast<ssize_t>(sizeof failure)) {
    waitpid(pid, &status, 0);
    return Error{"sandbox_io", std::string("run_process: starting ") + spec.path + " failed at " +
                                   step_name(failure.step) + ": " + std::strerror(failure.err)};
  }

  set_nonblocking(out_r.fd);
  set_nonblocking(err_r.fd);
  if (st_r.fd >= 0) set_nonblocking(st_r.fd);
  set_nonblocking(in_parent.fd);
  size_t stdin_off = 0;
  if (spec.stdin_data.empty()) in_parent.reset();  // EOF right away

  // pidfd lets poll wake on exit; without it we fall back to a short tick.
  int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  Fd pidfd_owner(pidfd);

  const auto deadline = start + std::chrono::milliseconds(spec.wall_timeout_ms);
  Clock::time_point ended{};
  auto next_watch = start + std::chrono::milliseconds(spec.watch_interval_ms);
  bool killed = false;
  bool tail_truncated = false;  // status pipe overflow is not user output
  for (;;) {
    if (!reaped) {
      pid_t w = waitpid(pid, &status, WNOHANG);
      if (w == pid) {
        reaped = true;
        ended = Clock::now();
        out.wall_ms = ms_since(start);
        in_parent.reset();
      }
    }
    bool pipes_open = out_r.fd >= 0 || err_r.fd >= 0 || st_r.fd >= 0;
    if (reaped && !pipes_open) break;
    // After exit, give straggling writers (there should be none: the pid
    // namespace dies with bwrap) a short grace, then stop reading.
    if (reaped && Clock::now() - ended > std::chrono::milliseconds(500)) break;
    if (!killed && Clock::now() >= deadline) {
      kill(pid, SIGKILL);  // bwrap; --die-with-parent takes the sandbox down
      killed = true;
      out.timed_out = true;
    }
    if (!killed && !reaped && spec.watch && Clock::now() >= next_watch) {
      if (spec.watch(pid)) {
        kill(pid, SIGKILL);
        killed = true;
        out.stopped = true;
      }
      next_watch = Clock::now() + std::chrono::milliseconds(spec.watch_interval_ms);
    }

    pollfd fds[5];
    int n = 0;
    int i_in = -1, i_out = -1, i_err = -1, i_st = -1, i_pid = -1;
    if (in_parent.fd >= 0) {
      i_in = n;
      fds[n++] = {in_parent.fd, POLLOUT, 0};
    }
    if (out_r.fd >= 0) {
      i_out = n;
      fds[n++] = {out_r.fd, POLLIN, 0};
    }
    if (err_r.fd >= 0) {
      i_err = n;
      fds[n++] = {err_r.fd, POLLIN, 0};
    }
    if (st_r.fd >= 0) {
      i_st = n;
      fds[n++] = {st_r.fd, POLLIN, 0};
    }
    if (!reaped && pidfd >= 0) {
      i_pid = n;
      fds[n++] = {pidfd, POLLIN, 0};
    }
    int timeout_ms = 50;
    if (!reaped && pidfd >= 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (spec.watch)
        left = std::min<int64_t>(
            left, std::chrono::duration_cast<std::chrono::milliseconds>(next_watch - Clock::now()).count());
      timeout_ms = killed ? 50 : static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(left + 1, 1000)));
    } else if (!reaped) {
      timeout_ms = 5;
    }
    int r = poll(fds, static_cast<nfds_t>(n), timeout_ms);
    if (r < 0 && errno != EINTR) break;
    if (r <= 0) continue;
    (void)i_pid;
    if (i_in >= 0 && fds[i_in].revents) {
      if (fds[i_in].revents & (POLLERR | POLLHUP)) {
        in_parent.reset();
      } else {
        ssize_t w = send(in_parent.fd, spec.stdin_data.data() + stdin_off, spec.stdin_data.size() - stdin_off,
                         MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w > 0) stdin_off += static_cast<size_t>(w);
        if ((w < 0 && errno != EAGAIN && errno != EINTR) || stdin_off >= spec.stdin_data.size())
          in_parent.reset();  // done, or the program stopped reading
      }
    }
    if (i_out >= 0 && fds[i_out].revents &&
        !drain(out_r.fd, out.stdout_data, spec.max_output_bytes, out.output_truncated))
      out_r.reset();
    if (i_err >= 0 && fds[i_err].revents &&
        !drain(err_r.fd, out.stderr_data, spec.max_output_bytes, out.output_truncated))
      err_r.reset();
    if (i_st >= 0 && fds[i_st].revents && !drain(st_r.fd, out.status_data, 1 << 16, tail_truncated)) st_r.reset();
  }

  if (!reaped) {
    // Only reachable when poll itself failed; never leave a zombie.
    kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    out.wall_ms = ms_since(start);
  }
  if (WIFEXITED(status)) {
    out.exited = true;
    out.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    out.signal = WTERMSIG(status);
  }
  return out;
}

}  // namespace kaisha::sandbox
