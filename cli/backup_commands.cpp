// kaisha backup DIR / kaisha restore DIR: a consistent copy of an
// installation — journal, memory store, created tools, task workspaces — made
// while other kaisha processes run, and putting one back into the configured
// paths. The work is store::write_backup / restore_backup's
// (runtime/store/installation_backup.hpp); here the config becomes paths and
// the outcome a report.
#include <algorithm>
#include <iostream>

#include "cli/cli_config.hpp"
#include "cli/command_registry.hpp"
#include "runtime/memory/memory_service.hpp"
#include "runtime/store/installation_backup.hpp"
#include "runtime/telemetry/otlp_json.hpp"
#include "runtime/tools/tool_setup.hpp"

namespace kaisha::cli {
namespace {

struct BackupOptions {
  CommonOptions common;
  std::string dir;
  bool force = false;
};

store::InstallationPaths paths_of(const config::Config& c) {
  store::InstallationPaths p;
  p.journal = c.store_path;
  p.memory = memory::MemoryService::path_of(c.memory, c.store_path);
  p.memory_index = c.memory.index_dir.empty() ? p.memory + ".index" : c.memory.index_dir;
  p.user_tools = tools::user_tools_dir_of(c);
  p.workspaces = tools::workspace_root_of(c);
  return p;
}

// "journal (schema 7, 81920 bytes), created tools (2 files, 512 bytes)"
std::string parts_text(const store::BackupManifest& m, const std::vector<std::string>& only = {}) {
  std::string out;
  for (const auto& p : m.parts) {
    if (!only.empty() && std::find(only.begin(), only.end(), p.name) == only.end()) continue;
    const std::string name = p.name == "journal"  ? "journal"
                             : p.name == "memory" ? "memory store"
                             : p.name == "tools"  ? "created tools"
                                                  : p.name;
    std::string detail = p.name == "journal" ? "schema " + std::to_string(m.journal_schema_version) + ", " : "";
    if (p.kind == "directory") detail += std::to_string(p.files) + (p.files == 1 ? " file, " : " files, ");
    detail += std::to_string(p.bytes) + " bytes";
    out += (out.empty() ? "" : ", ") + name + " (" + detail + ")";
  }
  return out;
}

Result<config::Config> config_of(const CommonOptions& o) {
  auto c = load_cli_config(o, /*needs_model=*/false);
  if (!c.ok()) return c;
  if (c->store_path == ":memory:" || c->store_path.rfind("file:", 0) == 0)
    return Error{"usage", "the store '" + c->store_path + "' is not a file: there is nothing to back up or restore"};
  return c;
}

int backup(const BackupOptions& o) {
  auto fail = [](const Error& e) {
    std::cerr << "kaisha backup: " << e.message << "\n";
    return e.code == "usage" || e.code == "config" ? 2 : 1;
  };
  auto c = config_of(o.common);
  if (!c.ok()) return fail(c.error());
  auto m = store::write_backup(paths_of(*c), o.dir, telemetry::kaisha_version());
  if (!m.ok()) return fail(m.error());
  if (o.common.json)
    std::cout << json{{"event", "backed_up"}, {"dir", o.dir}, {"manifest", m->to_json()}}.dump() << std::endl;
  else
    std::cout << "backed up " << c->store_path << " to " << o.dir << ": " << parts_text(*m) << std::endl;
  return 0;
}

int restore(const BackupOptions& o) {
  auto fail = [](const Error& e) {
    std::cerr << "kaisha restore: " << e.message << "\n";
    return e.code == "usage" || e.code == "config" ? 2 : 1;
  };
  auto c = config_of(o.common);
  if (!c.ok()) return fail(c.error());
  auto r = store::restore_backup(o.dir, paths_of(*c), o.force);
  if (!r.ok()) return fail(r.error());
  if (o.common.json) {
    std::cout << json{{"event", "restored"},
                      {"dir", o.dir},
                      {"store", c->store_path},
                      {"parts", r->restored},
                      {"schema_before", r->schema_before},
                      {"schema_after", r->schema_after},
                      {"manifest", r->manifest.to_json()}}
                     .dump()
              << std::endl;
    return 0;
  }
  std::cout << "restored " << o.dir << " (made " << r->manifest.created_at << " by kaisha "
            << r->manifest.kaisha_version << ") into " << c->store_path << ": " << parts_text(r->manifest, r->restored)
            << std::endl;
  if (r->schema_after != r->schema_before)
    std::cout << "the journal was migrated from schema " << r->schema_before << " to " << r->schema_after << std::endl;
  return 0;
}

void add_common(CLI::App* cmd, BackupOptions& o) {
  cmd->add_option("--config", o.common.config_file, "YAML config file (${ENV} substitution)");
  cmd->add_option("--db", o.common.db, "SQLite store (default ./kaisha.db)");
  cmd->add_flag("--json", o.common.json, "machine-readable output (JSON lines)");
}

const bool registered_backup = register_command(
    "backup", "copy the store, memories, created tools and workspaces into DIR (safe while kaisha runs)",
    [](CLI::App* cmd) {
      auto o = std::make_shared<BackupOptions>();
      cmd->add_option("DIR", o->dir, "a new or empty directory")->required();
      add_common(cmd, *o);
      return [o] { return backup(*o); };
    });

const bool registered_restore = register_command(
    "restore", "put a backup made by `kaisha backup` back into the configured paths", [](CLI::App* cmd) {
      auto o = std::make_shared<BackupOptions>();
      cmd->add_option("DIR", o->dir, "the backup's directory")->required();
      cmd->add_flag("--force", o->force, "replace an existing store, memory store, tools and workspaces");
      add_common(cmd, *o);
      return [o] { return restore(*o); };
    });

}  // namespace
}  // namespace kaisha::cli
