// FileView: the part of the host file system the file tools (ListFiles,
// ReadFile, WriteFile, and every file tool a strategy adds) may touch. It is
// one writable directory, the task's workspace, plus read-only mounts at
// fixed relative prefixes, e.g. the sources of existing tools at
// "src/tools/default_tools" (HASHIRU's CEO reads them as examples before
// writing a tool of its own).
//
// The workspace is shared with sandboxed programs that may rearrange it at
// any moment, so a FileView never hands out a host path: it opens the
// workspace and each mount once, and every path is opened relative to that
// directory descriptor through runtime/core/confined_fs (no symlink followed
// at any component). Callers then work on the returned descriptor only.
//
// Paths from a model are relative and '/'-separated:
//   - absolute paths and any ".." component are refused outright;
//   - a symlink anywhere on the path is refused, whether it points inside
//     the workspace or out of it;
//   - writes are refused in read-only mounts.
// Every refusal is an Error (code "path") naming the path and the reason.
// Thread-safe: a FileView is immutable once built; copies share descriptors.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/core/confined_fs.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::tools {

struct FileMount {
  std::string prefix;    // relative, e.g. "src/tools/default_tools"
  std::string host_dir;  // existing host directory shown there
};

// A path opened through a FileView.
struct OpenedPath {
  UniqueFd fd;        // invalid when !exists
  std::string shown;  // the normalised relative path, for messages ("." for the workspace)
  bool exists = false;
};

class FileView {
 public:
  // `workspace` is created if missing. Mount prefixes must be relative and
  // free of "..".
  static Result<FileView> open(const std::string& workspace, std::vector<FileMount> mounts = {});

  // Opens `path` ("" and "." mean the workspace itself) for reading: a file
  // or a directory, O_RDONLY | O_NONBLOCK. A path that does not exist is not
  // an error: the result has exists == false.
  Result<OpenedPath> open_read(const std::string& path) const;

  // Opens `path` for writing, O_WRONLY | O_CREAT | O_NONBLOCK, without
  // truncating (the caller checks what it opened first). Missing parent
  // directories are created inside the workspace.
  Result<OpenedPath> open_write(const std::string& path) const;

  // Creates the directory `path` and its missing parents in the workspace
  // (an existing directory is fine); returns its normalised path.
  Result<std::string> make_dir(const std::string& path) const;

  // Moves the file or directory `from` to `to`, both in the workspace,
  // creating `to`'s missing parents; refuses to replace an existing `to`.
  // A symlink is moved as the link itself, never followed.
  Status move(const std::string& from, const std::string& to) const;

  // Names of mount prefixes directly below `path`, e.g. "tools" for "src"
  // when a mount sits at "src/tools/default_tools"; lets ListFiles show
  // where the mounts are.
  std::vector<std::string> virtual_children(const std::string& path) const;

  // The workspace's canonical host path, for binding it into a sandbox.
  const std::string& workspace() const { return workspace_; }

 private:
  struct Mount {
    std::vector<std::string> prefix;
    std::shared_ptr<const UniqueFd> dir;
  };
  // Where `parts` lives: the mount (or workspace) directory and the
  // components below it.
  struct Located {
    const Mount* mount = nullptr;
    int dir = -1;
    std::vector<std::string> rest;
  };
  Located locate(const std::vector<std::string>& parts) const;
  Error open_error(const std::string& shown, const Located& where, int err) const;

  std::string workspace_;  // canonical
  std::shared_ptr<const UniqueFd> workspace_dir_;
  std::vector<Mount> mounts_;
};

// <root>/<session> ("default" for an empty session), created if missing. The
// session id must be a plain name (letters, digits, '-', '_', '.') that does
// not start with '.': those names under the root are kaisha's own.
Result<std::string> session_workspace(const std::string& root, const std::string& session_id);

}  // namespace kaisha::tools
