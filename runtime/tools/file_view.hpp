// FileView: the part of the host file system the file tools (ListFiles,
// ReadFile, WriteFile) may touch. It is one writable directory, the task's
// workspace, plus read-only mounts at fixed relative prefixes, e.g. the
// sources of existing tools at "src/tools/default_tools" (HASHIRU's CEO reads
// them as examples before writing a tool of its own).
//
// Paths from a model are relative, '/'-separated and resolved here:
//   - absolute paths and any ".." component are refused outright;
//   - the result is canonical (symlinks resolved) and must stay inside the
//     directory it was resolved against, so a symlink pointing out of the
//     workspace is refused too;
//   - writes are refused in read-only mounts.
// Every refusal is an Error (code "path") naming the path and the reason.
// Thread-safe: a FileView is immutable once built.
#pragma once

#include <string>
#include <vector>

#include "runtime/core/result.hpp"

namespace kaisha::tools {

struct FileMount {
  std::string prefix;    // relative, e.g. "src/tools/default_tools"
  std::string host_dir;  // existing host directory shown there
};

enum class Access { read, write };

// A resolved path: where it is on the host and whether it exists.
struct HostPath {
  std::string host;     // canonical host path (for a new file: canonical parent + name)
  std::string shown;    // the normalised relative path, for messages
  bool exists = false;
};

class FileView {
 public:
  // `workspace` is created if missing. Mount prefixes must be relative and
  // free of "..".
  static Result<FileView> open(const std::string& workspace, std::vector<FileMount> mounts = {});

  // Resolves `path` ("" and "." mean the workspace itself). For Access::write
  // the missing parent directories are created inside the workspace.
  Result<HostPath> resolve(const std::string& path, Access access) const;

  // Names of mount prefixes directly below `path`, e.g. "tools" for "src"
  // when a mount sits at "src/tools/default_tools"; lets ListFiles show
  // where the mounts are.
  std::vector<std::string> virtual_children(const std::string& path) const;

  const std::string& workspace() const { return workspace_; }

 private:
  struct Mount {
    std::vector<std::string> prefix;
    std::string host;  // canonical
  };
  std::string workspace_;  // canonical
  std::vector<Mount> mounts_;
};

}  // namespace kaisha::tools

namespace kaisha::tools {

// <root>/<session> ("default" for an empty session), created if missing. The
// session id must be a plain name (letters, digits, '-', '_', '.').
Result<std::string> session_workspace(const std::string& root, const std::string& session_id);

}  // namespace kaisha::tools
