// The main-branch history of a pyramid task's directory (InfiAgent's
// Git-style B_main, infiagent.md §10 item 52): an append-only chain of
// commits, each holding who made it (candidate agent, model, branch), the
// judge's verdict and Q, the change set, the time, and the tree of the
// directory after it (path -> the SHA-256 of its bytes). File contents are
// content-addressed blobs, so a commit is a few hundred bytes and every
// state of the chain can be restored byte for byte.
//
// Kinds of commit:
//   base      the directory as it was before its first merge
//   work      what the task changed in the directory itself between two
//             merges (agents without candidates write there directly)
//   merge     a candidate branch's change set merged (its tree is the
//             directory right after the merge)
//   rejected  an accepted candidate's change set that lost a conflict, or a
//             candidate's that was not accepted: kept, never in main (its
//             tree holds only the files it changed)
//   revert    the directory restored to an earlier commit's tree
//
// On disk, beside the task's directory and out of its tools' reach:
//   <dir>/objects/<sha256>      file contents
//   <dir>/commits/<000001>.json one file per commit, written once (a
//                               temporary file renamed into place), never changed
// A commit is written after the blobs it names, so a kill leaves either the
// whole commit or none. A commit carries a key ("f1-2": the branch that made
// it); recording the same key again returns the commit already made, so a
// resumed task that repeats a merge records it once.
// Not thread-safe: one caller at a time per directory (the pyramid's driver
// runs its merges one after another).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/tools/file_view.hpp"
#include "runtime/tools/workspace_branch.hpp"

namespace kaisha::tools {

struct Commit {
  int64_t id = 0;  // 1, 2, ... in the chain's order
  std::string kind;
  int64_t parent = 0;  // the main commit it follows (0: none)
  std::string key;
  std::string agent, model, branch;
  json verdict;  // the judge's final_output, when there was one
  double q = 0;
  std::string why;                // a rejected commit's reason, a revert's "to commit N"
  json changes = json::object();  // {"added", "modified", "removed"} against its parent
  int64_t at_ms = 0;              // wall-clock time it was made
  Manifest tree;                  // path -> SHA-256 of the content
  json output;                    // what the tool that made it answered (given again when it is repeated)

  bool in_main() const { return kind != "rejected"; }
  json to_json() const;
  static Result<Commit> from_json(const json& j);
};

// Where task `task`'s history lives: <workspace_root>/.tasks/<session>/.history/<task>.
Result<std::string> task_history_dir(const std::string& workspace_root, const std::string& session,
                                     const std::string& task);
// Task `task`'s directory: <workspace_root>/.tasks/<session>/<task>.
Result<std::string> task_work_dir(const std::string& workspace_root, const std::string& session,
                                  const std::string& task);

class WorkspaceHistory {
 public:
  // Opens (creating) the history kept in `dir`.
  static Result<WorkspaceHistory> open(const std::string& dir);
  // Opens the history kept in `dir` only when there is one.
  static Result<std::optional<WorkspaceHistory>> open_existing(const std::string& dir);

  Result<std::vector<Commit>> commits() const;
  // Commit `id`; an error naming the ids there are when there is none.
  Result<Commit> get(int64_t id) const;
  // The commit recorded with `key`, if any.
  Result<std::optional<Commit>> by_key(const std::string& key) const;

  // Before a merge into `main`: makes the base commit of a chain that has
  // none, or a work commit when `main` changed since the last main commit.
  Status catch_up(const FileView& main, int64_t at_ms);
  // catch_up, then a mark that merge `key` has begun (removed by its
  // record_merge). A merge begun again after a kill finds its mark and
  // skips catch_up: what main holds of it is its own, not the task's work.
  Status begin_merge(const FileView& main, const std::string& key, int64_t at_ms);
  // After merging branch `meta.branch` into `main`: a merge commit of
  // `main`'s files now. `meta` gives kind-independent fields (key, agent, ...).
  Result<Commit> record_merge(const FileView& main, Commit meta);
  // A change set that did not reach main: the files `changes` added or
  // modified, read from `branch`, kept as a rejected commit.
  Result<Commit> record_rejected(const FileView& branch, const ChangeSet& changes, Commit meta);
  // Restores `main` to the tree of main commit `id`, byte for byte: every
  // file of that tree is written back, every other visible regular file is
  // removed. What main held before (when it differs from the last commit)
  // is recorded first as a work commit, so a revert can itself be reverted.
  Result<Commit> revert(const FileView& main, int64_t id, int64_t at_ms);
  // Commit `id`'s content against its parent, as a unified line diff per file.
  Result<std::string> diff(int64_t id) const;

 private:
  explicit WorkspaceHistory(std::string dir) : dir_(std::move(dir)) {}
  Result<Manifest> snapshot(const FileView& view) const;  // stores every blob
  Result<std::string> blob(const std::string& hash) const;
  Status put_blob(const std::string& hash, const std::string& bytes) const;
  Result<Commit> append(Commit c) const;       // assigns id, parent, writes it
  Result<std::optional<Commit>> head() const;  // the latest main commit

  std::string dir_;
};

}  // namespace kaisha::tools
