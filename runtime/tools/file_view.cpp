#include "runtime/tools/file_view.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace kaisha::tools {
namespace {

Error path_error(const std::string& path, const std::string& why) { return Error{"path", "'" + path + "' " + why}; }

std::string join(const std::vector<std::string>& parts, size_t from = 0, size_t to = std::string::npos) {
  std::string out;
  for (size_t i = from; i < parts.size() && i < to; ++i) out += (out.empty() ? "" : "/") + parts[i];
  return out;
}

// The configured directories are trusted paths: resolve them once, by name.
Result<std::string> canonical_dir(const std::string& dir, const char* what) {
  char real[PATH_MAX];
  struct stat st {};
  if (!realpath(dir.c_str(), real) || stat(real, &st) != 0 || !S_ISDIR(st.st_mode))
    return Error{"path", std::string(what) + " '" + dir +
                             "' is not an existing directory: " + std::strerror(errno ? errno : ENOTDIR)};
  return std::string(real);
}

Result<std::shared_ptr<const UniqueFd>> open_dir(const std::string& canonical) {
  auto fd = open_root_dir(canonical);
  if (!fd) return fd.error();
  return std::make_shared<const UniqueFd>(std::move(fd).value());
}

}  // namespace

Result<FileView> FileView::open(const std::string& workspace, std::vector<FileMount> mounts) {
  std::error_code ec;
  std::filesystem::create_directories(workspace, ec);
  if (ec) return Error{"path", "cannot create workspace '" + workspace + "': " + ec.message()};
  FileView v;
  auto ws = canonical_dir(workspace, "workspace");
  if (!ws) return ws.error();
  if (*ws == "/") return Error{"path", "the host root cannot be a tool workspace"};
  v.workspace_ = *ws;
  auto ws_fd = open_dir(v.workspace_);
  if (!ws_fd) return ws_fd.error();
  v.workspace_dir_ = std::move(ws_fd).value();
  for (const FileMount& m : mounts) {
    auto parts = split_relative(m.prefix);
    if (!parts || parts->empty())
      return Error{"path", "mount prefix '" + m.prefix + "' must be a relative path without '..'"};
    auto host = canonical_dir(m.host_dir, "mounted directory");
    if (!host) return host.error();
    auto fd = open_dir(*host);
    if (!fd) return fd.error();
    v.mounts_.push_back({std::move(parts).value(), std::move(fd).value()});
  }
  return v;
}

FileView::Located FileView::locate(const std::vector<std::string>& parts) const {
  // The longest mount prefix the path starts with decides the base directory.
  const Mount* mount = nullptr;
  for (const Mount& m : mounts_) {
    if (m.prefix.size() > parts.size() || (mount && mount->prefix.size() >= m.prefix.size())) continue;
    if (std::equal(m.prefix.begin(), m.prefix.end(), parts.begin())) mount = &m;
  }
  Located at;
  at.mount = mount;
  at.dir = mount ? mount->dir->get() : workspace_dir_->get();
  at.rest.assign(parts.begin() + static_cast<long>(mount ? mount->prefix.size() : 0), parts.end());
  return at;
}

Error FileView::open_error(const std::string& shown, const Located& where, int err) const {
  if (err == ELOOP) {
    std::string link = first_symlink_beneath(where.dir, where.rest);
    if (!link.empty() && where.mount) link = join(where.mount->prefix) + "/" + link;
    return path_error(shown, "goes through " +
                                 (link.empty() ? std::string("a symlink") : "the symlink '" + link + "'") +
                                 "; the file tools do not follow symlinks (one could lead outside the " +
                                 (where.mount ? "mounted directory" : "workspace") + "); refused");
  }
  if (err == ENOTDIR) return path_error(shown, "is not reachable: one of its parents is not a directory");
  if (err == EXDEV) return path_error(shown, "leads outside the workspace; refused");
  return path_error(shown, std::string("cannot be opened: ") + std::strerror(err));
}

Result<OpenedPath> FileView::open_read(const std::string& path) const {
  auto parts = split_relative(path);
  if (!parts) return parts.error();
  const std::string shown = join_relative(*parts);
  const Located at = locate(*parts);
  int fd = open_beneath(at.dir, at.rest, O_RDONLY | O_NONBLOCK);
  if (fd == -ENOENT) return OpenedPath{UniqueFd(), shown, false};
  if (fd < 0) return open_error(shown, at, -fd);
  return OpenedPath{UniqueFd(fd), shown, true};
}

