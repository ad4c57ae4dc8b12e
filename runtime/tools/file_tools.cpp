#include "runtime/tools/file_tools.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "runtime/core/utf8.hpp"

namespace kaisha::tools {

using company::ToolResult;

namespace {

std::string plural(int64_t n, const std::string& one, const std::string& many = "") {
  return std::to_string(n) + " " + (n == 1 ? one : many.empty() ? one + "s" : many);
}

}  // namespace

ToolResult list_files(const FileView& view, const std::string& directory, const FileLimits& limits) {
  auto opened = view.open_read(directory);
  if (!opened) return ToolResult::error("ListFiles: " + opened.error().message);
  const std::string& shown = opened->shown;
  std::vector<std::string> names;
  for (const std::string& v : view.virtual_children(directory)) names.push_back(v + "/");
  if (!opened->exists && names.empty()) return ToolResult::error("ListFiles: '" + shown + "' does not exist");
  if (opened->exists) {
    const int dir_fd = opened->fd.get();
    struct stat st {};
    if (fstat(dir_fd, &st) != 0 || !S_ISDIR(st.st_mode))
      return ToolResult::error("ListFiles: '" + shown + "' is a file, not a directory; read it with ReadFile");
    // fdopendir takes the descriptor it is given: hand it a duplicate so the
    // entries are looked up below the same directory with fstatat.
    int listing = dup(dir_fd);
    DIR* dir = listing >= 0 ? fdopendir(listing) : nullptr;
    if (!dir) {
      int err = errno;
      if (listing >= 0) close(listing);
      return ToolResult::error("ListFiles: cannot open '" + shown + "': " + std::strerror(err));
    }
    while (dirent* e = readdir(dir)) {
      std::string name = e->d_name;
      if (name.empty() || name[0] == '.') continue;  // hidden, as with ls (e.g. the tool index)
      struct stat est {};
      bool is_dir = fstatat(dir_fd, name.c_str(), &est, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(est.st_mode);
      name += is_dir ? "/" : "";
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(std::move(name));
    }
    closedir(dir);
  }
  std::sort(names.begin(), names.end());
  const int64_t total = static_cast<int64_t>(names.size());
  std::string message = "Listed " + plural(total, "entry", "entries") + " in '" + shown + "'";
  if (total > limits.max_list_entries) {
    names.resize(static_cast<size_t>(limits.max_list_entries));
    message = "Listed the first " + std::to_string(limits.max_list_entries) + " of " +
              plural(total, "entry", "entries") + " in '" + shown + "' (truncated at the listing limit)";
  }
  return ToolResult::success(message, names);
}

ToolResult read_file(const FileView& view, const std::string& file_path, const FileLimits& limits) {
  auto opened = view.open_read(file_path);
  if (!opened) return ToolResult::error("ReadFile: " + opened.error().message);
  const std::string& shown = opened->shown;
  if (!opened->exists) return ToolResult::error("ReadFile: '" + shown + "' does not exist");
  const int fd = opened->fd.get();
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    return ToolResult::error("ReadFile: '" + shown + "' is not a regular file" +
                             (S_ISDIR(st.st_mode) ? "; list it with ListFiles" : ""));
  const int64_t size = st.st_size;
  // Up to 3 bytes past the limit, so that a character straddling it can be
  // seen whole and cut before.
  const int64_t want = std::min<int64_t>(size, limits.max_read_bytes + 3);
  std::string text(static_cast<size_t>(want), '\0');
  int64_t got = 0;
  while (got < want) {
    ssize_t n = read(fd, text.data() + got, static_cast<size_t>(want - got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ToolResult::error("ReadFile: reading '" + shown + "' failed: " + std::strerror(errno));
    if (n == 0) break;
    got += n;
  }
  text.resize(static_cast<size_t>(got));
  const bool truncated = size > limits.max_read_bytes;
  if (truncated) text.resize(utf8::boundary_before(text, static_cast<size_t>(limits.max_read_bytes)));
  if (text.find('\0') != std::string::npos || !utf8::valid(text))
    return ToolResult::error("ReadFile: '" + shown + "' is not UTF-8 text (" + plural(size, "byte") +
                             "); only text files can be read");
  std::string message = "Read " + plural(static_cast<int64_t>(text.size()), "byte") + " from '" + shown + "'";
  if (truncated)
    message = "Read the first " + plural(static_cast<int64_t>(text.size()), "byte") + " of '" + shown + "' (" +
              plural(size, "byte") + "; truncated at the read limit of " + std::to_string(limits.max_read_bytes) + ")";
  return ToolResult::success(message, text);
}

ToolResult write_file(const FileView& view, const std::string& file_path, const std::string& content,
                      const FileLimits& limits) {
  const int64_t size = static_cast<int64_t>(content.size());
  if (size > limits.max_write_bytes)
    return ToolResult::error("WriteFile: the content is " + plural(size, "byte") + "; the limit is " +
                             std::to_string(limits.max_write_bytes) + ". Write a smaller file.");
  auto opened = view.open_write(file_path);
  if (!opened) return ToolResult::error("WriteFile: " + opened.error().message);
  const std::string& shown = opened->shown;
  const int fd = opened->fd.get();
  // Opened without O_TRUNC: only a plain file with one name is replaced, so
  // a hard link to a file elsewhere is never overwritten through the workspace.
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    return ToolResult::error("WriteFile: '" + shown + "' exists and is not a regular file; refused");
  if (st.st_nlink > 1) return ToolResult::error("WriteFile: '" + shown + "' is a hard link to another file; refused");
  // Writers of one file take turns (the lock goes with the descriptor), so
  // concurrent writes leave one whole content, never a mix of two.
  while (flock(fd, LOCK_EX) != 0)
    if (errno != EINTR) return ToolResult::error("WriteFile: cannot lock '" + shown + "': " + std::strerror(errno));
  if (ftruncate(fd, 0) != 0)
    return ToolResult::error("WriteFile: cannot replace '" + shown + "': " + std::strerror(errno));
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ToolResult::error("WriteFile: writing '" + shown + "' failed: " + std::strerror(errno));
    done += static_cast<size_t>(n);
  }
  return ToolResult::success("Wrote " + plural(size, "byte") + " to '" + shown + "'",
                             json{{"file_path", shown}, {"bytes", size}});
}

}  // namespace kaisha::tools
