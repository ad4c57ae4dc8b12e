// The attack that motivated the descriptor-based file layer: code in the
// sandbox swaps a workspace directory for a symlink to a host directory in a
// tight loop while the file tools run. Whatever the interleaving, nothing
// outside the workspace may be read, listed or written. The swap uses
// renameat2(RENAME_EXCHANGE), so at every instant "d" is either the real
// directory or the symlink, which is the attacker's best case.
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

#include "runtime/core/confined_fs.hpp"
#include "runtime/tools/file_tools.hpp"
#include "tests/runtime/tools/tools_test_util.hpp"

namespace kaisha::tools {
namespace {

using testing::TempDir;

class SymlinkSwapRace : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    force_component_walk(GetParam());
    outside.write("f.txt", "host secret");
    outside.write("outside_only.txt", "x");
    ws.write("work/d/f.txt", "inside");
    ASSERT_EQ(symlink(outside.path().c_str(), ws.file("work/swap").c_str()), 0);
    auto v = FileView::open(ws.file("work"));
    ASSERT_TRUE(v.ok()) << v.error().message;
    view = std::make_unique<FileView>(std::move(v).value());
  }
  void TearDown() override { force_component_walk(false); }

  size_t outside_entries() const {
    size_t n = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(outside.path())) ++n;
    return n;
  }

  TempDir ws, outside;
  std::unique_ptr<FileView> view;
  FileLimits limits;
};

TEST_P(SymlinkSwapRace, NothingOutsideTheWorkspaceIsReadListedOrWritten) {
  std::atomic<bool> stop{false};
  std::atomic<int64_t> swaps{0};
  const std::string d = ws.file("work/d"), swap = ws.file("work/swap");
  std::thread swapper([&] {
    while (!stop.load(std::memory_order_relaxed))
      if (renameat2(AT_FDCWD, d.c_str(), AT_FDCWD, swap.c_str(), RENAME_EXCHANGE) == 0) swaps.fetch_add(1);
  });

  int64_t leaked_reads = 0, leaked_listings = 0, inside_reads = 0, refused = 0, iterations = 0;
  // Run until the race has clearly been exercised in both states (bounded,
  // so a machine that never schedules the swapper still ends).
  for (; iterations < 200000; ++iterations) {
    if (iterations >= 3000 && swaps.load() >= 3000 && inside_reads > 0 && refused > 0) break;
    auto r = read_file(*view, "d/f.txt", limits);
    if (r.ok && r.output == "host secret") ++leaked_reads;
    if (r.ok && r.output == "inside") ++inside_reads;
    if (!r.ok) ++refused;
    write_file(*view, "d/w" + std::to_string(iterations % 50) + ".txt", "pwned", limits);
    auto l = list_files(*view, "d", limits);
    if (l.ok && l.output.dump().find("outside_only.txt") != std::string::npos) ++leaked_listings;
  }
  stop = true;
  swapper.join();

  EXPECT_EQ(leaked_reads, 0) << "host file read through the swapped symlink";
  EXPECT_EQ(leaked_listings, 0) << "host directory listed through the swapped symlink";
  EXPECT_EQ(outside_entries(), 2u) << "files written outside the workspace";
  EXPECT_EQ(outside.read("f.txt"), "host secret");
  // The race really ran in both states: some reads hit the real directory,
  // some met the symlink and were refused.
  EXPECT_GT(inside_reads, 0);
  EXPECT_GT(refused, 0);
  RecordProperty("iterations", std::to_string(iterations));
  RecordProperty("swaps", std::to_string(swaps.load()));
}

INSTANTIATE_TEST_SUITE_P(Resolvers, SymlinkSwapRace, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "ComponentWalk" : "Openat2"; });

}  // namespace
}  // namespace kaisha::tools
