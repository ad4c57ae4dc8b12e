// Real bubblewrap sandboxes, real child processes: the normal paths and the
// escape attempts issue 6 lists, each contained with a clear error and the
// host left as it was. Skips (with bwrap's reason) only when this host cannot
// create the sandbox at all.
#include "runtime/sandbox/sandbox.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace kaisha::sandbox {
namespace {

namespace fs = std::filesystem;

#define REQUIRE_SANDBOX()                                                 \
  do {                                                                    \
    Status s = sandbox_available();                                       \
    if (!s) GTEST_SKIP() << "sandbox unavailable: " << s.error().message; \
  } while (0)

// A fresh directory removed at scope exit.
struct TempDir {
  std::string path;
  explicit TempDir(const char* tag) {
    std::string tmpl = std::string("/tmp/kaisha-") + tag + "-XXXXXX";
    char* p = mkdtemp(tmpl.data());
    if (p) path = p;
    // Searchable by the sandbox uid, which must reach it to bind it.
    chmod(path.c_str(), 0755);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

SandboxLimits small_limits() {
  SandboxLimits l;
  l.cpu_seconds = 2;
  l.memory_bytes = 256ll << 20;
  l.max_processes = 16;
  l.max_file_bytes = 8ll << 20;
  l.wall_timeout_ms = 3000;
  l.max_output_bytes = 64 << 10;
  return l;
}

SandboxResult run_ok(SandboxRequest req) {
  auto r = run_sandboxed(req);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().code + ": " + r.error().message);
  return r.ok() ? r.value() : SandboxResult{};
}

SandboxResult python(const std::string& code, const std::string& workspace = "",
                     SandboxLimits limits = small_limits()) {
  SandboxRequest req;
  req.argv = {"python3", "-c", code};
  req.workspace = workspace;
  req.limits = limits;
  return run_ok(req);
}

TEST(Sandbox, HelloWorld) {
  REQUIRE_SANDBOX();
  SandboxResult r = python("print('hello')");
  EXPECT_EQ(r.stdout_data, "hello\n");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.signal, 0);
  EXPECT_FALSE(r.timed_out);
}

TEST(Sandbox, StdinToStdout) {
  REQUIRE_SANDBOX();
  SandboxRequest req;
  req.argv = {"cat"};
  req.stdin_data = std::string(200000, 'x') + "end";  // more than a pipe buffer
  req.limits = small_limits();
  req.limits.max_output_bytes = 1 << 20;
  SandboxResult r = run_ok(req);
  EXPECT_EQ(r.stdout_data, req.stdin_data);
  EXPECT_EQ(r.exit_code, 0);
}

TEST(Sandbox, ExitCodeAndWorkspaceIsCwd) {
  REQUIRE_SANDBOX();
  TempDir ws("ws");
  SandboxRequest req;
  req.argv = {"sh", "-c", "pwd; echo made > out.txt; exit 7"};
  req.workspace = ws.path;
  req.limits = small_limits();
  SandboxResult r = run_ok(req);
  EXPECT_EQ(r.exit_code, 7);
  EXPECT_EQ(r.signal, 0);
  EXPECT_EQ(r.stdout_data, "/workspace\n");
  std::ifstream made(ws.path + "/out.txt");
  std::string line;
  std::getline(made, line);
  EXPECT_EQ(line, "made");  // the workspace is the one writable host path
}

TEST(Sandbox, EnvironmentIsClearedExceptAllowList) {
  REQUIRE_SANDBOX();
  setenv("KAISHA_SANDBOX_SECRET", "leak", 1);
  setenv("KAISHA_SANDBOX_ALLOWED", "fine", 1);
  SandboxRequest req;
  req.argv = {"python3", "-c", "import os; print(sorted(os.environ))"};
  req.env_allow = {"KAISHA_SANDBOX_ALLOWED", "KAISHA_SANDBOX_UNSET"};
  req.env = {{"EXPLICIT", "1"}};
  req.limits = small_limits();
  SandboxResult r = run_ok(req);
  EXPECT_EQ(r.exit_code, 0) << r.stderr_data;
  EXPECT_EQ(r.stdout_data.find("KAISHA_SANDBOX_SECRET"), std::string::npos) << r.stdout_data;
  EXPECT_EQ(r.stdout_data.find("KAISHA_SANDBOX_UNSET"), std::string::npos) << r.stdout_data;
  EXPECT_NE(r.stdout_data.find("KAISHA_SANDBOX_ALLOWED"), std::string::npos) << r.stdout_data;
  EXPECT_NE(r.stdout_data.find("EXPLICIT"), std::string::npos) << r.stdout_data;
  unsetenv("KAISHA_SANDBOX_SECRET");
  unsetenv("KAISHA_SANDBOX_ALLOWED");
}

TEST(SandboxEscape, ReadEtcShadowFails) {
  REQUIRE_SANDBOX();
  SandboxResult r = python("open('/etc/shadow').read()");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.stderr_data.find("FileNotFoundError"), std::string::npos) << r.stderr_data;
  // Nor is anything else of /etc there beyond the loader's files.
  SandboxResult ls = python("import os; print(sorted(os.listdir('/etc')))");
  EXPECT_EQ(ls.stdout_data.find("passwd"), std::string::npos) << ls.stdout_data;
  EXPECT_EQ(ls.stdout_data.find("shadow"), std::string::npos) << ls.stdout_data;
}

