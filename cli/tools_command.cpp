// kaisha tools: each tool's health and circuit breaker in a session, read
// from the journal alone (company::ToolHealthJournal), so it works while
// another process runs the session and after it ended.
#include <iomanip>
#include <iostream>
#include <sstream>

#include "cli/command_registry.hpp"
#include "cli/commands.hpp"
#include "runtime/company/tool_health_journal.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/core/json_text.hpp"
#include "runtime/store/journal_store.hpp"

namespace kaisha::cli {
namespace {

struct ToolsOptions {
  CommonOptions common;
};

int tools_fail(const std::string& message, int code = 2) {
  std::cerr << "kaisha: " << message << "\n";
  return code;
}

std::string fixed(double v, int digits) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(digits) << v;
  return o.str();
}

// "open (42 s left)", "open (cool-down over)", "half_open", "closed".
std::string breaker_column(const company::ToolHealthRow& r, int64_t now_ms) {
  std::string s(company::breaker_state_name(r.view.state));
  if (r.view.state == company::BreakerState::open && r.breaker_changed_ms) {
    const int64_t left = *r.breaker_changed_ms + r.cooldown_ms - now_ms;
    s += left > 0 ? " (" + std::to_string((left + 999) / 1000) + " s left)" : " (cool-down over)";
  }
  return s;
}

int tools_command(const ToolsOptions& o) {
  auto c = load_cli_config(o.common, /*needs_model=*/false);
  if (!c.ok()) return tools_fail(c.error().message);
  const std::string none = "no sessions yet in " + c->store_path + " (`kaisha run` or `kaisha chat` starts one)";
  if (no_journal_yet(c->store_path)) return tools_fail(none);
  auto st = store::JournalStore::open_read_only(c->store_path);
  if (!st.ok()) return tools_fail(st.error().message, 1);
  store::JournalStore& j = **st;
  std::string session = o.common.session;
  if (session.empty()) {
    auto latest = j.latest_session();
    if (!latest.ok()) return tools_fail(latest.error().message, 1);
    if (!latest->has_value()) return tools_fail(none);
    session = (*latest)->id;
  } else {
    auto s = j.get_session(session);
    if (!s.ok()) return tools_fail(s.error().message, 1);
    if (!s->has_value()) return tools_fail("no session '" + session + "' in " + c->store_path);
  }
  // A server's session shares its company's tools with the sessions it hosts.
  std::vector<std::string> sessions{session};
  auto hosted = j.hosted_sessions(session);
  if (!hosted.ok()) return tools_fail(hosted.error().message, 1);
  for (const auto& h : *hosted) sessions.push_back(h.id);
  company::ToolHealthJournal report;
  for (const auto& id : sessions) {
    auto steps = j.session_steps(id);
    if (!steps.ok()) return tools_fail(steps.error().message, 1);
    for (const auto& s : *steps) report.add({s.agent, s.kind, s.payload, s.at});
  }
  const auto rows = report.rows();
  if (o.common.json) {
    json a = json::array();
    for (const auto& r : rows) a.push_back(r.to_json());
    std::cout << dump_text(json{{"session", session}, {"tools", a}}, 2) << "\n";
    return 0;
  }
  std::cout << "session " << session << ": " << rows.size() << " tool(s)\n";
  if (rows.empty()) return 0;
  std::cout << "  " << std::left << std::setw(28) << "tool" << std::right << std::setw(7) << "calls" << std::setw(8)
            << "failed" << std::setw(9) << "in a row" << std::setw(9) << "mean ms" << std::setw(8) << "refused"
            << std::setw(8) << "health"
            << "  breaker\n";
  const int64_t now = wall_ms();
  for (const auto& r : rows)
    std::cout << "  " << std::left << std::setw(28) << r.tool << std::right << std::setw(7) << r.view.calls
              << std::setw(8) << r.view.failures << std::setw(9) << r.view.consecutive_failures << std::setw(9)
              << fixed(r.view.mean_latency_ms, 0) << std::setw(8) << r.refused << std::setw(8)
              << fixed(r.view.health, 2) << "  " << breaker_column(r, now) << "\n";
  return 0;
}

const bool tools_command_registered = register_command(
    "tools", "each tool's health score and circuit breaker in a session, read from the journal",
    [](CLI::App* cmd) -> std::function<int()> {
      auto o = std::make_shared<ToolsOptions>();
      cmd->footer("Example: kaisha tools --session s-20261206-101500-1a2b3c4d --json\nMore: docs/tools.md");
      cmd->add_option("--config", o->common.config_file, "YAML config file (${ENV} substitution)");
      cmd->add_option("--db", o->common.db, "SQLite store (default ./kaisha.db)");
      cmd->add_option("--session", o->common.session, "session id (default: the latest)");
      cmd->add_flag("--json", o->common.json, "machine-readable output");
      return [o] { return tools_command(*o); };
    });

}  // namespace
}  // namespace kaisha::cli
