#include "runtime/sandbox/cgroup_jail.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

namespace kaisha::sandbox {

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Writes `value` with one write(2), as cgroup files want; errno on failure.
int write_value(const std::string& path, const std::string& value) {
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  ssize_t n = write(fd, value.data(), value.size());
  int err = n == static_cast<ssize_t>(value.size()) ? 0 : (n < 0 ? errno : EIO);
  close(fd);
  return err;
}

bool has_word(const std::string& list, const std::string& word, char sep) {
  std::stringstream ss(list);
  std::string w;
  while (std::getline(ss, w, sep))
    if (w == word || w == word + "\n") return true;
  return false;
}

// The value after `key ` in a flat-keyed cgroup file ("oom_kill 3").
int64_t keyed(const std::string& path, const std::string& key) {
  std::istringstream in(slurp(path));
  std::string k;
  int64_t v = 0;
  while (in >> k >> v)
    if (k == key) return v;
  return 0;
}

// This process's cgroup directory for a v1 controller ("memory") or, with
// "", in the v2 tree; "" when that hierarchy is not mounted here.
std::string own_dir(const std::string& controller) {
  std::string path;
  {
    std::istringstream in(slurp("/proc/self/cgroup"));
    std::string line;
    bool found = false;
    while (!found && std::getline(in, line)) {
      size_t a = line.find(':'), b = line.find(':', a + 1);
      if (a == std::string::npos || b == std::string::npos) continue;
      std::string ctrls = line.substr(a + 1, b - a - 1);
      if (controller.empty() ? (line.substr(0, a) == "0" && ctrls.empty()) : has_word(ctrls, controller, ',')) {
        path = line.substr(b + 1);
        found = true;
      }
    }
    if (!found) return "";
  }
  // mountinfo: id parent dev root mountpoint opts [tags] - fstype source superopts
  std::istringstream in(slurp("/proc/self/mountinfo"));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string id, parent, dev, root, mnt, opts, tok;
    f >> id >> parent >> dev >> root >> mnt >> opts;
    while (f >> tok && tok != "-") {
    }
    std::string fstype, source, super;
    f >> fstype >> source >> super;
    bool match = controller.empty() ? fstype == "cgroup2" : fstype == "cgroup" && has_word(super, controller, ',');
    if (!match) continue;
    std::string rel = path;
    if (root != "/" && rel.rfind(root, 0) == 0) rel = rel.substr(root.size());
    return mnt + (rel == "/" ? "" : rel);
  }
  return "";
}

constexpr const char* kJailPrefix = "kaisha-sandbox-";

std::string unique_name() {
  static std::atomic<uint64_t> seq{0};
  return kJailPrefix + std::to_string(getpid()) + "-" + std::to_string(seq.fetch_add(1));
}

// The pid a jail's name carries; 0 when the name is not a jail's.
pid_t creator_of(const std::string& name) {
  if (name.rfind(kJailPrefix, 0) != 0) return 0;
  const char* p = name.c_str() + std::strlen(kJailPrefix);
  char* end = nullptr;
  long pid = std::strtol(p, &end, 10);
  return end != p && *end == '-' && pid > 0 ? static_cast<pid_t>(pid) : 0;
}

std::string errno_text(int err) { return std::strerror(err); }

}  // namespace

int CgroupJail::remove_stale(const std::string& parent) {
  std::vector<std::string> stale;
  if (DIR* d = opendir(parent.c_str())) {
    while (dirent* e = readdir(d)) {
      const pid_t pid = creator_of(e->d_name);
      // A pid that exists may be another kaisha's, or a reused one: kept.
      if (pid > 0 && pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH) stale.push_back(parent + "/" + e->d_name);
    }
    closedir(d);
  }
  int removed = 0;
  for (const std::string& dir : stale) {
    if (write_value(dir + "/cgroup.kill", "1") != 0) {
      std::istringstream in(slurp(dir + "/cgroup.procs"));
      pid_t pid;
      while (in >> pid)
        if (pid > 0) kill(pid, SIGKILL);
    }
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (rmdir(dir.c_str()) != 0 && errno == EBUSY && std::chrono::steady_clock::now() < give_up)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    removed += access(dir.c_str(), F_OK) != 0;
  }
  return removed;
}

