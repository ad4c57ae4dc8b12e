// Backup and restore of an installation (`kaisha backup DIR`, `kaisha
// restore DIR`): everything a restore needs to run on where the backup left
// off — the journal, the memory store, the created tools and the task
// workspaces — while other kaisha processes keep writing.
//
// A backup directory holds journal.db and memory.db (each a consistent
// snapshot of its database, written by SQLite's VACUUM INTO inside one read
// transaction: a writer in another process goes on, in WAL mode, and nothing
// it commits afterwards is in the copy), tools/ and workspaces/ (the files as
// they were when each was copied: a file written meanwhile may be a newer
// version than the journal's snapshot, or cut short), and manifest.json
// (backup_manifest.hpp), written last: a directory without it is a backup
// that did not finish. The two databases are snapshots of two moments a few
// milliseconds apart, not of one; a memory stored in between is in neither or
// in the memory copy only. The memory store's vector index is not copied: it
// is rebuilt from the memory store (its embeddings are in it) on first use.
#pragma once

#include <string>
#include <vector>

#include "runtime/core/result.hpp"
#include "runtime/store/backup_manifest.hpp"

namespace kaisha::store {

// Where an installation keeps its state (the config's paths, resolved).
struct InstallationPaths {
  std::string journal;       // store:
  std::string memory;        // memory.path
  std::string memory_index;  // memory.index_dir: rebuilt, never backed up
  std::string user_tools;    // tools.user_tools_dir
  std::string workspaces;    // tools.workspace_root
  json to_json() const;
};

// Writes a backup of `from` into `dir`, which must not exist or be empty,
// and must not lie inside a directory being copied. Parts that do not exist
// (no memories yet, no created tools) are left out and not listed. Fails,
// saying why, when there is no journal, or on any copy error (the partial
// directory then has no manifest).
Result<BackupManifest> write_backup(const InstallationPaths& from, const std::string& dir,
                                    const std::string& kaisha_version);

// Reads and checks the backup in `dir` without changing anything: the
// directory, its manifest, every part listed there and of the size listed,
// each database intact (quick_check) and the journal's schema not newer than
// this kaisha's. An error names what is wrong: not a backup, a partial one, a
// newer one, a damaged part.
Result<BackupManifest> read_backup(const std::string& dir);

struct RestoreReport {
  BackupManifest manifest;
  std::vector<std::string> restored;  // the parts' names
  int schema_before = 0;              // the backup journal's schema version
  int schema_after = 0;               // after the restore (migrated when older)
};

// Puts the backup in `dir` back at `to`: each part the backup holds replaces
// what is there (parts it does not hold are left alone). Refuses, touching
// nothing, a backup read_backup() refuses, and an existing journal, memory
// store or non-empty directory unless `force`; even with `force`, a journal a
// live process runs a session of. Each part is copied beside its place first
// and then renamed over it, with the old database's write-ahead log removed.
// The journal is then opened once, which migrates one of an older schema.
Result<RestoreReport> restore_backup(const std::string& dir, const InstallationPaths& to, bool force);

}  // namespace kaisha::store
