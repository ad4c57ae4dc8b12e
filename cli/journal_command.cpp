// kaisha journal check: SQLite's own integrity and foreign-key checks.
// kaisha journal compact: gives the room of deleted rows (a finished task's
// kept outcomes, forgotten sessions) back to the file system. SQLite reuses
// free pages for later writes on its own, so the file never grows past what
// it holds at its fullest; this shrinks it to what it holds now.
#include <filesystem>
#include <iostream>

#include "cli/cli_config.hpp"
#include "cli/command_registry.hpp"
#include "runtime/store/journal_store.hpp"

namespace kaisha::cli {
namespace {

// The store's files: the database and its write-ahead log.
uintmax_t file_bytes(const std::string& path) {
  std::error_code ec;
  uintmax_t n = 0;
  for (const std::string& f : {path, path + "-wal"}) {
    const auto s = std::filesystem::file_size(f, ec);
    if (!ec) n += s;
  }
  return n;
}

int compact(const CommonOptions& o) {
  auto fail = [](const std::string& why) {
    std::cerr << "kaisha journal compact: " << why << "\n";
    return 1;
  };
  auto c = load_cli_config(o, /*needs_model=*/false);
  if (!c.ok()) return fail(c.error().message);
  if (no_journal_yet(c->store_path)) return fail("no store at " + c->store_path + ": there is nothing to compact");
  const uintmax_t before = file_bytes(c->store_path);
  {
    auto st = open_to_write(*c);
    if (!st.ok()) return fail(st.error().message);
    if (Status s = (*st)->vacuum(); !s.ok())
      return fail(s.error().message + " (another process may be writing to the store; try again when it is idle)");
  }
  const uintmax_t after = file_bytes(c->store_path);
  if (o.json)
    std::cout << json{{"event", "compacted"},
                      {"store", c->store_path},
                      {"bytes_before", before},
                      {"bytes_after", after}}
                     .dump()
              << std::endl;
  else
    std::cout << "compacted " << c->store_path << ": " << before << " -> " << after << " bytes" << std::endl;
  return 0;
}

// SQLite's own checks, read-only (safe while another process writes):
// exit 0 and "ok" when the file is sound, else each problem and exit 1.
int check(const CommonOptions& o) {
  auto c = load_cli_config(o, /*needs_model=*/false);
  if (!c.ok()) {
    std::cerr << "kaisha journal check: " << c.error().message << "\n";
    return 2;
  }
  if (no_journal_yet(c->store_path)) {
    std::cerr << "kaisha journal check: no store at " << c->store_path << "\n";
    return 2;
  }
  auto problems = store::JournalStore::check_file(c->store_path);
  if (!problems.ok()) {
    std::cerr << "kaisha journal check: " << problems.error().message << "\n";
    return 2;
  }
  // A journal of an earlier schema fails the checks its rows predate (before
  // schema 8: an interrupted task's status); migrating it rebuilds them.
  auto version = store::JournalStore::schema_version_of(c->store_path);
  std::string hint;
  if (!problems->empty() && version.ok() && *version > 0 && *version < store::JournalStore::current_schema_version())
    hint = "this journal was written by an earlier kaisha (schema " + std::to_string(*version) +
           "); opening it to run tasks, or `kaisha journal compact`, migrates it to schema " +
           std::to_string(store::JournalStore::current_schema_version()) + ", then check again";
  if (o.json) {
    json out{{"event", "checked"}, {"store", c->store_path}, {"ok", problems->empty()}, {"problems", *problems}};
    if (!hint.empty()) out["hint"] = hint;
    std::cout << out.dump() << std::endl;
  } else if (problems->empty()) {
    std::cout << c->store_path << ": ok" << std::endl;
  } else {
    for (const auto& p : *problems) std::cout << c->store_path << ": " << p << "\n";
    if (!hint.empty()) std::cout << c->store_path << ": " << hint << "\n";
    std::cout << std::flush;
  }
  return problems->empty() ? 0 : 1;
}

const bool journal_command_registered =
    register_command("journal", "maintain the journal (compact, check)", [](CLI::App* cmd) {
      auto o = std::make_shared<CommonOptions>();
      cmd->require_subcommand(1);
      auto* c = cmd->add_subcommand("compact", "shrink the store's file to what it holds (VACUUM); history is kept");
      c->add_option("--config", o->config_file, "YAML config file (${ENV} substitution)");
      c->add_option("--db", o->db, "SQLite store (default ./kaisha.db)");
      c->add_flag("--json", o->json, "machine-readable output (JSON lines)");
      auto* k = cmd->add_subcommand("check", "SQLite's integrity and foreign-key checks of the store (read-only)");
      k->add_option("--config", o->config_file, "YAML config file (${ENV} substitution)");
      k->add_option("--db", o->db, "SQLite store (default ./kaisha.db)");
      k->add_flag("--json", o->json, "machine-readable output (JSON lines)");
      return [o, k] { return k->parsed() ? check(*o) : compact(*o); };
    });

}  // namespace
}  // namespace kaisha::cli
