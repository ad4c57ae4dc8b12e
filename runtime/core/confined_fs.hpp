// Descriptor-based file access confined to one directory.
//
// Every file that code outside kaisha can change (a tool workspace, which
// sandboxed programs write concurrently with the file tools) is reached only
// through these functions. A path is never resolved by name against the host
// root: it is opened relative to a directory file descriptor, one component
// at a time or with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS), and no
// symlink is followed at any component. Whatever is opened is then used
// through its descriptor, never looked up by name again, so a directory
// swapped for a symlink between a check and a use cannot redirect the use.
//
// Paths given here are relative component lists that the caller has already
// split and checked ("" / "." removed, ".." refused: see split_relative()).
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/core/result.hpp"

namespace kaisha {

// An owned file descriptor; closed on destruction. Move-only.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd();

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_ = -1;
};

// Splits a relative '/'-separated path into components: empty and "."
// components vanish; an absolute path, a ".." component or a NUL byte is an
// Error (code "path") naming the path and the reason.
Result<std::vector<std::string>> split_relative(const std::string& path);

// Opens the host directory `dir` (a trusted path, e.g. from the config) as the
// root of later confined opens. O_PATH | O_DIRECTORY: no read access implied.
Result<UniqueFd> open_root_dir(const std::string& dir);

// Opens `parts` below the directory `root` with open(2) `flags` (O_CLOEXEC and
// O_NOFOLLOW are always added; `mode` with O_CREAT). No component may be a
// symlink: that fails with ELOOP. Returns the descriptor, or -errno.
// Uses openat2 where the kernel has it, a component-by-component
// openat(O_NOFOLLOW) walk otherwise; both give the same answers.
int open_beneath(int root, const std::vector<std::string>& parts, int flags, mode_t mode = 0);

// Opens the directory `parts` below `root`, creating the missing components
// (mode 0755) one at a time, each relative to the descriptor of its parent.
// Returns an O_PATH directory descriptor, or -errno.
int make_dirs_beneath(int root, const std::vector<std::string>& parts);

// For an error message only (never for a security decision): the first
// component of `parts` below `root` that is a symlink, as a joined relative
// path, or "" when none is (any more).
std::string first_symlink_beneath(int root, const std::vector<std::string>& parts);

// Calls `visit(dir, name, st, shown)` for every entry below the directory
// `root`, depth first, where `dir` is an open descriptor of the entry's
// directory, `st` its lstat and `shown` its path relative to `root`. A
// directory is visited, then entered through an O_NOFOLLOW descriptor, never
// by name from the top again, so one swapped for a symlink during the walk
// is never entered; symlinks are visited, not followed; entries on another
// file system are visited but not entered. Entries that vanish meanwhile are
// skipped. Directories nested deeper than `max_depth` are not entered and
// make the result an Error (code "too_deep") once the rest is walked; the
// first Error `visit` returns ends the walk.
using TreeVisitor =
    std::function<Status(int dir, const std::string& name, const struct stat& st, const std::string& shown)>;
Status walk_beneath(int root, const TreeVisitor& visit, int max_depth = 256);

// Bytes allocated on disk to the directory `root` and everything below it
// (st_blocks; a file with several links counted once), walked as
// walk_beneath does.
Result<int64_t> allocated_bytes(int root, int max_depth = 256);

// Changes the owner of the directory `root` and of everything below it,
// without following symlinks (a symlink is re-owned itself) and without
// crossing into another file system. Every step is relative to an open
// directory descriptor, so a directory swapped for a symlink during the walk
// is never entered. Directories nested deeper than `max_depth` are left as
// they are (the sandbox, which alone makes trees that deep, owns them
// already), so a deep tree cannot make every later run fail.
Status chown_tree(int root, uid_t uid, gid_t gid, int max_depth = 256);

// For tests: true forces the component-by-component walk even where the
// kernel has openat2, so both resolvers can be checked on one machine.
void force_component_walk(bool on);

// Joins components with '/' ("." for none).
std::string join_relative(const std::vector<std::string>& parts);

}  // namespace kaisha
