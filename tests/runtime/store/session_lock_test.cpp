#include "runtime/store/session_lock.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "store_test_util.hpp"

namespace kaisha::store {
namespace {

using testing::TempDirTest;

class SessionLockTest : public TempDirTest {};

TEST_F(SessionLockTest, ASecondHolderIsRefusedWithTheFirstOnesName) {
  const std::string db = file("kaisha.db");
  auto first = SessionLock::acquire(db, "s-1");
  ASSERT_TRUE(first.ok()) << first.error().message;

  auto second = SessionLock::acquire(db, "s-1");
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().code, "session_busy");
  const std::string& why = second.error().message;
  EXPECT_NE(why.find("session s-1 is already running in pid " + std::to_string(getpid()) + " ("), std::string::npos)
      << why;
  EXPECT_NE(why.find(" on host "), std::string::npos) << why;

  auto holder = SessionLock::holder(db, "s-1");
  ASSERT_TRUE(holder.ok());
  ASSERT_TRUE(holder->has_value());
  EXPECT_EQ(holder->value().rfind("pid " + std::to_string(getpid()), 0), 0u) << holder->value();

  // Another session of the same store is not affected.
  EXPECT_TRUE(SessionLock::acquire(db, "s-2").ok());

  first = Error{"", ""};  // releases
  auto holder_after = SessionLock::holder(db, "s-1");
  ASSERT_TRUE(holder_after.ok());
  EXPECT_FALSE(holder_after->has_value());
  EXPECT_TRUE(SessionLock::acquire(db, "s-1").ok());
}

// The kernel drops a killed holder's lock: nothing stale is left to break.
TEST_F(SessionLockTest, ALockOfAKilledProcessIsFree) {
  const std::string db = file("kaisha.db");
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto lock = SessionLock::acquire(db, "s-1");
    char c = lock.ok() ? 'y' : 'n';
    if (write(ready[1], &c, 1) != 1) _exit(2);
    pause();  // until SIGKILL
    _exit(0);
  }
  close(ready[1]);
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  close(ready[0]);
  ASSERT_EQ(c, 'y');

  auto refused = SessionLock::acquire(db, "s-1");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("pid " + std::to_string(child)), std::string::npos) << refused.error().message;

  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  auto taken = SessionLock::acquire(db, "s-1");
  EXPECT_TRUE(taken.ok()) << taken.error().message;
}

// A program started by the holder (a sandbox, an MCP server) does not keep
// the lock once the holder lets it go.
TEST_F(SessionLockTest, AChildProgramDoesNotInheritTheLock) {
  const std::string db = file("kaisha.db");
  auto lock = SessionLock::acquire(db, "s-1");
  ASSERT_TRUE(lock.ok());
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    execl("/bin/sleep", "sleep", "30", static_cast<char*>(nullptr));
    _exit(127);
  }
  // Give exec time to close the descriptor (close-on-exec happens at exec).
  bool execed = false;
  for (int i = 0; i < 200 && !execed; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    char exe[256] = {0};
    ssize_t n = readlink(("/proc/" + std::to_string(child) + "/exe").c_str(), exe, sizeof exe - 1);
    execed = n > 0 && std::string(exe, static_cast<size_t>(n)).find("sleep") != std::string::npos;
  }
  ASSERT_TRUE(execed);
  lock = Error{"", ""};
  auto taken = SessionLock::acquire(db, "s-1");
  EXPECT_TRUE(taken.ok()) << taken.error().message;
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
}

TEST_F(SessionLockTest, AnIdIsNeverAPath) {
  EXPECT_EQ(SessionLock::lock_path("/d/k.db", "s-20261128-1"), "/d/k.db.locks/s-20261128-1.lock");
  EXPECT_EQ(SessionLock::lock_path("/d/k.db", "../x/y"), "/d/k.db.locks/%2E.%2Fx%2Fy.lock");
  const std::string db = file("kaisha.db");
  EXPECT_TRUE(SessionLock::acquire(db, "../escape").ok());
  EXPECT_FALSE(std::filesystem::exists(dir_ / "escape.lock"));
}

TEST_F(SessionLockTest, AnUnwritableStoreDirectoryIsAClearError) {
  // Not even root makes a directory in /proc.
  auto r = SessionLock::acquire("/proc/kaisha.db", "s-1");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "store");
  EXPECT_NE(r.error().message.find("/proc/kaisha.db.locks"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace kaisha::store
