// BackupManifest: manifest.json of a backup (`kaisha backup`,
// installation_backup.hpp) — which kaisha made it, the journal's schema
// version, when, the installation's paths, and each part copied with its
// size, so that a restore can refuse a backup that is partial (a part
// missing or cut short) or too new before it touches anything.
//
//   {"kaisha_backup": 1, "kaisha_version": "0.1.0", "journal_schema_version": 7,
//    "created_at": "2026-12-06T19:30:00Z", "created_at_ms": 1796...,
//    "paths": {"store": "/srv/kaisha.db", "memory": "...", "user_tools_dir": "...", "workspace_root": "..."},
//    "parts": [{"name": "journal", "path": "journal.db", "kind": "sqlite", "from": "/srv/kaisha.db", "bytes": 81920},
//              {"name": "workspaces", "path": "workspaces", "kind": "directory", "from": "...", "files": 3, "bytes":
//              120}]}
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::store {

struct BackupPart {
  std::string name;  // journal | memory | tools | workspaces
  std::string path;  // inside the backup directory
  std::string kind;  // sqlite (one database file) | directory
  std::string from;  // where it was copied from
  int64_t bytes = 0;
  int64_t files = 0;  // regular files, for a directory
};

struct BackupManifest {
  static constexpr int kFormat = 1;  // the manifest's own version
  static constexpr const char* kFileName = "manifest.json";

  int format = kFormat;
  std::string kaisha_version;
  int journal_schema_version = 0;
  std::string created_at;  // ISO 8601, UTC
  int64_t created_at_ms = 0;
  json paths = json::object();  // the installation's configured paths
  std::vector<BackupPart> parts;

  json to_json() const;
  // Fails, saying what is wrong, on anything but a manifest this kaisha
  // reads: not an object, a field missing or of the wrong type, a part
  // named twice or without a journal, a path leaving the backup directory,
  // a format newer than kFormat.
  static Result<BackupManifest> from_json(const json& j);
  const BackupPart* part(const std::string& name) const;
};

}  // namespace kaisha::store
