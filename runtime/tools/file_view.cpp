#include "runtime/tools/file_view.hpp"

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

Error path_error(const std::string& path, const std::string& why) {
  return Error{"path", "'" + path + "' " + why};
}

// Splits a model-given relative path into components; "." and empty parts
// vanish, ".." and absolute paths are refused before anything touches disk.
Result<std::vector<std::string>> split(const std::string& path) {
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

std::string join(const std::vector<std::string>& parts, size_t from = 0, size_t to = std::string::npos) {
  std::string out;
  for (size_t i = from; i < parts.size() && i < to; ++i) out += (out.empty() ? "" : "/") + parts[i];
  return out;
}

bool inside(const std::string& p, const std::string& base) {
  return p == base || (p.size() > base.size() && p.compare(0, base.size(), base) == 0 && p[base.size()] == '/');
}

bool is_dir(const std::string& p) {
  struct stat st{};
  return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

Result<std::string> canonical_dir(const std::string& dir, const char* what) {
  char real[PATH_MAX];
  if (!realpath(dir.c_str(), real) || !is_dir(real))
    return Error{"path", std::string(what) + " '" + dir + "' is not an existing directory: " + std::strerror(errno ? errno : ENOTDIR)};
  return std::string(real);
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
  for (const FileMount& m : mounts) {
    auto parts = split(m.prefix);
    if (!parts || parts->empty()) return Error{"path", "mount prefix '" + m.prefix + "' must be a relative path without '..'"};
    auto host = canonical_dir(m.host_dir, "mounted directory");
    if (!host) return host.error();
    v.mounts_.push_back({std::move(parts).value(), std::move(host).value()});
  }
  return v;
}

Result<HostPath> FileView::resolve(const std::string& path, Access access) const {
  auto split_parts = split(path);
  if (!split_parts) return split_parts.error();
  const std::vector<std::string>& parts = *split_parts;
  const std::string shown = parts.empty() ? "." : join(parts);

  // The longest mount prefix the path starts with decides the base directory.
  const Mount* mount = nullptr;
  for (const Mount& m : mounts_) {
    if (m.prefix.size() > parts.size() || (mount && mount->prefix.size() >= m.prefix.size())) continue;
    if (std::equal(m.prefix.begin(), m.prefix.end(), parts.begin())) mount = &m;
  }
  if (mount && access == Access::write)
    return path_error(shown, "is read-only (under " + join(mount->prefix) + "); write inside the workspace instead");
  const std::string& base = mount ? mount->host : workspace_;
  const size_t first = mount ? mount->prefix.size() : 0;

  // Walk the existing part component by component, resolving symlinks and
  // checking after each step that we are still below `base`.
  std::string cur = base;
  size_t i = first;
  for (; i < parts.size(); ++i) {
    const std::string next = cur + "/" + parts[i];
    struct stat st{};
    if (lstat(next.c_str(), &st) != 0) {
      if (errno == ENOENT) break;
      return path_error(shown, std::string("cannot be inspected: ") + std::strerror(errno));
    }
    char real[PATH_MAX];
    if (!realpath(next.c_str(), real)) {
      if (S_ISLNK(st.st_mode)) return path_error(shown, "goes through '" + join(parts, 0, i + 1) + "', a symlink to a missing target");
      return path_error(shown, std::string("cannot be resolved: ") + std::strerror(errno));
    }
    if (!inside(real, base))
      return path_error(shown, "leads outside the " + std::string(mount ? "mounted directory" : "workspace") +
                                   " (through the symlink '" + join(parts, 0, i + 1) + "'); refused");
    cur = real;
    if (i + 1 < parts.size() && !is_dir(cur))
      return path_error(shown, "is not reachable: '" + join(parts, 0, i + 1) + "' is not a directory");
  }
  if (i == parts.size()) return HostPath{cur, shown, true};
  if (access == Access::read) return HostPath{cur + "/" + join(parts, i), shown, false};

  // A new file: create its missing parent directories inside the workspace.
  for (; i + 1 < parts.size(); ++i) {
    cur += "/" + parts[i];
    if (mkdir(cur.c_str(), 0755) != 0 && !(errno == EEXIST && is_dir(cur)))
      return path_error(shown, "cannot be created: mkdir '" + join(parts, 0, i + 1) + "': " + std::strerror(errno));
  }
  return HostPath{cur + "/" + parts.back(), shown, false};
}

std::vector<std::string> FileView::virtual_children(const std::string& path) const {
  auto parts = split(path);
  std::vector<std::string> out;
  if (!parts) return out;
  for (const Mount& m : mounts_) {
    if (m.prefix.size() <= parts->size() || !std::equal(parts->begin(), parts->end(), m.prefix.begin())) continue;
    const std::string& child = m.prefix[parts->size()];
    if (std::find(out.begin(), out.end(), child) == out.end()) out.push_back(child);
  }
  return out;
}

}  // namespace kaisha::tools

namespace kaisha::tools {

Result<std::string> session_workspace(const std::string& root, const std::string& session_id) {
  const std::string name = session_id.empty() ? "default" : session_id;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
      return Error{"path", "session id '" + session_id + "' cannot name a workspace directory"};
  if (name == "." || name == "..") return Error{"path", "session id '" + session_id + "' cannot name a workspace"};
  const std::string dir = root + "/" + name;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error{"path", "cannot create workspace '" + dir + "': " + ec.message()};
  return dir;
}

}  // namespace kaisha::tools
