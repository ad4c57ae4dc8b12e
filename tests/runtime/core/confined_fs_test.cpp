// confined_fs: paths are opened below a directory descriptor, a symlink at
// any component is refused by both resolvers (openat2 and the component
// walk), and the ownership walk never leaves the tree, even while the tree
// is being rearranged under it.
#include "runtime/core/confined_fs.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

namespace kaisha {
namespace {

namespace fs = std::filesystem;

struct Tmp {
  Tmp() {
    std::string t = "/tmp/kaisha-confined-XXXXXX";
    if (!mkdtemp(t.data())) throw std::runtime_error("mkdtemp");
    path = t;
  }
  ~Tmp() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string file(const std::string& rel, const std::string& text) const {
    fs::path p = path + "/" + rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }
  std::string path;
};

TEST(SplitRelative, RefusesAbsoluteDotDotAndNul) {
  EXPECT_EQ(*split_relative("a//./b/"), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(split_relative(".")->empty());
  EXPECT_NE(split_relative("/etc/passwd").error().message.find("absolute"), std::string::npos);
  EXPECT_NE(split_relative("a/../../b").error().message.find("'..'"), std::string::npos);
  EXPECT_NE(split_relative(std::string("a\0b", 3)).error().message.find("NUL"), std::string::npos);
}

class OpenBeneath : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override { force_component_walk(GetParam()); }
  void TearDown() override { force_component_walk(false); }
};

TEST_P(OpenBeneath, OpensPlainPathsAndRefusesEverySymlink) {
  Tmp root, outside;
  root.file("a/b/c.txt", "inside");
  outside.file("secret.txt", "host");
  ASSERT_EQ(symlink(outside.path.c_str(), (root.path + "/a/out").c_str()), 0);
  ASSERT_EQ(symlink("b", (root.path + "/a/alias").c_str()), 0);
  ASSERT_EQ(symlink("b/c.txt", (root.path + "/a/file_alias").c_str()), 0);
  auto dir = open_root_dir(root.path);
  ASSERT_TRUE(dir.ok());

  int fd = open_beneath(dir->get(), {"a", "b", "c.txt"}, O_RDONLY);
  ASSERT_GE(fd, 0) << strerror(-fd);
  char buf[16] = {};
  EXPECT_EQ(read(fd, buf, sizeof buf), 6);
  close(fd);

  for (const auto& parts : std::vector<std::vector<std::string>>{
           {"a", "out", "secret.txt"}, {"a", "out"}, {"a", "alias", "c.txt"}, {"a", "file_alias"}}) {
    for (int flags : {O_RDONLY, O_PATH, O_PATH | O_DIRECTORY, O_WRONLY | O_CREAT}) {
      int r = open_beneath(dir->get(), parts, flags, 0644);
      if (r >= 0) close(r);
      EXPECT_EQ(r, -ELOOP) << parts.back() << " flags " << flags;
    }
  }
  EXPECT_EQ(first_symlink_beneath(dir->get(), {"a", "alias", "c.txt"}), "a/alias");
  EXPECT_EQ(first_symlink_beneath(dir->get(), {"a", "b", "c.txt"}), "");
  EXPECT_EQ(open_beneath(dir->get(), {"a", "b", "c.txt", "x"}, O_RDONLY), -ENOTDIR);
  EXPECT_EQ(open_beneath(dir->get(), {"missing"}, O_RDONLY), -ENOENT);
}

TEST_P(OpenBeneath, MakeDirsCreatesMissingComponentsButNotThroughSymlinks) {
  Tmp root, outside;
  ASSERT_EQ(symlink(outside.path.c_str(), (root.path + "/out").c_str()), 0);
  auto dir = open_root_dir(root.path);
  ASSERT_TRUE(dir.ok());
  int fd = make_dirs_beneath(dir->get(), {"x", "y", "z"});
  ASSERT_GE(fd, 0) << strerror(-fd);
  close(fd);
  EXPECT_TRUE(fs::is_directory(root.path + "/x/y/z"));
  EXPECT_EQ(make_dirs_beneath(dir->get(), {"out", "new"}), -ELOOP);
  EXPECT_FALSE(fs::exists(outside.path + "/new"));
}

INSTANTIATE_TEST_SUITE_P(Resolvers, OpenBeneath, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "ComponentWalk" : "Openat2"; });

// Root re-owns the workspace for the sandbox's uid before every run; the
// sandbox may be swapping a directory for a symlink to a host directory.
TEST(ChownTree, NeverReownsAHostFileWhileTheTreeIsSwapped) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to chown";
  Tmp ws, outside;
  for (int i = 0; i < 20; ++i) outside.file("host" + std::to_string(i), "h");
  for (int i = 0; i < 20; ++i) ws.file("d/f" + std::to_string(i), "w");
  const std::string d = ws.path + "/d", swap = ws.path + "/swap";
  ASSERT_EQ(symlink(outside.path.c_str(), swap.c_str()), 0);
  auto dir = open_root_dir(ws.path);
  ASSERT_TRUE(dir.ok());

