// Measurements the sandbox's supervisor takes while a run is going: the
// processes below a pid (from /proc) and the disk a directory tree uses.
// Both are samples: they see what exists at the moment they look.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "runtime/core/result.hpp"

namespace kaisha::sandbox {

struct TreeUsage {
  int64_t processes = 0;  // descendants of the root, the root not counted
  int64_t rss_bytes = 0;  // resident memory of the root and its descendants
};

// Walks /proc once. Processes that exit mid-walk are skipped.
TreeUsage sample_tree(pid_t root);

// Allocated bytes of the regular files on device `dev` that `root` and its
// descendants hold open after deleting them, each inode once. A directory
// walk cannot see such a file, yet it fills the disk until it is closed.
int64_t deleted_open_bytes(pid_t root, dev_t dev);

// Allocated bytes (st_blocks) of everything under `dir`, each inode once,
// not following symlinks nor crossing into other file systems, walked
// through directory descriptors (confined_fs's allocated_bytes). An Error
// when `dir` cannot be read or nests deeper than that walk goes.
Result<int64_t> disk_usage(const std::string& dir);

}  // namespace kaisha::sandbox