TEST(SandboxEscape, HostFileOutsideWorkspaceIsInvisible) {
  REQUIRE_SANDBOX();
  TempDir ws("ws"), host("host");
  std::string secret = host.path + "/secret.txt";
  std::ofstream(secret) << "host secret";
  SandboxResult r = python("import os\nprint(os.path.exists('" + secret +
                               "'), os.listdir('/tmp'))\n"
                               "open('" +
                               secret + "').read()",
                           ws.path);
  EXPECT_EQ(r.stdout_data, "False []\n");  // /tmp inside is a fresh, empty tmpfs
  EXPECT_NE(r.stderr_data.find("FileNotFoundError"), std::string::npos) << r.stderr_data;
  EXPECT_NE(r.exit_code, 0);
}

TEST(SandboxEscape, NetworkConnectionFails) {
  REQUIRE_SANDBOX();
  int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  ASSERT_GE(lfd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(lfd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(listen(lfd, 4), 0);
  socklen_t len = sizeof addr;
  getsockname(lfd, reinterpret_cast<sockaddr*>(&addr), &len);
  int port = ntohs(addr.sin_port);

  SandboxResult r = python("import socket\ns = socket.create_connection(('127.0.0.1', " + std::to_string(port) +
                           "), timeout=1)\nprint('connected')");
  EXPECT_EQ(r.stdout_data.find("connected"), std::string::npos);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.stderr_data.find("ConnectionRefusedError"), std::string::npos) << r.stderr_data;
  EXPECT_LT(accept(lfd, nullptr, nullptr), 0);  // nothing reached the host listener
  close(lfd);
}

TEST(SandboxEscape, ForkBombIsContained) {
  REQUIRE_SANDBOX();
  // The count is for the whole sandbox: going past it stops the run, named.
  SandboxResult counted = python(
      "import os, time\nn = 0\ntry:\n  while n < 200:\n    if os.fork() == 0:\n"
      "      time.sleep(5); os._exit(0)\n    n += 1\nexcept OSError as e:\n  print('stopped', n, e.errno)\n"
      "time.sleep(5)\n");
  ASSERT_TRUE(counted.limit.has_value()) << counted.stdout_data << counted.stderr_data;
  EXPECT_EQ(counted.limit->limit, "processes");
  EXPECT_EQ(counted.limit->value, 16);
  EXPECT_FALSE(counted.timed_out);

  // The classic bomb: stopped by the process limit, everything killed.
  SandboxLimits l = small_limits();
  l.wall_timeout_ms = 20000;
  SandboxResult bomb = python("import os\nwhile True:\n  try:\n    os.fork()\n  except OSError:\n    pass\n", "", l);
  ASSERT_TRUE(bomb.limit.has_value());
  EXPECT_EQ(bomb.limit->limit, "processes");
  EXPECT_FALSE(bomb.timed_out);
  // The host still forks and sandboxes still run.
  EXPECT_EQ(python("print('alive')").stdout_data, "alive\n");
}

TEST(SandboxEscape, OnlyTheWorkspaceAndCappedTmpfsAreWritable) {
  REQUIRE_SANDBOX();
  // bwrap's root and /dev are tmpfs owned by the sandbox user; unbounded,
  // they would hold any amount of host memory.
  SandboxResult r = python(
      "import errno\nfor p in ('/junk', '/dev/junk'):\n  try:\n    open(p, 'w')\n    print(p, 'written')\n"
      "  except OSError as e:\n    print(p, errno.errorcode[e.errno])\n"
      "try:\n  open('/dev/shm/big', 'wb').write(b'x' * (16 << 20))\n  print('shm written')\n"
      "except OSError as e:\n  print('shm', errno.errorcode[e.errno])\n");
  EXPECT_EQ(r.stdout_data, "/junk EROFS\n/dev/junk EROFS\nshm EFBIG\n") << r.stderr_data;
}

TEST(SandboxEscape, InfiniteLoopIsKilled) {
  REQUIRE_SANDBOX();
  SandboxLimits l = small_limits();
  l.cpu_seconds = 1;
  SandboxResult r = python("while True: pass", "", l);
  EXPECT_TRUE(r.signal == SIGXCPU || r.signal == SIGKILL || r.timed_out)
      << "exit " << r.exit_code << " signal " << r.signal;
  EXPECT_LT(r.wall_ms, 4000);
}

TEST(SandboxEscape, WallClockKillsASleeper) {
  REQUIRE_SANDBOX();
  SandboxRequest req;
  req.argv = {"sleep", "30"};
  req.limits = small_limits();
  req.limits.wall_timeout_ms = 500;
  SandboxResult r = run_ok(req);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.signal, SIGKILL);
  EXPECT_LT(r.wall_ms, 2000);
}