  std::atomic<bool> stop{false};
  std::atomic<int64_t> swaps{0};
  std::thread swapper([&] {
    while (!stop.load(std::memory_order_relaxed))
      if (renameat2(AT_FDCWD, d.c_str(), AT_FDCWD, swap.c_str(), RENAME_EXCHANGE) == 0) swaps.fetch_add(1);
  });
  int runs = 0;
  for (; runs < 20000 && (runs < 300 || swaps.load() < 300); ++runs) {
    // Every walk descends into each real directory, so a walk that entered
    // the swapped symlink would re-own the (root-owned) host files.
    ASSERT_TRUE(chown_tree(dir->get(), 65534, 65534).ok());
  }
  stop = true;
  swapper.join();
  for (const auto& e : fs::directory_iterator(outside.path)) {
    struct stat st {};
    ASSERT_EQ(lstat(e.path().c_str(), &st), 0);
    EXPECT_EQ(st.st_uid, 0u) << e.path() << " re-owned through the swapped symlink";
  }
  struct stat od {};
  ASSERT_EQ(stat(outside.path.c_str(), &od), 0);
  EXPECT_EQ(od.st_uid, 0u);
}

TEST(ChownTree, ReownsUpToItsDepthLimitAndLeavesDeeperDirectories) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to chown";
  Tmp ws;
  std::string p = ws.path;
  for (int i = 0; i < 6; ++i) fs::create_directory(p += "/n");
  auto dir = open_root_dir(ws.path);
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE(chown_tree(dir->get(), 65534, 65534, 4).ok());
  struct stat st {};
  ASSERT_EQ(stat((ws.path + "/n/n/n").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 65534u);
  ASSERT_EQ(stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 0u) << "below the limit: not entered";
}

TEST(AllocatedBytes, CountsOnceAndRefusesTreesTooDeepToWalk) {
  Tmp ws, outside;
  ws.file("a/f", std::string(1 << 20, 'x'));
  ASSERT_EQ(link((ws.path + "/a/f").c_str(), (ws.path + "/g").c_str()), 0);
  outside.file("big", std::string(4 << 20, 'y'));
  ASSERT_EQ(symlink(outside.path.c_str(), (ws.path + "/out").c_str()), 0);
  auto dir = open_root_dir(ws.path);
  ASSERT_TRUE(dir.ok());
  auto used = allocated_bytes(dir->get());
  ASSERT_TRUE(used.ok()) << used.error().message;
  EXPECT_GE(*used, 1 << 20);
  EXPECT_LT(*used, 2 << 20) << "the hard link counted twice or the symlink followed";
  std::string p = ws.path;
  for (int i = 0; i < 6; ++i) fs::create_directory(p += "/n");
  auto deep = allocated_bytes(dir->get(), 4);
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.error().code, "too_deep");
}

}  // namespace
}  // namespace kaisha
