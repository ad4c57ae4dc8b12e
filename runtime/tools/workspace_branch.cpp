#include "runtime/tools/workspace_branch.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/core/confined_fs.hpp"
#include "runtime/tools/tool_index.hpp"

namespace kaisha::tools {
namespace {

bool hidden(const std::string& shown) {
  if (!shown.empty() && shown[0] == '.') return true;
  return shown.find("/.") != std::string::npos;
}

Result<std::string> read_fd(int fd, const std::string& shown, int64_t max_bytes) {
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{"path", "cannot read '" + shown + "': " + std::strerror(errno)};
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (static_cast<int64_t>(out.size()) > max_bytes)
      return Error{"too_large", "'" + shown + "' is too large to branch"};
  }
  return out;
}

}  // namespace

Status write_file_bytes(const FileView& to, const std::string& path, const std::string& bytes) {
  auto opened = to.open_write(path);
  if (!opened) return opened.error();
  const int fd = opened->fd.get();
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    return Error{"path", "'" + opened->shown + "' is not a regular file"};
  if (ftruncate(fd, 0) != 0) return Error{"path", "cannot write '" + opened->shown + "': " + std::strerror(errno)};
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{"path", "cannot write '" + opened->shown + "': " + std::strerror(errno)};
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

Status each_file(const FileView& view, const BranchLimits& limits,
                 const std::function<Status(const std::string& shown, const std::string& bytes)>& visit) {
  auto root = view.open_read(".");
  if (!root) return root.error();
  if (!root->exists) return Error{"path", "the task's directory does not exist"};
  int64_t files = 0, bytes = 0;
  return walk_beneath(
      root->fd.get(), [&](int dir, const std::string& name, const struct stat& st, const std::string& shown) -> Status {
        if (!S_ISREG(st.st_mode) || hidden(shown)) return Status::Ok();
        if (++files > limits.max_files)
          return Error{"too_large",
                       "the task's directory has more than " + std::to_string(limits.max_files) + " files to branch"};
        UniqueFd fd(openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
        if (!fd.valid())
          return errno == ENOENT ? Status::Ok()
                                 : Status(Error{"path", "cannot open '" + shown + "': " + std::strerror(errno)});
        struct stat now {};
        if (fstat(fd.get(), &now) != 0 || !S_ISREG(now.st_mode)) return Status::Ok();  // swapped meanwhile
        auto content = read_fd(fd.get(), shown, limits.max_bytes - bytes);
        if (!content) {
          if (content.error().code == "too_large")
            return Error{"too_large",
                         "the task's files come to more than " +
                             (limits.max_bytes >= (1 << 20) ? std::to_string(limits.max_bytes >> 20) + " MiB"
                                                            : std::to_string(limits.max_bytes) + " bytes") +
                             ", too much to branch"};
          return content.error();
        }
        bytes += static_cast<int64_t>(content->size());
        return visit(shown, *content);
      });
}

json ChangeSet::to_json() const { return json{{"added", added}, {"modified", modified}, {"removed", removed}}; }

Result<Manifest> copy_tree(const FileView& from, const FileView& to, const BranchLimits& limits) {
  Manifest m;
  Status s = each_file(from, limits, [&](const std::string& shown, const std::string& bytes) -> Status {
    if (Status w = write_file_bytes(to, shown, bytes); !w) return w;
    m[shown] = content_hash(bytes);
    return Status::Ok();
  });
  if (!s) return s.error();
  return m;
}

Result<Manifest> manifest_of(const FileView& view, const BranchLimits& limits) {
  Manifest m;
  Status s = each_file(view, limits, [&](const std::string& shown, const std::string& bytes) -> Status {
    m[shown] = content_hash(bytes);
    return Status::Ok();
  });
  if (!s) return s.error();
  return m;
}

ChangeSet changes_between(const Manifest& base, const Manifest& now) {
  ChangeSet c;
  for (const auto& [path, hash] : now) {
    auto b = base.find(path);
    if (b == base.end())
      c.added.push_back(path);
    else if (b->second != hash)
      c.modified.push_back(path);
  }
  for (const auto& [path, hash] : base)
    if (!now.count(path)) c.removed.push_back(path);
  return c;
}

Status merge_changes(const FileView& branch, const FileView& main, const Manifest& base, const ChangeSet& changes,
                     MergeResult& out) {
  auto now = manifest_of(main);
  if (!now) return now.error();
  for (const auto* list : {&changes.added, &changes.modified}) {
    for (const auto& path : *list) {
      auto was = base.find(path);
      auto is = now->find(path);
      const bool untouched = was == base.end() ? is == now->end() : is != now->end() && is->second == was->second;
      auto opened = branch.open_read(path);
      if (!opened) return opened.error();
      if (!opened->exists) return Error{"path", "'" + path + "' left the branch before it was merged"};
      struct stat st {};
      if (fstat(opened->fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
        return Error{"path", "'" + path + "' is no longer a regular file"};
      auto bytes = read_fd(opened->fd.get(), path, BranchLimits{}.max_bytes);
      if (!bytes) return bytes.error();
      // Main holding the branch's content already (the same merge repeated
      // after a kill, or a sibling that wrote it alike) is no conflict.
      if (is != now->end() && is->second == content_hash(*bytes)) {
        out.merged.push_back(path);
        continue;
      }
      if (!untouched) {
        out.conflicts.push_back(path);
        continue;
      }
      if (Status w = write_file_bytes(main, path, *bytes); !w) return w;
      out.merged.push_back(path);
    }
  }
  return Status::Ok();
}

}  // namespace kaisha::tools
