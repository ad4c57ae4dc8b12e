#include "runtime/core/confined_fs.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <set>

namespace kaisha {

UniqueFd& UniqueFd::operator=(UniqueFd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) close(fd_);
    fd_ = std::exchange(o.fd_, -1);
  }
  return *this;
}

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) close(fd_);
}

namespace {

Error path_error(const std::string& path, const std::string& why) { return Error{"path", "'" + path + "' " + why}; }

// -1 unknown, 0 no openat2 (old kernel or a seccomp filter), 1 usable.
std::atomic<int> g_have_openat2{-1};
std::atomic<bool> g_force_walk{false};

int sys_openat2(int dirfd, const char* path, int flags, mode_t mode) {
  open_how how{};
  how.flags = static_cast<uint64_t>(flags);
  how.mode = (flags & O_CREAT) ? mode : 0;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  for (int attempt = 0;; ++attempt) {
    long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof how);
    if (fd >= 0) return static_cast<int>(fd);
    // EAGAIN: a concurrent rename made the kernel's check inconclusive.
    if ((errno == EAGAIN || errno == EINTR) && attempt < 16) continue;
    return -errno;
  }
}

// A component is a symlink (for turning the ENOTDIR of an O_PATH|O_DIRECTORY
// open of a symlink into the ELOOP openat2 gives).
bool is_symlink_at(int dir, const std::string& name) {
  struct stat st {};
  return fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
}

int walk_open(int root, const std::vector<std::string>& parts, int flags, mode_t mode) {
  if (parts.empty()) {
    int fd = openat(root, ".", flags, mode);
    return fd >= 0 ? fd : -errno;
  }
  UniqueFd held;
  int cur = root;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    int fd = openat(cur, parts[i].c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
      int err = errno;
      return -(err == ENOTDIR && is_symlink_at(cur, parts[i]) ? ELOOP : err);
    }
    held = UniqueFd(fd);
    cur = fd;
  }
  int fd = openat(cur, parts.back().c_str(), flags, mode);
  return fd >= 0 ? fd : -errno;
}

// Both resolvers answer a symlink in the same words: O_PATH | O_NOFOLLOW
// opens a trailing symlink itself, and O_DIRECTORY then says ENOTDIR; both
// become ELOOP, as for every other symlink on the path.
int symlink_is_eloop(int root, const std::vector<std::string>& parts, int flags, int r) {
  if (r >= 0 && (flags & O_PATH)) {
    struct stat st {};
    if (fstat(r, &st) == 0 && S_ISLNK(st.st_mode)) {
      close(r);
      return -ELOOP;
    }
  }
  if (r == -ENOTDIR && !first_symlink_beneath(root, parts).empty()) return -ELOOP;
  return r;
}

}  // namespace

Result<std::vector<std::string>> split_relative(const std::string& path) {
  if (path.find('\0') != std::string::npos) return path_error(path, "contains a NUL character");
  if (!path.empty() && path[0] == '/')
    return path_error(path, "is an absolute path; give a path relative to the workspace (e.g. 'notes/a.txt')");
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    std::string part = path.substr(start, slash - start);
    if (part == "..") return path_error(path, "uses '..'; paths may not leave the workspace");
    if (!part.empty() && part != ".") parts.push_back(std::move(part));
    start = slash + 1;
  }
  return parts;
}

std::string join_relative(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : "/") + p;
  return out.empty() ? "." : out;
}

Result<UniqueFd> open_root_dir(const std::string& dir) {
  int fd = open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Error{"path", "'" + dir + "' is not an existing directory: " + std::strerror(errno)};
  return UniqueFd(fd);
}

int open_beneath(int root, const std::vector<std::string>& parts, int flags, mode_t mode) {
  flags |= O_CLOEXEC | O_NOFOLLOW;
  if (g_have_openat2.load(std::memory_order_relaxed) != 0 && !g_force_walk.load(std::memory_order_relaxed)) {
    const std::string rel = join_relative(parts);
    int fd = sys_openat2(root, rel.c_str(), flags, mode);
    if (fd != -ENOSYS && fd != -EPERM) {
      g_have_openat2.store(1, std::memory_order_relaxed);
      return symlink_is_eloop(root, parts, flags, fd);
    }
    // ENOSYS: a kernel before 5.6; EPERM: a seccomp filter that blocks it.
    // EPERM can also be a real answer (e.g. an immutable file), so the walk
    // below gives the final one either way.
    if (fd == -ENOSYS) g_have_openat2.store(0, std::memory_order_relaxed);
  }
  return symlink_is_eloop(root, parts, flags, walk_open(root, parts, flags, mode));
}

void force_component_walk(bool on) { g_force_walk.store(on); }

int make_dirs_beneath(int root, const std::vector<std::string>& parts) {
  int first = open_beneath(root, {}, O_PATH | O_DIRECTORY);
  if (first < 0) return first;
  UniqueFd cur(first);
  for (const std::string& part : parts) {
    int fd = open_beneath(cur.get(), {part}, O_PATH | O_DIRECTORY);
    if (fd == -ENOENT) {
      if (mkdirat(cur.get(), part.c_str(), 0755) != 0 && errno != EEXIST) return -errno;
      fd = open_beneath(cur.get(), {part}, O_PATH | O_DIRECTORY);
    }
    if (fd < 0) return fd;
    cur = UniqueFd(fd);
  }
  return cur.release();
}

