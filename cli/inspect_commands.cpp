// kaisha agents | budget | history: read a session back from the store.
#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/progress_printer.hpp"
#include "runtime/core/json_text.hpp"
#include "runtime/core/utf8.hpp"
#include "runtime/dashboard/journal_views.hpp"
#include "runtime/economy/budget.hpp"
#include "runtime/store/journal_store.hpp"
#include "runtime/store/step_json.hpp"
#include "runtime/catalog/strategy_catalog.hpp"

namespace kaisha::cli {
namespace {

struct Opened {
  std::unique_ptr<store::JournalStore> store;
  std::string session;
};

std::string no_sessions_text(const std::string& path) {
  return "no sessions yet in " + path + " (`kaisha run` or `kaisha chat` starts one)";
}

// Opens the store and picks the session: --session, else the latest.
Result<Opened> open_session(const CommonOptions& o, bool writable) {
  auto c = load_cli_config(o, /*needs_model=*/false);
  if (!c.ok()) return c.error();
  if (no_journal_yet(c->store_path)) return Error{"no_sessions", no_sessions_text(c->store_path)};
  auto st = writable ? open_to_write(*c) : store::JournalStore::open_read_only(c->store_path);
  if (!st.ok()) return st.error();
  Opened out{std::move(st).value(), o.session};
  if (out.session.empty()) {
    auto latest = out.store->latest_session();
    if (!latest.ok()) return latest.error();
    if (!latest->has_value()) return Error{"no_sessions", no_sessions_text(c->store_path)};
    out.session = (*latest)->id;
  } else {
    auto s = out.store->get_session(out.session);
    if (!s.ok()) return s.error();
    if (!s->has_value()) return Error{"session", "no session '" + out.session + "' in " + c->store_path};
  }
  return out;
}

int inspect_fail(const Error& e) {
  std::cerr << "kaisha: " << e.message << "\n";
  return 2;
}

// Task `id`: of the session given with --session; without one, of whichever
// session holds it (which becomes the session shown).
Result<store::TaskRow> find_task(Opened& s, const CommonOptions& o, const std::string& id) {
  auto t = s.store->get_task(id);
  if (!t.ok()) return t.error();
  if (t->has_value() && (o.session.empty() || (*t)->session_id == s.session)) {
    s.session = (*t)->session_id;
    return **t;
  }
  return Error{"task", "no task '" + id + "' in session " + s.session + " (see kaisha history" +
                           (o.session.empty() ? "" : " --session " + o.session) + ")"};
}

}  // namespace

int agents_command(const CommonOptions& o, bool include_fired) {
  auto s = open_session(o, false);
  if (!s.ok()) return inspect_fail(s.error());
  auto agents = include_fired ? s->store->all_agents(s->session) : s->store->active_agents(s->session);
  if (!agents.ok()) return inspect_fail(agents.error());
  if (o.json) {
    json a = json::array();
    for (const auto& r : *agents)
      a.push_back({{"name", r.name},
                   {"base_model", r.base_model},
                   {"model_ref", r.model_ref},
                   {"type", r.type},
                   {"description", r.description},
                   {"state", r.state},
                   {"costs", r.costs},
                   {"hired_at", r.hired_at},
                   {"fired_at", r.fired_at}});
    std::cout << dump_text(json{{"session", s->session}, {"agents", a}}, 2) << "\n";
    return 0;
  }
  std::cout << "session " << s->session << ": " << agents->size() << " agent(s)\n";
  for (const auto& r : *agents)
    std::cout << "  " << std::left << std::setw(20) << r.name << std::setw(32) << r.base_model << std::setw(7) << r.type
              << std::setw(7) << r.state << r.description << "\n";
  return 0;
}

int budget_command(const CommonOptions& o, double raise_expense, double raise_resource) {
  const bool raising = raise_expense != 0 || raise_resource != 0;
  if (raise_expense < 0 || raise_resource < 0) return inspect_fail({"usage", "an increase must be positive"});
  auto s = open_session(o, raising);
  if (!s.ok()) return inspect_fail(s.error());
  auto state = s->store->load_budget_state(s->session);
  if (!state.ok()) return inspect_fail(state.error());
  if (!state->has_value()) return inspect_fail({"session", "session " + s->session + " has no saved budget"});
  auto bs = economy::BudgetState::from_json(**state);
  if (!bs.ok()) return inspect_fail(bs.error());
  economy::Budget budget(bs->resource.total, bs->expense.total);
  budget.restore(*bs);
  if (raising) {
    if (raise_expense > 0) budget.raise_expense(raise_expense);
    if (raise_resource > 0) budget.raise_resource(raise_resource);
    for (auto [ledger, amount] : {std::pair{"expense", raise_expense}, std::pair{"resource", raise_resource}}) {
      if (amount <= 0) continue;
      store::LedgerEntryRow row;
      row.session_id = s->session;
      row.ledger = ledger;
      row.kind = "raise";
      row.amount = amount;
      row.agent = "user";
      row.reason = "authorised increase (kaisha budget)";
      const economy::Ledger& l = std::string(ledger) == "expense" ? budget.expense() : budget.resource();
      row.used_after = l.used();
      row.total_after = l.total();
      if (auto r = s->store->record_ledger_entry(row); !r.ok()) return inspect_fail(r.error());
    }
    if (Status st = s->store->save_budget_state(s->session, budget.snapshot().to_json()); !st.ok())
      return inspect_fail(st.error());
  }
  json b = budget.get_budget_json();
  auto totals = s->store->spend_totals(s->session);
  if (o.json) {
    json out = {{"session", s->session}, {"budget", b}};
    if (totals.ok())
      out["totals"] = {{"tasks", totals->tasks},
                       {"tokens_in", totals->tokens_in},
                       {"tokens_out", totals->tokens_out},
                       {"expense", totals->expense}};
    std::cout << dump_text(out, 2) << "\n";
    return 0;
  }
  std::cout << "session " << s->session << "\n  " << budget_line(b) << "\n";
  if (budget.overshoot_calls() > 0)
    std::cout << "  overshoot: providers billed " << economy::format_amount(budget.expense_overshoot())
              << " USD more than was reserved, on " << budget.overshoot_calls()
              << " call(s) (ledger entries of kind overshoot)\n";
  for (const auto& [k, v] : b.items()) std::cout << "  " << std::left << std::setw(36) << k << v.dump() << "\n";
  if (totals.ok())
    std::cout << "  tasks " << totals->tasks << ", tokens " << totals->tokens_in << " in / " << totals->tokens_out
              << " out\n";
  return 0;
}

int history_tree_command(const CommonOptions& o, const std::string& task_id) {
  auto s = open_session(o, false);
  if (!s.ok()) return inspect_fail(s.error());
  store::TaskRow task;
  if (task_id.empty()) {
    auto tasks = s->store->tasks(s->session);
    if (!tasks.ok()) return inspect_fail(tasks.error());
    if (tasks->empty()) return inspect_fail({"task", "session " + s->session + " has no tasks yet"});
    task = tasks->back();
  } else {
    auto t = find_task(*s, o, task_id);
    if (!t.ok()) return inspect_fail(t.error());
    task = std::move(t).value();
  }
  auto built = dashboard::task_tree(*s->store, task);
  if (!built.ok()) return inspect_fail(built.error());
  const strategy::TaskTree& tree = *built;
  if (o.json) {
    std::cout << dump_text(json{{"session", s->session},
                                {"task", task.id},
                                {"strategy", task.strategy},
                                {"tree", strategy::tree_to_json(tree)}},
                           2)
              << "\n";
    return 0;
  }
  std::cout << strategy::render_tree_text(tree);
  return 0;
}

int history_command(const CommonOptions& o, bool list_sessions, int limit, const std::string& only_task) {
  if (list_sessions) {
    auto c = load_cli_config(o, false);
    if (!c.ok()) return inspect_fail(c.error());
    if (no_journal_yet(c->store_path)) {
      if (o.json)
        std::cout << "[]\n";
      else
        std::cout << no_sessions_text(c->store_path) << "\n";
      return 0;
    }
    auto st = store::JournalStore::open_read_only(c->store_path);
    if (!st.ok()) return inspect_fail(st.error());
    auto sessions = (*st)->list_sessions();
    if (!sessions.ok()) return inspect_fail(sessions.error());
    json a = json::array();
    for (const auto& s : *sessions) {
      if (o.json)
        a.push_back({{"id", s.id}, {"created_at", s.created_at}, {"ceo_model", s.ceo_model}, {"status", s.status}});
      else
        std::cout << s.id << "  " << s.ceo_model << "  " << s.status << "\n";
    }
    if (o.json)
      std::cout << dump_text(a, 2) << "\n";
    else if (sessions->empty())
      std::cout << no_sessions_text(c->store_path) << "\n";
    return 0;
  }
  auto s = open_session(o, false);
  // An empty history is an answer, not a failure.
  if (!s.ok() && s.error().code == "no_sessions" && o.session.empty()) {
    if (o.json)
      std::cout << json{{"session", nullptr}, {"tasks", json::array()}, {"steps", json::array()}}.dump(2) << "\n";
    else
      std::cout << s.error().message << "\n";
    return 0;
  }
  if (!s.ok()) return inspect_fail(s.error());
  if (!only_task.empty()) {
    if (auto t = find_task(*s, o, only_task); !t.ok()) return inspect_fail(t.error());
  }
  // A server's session, with the sessions it opened for its clients.
  std::vector<std::string> sessions{s->session};
  auto hosted = s->store->hosted_sessions(s->session);
  if (!hosted.ok()) return inspect_fail(hosted.error());
  for (const auto& h : *hosted) sessions.push_back(h.id);
  Result<std::vector<store::TaskRow>> tasks = std::vector<store::TaskRow>{};
  Result<std::vector<store::StepRow>> steps = std::vector<store::StepRow>{};
  for (const auto& id : sessions) {
    auto more = s->store->tasks(id);
    if (!more.ok()) return inspect_fail(more.error());
    tasks->insert(tasks->end(), more->begin(), more->end());
    if (only_task.empty()) {
      auto st = s->store->session_steps(id, limit);
      if (!st.ok()) return inspect_fail(st.error());
      steps->insert(steps->end(), st->begin(), st->end());
    }
  }
  std::stable_sort(tasks->begin(), tasks->end(),
                   [](const store::TaskRow& a, const store::TaskRow& b) { return a.started_at < b.started_at; });
  if (!only_task.empty()) {
    tasks->erase(std::remove_if(tasks->begin(), tasks->end(), [&](const auto& t) { return t.id != only_task; }),
                 tasks->end());
    steps = s->store->task_steps(only_task, limit);
    if (!steps.ok()) return inspect_fail(steps.error());
  }
  if (o.json) {
    json t = json::array(), st = json::array();
    for (const auto& r : *tasks)
      t.push_back({{"id", r.id},
                   {"session", r.session_id},
                   {"input", r.input},
                   {"status", r.status},
                   {"final_answer", r.final_answer},
                   {"error", r.error},
                   {"wall_ms", r.wall_ms},
                   {"tokens_in", r.tokens_in},
                   {"tokens_out", r.tokens_out},
                   {"expense", r.expense}});
    for (const auto& r : *steps) {
      json step = store::step_to_json(r, "at");  // "at": the key this output was released with
      step["task"] = r.task_id;
      st.push_back(std::move(step));
    }
    json out{{"session", s->session}, {"tasks", t}, {"steps", st}};
    if (sessions.size() > 1) out["hosted_sessions"] = std::vector<std::string>(sessions.begin() + 1, sessions.end());
    std::cout << dump_text(out, 2) << "\n";
    return 0;
  }
  std::cout << "session " << s->session;
  if (sessions.size() > 1) std::cout << " (and " << sessions.size() - 1 << " sessions it opened for its clients)";
  std::cout << "\n";
  for (const auto& r : *tasks) {
    std::cout << "task " << r.id << " [" << r.status << "] " << r.input << "\n";
    for (const auto& st : *steps) {
      if (st.task_id != r.id) continue;
      std::string p = dump_text(st.payload);
      p = utf8::shorten(p, 160);
      // A name longer than its column still gets a space after it.
      std::cout << "  " << std::setw(3) << st.seq << " " << std::left << std::setw(12) << st.agent << ' '
                << std::setw(12) << st.kind << ' ' << p << "\n";
    }
    if (r.status == "done") std::cout << "  => " << r.final_answer << "\n";
    if (r.status == "failed" || r.status == "interrupted") std::cout << "  => " << r.status << ": " << r.error << "\n";
  }
  return 0;
}

}  // namespace kaisha::cli