TEST(SandboxEscape, TenGigabyteAllocationFails) {
  REQUIRE_SANDBOX();
  SandboxResult r = python("b = bytearray(10 * 1024**3)\nprint('allocated')");
  EXPECT_EQ(r.stdout_data.find("allocated"), std::string::npos);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.stderr_data.find("MemoryError"), std::string::npos) << r.stderr_data;
}

TEST(SandboxEscape, TenGigabyteWriteStopsAtFileSizeLimit) {
  REQUIRE_SANDBOX();
  TempDir ws("ws");
  SandboxResult r = python(
      "chunk = b'x' * (1 << 20)\nwith open('big', 'wb') as f:\n"
      "  for _ in range(10 * 1024):\n    f.write(chunk)\nprint('wrote')",
      ws.path);
  EXPECT_EQ(r.stdout_data.find("wrote"), std::string::npos);
  // Python ignores SIGXFSZ, so the limit shows up as EFBIG ("File too large").
  EXPECT_TRUE(r.stderr_data.find("File too large") != std::string::npos || r.signal == SIGXFSZ) << r.stderr_data;
  EXPECT_LE(fs::file_size(ws.path + "/big"), 8ull << 20);
}

TEST(SandboxEscape, SymlinkOutOfWorkspaceDoesNotReachHost) {
  REQUIRE_SANDBOX();
  TempDir ws("ws"), host("host");
  std::string secret = host.path + "/secret.txt";
  std::ofstream(secret) << "host secret";
  fs::create_symlink("/etc/passwd", ws.path + "/passwd_link");
  fs::create_symlink(secret, ws.path + "/secret_link");
  // Inside, links resolve in the sandbox's view: /etc/passwd and the host
  // temp dir do not exist there, so both are dangling. Writing through one
  // cannot create the host file either.
  SandboxResult r = python(
      "import os\nfor p in ('passwd_link', 'secret_link'):\n"
      "  print(p, os.readlink(p), os.path.exists(p))\n"
      "try:\n  open('secret_link', 'w').write('pwned')\nexcept OSError as e:\n  print('write', type(e).__name__)\n"
      "os.symlink('/etc/shadow', 'made_inside')\n",
      ws.path);
  EXPECT_EQ(r.exit_code, 0) << r.stderr_data;
  EXPECT_EQ(r.stdout_data,
            "passwd_link /etc/passwd False\nsecret_link " + secret + " False\nwrite FileNotFoundError\n");
  std::ifstream in(secret);
  std::string content;
  std::getline(in, content);
  EXPECT_EQ(content, "host secret");
  // A link the sandbox made is chowned as a link on the next run, never its
  // target: the host's /etc/shadow keeps its owner.
  struct stat before {
  }, after{};
  ASSERT_EQ(stat("/etc/shadow", &before), 0);
  python("pass", ws.path);
  ASSERT_EQ(stat("/etc/shadow", &after), 0);
  EXPECT_EQ(before.st_uid, after.st_uid);
  EXPECT_EQ(before.st_gid, after.st_gid);
}

TEST(SandboxEscape, PathTraversalStaysInSandboxView) {
  REQUIRE_SANDBOX();
  TempDir ws("ws");
  SandboxResult r = python(
      "import os\nprint(os.path.realpath('../../../..'))\nprint(sorted(os.listdir('../../../..')))\n"
      "print(os.path.exists('../../../../etc/shadow'), os.path.exists('../../../../etc/passwd'))\n",
      ws.path);
  EXPECT_EQ(r.exit_code, 0) << r.stderr_data;
  // The root seen is the sandbox's: system dirs and /workspace, not the host's.
  EXPECT_EQ(r.stdout_data.rfind("/\n", 0), 0u) << r.stdout_data;
  EXPECT_NE(r.stdout_data.find("'workspace'"), std::string::npos) << r.stdout_data;
  EXPECT_EQ(r.stdout_data.find("'work'"), std::string::npos) << r.stdout_data;
  EXPECT_EQ(r.stdout_data.find("'root'"), std::string::npos) << r.stdout_data;
  EXPECT_NE(r.stdout_data.find("False False"), std::string::npos) << r.stdout_data;
}

