#include "runtime/tools/file_tools.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace kaisha::tools {

using company::ToolResult;

namespace {

std::string plural(int64_t n, const std::string& one, const std::string& many = "") {
  return std::to_string(n) + " " + (n == 1 ? one : many.empty() ? one + "s" : many);
}

// Closes an fd on every path out.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

// Length of the longest prefix of `s` that does not end inside a multi-byte
// UTF-8 sequence (a truncated read must not split a character).
size_t utf8_safe_prefix(const std::string& s) {
  size_t n = s.size();
  for (size_t back = 1; back <= 3 && back <= n; ++back) {
    unsigned char c = static_cast<unsigned char>(s[n - back]);
    if ((c & 0xC0) != 0x80) {  // a lead (or ASCII) byte: is its sequence complete?
      size_t need = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
      return need > back ? n - back : n;
    }
  }
  return n;
}

}  // namespace

bool valid_utf8(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (len == 0 || i + len > s.size()) return false;
    for (size_t k = 1; k < len; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    if (len == 2 && c < 0xC2) return false;  // overlong
    i += len;
  }
  return true;
}

ToolResult list_files(const FileView& view, const std::string& directory, const FileLimits& limits) {
  auto where = view.resolve(directory, Access::read);
  if (!where) return ToolResult::error("ListFiles: " + where.error().message);
  std::vector<std::string> names;
  for (const std::string& v : view.virtual_children(directory)) names.push_back(v + "/");
  if (!where->exists && names.empty()) return ToolResult::error("ListFiles: '" + where->shown + "' does not exist");
  if (where->exists) {
    struct stat st{};
    if (stat(where->host.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      return ToolResult::error("ListFiles: '" + where->shown + "' is a file, not a directory; read it with ReadFile");
    DIR* dir = opendir(where->host.c_str());
    if (!dir) return ToolResult::error("ListFiles: cannot open '" + where->shown + "': " + std::strerror(errno));
    while (dirent* e = readdir(dir)) {
      std::string name = e->d_name;
      if (name.empty() || name[0] == '.') continue;  // hidden, as with ls (e.g. the tool index)
      struct stat est{};
      bool is_dir = lstat((where->host + "/" + name).c_str(), &est) == 0 && S_ISDIR(est.st_mode);
      name += is_dir ? "/" : "";
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(std::move(name));
    }
    closedir(dir);
  }
  std::sort(names.begin(), names.end());
  const int64_t total = static_cast<int64_t>(names.size());
  std::string message = "Listed " + plural(total, "entry", "entries") + " in '" + where->shown + "'";
  if (total > limits.max_list_entries) {
    names.resize(static_cast<size_t>(limits.max_list_entries));
    message = "Listed the first " + std::to_string(limits.max_list_entries) + " of " + plural(total, "entry", "entries") +
              " in '" + where->shown + "' (truncated at the listing limit)";
  }
  return ToolResult::success(message, names);
}

ToolResult read_file(const FileView& view, const std::string& file_path, const FileLimits& limits) {
  auto where = view.resolve(file_path, Access::read);
  if (!where) return ToolResult::error("ReadFile: " + where.error().message);
  if (!where->exists) return ToolResult::error("ReadFile: '" + where->shown + "' does not exist");
  // O_NOFOLLOW: the path was resolved to its canonical form, so a symlink
  // here now would be one swapped in since; refuse it.
  Fd f{open(where->host.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)};
  if (f.fd < 0) return ToolResult::error("ReadFile: cannot open '" + where->shown + "': " + std::strerror(errno));
  struct stat st{};
  if (fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode))
    return ToolResult::error("ReadFile: '" + where->shown + "' is not a regular file" +
                             (S_ISDIR(st.st_mode) ? "; list it with ListFiles" : ""));
  const int64_t size = st.st_size;
  const int64_t want = std::min<int64_t>(size, limits.max_read_bytes);
  std::string text(static_cast<size_t>(want), '\0');
  int64_t got = 0;
  while (got < want) {
    ssize_t n = read(f.fd, text.data() + got, static_cast<size_t>(want - got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ToolResult::error("ReadFile: reading '" + where->shown + "' failed: " + std::strerror(errno));
    if (n == 0) break;
    got += n;
  }
  text.resize(static_cast<size_t>(got));
  const bool truncated = size > limits.max_read_bytes;
  if (truncated) text.resize(utf8_safe_prefix(text));
  if (text.find('\0') != std::string::npos || !valid_utf8(text))
    return ToolResult::error("ReadFile: '" + where->shown + "' is not UTF-8 text (" + plural(size, "byte") +
                             "); only text files can be read");
  std::string message = "Read " + plural(static_cast<int64_t>(text.size()), "byte") + " from '" + where->shown + "'";
  if (truncated)
    message = "Read the first " + plural(static_cast<int64_t>(text.size()), "byte") + " of '" + where->shown + "' (" +
              plural(size, "byte") + "; truncated at the read limit of " + std::to_string(limits.max_read_bytes) + ")";
  return ToolResult::success(message, text);
}

ToolResult write_file(const FileView& view, const std::string& file_path, const std::string& content,
                      const FileLimits& limits) {
  const int64_t size = static_cast<int64_t>(content.size());
  if (size > limits.max_write_bytes)
    return ToolResult::error("WriteFile: the content is " + plural(size, "byte") + "; the limit is " +
                             std::to_string(limits.max_write_bytes) + ". Write a smaller file.");
  auto where = view.resolve(file_path, Access::write);
  if (!where) return ToolResult::error("WriteFile: " + where.error().message);
  if (where->shown == ".") return ToolResult::error("WriteFile: give a file name, not the workspace itself");
  Fd f{open(where->host.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644)};
  if (f.fd < 0)
    return ToolResult::error("WriteFile: cannot write '" + where->shown + "': " + std::strerror(errno));
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = write(f.fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ToolResult::error("WriteFile: writing '" + where->shown + "' failed: " + std::strerror(errno));
    done += static_cast<size_t>(n);
  }
  return ToolResult::success("Wrote " + plural(size, "byte") + " to '" + where->shown + "'",
                             json{{"file_path", where->shown}, {"bytes", size}});
}

}  // namespace kaisha::tools
