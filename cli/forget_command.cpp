// kaisha forget: deletes sessions on request — their tasks, journaled steps,
// ledger entries, agents, budget and cost snapshots, and the memories they
// stored — so that nothing of them is left in the store's files. A session a
// process is running is refused (its lock says which process). The deleting
// is store::SessionForgetter's, which retention on start shares.
#include <filesystem>
#include <iostream>

#include "cli/cli_config.hpp"
#include "cli/command_registry.hpp"
#include "runtime/core/utc_day.hpp"
#include "runtime/memory/memory_service.hpp"
#include "runtime/memory/memory_store.hpp"
#include "runtime/store/journal_store.hpp"
#include "runtime/store/session_forgetter.hpp"

namespace kaisha::cli {
namespace {

struct ForgetOptions {
  CommonOptions common;
  std::string before;
};

std::string plural(int64_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

int forget(const ForgetOptions& o) {
  auto fail = [](const std::string& why, int code) {
    std::cerr << "kaisha forget: " << why << "\n";
    return code;
  };
  if (o.common.session.empty() == o.before.empty())
    return fail("say what to forget: --session ID, or --before YYYY-MM-DD (not both)", 2);
  auto c = load_cli_config(o.common, /*needs_model=*/false);
  if (!c.ok()) return fail(c.error().message, 2);
  if (no_journal_yet(c->store_path)) return fail("no store at " + c->store_path + ": there is nothing to forget", 1);
  std::error_code ec;
  auto opened = open_to_write(*c);
  if (!opened.ok()) return fail(opened.error().message, 1);
  auto& journal = **opened;

  std::vector<std::string> sessions;
  if (!o.common.session.empty()) {
    auto s = journal.get_session(o.common.session);
    if (!s.ok()) return fail(s.error().message, 1);
    if (!s->has_value()) return fail("no session '" + o.common.session + "' in " + c->store_path, 1);
    sessions.push_back(o.common.session);
  } else {
    auto cutoff = utc_day_start_ms(o.before);
    if (!cutoff.ok()) return fail("--before " + cutoff.error().message, 2);
    auto all = journal.list_sessions();
    if (!all.ok()) return fail(all.error().message, 1);
    for (auto it = all->rbegin(); it != all->rend(); ++it)  // oldest first
      if (it->created_at < *cutoff) sessions.push_back(it->id);
  }

  const std::string memory_path = memory::MemoryService::path_of(c->memory, c->store_path);
  std::unique_ptr<memory::MemoryStore> memories;
  if (std::filesystem::exists(memory_path, ec)) {
    auto m = memory::MemoryStore::open(memory_path, store::durability_named(c->journal.durability));
    if (!m.ok()) return fail(m.error().message, 1);
    memories = std::move(m).value();
  }

  store::SessionForgetter forgetter(journal, c->store_path, memories.get());
  int status = 0;
  for (const auto& id : sessions) {
    auto forgotten = forgetter.forget(id);
    if (!forgotten.ok() && forgotten.error().code == "session_busy") {
      status = 1;
      std::cerr << "kaisha forget: not forgotten: " << forgotten.error().message << "\n";
      continue;
    }
    if (!forgotten.ok()) return fail(forgotten.error().message, 1);
    const store::ForgottenRows& counts = forgotten->rows;
    const int64_t forgotten_memories = forgotten->memories;
    if (o.common.json) {
      std::cout << json{{"event", "forgotten"},
                        {"session", id},
                        {"tasks", counts.tasks},
                        {"steps", counts.steps},
                        {"ledger_entries", counts.ledger_entries},
                        {"agents", counts.agents},
                        {"memories", forgotten_memories}}
                       .dump()
                << std::endl;
    } else {
      std::cout << "forgot session " << id << ": " << plural(counts.tasks, "task", "tasks") << ", "
                << plural(counts.steps, "step", "steps") << ", "
                << plural(counts.ledger_entries, "ledger entry", "ledger entries") << ", "
                << plural(counts.agents, "agent", "agents") << ", " << plural(forgotten_memories, "memory", "memories")
                << std::endl;
    }
  }
  if (sessions.empty() && !o.common.json) std::cout << "no session was created before " << o.before << "\n";
  // Deleted rows are zeroed (secure_delete) and the write-ahead logs
  // emptied, so the text is gone from the files, not only from the tables.
  if (Status s = forgetter.compact_files(); !s.ok()) return fail(s.error().message, 1);
  return status;
}

const bool forget_command_registered = register_command(
    "forget", "delete a session's journal, ledgers and memories (--session ID, or --before DATE)", [](CLI::App* cmd) {
      auto o = std::make_shared<ForgetOptions>();
      cmd->add_option("--config", o->common.config_file, "YAML config file (${ENV} substitution)");
      cmd->add_option("--db", o->common.db, "SQLite store (default ./kaisha.db)");
      cmd->add_flag("--json", o->common.json, "machine-readable output (JSON lines)");
      cmd->add_option("--session", o->common.session, "the session to forget");
      cmd->add_option("--before", o->before, "forget every session created before this UTC day (YYYY-MM-DD)");
      return [o] { return forget(*o); };
    });

}  // namespace
}  // namespace kaisha::cli
