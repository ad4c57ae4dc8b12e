#include "runtime/store/installation_backup.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "runtime/store/journal_store.hpp"
#include "runtime/store/session_lock.hpp"
#include "runtime/store/sqlite_db.hpp"

namespace kaisha::store {
namespace {

namespace fs = std::filesystem;

constexpr const char* kJournalFile = "journal.db";
constexpr const char* kMemoryFile = "memory.db";
constexpr const char* kToolsDir = "tools";
constexpr const char* kWorkspacesDir = "workspaces";
constexpr const char* kRestoring = ".restoring";  // a part copied beside its place, not yet renamed over it

Error backup_error(const std::string& why) { return Error{"backup", why}; }

bool vanished(const std::error_code& ec) { return ec == std::errc::no_such_file_or_directory; }

// What a copied directory held.
struct TreeCount {
  int64_t files = 0;
  int64_t bytes = 0;
};

// Copies the tree under `from` into `to` (made here): regular files and
// symbolic links (as links, never followed), skipping other kinds (sockets,
// pipes) and entries that vanish while it runs (a task deleting a file).
Status copy_tree(const fs::path& from, const fs::path& to, TreeCount& n) {
  std::error_code ec;
  fs::create_directory(to, ec);
  if (ec) return backup_error("cannot make " + to.string() + ": " + ec.message());
  fs::directory_iterator it(from, ec);
  if (ec) return vanished(ec) ? Status::Ok() : backup_error("cannot read " + from.string() + ": " + ec.message());
  for (const fs::directory_iterator end; it != end; it.increment(ec)) {
    if (ec) return backup_error("cannot read " + from.string() + ": " + ec.message());
    const fs::path src = it->path();
    const fs::path dst = to / src.filename();
    const fs::file_status st = fs::symlink_status(src, ec);
    if (ec) {
      if (vanished(ec)) continue;
      return backup_error("cannot read " + src.string() + ": " + ec.message());
    }
    if (fs::is_symlink(st)) {
      fs::copy_symlink(src, dst, ec);
    } else if (fs::is_directory(st)) {
      if (Status s = copy_tree(src, dst, n); !s.ok()) return s;
    } else if (fs::is_regular_file(st)) {
      if (fs::copy_file(src, dst, ec)) {
        ++n.files;
        n.bytes += static_cast<int64_t>(fs::file_size(dst, ec));
      }
    }
    if (ec && !vanished(ec)) return backup_error("cannot copy " + src.string() + ": " + ec.message());
    ec.clear();
  }
  return Status::Ok();
}

TreeCount count_tree(const fs::path& dir) {
  TreeCount n;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_symlink(ec) || !it->is_regular_file(ec)) continue;
    ++n.files;
    n.bytes += static_cast<int64_t>(it->file_size(ec));
  }
  return n;
}

bool exists(const std::string& path) {
  std::error_code ec;
  return !path.empty() && fs::exists(fs::symlink_status(path, ec));
}

bool non_empty_dir(const std::string& path) {
  std::error_code ec;
  return exists(path) && (!fs::is_directory(path, ec) || !fs::is_empty(path, ec));
}

// A consistent copy of the database at `from` into the new file `to`: VACUUM
// INTO reads the whole database in one read transaction, so a writer in
// another process (WAL) goes on and none of its later commits is copied.
// The copy is put in rollback-journal mode: one self-contained file.
Status copy_database(const std::string& from, const std::string& to) {
  {
    SqliteDb::Options o;
    o.create = false;
    auto db = SqliteDb::open(from, o);
    if (!db) return db.error();
    auto st = (*db)->prepare("VACUUM INTO ?1");
    if (!st) return st.error();
    if (Status s = st->bind_all(to).run(); !s.ok()) return s;
  }
  auto copy = SqliteDb::open(to, SqliteDb::Options{false, false, 5000});
  if (!copy) return copy.error();
  return (*copy)->exec("PRAGMA journal_mode=DELETE");
}

// "" when SQLite's quick_check finds the database at `path` intact, else what it found.
Result<std::string> damage_of(const std::string& path) {
  SqliteDb::Options o;
  o.read_only = true;
  auto db = SqliteDb::open(path, o);
  if (!db) return db.error();
  auto st = (*db)->prepare("PRAGMA quick_check");
  if (!st) return st.error();
  auto row = st->step();
  if (!row) return row.error();
  const std::string first = *row ? st->column_text(0) : "no answer";
  return first == "ok" ? std::string() : first;
}

// Commits what was written under `dir` to the disk (its whole file system).
void sync_file_system(const std::string& dir) {
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)syncfs(fd);
  close(fd);
}

std::string iso_utc(int64_t ms) {
  const std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string absolute(const std::string& path) {
  std::error_code ec;
  const fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
  return ec ? path : p.string();
}

// `inner` is `outer` or lies below it.
bool inside(const std::string& inner, const std::string& outer) {
  auto normal = [](const std::string& p) {
    std::string s = absolute(p);
    while (s.size() > 1 && s.back() == '/') s.pop_back();
    return s;
  };
  const std::string i = normal(inner), o = normal(outer);
  return i == o || i.rfind(o == "/" ? o : o + "/", 0) == 0;
}

}  // namespace

