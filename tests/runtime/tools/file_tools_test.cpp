// ListFiles, ReadFile and WriteFile stay inside their FileView: '..',
// absolute paths and symlinks (wherever they point) are refused by every one
// of them, read-only mounts cannot be written, and size limits hold.
#include "runtime/tools/file_tools.hpp"

#include <unistd.h>

#include <filesystem>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tests/runtime/tools/tools_test_util.hpp"

namespace kaisha::tools {
namespace {

using testing::TempDir;

class FileTools : public ::testing::Test {
 protected:
  void SetUp() override {
    outside.write("secret.txt", "host secret");
    mounted.write("example_tool.py", "__all__ = ['Example']\n");
    auto v = FileView::open(ws.file("work"), {{"src/tools/default_tools", mounted.path()}});
    ASSERT_TRUE(v.ok()) << v.error().message;
    view = std::make_unique<FileView>(std::move(v).value());
  }
  std::string work(const std::string& rel) const { return ws.file("work/" + rel); }

  TempDir ws, outside, mounted;
  std::unique_ptr<FileView> view;
  FileLimits limits;
};

TEST_F(FileTools, WriteThenReadThenList) {
  auto w = write_file(*view, "notes/today.txt", "hello\n", limits);
  ASSERT_TRUE(w.ok) << w.message;
  EXPECT_EQ(w.output["file_path"], "notes/today.txt");
  EXPECT_EQ(ws.read("work/notes/today.txt"), "hello\n");
  auto r = read_file(*view, "./notes//today.txt", limits);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.output, "hello\n");
  ws.write("work/.hidden", "x");
  auto l = list_files(*view, ".", limits);
  ASSERT_TRUE(l.ok) << l.message;
  EXPECT_EQ(l.output, (json{"notes/", "src/"}));  // src/ leads to the created tools' mounted code
  EXPECT_EQ(list_files(*view, "notes", limits).output, (json{"today.txt"}));
}

TEST_F(FileTools, MountedSourcesAreReadableNotWritable) {
  EXPECT_EQ(list_files(*view, "src/tools", limits).output, (json{"default_tools/"}));
  auto l = list_files(*view, "src/tools/default_tools", limits);
  ASSERT_TRUE(l.ok) << l.message;
  EXPECT_EQ(l.output, (json{"example_tool.py"}));
  auto r = read_file(*view, "src/tools/default_tools/example_tool.py", limits);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.output, "__all__ = ['Example']\n");
  auto w = write_file(*view, "src/tools/default_tools/evil.py", "x", limits);
  EXPECT_FALSE(w.ok);
  EXPECT_NE(w.message.find("is read-only"), std::string::npos) << w.message;
  EXPECT_FALSE(std::filesystem::exists(mounted.file("evil.py")));
}

TEST_F(FileTools, TraversalIsRefusedByEveryFileTool) {
  for (const std::string p : {"../secret.txt", "a/../../secret.txt", "..", "notes/../../x",
                              "src/tools/default_tools/../../../../secret.txt"}) {
    auto l = list_files(*view, p, limits);
    auto r = read_file(*view, p, limits);
    auto w = write_file(*view, p, "pwned", limits);
    for (const auto* res : {&l, &r, &w}) {
      EXPECT_FALSE(res->ok) << p;
      EXPECT_NE(res->message.find("uses '..'"), std::string::npos) << p << ": " << res->message;
    }
  }
  EXPECT_EQ(outside.read("secret.txt"), "host secret");
}

TEST_F(FileTools, AbsolutePathsAreRefusedByEveryFileTool) {
  const std::string abs = outside.file("secret.txt");
  auto l = list_files(*view, outside.path(), limits);
  auto r = read_file(*view, abs, limits);
  auto w = write_file(*view, abs, "pwned", limits);
  for (const auto* res : {&l, &r, &w}) {
    EXPECT_FALSE(res->ok);
    EXPECT_NE(res->message.find("is an absolute path"), std::string::npos) << res->message;
  }
  EXPECT_EQ(outside.read("secret.txt"), "host secret");
}

TEST_F(FileTools, SymlinkOutOfTheWorkspaceIsRefusedByEveryFileTool) {
  ASSERT_EQ(symlink(outside.path().c_str(), work("out").c_str()), 0);
  ASSERT_EQ(symlink(outside.file("secret.txt").c_str(), work("secret_link").c_str()), 0);
  struct Case {
    const char* name;
    company::ToolResult res;
  } cases[] = {
      {"list dir link", list_files(*view, "out", limits)},
      {"read file link", read_file(*view, "secret_link", limits)},
      {"read through dir link", read_file(*view, "out/secret.txt", limits)},
      {"write file link", write_file(*view, "secret_link", "pwned", limits)},
      {"write through dir link", write_file(*view, "out/secret.txt", "pwned", limits)},
      {"write new file through dir link", write_file(*view, "out/new.txt", "pwned", limits)},
  };
  for (const auto& c : cases) {
    EXPECT_FALSE(c.res.ok) << c.name;
    EXPECT_NE(c.res.message.find("do not follow symlinks"), std::string::npos) << c.name << ": " << c.res.message;
  }
  EXPECT_EQ(outside.read("secret.txt"), "host secret");
  EXPECT_FALSE(std::filesystem::exists(outside.file("new.txt")));
}

