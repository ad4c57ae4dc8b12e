// Whole-run limits in real sandboxes: memory and processes over the whole
// process tree, disk over the whole workspace, each enforced by cgroups
// (where this host lets us create them) and by the /proc supervisor, and
// each stopping the run with a message naming the limit and its value.
#include "runtime/sandbox/tree_limits.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "runtime/sandbox/process_tree.hpp"
#include "runtime/sandbox/sandbox.hpp"

namespace kaisha::sandbox::tree_limits_test {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  std::string path;
  TempDir() {
    std::string tmpl = "/tmp/kaisha-limits-XXXXXX";
    if (char* p = mkdtemp(tmpl.data())) path = p;
    chmod(path.c_str(), 0755);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

constexpr int64_t kMiB = 1ll << 20;

SandboxLimits limits() {
  SandboxLimits l;
  l.cpu_seconds = 20;
  l.memory_bytes = 512 * kMiB;
  l.max_processes = 16;
  l.max_file_bytes = 64 * kMiB;
  l.disk_bytes = 128 * kMiB;
  l.wall_timeout_ms = 30000;  // generous: every test here must end on a limit long before it
  l.max_output_bytes = 64 << 10;
  return l;
}

// Each test runs once per mechanism; the cgroup run is skipped (saying why)
// where this host does not let us create cgroups.
class TreeLimitsTest : public ::testing::TestWithParam<LimitEnforcement> {
 protected:
  void SetUp() override {
    Status s = sandbox_available();
    if (!s) GTEST_SKIP() << "sandbox unavailable: " << s.error().message;
    if (GetParam() == LimitEnforcement::cgroup) {
      auto probe = TreeLimits::start(limits(), "", LimitEnforcement::cgroup);
      if (!probe) GTEST_SKIP() << probe.error().message;
    }
  }

  SandboxResult python(const std::string& code, const SandboxLimits& l, const std::string& workspace = "") {
    SandboxRequest req;
    req.argv = {"python3", "-c", code};
    req.workspace = workspace;
    req.limits = l;
    req.enforcement = GetParam();
    auto r = run_sandboxed(req);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().code + ": " + r.error().message);
    if (!r.ok()) return {};
    if (GetParam() == LimitEnforcement::supervisor)
      EXPECT_EQ(r->enforcement, "supervisor");
    else
      EXPECT_EQ(r->enforcement.rfind("cgroup v", 0), 0u) << r->enforcement;
    return r.value();
  }
};

// Six children each holding 400 MiB: every one is under the per-process
// limit, together they are far over the run's 512 MiB.
TEST_P(TreeLimitsTest, SixChildrenOf400MiBAreStoppedByTheMemoryLimit) {
  SandboxResult r = python(
      "import os, time\n"
      "for i in range(6):\n"
      "  if os.fork() == 0:\n"
      "    b = b'x' * (400 << 20)\n"
      "    time.sleep(30)\n"
      "    os._exit(0)\n"
      "for i in range(6): os.wait()\n"
      "print('all held')\n",
      limits());
  ASSERT_TRUE(r.limit.has_value()) << "exit " << r.exit_code << " stdout " << r.stdout_data << " stderr "
                                   << r.stderr_data;
  EXPECT_EQ(r.limit->limit, "memory");
  EXPECT_EQ(r.limit->value, 512 * kMiB);
  EXPECT_NE(r.limit->message.find("memory limit exceeded"), std::string::npos) << r.limit->message;
  EXPECT_NE(r.limit->message.find("512 MiB"), std::string::npos) << r.limit->message;
  EXPECT_NE(r.limit->message.find(r.enforcement == "supervisor" ? "supervisor" : "cgroup v"), std::string::npos)
      << r.limit->message;
  EXPECT_EQ(r.stdout_data.find("all held"), std::string::npos);
  EXPECT_FALSE(r.timed_out);  // stopped by the limit, not the wall clock
}

TEST_P(TreeLimitsTest, ARunWithinItsLimitsIsNotStopped) {
  TempDir ws;
  SandboxResult r = python(
      "import os\n"
      "for i in range(3):\n"
      "  if os.fork() == 0:\n"
      "    b = b'x' * (100 << 20)\n"
      "    open('f%d' % i, 'wb').write(b[:(20 << 20)])\n"
      "    os._exit(0)\n"
      "for i in range(3): os.wait()\n"
      "print('done')\n",
      limits(), ws.path);
  EXPECT_FALSE(r.limit.has_value()) << r.limit->message;
  EXPECT_EQ(r.stdout_data, "done\n") << r.stderr_data;
  EXPECT_EQ(r.exit_code, 0);
}

TEST_P(TreeLimitsTest, AForkBombIsStoppedByTheProcessLimit) {
  SandboxResult r = python("import os\nwhile True:\n  try:\n    os.fork()\n  except OSError:\n    pass\n", limits());
  ASSERT_TRUE(r.limit.has_value()) << "exit " << r.exit_code << " timed out " << r.timed_out;
  EXPECT_EQ(r.limit->limit, "processes");
  EXPECT_EQ(r.limit->value, 16);
  EXPECT_NE(r.limit->message.find("more than 16 processes"), std::string::npos) << r.limit->message;
  EXPECT_FALSE(r.timed_out);
  // Everything is gone: the next run works.
  SandboxResult after = python("print('alive')", limits());
  EXPECT_EQ(after.stdout_data, "alive\n");
}

// Many files, each under the per-file limit, together far past the
// workspace's 128 MiB: the run stops and what is left stays near the limit.
TEST_P(TreeLimitsTest, ManyFilesPastTheWorkspaceDiskLimitAreStopped) {
  TempDir ws;
  SandboxResult r = python(
      "chunk = b'x' * (64 << 20)\n"
      "for i in range(16):\n"
      "  with open('big%d' % i, 'wb') as f:\n"
      "    f.write(chunk)\n"
      "    f.flush()\n"
      "print('wrote 1 GiB')\n",
      limits(), ws.path);
  ASSERT_TRUE(r.limit.has_value()) << "exit " << r.exit_code << " stderr " << r.stderr_data;
  EXPECT_EQ(r.limit->limit, "disk");
  EXPECT_EQ(r.limit->value, 128 * kMiB);
  EXPECT_NE(r.limit->message.find("disk limit exceeded"), std::string::npos) << r.limit->message;
  EXPECT_NE(r.limit->message.find("128 MiB"), std::string::npos) << r.limit->message;
  EXPECT_EQ(r.stdout_data.find("wrote"), std::string::npos);
  int64_t used = disk_usage(ws.path).value();
  // The supervisor samples: what was written in the last interval stays.
  // Unstopped, the run would have left 1 GiB.
  EXPECT_LE(used, 128 * kMiB + 3 * 64 * kMiB) << "left " << (used >> 20) << " MiB";
  std::cout << "[ measured ] workspace after the stop: " << (used >> 20) << " MiB (limit 128 MiB)\n";
}

// Files deleted as soon as they are opened are invisible to a walk of the
// workspace but fill its disk all the same: they count against the limit.
TEST_P(TreeLimitsTest, FilesDeletedWhileOpenStillCountAgainstTheDiskLimit) {
  TempDir ws;
  SandboxResult r = python(
      "import os\n"
      "chunk = b'x' * (64 << 20)\n"
      "held = []\n"
      "for i in range(16):\n"
      "  f = open('hidden%d' % i, 'wb')\n"
      "  os.unlink('hidden%d' % i)\n"
      "  f.write(chunk)\n"
      "  f.flush()\n"
      "  held.append(f)\n"
      "print('hid 1 GiB')\n",
      limits(), ws.path);
  ASSERT_TRUE(r.limit.has_value()) << "exit " << r.exit_code << " stdout " << r.stdout_data << " stderr "
                                   << r.stderr_data;
  EXPECT_EQ(r.limit->limit, "disk");
  EXPECT_NE(r.limit->message.find("disk limit exceeded"), std::string::npos) << r.limit->message;
  EXPECT_EQ(r.stdout_data.find("hid"), std::string::npos);
}

// A workspace already over its limit (e.g. the limit was lowered) may be
// cleaned up by a run, but not grown.
TEST_P(TreeLimitsTest, AWorkspaceOverItsLimitMayShrinkButNotGrow) {
  TempDir ws;
  SandboxLimits l = limits();
  l.disk_bytes = 4 * kMiB;
  std::ofstream(ws.path + "/a", std::ios::binary) << std::string(6 * kMiB, 'a');
  std::ofstream(ws.path + "/b", std::ios::binary) << std::string(2 * kMiB, 'b');
  SandboxResult grow = python("open('c', 'wb').write(b'c' * (4 << 20))\nimport time; time.sleep(1)\n", l, ws.path);
  ASSERT_TRUE(grow.limit.has_value());
  EXPECT_EQ(grow.limit->limit, "disk");
  SandboxResult shrink = python("import os\nos.remove('c')\nos.remove('b')\nprint('cleaned')\n", l, ws.path);
  EXPECT_FALSE(shrink.limit.has_value()) << shrink.limit->message;
  EXPECT_EQ(shrink.stdout_data, "cleaned\n") << shrink.stderr_data;
}

INSTANTIATE_TEST_SUITE_P(Mechanisms, TreeLimitsTest,
                         ::testing::Values(LimitEnforcement::cgroup, LimitEnforcement::supervisor),
                         [](const auto& info) {
                           return info.param == LimitEnforcement::cgroup ? std::string("Cgroup")
                                                                         : std::string("Supervisor");
                         });

TEST(TreeLimits, EveryLimitMustBePositive) {
  SandboxRequest req;
  req.argv = {"true"};
  req.limits.disk_bytes = 0;
  auto r = run_sandboxed(req);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "sandbox_request");
}