json InstallationPaths::to_json() const {
  return json{{"store", absolute(journal)},
              {"memory", absolute(memory)},
              {"user_tools_dir", absolute(user_tools)},
              {"workspace_root", absolute(workspaces)}};
}

Result<BackupManifest> write_backup(const InstallationPaths& from, const std::string& dir,
                                    const std::string& kaisha_version) {
  std::error_code ec;
  if (!exists(from.journal)) return Error{"usage", "no store at " + from.journal + ": there is nothing to back up"};
  if (exists(dir) && !fs::is_directory(dir, ec))
    return Error{"usage", dir + " is a file: a backup goes into a new or empty directory"};
  if (non_empty_dir(dir)) return Error{"usage", dir + " is not empty: a backup goes into a new or empty directory"};
  for (const auto& [what, tree] : {std::pair<const char*, std::string>{"created tools directory", from.user_tools},
                                   {"workspace directory", from.workspaces}})
    if (exists(tree) && inside(dir, tree))
      return Error{"usage", dir + " is inside the " + what + " " + tree +
                                ", which the backup copies: choose a directory outside it"};
  fs::create_directories(dir, ec);
  if (ec) return backup_error("cannot make " + dir + ": " + ec.message());

  BackupManifest m;
  m.kaisha_version = kaisha_version;
  m.created_at_ms = JournalStore::now_ms();
  m.created_at = iso_utc(m.created_at_ms);
  m.paths = from.to_json();
  const fs::path out(dir);

  auto database = [&](const char* name, const char* file, const std::string& source) -> Status {
    const std::string copy = (out / file).string();
    if (Status s = copy_database(source, copy); !s.ok())
      return backup_error("copying " + source + ": " + s.error().message);
    auto damage = damage_of(copy);
    if (!damage.ok()) return damage.error();
    if (!damage->empty()) return backup_error("the copy of " + source + " does not check out: " + *damage);
    m.parts.push_back({name, file, "sqlite", absolute(source), static_cast<int64_t>(fs::file_size(copy, ec)), 0});
    return Status::Ok();
  };
  auto tree = [&](const char* name, const char* sub, const std::string& source) -> Status {
    TreeCount n;
    if (Status s = copy_tree(source, out / sub, n); !s.ok()) return s;
    m.parts.push_back({name, sub, "directory", absolute(source), n.bytes, n.files});
    return Status::Ok();
  };

  if (Status s = database("journal", kJournalFile, from.journal); !s.ok()) return s.error();
  auto schema = JournalStore::schema_version_of((out / kJournalFile).string());
  if (!schema.ok()) return schema.error();
  m.journal_schema_version = *schema;
  if (exists(from.memory))
    if (Status s = database("memory", kMemoryFile, from.memory); !s.ok()) return s.error();
  if (exists(from.user_tools))
    if (Status s = tree("tools", kToolsDir, from.user_tools); !s.ok()) return s.error();
  if (exists(from.workspaces))
    if (Status s = tree("workspaces", kWorkspacesDir, from.workspaces); !s.ok()) return s.error();

  // The parts reach the disk before the manifest says they are there.
  sync_file_system(dir);
  const fs::path manifest = out / BackupManifest::kFileName;
  const fs::path temporary = out / (std::string(BackupManifest::kFileName) + ".tmp");
  {
    std::ofstream f(temporary, std::ios::binary | std::ios::trunc);
    f << m.to_json().dump(2) << "\n";
    if (!f.flush()) return backup_error("cannot write " + temporary.string());
  }
  sync_file_system(dir);
  fs::rename(temporary, manifest, ec);
  if (ec) return backup_error("cannot write " + manifest.string() + ": " + ec.message());
  sync_file_system(dir);
  return m;
}