Result<std::unique_ptr<CgroupJail>> CgroupJail::create(int64_t memory_bytes, int64_t max_tasks) {
  static std::atomic<bool> swept{false};
  if (!swept.exchange(true))
    for (const std::string& parent : {own_dir(""), own_dir("memory"), own_dir("pids")})
      if (!parent.empty()) remove_stale(parent);
  std::unique_ptr<CgroupJail> jail(new CgroupJail());
  const std::string name = unique_name();
  const std::string mem = std::to_string(memory_bytes), tasks = std::to_string(max_tasks);
  std::string why_not_v2;

  // v2, when our cgroup hands memory and pids down to children.
  if (std::string v2 = own_dir(""); v2.empty()) {
    why_not_v2 = "no cgroup2 tree";
  } else {
    std::string ctrls = slurp(v2 + "/cgroup.controllers");
    if (!has_word(ctrls, "memory", ' ') || !has_word(ctrls, "pids", ' ')) {
      why_not_v2 = "memory and pids are not delegated to " + v2;
    } else {
      std::string sub = slurp(v2 + "/cgroup.subtree_control");
      int err = 0;
      if (!has_word(sub, "memory", ' ') || !has_word(sub, "pids", ' '))
        err = write_value(v2 + "/cgroup.subtree_control", "+memory +pids");
      std::string dir = v2 + "/" + name;
      if (err) {
        why_not_v2 = "cannot enable memory and pids below " + v2 + ": " + errno_text(err);
      } else if (mkdir(dir.c_str(), 0755) != 0) {
        why_not_v2 = "cannot create a cgroup in " + v2 + ": " + errno_text(errno);
      } else {
        jail->mechanism_ = "cgroup v2";
        jail->memory_dir_ = jail->pids_dir_ = dir;
        if ((err = write_value(dir + "/memory.max", mem)) || (err = write_value(dir + "/pids.max", tasks)))
          return Error{"sandbox_setup", "cgroup v2: cannot set limits in " + dir + ": " + errno_text(err)};
        write_value(dir + "/memory.swap.max", "0");   // absent without swap accounting
        write_value(dir + "/memory.oom.group", "1");  // an OOM kill takes the whole group
        jail->procs_files_ = {dir + "/cgroup.procs"};
        return jail;
      }
    }
  }

  // v1: the memory and pids hierarchies, each writable below our cgroup.
  std::string mem_root = own_dir("memory"), pids_root = own_dir("pids");
  if (mem_root.empty() || pids_root.empty())
    return Error{"sandbox_setup", "cgroup v2: " + why_not_v2 +
                                      "; cgroup v1: the memory and pids hierarchies "
                                      "are not both mounted"};
  std::string mem_dir = mem_root + "/" + name, pids_dir = pids_root + "/" + name;
  if (mkdir(mem_dir.c_str(), 0755) != 0)
    return Error{"sandbox_setup",
                 "cgroup v2: " + why_not_v2 + "; cgroup v1: cannot create " + mem_dir + ": " + errno_text(errno)};
  jail->mechanism_ = "cgroup v1";
  jail->memory_dir_ = mem_dir;
  if (mkdir(pids_dir.c_str(), 0755) != 0)
    return Error{"sandbox_setup", "cgroup v1: cannot create " + pids_dir + ": " + errno_text(errno)};
  jail->pids_dir_ = pids_dir;
  int err = 0;
  if ((err = write_value(mem_dir + "/memory.limit_in_bytes", mem)))
    return Error{"sandbox_setup", "cgroup v1: cannot set " + mem_dir + "/memory.limit_in_bytes: " + errno_text(err)};
  write_value(mem_dir + "/memory.memsw.limit_in_bytes", mem);  // absent without swap accounting
  if ((err = write_value(pids_dir + "/pids.max", tasks)))
    return Error{"sandbox_setup", "cgroup v1: cannot set " + pids_dir + "/pids.max: " + errno_text(err)};
  jail->procs_files_ = {mem_dir + "/cgroup.procs", pids_dir + "/cgroup.procs"};
  return jail;
}

int64_t CgroupJail::oom_kills() const {
  if (memory_dir_.empty()) return 0;
  return mechanism_ == "cgroup v2" ? keyed(memory_dir_ + "/memory.events", "oom_kill")
                                   : keyed(memory_dir_ + "/memory.oom_control", "oom_kill");
}

int64_t CgroupJail::refused_forks() const { return pids_dir_.empty() ? 0 : keyed(pids_dir_ + "/pids.events", "max"); }

void CgroupJail::kill_all() const {
  if (mechanism_ == "cgroup v2" && write_value(memory_dir_ + "/cgroup.kill", "1") == 0) return;
  for (const std::string& dir : {memory_dir_, pids_dir_}) {
    if (dir.empty()) continue;
    std::istringstream in(slurp(dir + "/cgroup.procs"));
    pid_t pid;
    while (in >> pid)
      if (pid > 0) kill(pid, SIGKILL);
  }
}

CgroupJail::~CgroupJail() {
  // Members take a moment to leave after SIGKILL; rmdir succeeds once empty.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  for (const std::string& dir : {memory_dir_, pids_dir_}) {
    if (dir.empty()) continue;  // on v2 both are one directory: the second rmdir finds it gone
    while (rmdir(dir.c_str()) != 0 && errno == EBUSY && std::chrono::steady_clock::now() < give_up) {
      kill_all();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
}

}  // namespace kaisha::sandbox