TEST(Sandbox, OutputIsCappedAndReported) {
  REQUIRE_SANDBOX();
  SandboxLimits l = small_limits();
  l.max_output_bytes = 1000;
  SandboxResult r = python("import sys\nsys.stdout.write('y' * 100000)", "", l);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.stdout_data.size(), 1000u);
  EXPECT_TRUE(r.output_truncated);
}

TEST(Sandbox, FailsClosedWithAReason) {
  REQUIRE_SANDBOX();
  SandboxRequest req;
  req.argv = {"true"};
  req.workspace = "/nonexistent/kaisha-workspace";
  req.limits = small_limits();
  auto r = run_sandboxed(req);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "sandbox_setup");
  EXPECT_NE(r.error().message.find("/nonexistent/kaisha-workspace"), std::string::npos);

  // A bind bwrap itself cannot make: its own message comes back.
  req.workspace = "";
  req.ro_binds = {{"/nonexistent/kaisha-bind", "/data"}};
  r = run_sandboxed(req);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "sandbox_setup");
  EXPECT_NE(r.error().message.find("bwrap"), std::string::npos) << r.error().message;

  req.ro_binds = {};
  req.argv = {};
  r = run_sandboxed(req);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "sandbox_request");
}

TEST(Sandbox, NoZombiesLeft) {
  REQUIRE_SANDBOX();
  python("print(1)");
  SandboxLimits l = small_limits();
  l.wall_timeout_ms = 300;
  python("import time; time.sleep(10)", "", l);
  // Every child this test process started has been reaped.
  EXPECT_EQ(waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

// As root the workspace tree is handed to the sandbox's uid: the host root
// and shared (sticky-bit) directories such as /tmp are refused before
// anything changes. A private sticky directory stands in for /tmp, so a
// regression cannot re-own the machine's /tmp.
TEST(Sandbox, SharedDirectoriesAreNeverAWorkspace) {
  char tmpl[] = "/tmp/kaisha-sticky-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string sticky = tmpl;
  ASSERT_EQ(chmod(sticky.c_str(), 01777), 0);
  ASSERT_EQ(mkdir((sticky + "/someone_elses").c_str(), 0700), 0);
  for (const std::string& shared : {std::string("/"), sticky}) {
    SandboxRequest req;
    req.argv = {"true"};
    req.workspace = shared;
    struct stat before {};
    ASSERT_EQ(stat(shared.c_str(), &before), 0);
    auto r = run_sandboxed(req);
    ASSERT_FALSE(r.ok()) << shared;
    EXPECT_EQ(r.error().code, "sandbox_request") << r.error().message;
    struct stat after {};
    ASSERT_EQ(stat(shared.c_str(), &after), 0);
    EXPECT_EQ(after.st_uid, before.st_uid) << shared;
  }
  struct stat inner {};
  ASSERT_EQ(stat((sticky + "/someone_elses").c_str(), &inner), 0);
  EXPECT_EQ(inner.st_uid, geteuid());
  rmdir((sticky + "/someone_elses").c_str());
  rmdir(sticky.c_str());
}

// Run as root, the program is the sandbox's uid: a workspace below a
// directory it cannot pass is refused before anything changes, naming that
// directory, instead of failing inside bubblewrap.
TEST(Sandbox, AWorkspaceTheSandboxCannotReachIsRefusedNamingTheDirectory) {
  if (geteuid() != 0) GTEST_SKIP() << "only root hands the workspace to another uid";
  REQUIRE_SANDBOX();
  char tmpl[] = "/tmp/kaisha-private-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);  // mode 0700
  const std::string parent = tmpl, ws = parent + "/ws";
  ASSERT_EQ(mkdir(ws.c_str(), 0755), 0);
  SandboxRequest req;
  req.argv = {"true"};
  req.workspace = ws;
  auto r = run_sandboxed(req);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "sandbox_setup");
  EXPECT_NE(r.error().message.find(parent + " is mode 0700"), std::string::npos) << r.error().message;
  struct stat st {};
  ASSERT_EQ(stat(ws.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 0u);  // not handed over
  ASSERT_EQ(chmod(parent.c_str(), 0711), 0);
  auto ok = run_sandboxed(req);
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->exit_code, 0);
  std::filesystem::remove_all(parent);
}

}  // namespace
}  // namespace kaisha::sandbox