std::string first_symlink_beneath(int root, const std::vector<std::string>& parts) {
  UniqueFd held;
  int cur = root;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (is_symlink_at(cur, parts[i])) return join_relative({parts.begin(), parts.begin() + static_cast<long>(i) + 1});
    int fd = openat(cur, parts[i].c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return "";
    held = UniqueFd(fd);
    cur = fd;
  }
  return "";
}

namespace {

// Directories deeper than `max_depth` are not entered; the first one met is
// named in `too_deep`.
Status walk_dir(int dir, dev_t dev, const TreeVisitor& visit, int depth, int max_depth, const std::string& shown,
                std::string& too_deep) {
  if (depth > max_depth) {
    if (too_deep.empty()) too_deep = shown;
    return Status::Ok();
  }
  int listing = dup(dir);
  if (listing < 0) return Error{"io", "cannot list '" + shown + "': " + std::strerror(errno)};
  DIR* d = fdopendir(listing);
  if (!d) {
    int err = errno;
    close(listing);
    return Error{"io", "cannot list '" + shown + "': " + std::strerror(err)};
  }
  Status result = Status::Ok();
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    const std::string child_shown = shown == "." ? name : shown + "/" + name;
    struct stat st {};
    if (fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;  // removed meanwhile
    if (Status s = visit(dir, name, st, child_shown); !s) {
      result = s;
      break;
    }
    if (!S_ISDIR(st.st_mode) || st.st_dev != dev) continue;
    int child = openat(dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (child < 0) continue;  // swapped for a symlink or removed since: not entered
    UniqueFd held(child);
    struct stat cst {};
    if (fstat(child, &cst) != 0 || cst.st_dev != dev) continue;
    if (Status s = walk_dir(child, dev, visit, depth + 1, max_depth, child_shown, too_deep); !s) {
      result = s;
      break;
    }
  }
  closedir(d);
  return result;
}

// A descriptor of `root` that can be listed, and its stat.
Result<UniqueFd> listable(int root, struct stat& st) {
  int fd = openat(root, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Error{"io", std::string("cannot open the directory: ") + std::strerror(errno)};
  UniqueFd dir(fd);
  if (fstat(dir.get(), &st) != 0) return Error{"io", std::string("cannot stat the directory: ") + std::strerror(errno)};
  return dir;
}

Error too_deep_error(const std::string& where, int max_depth) {
  return Error{"too_deep", "'" + where + "' is nested more than " + std::to_string(max_depth) + " directories deep"};
}

}  // namespace

Status walk_beneath(int root, const TreeVisitor& visit, int max_depth) {
  struct stat st {};
  auto dir = listable(root, st);
  if (!dir) return dir.error();
  std::string too_deep;
  Status s = walk_dir(dir->get(), st.st_dev, visit, 1, max_depth, ".", too_deep);
  if (s && !too_deep.empty()) return too_deep_error(too_deep, max_depth);
  return s;
}

Result<int64_t> allocated_bytes(int root, int max_depth) {
  struct stat st {};
  auto dir = listable(root, st);
  if (!dir) return dir.error();
  int64_t total = static_cast<int64_t>(st.st_blocks) * 512;
  std::string too_deep;
  std::set<std::pair<dev_t, ino_t>> linked;  // files with several links, counted once
  Status s = walk_dir(
      dir->get(), st.st_dev,
      [&](int, const std::string&, const struct stat& e, const std::string&) {
        if (!S_ISDIR(e.st_mode) && e.st_nlink > 1 && !linked.insert({e.st_dev, e.st_ino}).second) return Status::Ok();
        total += static_cast<int64_t>(e.st_blocks) * 512;
        return Status::Ok();
      },
      1, max_depth, ".", too_deep);
  if (!s) return s.error();
  if (!too_deep.empty()) return too_deep_error(too_deep, max_depth);
  return total;
}

Status chown_tree(int root, uid_t uid, gid_t gid, int max_depth) {
  struct stat st {};
  auto dir = listable(root, st);
  if (!dir) return dir.error();
  std::string too_deep;  // left as it is: only the sandbox's own uid makes trees that deep
  Status s = walk_dir(
      dir->get(), st.st_dev,
      [&](int parent, const std::string& name, const struct stat& e, const std::string& shown) {
        if (e.st_dev != st.st_dev) return Status::Ok();  // another file system mounted here
        if (e.st_uid == uid && e.st_gid == gid) return Status::Ok();
        // A file with several links may be a host file linked in: leave it.
        if (!S_ISDIR(e.st_mode) && e.st_nlink > 1) return Status::Ok();
        if (fchownat(parent, name.c_str(), uid, gid, AT_SYMLINK_NOFOLLOW) != 0 && errno != ENOENT)
          return Status(Error{"io", "chown '" + shown + "': " + std::strerror(errno)});
        return Status::Ok();
      },
      1, max_depth, ".", too_deep);
  if (!s) return s;
  if ((st.st_uid != uid || st.st_gid != gid) && fchown(dir->get(), uid, gid) != 0)
    return Error{"io", std::string("chown '.': ") + std::strerror(errno)};
  return Status::Ok();
}

}  // namespace kaisha