TEST(ProcessTree, DiskUsageCountsAllocatedBlocksOnce) {
  TempDir d;
  fs::create_directories(d.path + "/sub");
  std::ofstream(d.path + "/sub/f", std::ios::binary) << std::string(1 * kMiB, 'x');
  fs::create_hard_link(d.path + "/sub/f", d.path + "/link");
  fs::create_symlink("/usr", d.path + "/usr_link");  // not followed
  int64_t used = disk_usage(d.path).value();
  EXPECT_GE(used, 1 * kMiB);
  EXPECT_LT(used, 2 * kMiB);
  EXPECT_FALSE(disk_usage(d.path + "/absent").ok());
}

// A tree too deep to measure cannot escape the disk limit by being
// unmeasurable: the run is stopped.
TEST(TreeLimits, AWorkspaceTooDeepToMeasureIsStopped) {
  TempDir ws;
  SandboxRequest req;
  req.argv = {"python3", "-I", "-B", "-c",
              "import os\np = 'd'\nfor i in range(400):\n    os.mkdir(p); p += '/d'\n"
              "import time\ntime.sleep(20)\n"};
  req.workspace = ws.path;
  req.limits.wall_timeout_ms = 30000;
  auto r = run_sandboxed(req);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r->limit.has_value()) << "exit " << r->exit_code << " " << r->stderr_data;
  EXPECT_EQ(r->limit->limit, "disk");
  EXPECT_NE(r->limit->message.find("cannot be measured"), std::string::npos) << r->limit->message;
}

}  // namespace
}  // namespace kaisha::sandbox::tree_limits_test
