#include "runtime/store/session_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <ctime>
#include <fstream>
#include <sstream>

namespace kaisha::store {
namespace {

std::string encode(const std::string& id) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : id) {
    if (std::isalnum(c) || c == '-' || c == '_' || (c == '.' && !out.empty())) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

// "kaisha run --continue": the command line, its arguments cut to a few.
std::string own_command() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string out;
  size_t start = 0;
  for (int n = 0; start < all.size() && n < 4; ++n) {
    size_t end = all.find('\0', start);
    if (end == std::string::npos) end = all.size();
    std::string arg = all.substr(start, end - start);
    if (n == 0) arg = arg.substr(arg.rfind('/') == std::string::npos ? 0 : arg.rfind('/') + 1);
    if (!out.empty()) out += ' ';
    out += arg;
    start = end + 1;
  }
  if (start < all.size()) out += " ...";
  return out.empty() ? "unknown command" : out;
}

std::string holder_line() {
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "?");
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char when[32];
  std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
  std::ostringstream s;
  s << "pid " << getpid() << " (" << own_command() << ") on host " << host << " since " << when;
  return s.str();
}

std::string read_holder(int fd) {
  char buf[1024];
  ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
  std::string line = n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
  while (!line.empty() && (line.back() == '\n' || line.back() == '\0')) line.pop_back();
  return line.empty() ? "another process (it has not written its name yet)" : line;
}

Result<int> open_lock_file(const std::string& store_path, const std::string& session_id) {
  const std::string dir = store_path + ".locks";
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
    return Error{"store", "cannot make the session lock directory " + dir + ": " + std::strerror(errno)};
  const std::string path = SessionLock::lock_path(store_path, session_id);
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Error{"store", "cannot open the session lock " + path + ": " + std::strerror(errno)};
  return fd;
}

}  // namespace

std::string SessionLock::lock_path(const std::string& store_path, const std::string& session_id) {
  return store_path + ".locks/" + encode(session_id) + ".lock";
}

Result<std::unique_ptr<SessionLock>> SessionLock::acquire(const std::string& store_path,
                                                          const std::string& session_id) {
  auto fd = open_lock_file(store_path, session_id);
  if (!fd.ok()) return fd.error();
  if (flock(*fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    std::string who = err == EWOULDBLOCK ? read_holder(*fd) : std::string();
    close(*fd);
    if (err != EWOULDBLOCK)
      return Error{"store", "cannot lock session " + session_id + " (" + lock_path(store_path, session_id) +
                                "): " + std::strerror(err)};
    return Error{"session_busy", "session " + session_id + " is already running in " + who +
                                     "; one process runs a session at a time (stop it, or start a new session)"};
  }
  const std::string line = holder_line() + "\n";
  if (ftruncate(*fd, 0) != 0 || pwrite(*fd, line.data(), line.size(), 0) != static_cast<ssize_t>(line.size())) {
    // The lock holds without the name; only a refusal's message is poorer.
  }
  return std::unique_ptr<SessionLock>(new SessionLock(*fd));
}

Result<std::optional<std::string>> SessionLock::holder(const std::string& store_path, const std::string& session_id) {
  auto fd = open_lock_file(store_path, session_id);
  if (!fd.ok()) return fd.error();
  std::optional<std::string> who;
  if (flock(*fd, LOCK_EX | LOCK_NB) == 0)
    flock(*fd, LOCK_UN);
  else
    who = read_holder(*fd);
  close(*fd);
  return who;
}

std::vector<std::string> SessionLock::holders(const std::string& store_path) {
  std::vector<std::string> out;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(store_path + ".locks", ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() != ".lock") continue;
    const int fd = open(it->path().c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) continue;  // gone meanwhile: nobody holds it
    if (flock(fd, LOCK_EX | LOCK_NB) == 0)
      flock(fd, LOCK_UN);
    else
      out.push_back(read_holder(fd));
    close(fd);
  }
  return out;
}

SessionLock::~SessionLock() {
  if (fd_ >= 0) {
    if (ftruncate(fd_, 0) != 0) {
      // The next holder overwrites the line anyway.
    }
    close(fd_);  // drops the flock
  }
}

}  // namespace kaisha::store