Result<OpenedPath> FileView::open_write(const std::string& path) const {
  auto parts = split_relative(path);
  if (!parts) return parts.error();
  const std::string shown = join_relative(*parts);
  const Located at = locate(*parts);
  if (at.mount)
    return path_error(shown, "is read-only (under " + join(at.mount->prefix) + "); write inside the workspace instead");
  if (parts->empty()) return path_error(shown, "is the workspace itself; give a file name");
  const std::vector<std::string> parents(parts->begin(), parts->end() - 1);
  int dir = make_dirs_beneath(at.dir, parents);
  if (dir < 0) return open_error(shown, at, -dir);
  UniqueFd parent(dir);
  int fd = open_beneath(parent.get(), {parts->back()}, O_WRONLY | O_CREAT | O_NONBLOCK, 0644);
  if (fd < 0) return open_error(shown, at, -fd);
  return OpenedPath{UniqueFd(fd), shown, true};
}

Result<std::string> FileView::make_dir(const std::string& path) const {
  auto parts = split_relative(path);
  if (!parts) return parts.error();
  const std::string shown = join_relative(*parts);
  const Located at = locate(*parts);
  if (at.mount) return path_error(shown, "is read-only (under " + join(at.mount->prefix) + ")");
  int dir = make_dirs_beneath(at.dir, at.rest);
  if (dir < 0) return open_error(shown, at, -dir);
  UniqueFd keep(dir);
  return shown;
}

Status FileView::move(const std::string& from, const std::string& to) const {
  auto src = split_relative(from);
  if (!src) return src.error();
  auto dst = split_relative(to);
  if (!dst) return dst.error();
  const std::string src_shown = join_relative(*src), dst_shown = join_relative(*dst);
  const Located src_at = locate(*src), dst_at = locate(*dst);
  if (src_at.mount) return path_error(src_shown, "is read-only (under " + join(src_at.mount->prefix) + ")");
  if (dst_at.mount) return path_error(dst_shown, "is read-only (under " + join(dst_at.mount->prefix) + ")");
  if (src->empty()) return path_error(src_shown, "is the workspace itself; it cannot be moved");
  if (dst->empty()) return path_error(dst_shown, "is the workspace itself; give a new name");
  // Each name is looked up below a descriptor of its parent, never by host path.
  const std::vector<std::string> src_parent(src->begin(), src->end() - 1);
  int sp = open_beneath(src_at.dir, src_parent, O_PATH | O_DIRECTORY);
  if (sp < 0) return open_error(src_shown, src_at, -sp);
  UniqueFd src_dir(sp);
  const std::vector<std::string> dst_parent(dst->begin(), dst->end() - 1);
  int dp = make_dirs_beneath(dst_at.dir, dst_parent);
  if (dp < 0) return open_error(dst_shown, dst_at, -dp);
  UniqueFd dst_dir(dp);
  if (renameat2(src_dir.get(), src->back().c_str(), dst_dir.get(), dst->back().c_str(), RENAME_NOREPLACE) != 0) {
    const int err = errno;
    if (err == ENOENT) return path_error(src_shown, "does not exist");
    if (err == EEXIST) return path_error(dst_shown, "already exists; move it away or choose another name");
    if (err == EINVAL)
      return path_error(dst_shown, "is inside '" + src_shown + "'; a directory cannot move into itself");
    return path_error(src_shown, std::string("cannot be moved to '") + dst_shown + "': " + std::strerror(err));
  }
  return Status::Ok();
}

std::vector<std::string> FileView::virtual_children(const std::string& path) const {
  auto parts = split_relative(path);
  std::vector<std::string> out;
  if (!parts) return out;
  for (const Mount& m : mounts_) {
    if (m.prefix.size() <= parts->size() || !std::equal(parts->begin(), parts->end(), m.prefix.begin())) continue;
    const std::string& child = m.prefix[parts->size()];
    if (std::find(out.begin(), out.end(), child) == out.end()) out.push_back(child);
  }
  return out;
}

Result<std::string> session_workspace(const std::string& root, const std::string& session_id) {
  const std::string name = session_id.empty() ? "default" : session_id;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
      return Error{"path", "session id '" + session_id + "' cannot name a workspace directory"};
  // A leading '.' is kaisha's own (the pyramid's .tasks/), never a session's.
  if (name[0] == '.')
    return Error{"path", "session id '" + session_id + "' cannot name a workspace (it starts with '.')"};
  const std::string dir = root + "/" + name;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error{"path", "cannot create workspace '" + dir + "': " + ec.message()};
  return dir;
}

}  // namespace kaisha::tools
