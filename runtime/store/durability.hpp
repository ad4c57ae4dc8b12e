// Durability: what a committed write of kaisha's SQLite files survives
// (the `journal.durability` setting; docs/durability.md).
//
//   normal  WAL with synchronous=NORMAL: a commit survives the process being
//           killed; a power loss or a kernel crash can take back the last
//           commits (never corrupt the file).
//   full    WAL with synchronous=FULL: the log is synced at every commit, so a
//           commit also survives a power loss or a kernel crash, as far as the
//           disk honours fsync.
#pragma once

#include <string_view>

namespace kaisha::store {

enum class Durability { normal, full };

// "full" -> full; anything else normal (the config loader admits only
// "normal" and "full").
inline Durability durability_named(std::string_view name) {
  return name == "full" ? Durability::full : Durability::normal;
}

}  // namespace kaisha::store