// A symlink that points inside the workspace now may point outside a moment
// later (sandboxed code can rewrite it): none is followed.
TEST_F(FileTools, SymlinkInsideTheWorkspaceIsRefusedToo) {
  ws.write("work/real/data.txt", "inside");
  ASSERT_EQ(symlink("real", work("alias").c_str()), 0);
  auto r = read_file(*view, "alias/data.txt", limits);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.message.find("goes through the symlink 'alias'"), std::string::npos) << r.message;
  auto direct = read_file(*view, "real/data.txt", limits);
  ASSERT_TRUE(direct.ok) << direct.message;
  EXPECT_EQ(direct.output, "inside");
}

TEST_F(FileTools, DanglingSymlinkIsNamed) {
  ASSERT_EQ(symlink("/nonexistent/target", work("dangling").c_str()), 0);
  auto w = write_file(*view, "dangling", "x", limits);
  EXPECT_FALSE(w.ok);
  EXPECT_NE(w.message.find("goes through the symlink 'dangling'"), std::string::npos) << w.message;
  EXPECT_FALSE(std::filesystem::exists("/nonexistent/target"));
}

TEST_F(FileTools, HardLinksAreNotWrittenThrough) {
  ws.write("work/original.txt", "keep me");
  ASSERT_EQ(link(work("original.txt").c_str(), work("second_name.txt").c_str()), 0);
  auto w = write_file(*view, "second_name.txt", "pwned", limits);
  EXPECT_FALSE(w.ok);
  EXPECT_NE(w.message.find("hard link"), std::string::npos) << w.message;
  EXPECT_EQ(ws.read("work/original.txt"), "keep me");
}

TEST_F(FileTools, SymlinkInAMountIsNamedWithItsFullPath) {
  ASSERT_EQ(symlink(outside.path().c_str(), (mounted.path() + "/escape").c_str()), 0);
  auto r = read_file(*view, "src/tools/default_tools/escape/secret.txt", limits);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.message.find("the symlink 'src/tools/default_tools/escape'"), std::string::npos) << r.message;
}

TEST_F(FileTools, SizeLimits) {
  limits.max_read_bytes = 10;
  limits.max_write_bytes = 10;
  limits.max_list_entries = 3;
  auto w = write_file(*view, "big.txt", std::string(11, 'x'), limits);
  EXPECT_FALSE(w.ok);
  EXPECT_NE(w.message.find("the limit is 10"), std::string::npos) << w.message;
  EXPECT_FALSE(std::filesystem::exists(work("big.txt")));

  ws.write("work/long.txt", "0123456789abcdef");
  auto r = read_file(*view, "long.txt", limits);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.output, "0123456789");
  EXPECT_NE(r.message.find("truncated at the read limit"), std::string::npos) << r.message;

  for (int i = 0; i < 5; ++i) ws.write("work/many/f" + std::to_string(i), "");
  auto l = list_files(*view, "many", limits);
  ASSERT_TRUE(l.ok);
  EXPECT_EQ(l.output.size(), 3u);
  EXPECT_NE(l.message.find("first 3 of 5 entries"), std::string::npos) << l.message;
}

TEST_F(FileTools, TruncationDoesNotSplitACharacter) {
  limits.max_read_bytes = 5;
  ws.write("work/utf8.txt", "abcd\xC3\xA9z");  // "abcdéz": é straddles the limit
  auto r = read_file(*view, "utf8.txt", limits);
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_EQ(r.output, "abcd");
}

TEST_F(FileTools, ClearErrorsForWrongKinds) {
  ws.write("work/bin.dat", std::string("\x00\xFF\x10", 3));
  EXPECT_NE(read_file(*view, "bin.dat", limits).message.find("is not UTF-8 text"), std::string::npos);
  EXPECT_NE(read_file(*view, "missing.txt", limits).message.find("does not exist"), std::string::npos);
  EXPECT_NE(list_files(*view, "missing", limits).message.find("does not exist"), std::string::npos);
  EXPECT_NE(list_files(*view, "bin.dat", limits).message.find("read it with ReadFile"), std::string::npos);
  ws.write("work/d/x", "");
  EXPECT_NE(read_file(*view, "d", limits).message.find("list it with ListFiles"), std::string::npos);
  EXPECT_NE(write_file(*view, "bin.dat/x", "", limits).message.find("is not a directory"), std::string::npos);
}

TEST(FileView, RefusesTheHostRootAndBadMounts) {
  EXPECT_FALSE(FileView::open("/").ok());
  TempDir d;
  auto v = FileView::open(d.path(), {{"../up", d.path()}});
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.error().message.find("without '..'"), std::string::npos) << v.error().message;
}

// Siblings may write one relative path at once (item 19). Each write must
// leave one writer's whole content: contents of different lengths make a
// torn file visible, as a short write over the front of a longer one.
TEST_F(FileTools, ConcurrentWritesOfOnePathNeverTearTheFile) {
  constexpr int kWriters = 6, kRounds = 40;
  std::vector<std::string> contents;
  for (int i = 0; i < kWriters; ++i)
    contents.emplace_back(static_cast<size_t>(i + 1) * 40000, static_cast<char>('a' + i));
  int torn = 0;
  for (int round = 0; round < kRounds; ++round) {
    std::vector<std::thread> writers;
    for (int i = 0; i < kWriters; ++i)
      writers.emplace_back([&, i] {
        auto w = write_file(*view, "shared/out.txt", contents[static_cast<size_t>(i)], limits);
        EXPECT_TRUE(w.ok) << w.message;
      });
    for (auto& t : writers) t.join();
    const std::string now = ws.read("work/shared/out.txt");
    bool whole = false;
    for (const auto& c : contents) whole = whole || now == c;
    if (!whole) ++torn;
  }
  EXPECT_EQ(torn, 0) << "of " << kRounds << " rounds";
}

}  // namespace
}  // namespace kaisha::tools