Result<BackupManifest> read_backup(const std::string& dir) {
  std::error_code ec;
  if (!exists(dir)) return Error{"usage", "no backup at " + dir + ": there is no such directory"};
  if (!fs::is_directory(dir, ec)) return Error{"usage", dir + " is not a backup: it is not a directory"};
  const fs::path in(dir);
  const fs::path manifest_path = in / BackupManifest::kFileName;
  if (!exists(manifest_path.string())) {
    if (exists((in / kJournalFile).string()))
      return Error{"backup", dir + " is a partial backup: it has no " + std::string(BackupManifest::kFileName) +
                                 " (the backup did not finish); make a new one"};
    return Error{"backup", dir + " is not a kaisha backup: it has no " + std::string(BackupManifest::kFileName)};
  }
  std::ifstream f(manifest_path, std::ios::binary);
  std::stringstream text;
  text << f.rdbuf();
  const json j = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Error{"backup", manifest_path.string() + " is not JSON: not a kaisha backup manifest"};
  auto m = BackupManifest::from_json(j);
  if (!m.ok()) return Error{"backup", manifest_path.string() + ": " + m.error().message};

  for (const BackupPart& p : m->parts) {
    const fs::path at = in / p.path;
    if (!exists(at.string()))
      return Error{"backup", dir + " is a partial backup: its " + p.name + " (" + p.path + ") is missing"};
    if (p.kind == "sqlite") {
      const auto bytes = static_cast<int64_t>(fs::file_size(at, ec));
      if (ec || bytes != p.bytes)
        return Error{"backup", dir + " is a partial backup: " + p.path + " has " + std::to_string(bytes) +
                                   " bytes, its manifest says " + std::to_string(p.bytes)};
      auto damage = damage_of(at.string());
      if (!damage.ok()) return Error{"backup", dir + ": " + p.path + " is not a database: " + damage.error().message};
      if (!damage->empty()) return Error{"backup", dir + ": " + p.path + " is damaged: " + *damage};
    } else {
      const TreeCount n = count_tree(at);
      if (n.files != p.files)
        return Error{"backup", dir + " is a partial backup: " + p.path + "/ holds " + std::to_string(n.files) +
                                   " files, its manifest says " + std::to_string(p.files)};
    }
  }
  auto schema = JournalStore::schema_version_of((in / kJournalFile).string());
  if (!schema.ok()) return Error{"backup", dir + ": " + schema.error().message};
  if (*schema > JournalStore::current_schema_version())
    return Error{"backup", dir + " holds a journal of schema version " + std::to_string(*schema) +
                               ", newer than this kaisha's (" + std::to_string(JournalStore::current_schema_version()) +
                               "): restore it with the kaisha that made it (" + m->kaisha_version + ") or a newer one"};
  m->journal_schema_version = *schema;
  return m;
}

Result<RestoreReport> restore_backup(const std::string& dir, const InstallationPaths& to, bool force) {
  auto manifest = read_backup(dir);
  if (!manifest.ok()) return manifest.error();
  RestoreReport report;
  report.manifest = *manifest;
  report.schema_before = manifest->journal_schema_version;

  struct Place {
    const BackupPart* part;
    std::string target;
    bool database;
  };
  std::vector<Place> places;
  for (const BackupPart& p : manifest->parts) {
    const std::string target = p.name == "journal"      ? to.journal
                               : p.name == "memory"     ? to.memory
                               : p.name == "tools"      ? to.user_tools
                               : p.name == "workspaces" ? to.workspaces
                                                        : std::string();
    if (target.empty()) continue;  // a part this kaisha has no place for
    places.push_back({&p, target, p.kind == "sqlite"});
  }

  // Nothing a live process uses is replaced, --force or not.
  if (const auto holders = SessionLock::holders(to.journal); !holders.empty())
    return Error{"usage", "the store at " + to.journal + " is in use by " + holders.front() +
                              "; stop it before restoring over it"};
  std::string in_the_way;
  for (const Place& p : places) {
    const bool taken = p.database ? exists(p.target) || exists(p.target + "-wal") : non_empty_dir(p.target);
    if (taken) in_the_way += (in_the_way.empty() ? "" : ", ") + p.target;
  }
  if (!in_the_way.empty() && !force)
    return Error{"exists", "restoring would replace what is there: " + in_the_way +
                               "; restore into other paths, move them away, or pass --force to replace them"};

  std::error_code ec;
  // Each part beside its place first: a copy that fails leaves the
  // installation as it was.
  for (const Place& p : places) {
    const fs::path from = fs::path(dir) / p.part->path;
    const std::string staged = p.target + kRestoring;
    fs::remove_all(staged, ec);
    const fs::path parent = fs::path(p.target).parent_path();
    if (!parent.empty()) fs::create_directories(parent, ec);
    if (p.database) {
      fs::copy_file(from, staged, ec);
      if (ec) return backup_error("cannot copy " + from.string() + " to " + staged + ": " + ec.message());
    } else {
      TreeCount n;
      if (Status s = copy_tree(from, staged, n); !s.ok()) return s.error();
    }
  }
  sync_file_system(fs::path(to.journal).parent_path().empty() ? "." : fs::path(to.journal).parent_path().string());
  for (const Place& p : places) {
    if (p.database) {
      // An old write-ahead log left beside the new file would be read as its own.
      for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(p.target + suffix, ec);
      if (p.part->name == "memory" && !to.memory_index.empty()) fs::remove_all(to.memory_index, ec);
    } else {
      fs::remove_all(p.target, ec);
    }
    fs::rename(p.target + kRestoring, p.target, ec);
    if (ec) return backup_error("cannot move " + p.target + kRestoring + " to " + p.target + ": " + ec.message());
    report.restored.push_back(p.part->name);
  }
  // Opened once: a journal of an older schema is migrated here.
  auto journal = JournalStore::open(to.journal);
  if (!journal.ok()) return journal.error();
  report.schema_after = (*journal)->schema_version();
  return report;
}

}  // namespace kaisha::store
