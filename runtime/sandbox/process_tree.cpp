#include "runtime/sandbox/process_tree.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "runtime/core/confined_fs.hpp"

namespace kaisha::sandbox {

namespace {

// Reads a small /proc file whole; "" when it is gone.
std::string read_proc(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  char buf[1024];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
}

// The parent pid from /proc/<pid>/stat; the command name may hold spaces and
// parentheses, so fields are counted after its last ')'.
pid_t parent_of(const std::string& stat) {
  size_t close_paren = stat.rfind(')');
  if (close_paren == std::string::npos || close_paren + 4 >= stat.size()) return -1;
  // ") S ppid ..."
  return static_cast<pid_t>(std::strtol(stat.c_str() + close_paren + 4, nullptr, 10));
}

int64_t resident_bytes(pid_t pid) {
  std::string statm = read_proc("/proc/" + std::to_string(pid) + "/statm");
  if (statm.empty()) return 0;
  const char* p = statm.c_str();
  std::strtoll(p, const_cast<char**>(&p), 10);  // size
  long long pages = std::strtoll(p, nullptr, 10);
  return pages * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
}

// The children of every process, from one walk of /proc.
std::unordered_map<pid_t, std::vector<pid_t>> children_of_all() {
  std::unordered_map<pid_t, std::vector<pid_t>> children;
  if (DIR* d = opendir("/proc")) {
    while (dirent* e = readdir(d)) {
      char* end = nullptr;
      long pid = std::strtol(e->d_name, &end, 10);
      if (*end != '\0' || pid <= 0) continue;
      pid_t parent = parent_of(read_proc(std::string("/proc/") + e->d_name + "/stat"));
      if (parent > 0) children[parent].push_back(static_cast<pid_t>(pid));
    }
    closedir(d);
  }
  return children;
}

}  // namespace

TreeUsage sample_tree(pid_t root) {
  const auto children = children_of_all();
  TreeUsage u;
  u.rss_bytes = resident_bytes(root);
  std::vector<pid_t> todo = {root};
  while (!todo.empty()) {
    pid_t p = todo.back();
    todo.pop_back();
    auto it = children.find(p);
    if (it == children.end()) continue;
    for (pid_t c : it->second) {
      ++u.processes;
      u.rss_bytes += resident_bytes(c);
      todo.push_back(c);
    }
  }
  return u;
}

int64_t deleted_open_bytes(pid_t root, dev_t dev) {
  const auto children = children_of_all();
  std::set<ino_t> seen;
  int64_t bytes = 0;
  std::vector<pid_t> todo = {root};
  while (!todo.empty()) {
    const pid_t p = todo.back();
    todo.pop_back();
    if (auto it = children.find(p); it != children.end()) todo.insert(todo.end(), it->second.begin(), it->second.end());
    const std::string fds = "/proc/" + std::to_string(p) + "/fd";
    DIR* d = opendir(fds.c_str());
    if (!d) continue;  // gone, or not ours to read
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] == '.') continue;
      struct stat st {};
      // stat() follows the fd's link to the open file, deleted or not.
      if (stat((fds + "/" + e->d_name).c_str(), &st) != 0) continue;
      if (!S_ISREG(st.st_mode) || st.st_nlink != 0 || st.st_dev != dev) continue;
      if (seen.insert(st.st_ino).second) bytes += static_cast<int64_t>(st.st_blocks) * 512;
    }
    closedir(d);
  }
  return bytes;
}

Result<int64_t> disk_usage(const std::string& dir) {
  // The sandbox rearranges the workspace while it is measured: walk it
  // through directory descriptors, never by name (runtime/core/confined_fs).
  auto root = open_root_dir(dir);
  if (!root) return root.error();
  return allocated_bytes(root->get());
}

}  // namespace kaisha::sandbox
