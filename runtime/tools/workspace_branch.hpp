// Branches of a pyramid task's directory (InfiAgent's model-level
// parallelism, infiagent.md §10 item 20): each candidate model of an agent
// works on its own copy of the task's files, and what it changed is known
// afterwards. Everything goes through FileViews and descriptor-relative
// walks (runtime/core/confined_fs), so a symlink planted in either tree is
// never followed: it is skipped, like hidden entries (names starting with
// '.'), devices and sockets. Only regular files are branched.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/tools/file_view.hpp"

namespace kaisha::tools {

// The regular files of a tree: relative path -> content hash (the tool
// index's content_hash; a collision at worst leaves one change out of a merge).
using Manifest = std::map<std::string, std::string>;

struct BranchLimits {
  int64_t max_files = 20000;
  int64_t max_bytes = int64_t{512} << 20;
};

// What a branch changed against the manifest it started from.
struct ChangeSet {
  std::vector<std::string> added, modified, removed;
  json to_json() const;
};

// Visits every regular, visible file of `view` with its bytes (within
// `limits`, else an error saying which); the first error `visit` returns ends it.
Status each_file(const FileView& view, const BranchLimits& limits,
                 const std::function<Status(const std::string& shown, const std::string& bytes)>& visit);

// Writes `bytes` as the whole content of `path` in `to` (parents made as needed).
Status write_file_bytes(const FileView& to, const std::string& path, const std::string& bytes);

// Copies every regular file of `from` into `to` (parents made as needed)
// and returns the manifest of what was copied. More files or bytes than
// `limits` allow is an error saying which, with nothing promised about
// what was copied.
Result<Manifest> copy_tree(const FileView& from, const FileView& to, const BranchLimits& limits = {});

// The manifest of `view`'s files now.
Result<Manifest> manifest_of(const FileView& view, const BranchLimits& limits = {});

// What `now` changed against `base`.
ChangeSet changes_between(const Manifest& base, const Manifest& now);

struct MergeResult {
  std::vector<std::string> merged;     // written into main
  std::vector<std::string> conflicts;  // changed in main too since the branch was made: left as main has them
};

// Copies the added and modified files of `changes` (made against `base`)
// from `branch` into `main`. A file that `main` changed meanwhile (its
// content is no longer `base`'s, or it was added there too) is a conflict:
// main's version stays. A merge adds and updates; it never deletes, so a
// branch cannot take away what another part of the task wrote. A file main
// already holds with the branch's content counts as merged (the same merge
// repeated after a kill). On an error, `out.merged` lists the files already
// written.
Status merge_changes(const FileView& branch, const FileView& main, const Manifest& base, const ChangeSet& changes,
                     MergeResult& out);

}  // namespace kaisha::tools
