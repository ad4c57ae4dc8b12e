// CgroupJail's clean-up of jails left by a kaisha that was killed: a jail
// whose creating process is gone is removed, one of a living process kept.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "runtime/sandbox/cgroup_jail.hpp"

namespace kaisha::sandbox {
namespace {

std::string parent_dir(const std::string& path) { return path.substr(0, path.rfind('/')); }

bool exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

TEST(CgroupJail, JailsOfProcessesThatAreGoneAreRemovedOthersKept) {
  auto jail = CgroupJail::create(64 << 20, 8);
  if (!jail) GTEST_SKIP() << "cgroups are not usable here: " << jail.error().message;
  // procs_files()[0] is <parent>/<jail>/cgroup.procs.
  const std::string parent = parent_dir(parent_dir((*jail)->procs_files()[0]));

  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(0);
  ASSERT_EQ(waitpid(child, nullptr, 0), child);  // now a pid that no process has
  const std::string dead = parent + "/kaisha-sandbox-" + std::to_string(child) + "-3";
  const std::string living = parent + "/kaisha-sandbox-1-0";  // pid 1 always exists
  rmdir(living.c_str());                                      // left by an earlier run that failed half-way
  ASSERT_EQ(mkdir(dead.c_str(), 0755), 0) << dead;
  ASSERT_EQ(mkdir(living.c_str(), 0755), 0) << living;

  EXPECT_GE(CgroupJail::remove_stale(parent), 1);
  EXPECT_FALSE(exists(dead)) << "a killed kaisha's jail was left behind";
  EXPECT_TRUE(exists(living));
  EXPECT_TRUE(exists(parent_dir((*jail)->procs_files()[0]))) << "this process's own jail was removed";
  rmdir(living.c_str());
}

}  // namespace
}  // namespace kaisha::sandbox
