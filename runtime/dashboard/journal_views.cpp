#include "runtime/dashboard/journal_views.hpp"

#include <algorithm>
#include <map>

#include "runtime/catalog/strategy_catalog.hpp"
#include "runtime/core/ascii_case.hpp"
#include "runtime/store/journal_store.hpp"

namespace kaisha::dashboard {

namespace {

// What the org chart calls an agent that was not hired: the names the
// runtime gives its own agents, lower-cased; anyone else is a worker.
std::string role_of_unhired(const std::string& name) {
  const std::string n = ascii_lower(name);
  if (n == "ceo" || n == "planner" || n == "judge") return n;
  return "worker";
}

json task_row_json(const store::TaskRow& t) {
  return {{"id", t.id},           {"session", t.session_id},    {"input", t.input},
          {"status", t.status},   {"strategy", t.strategy},     {"final_answer", t.final_answer},
          {"error", t.error},     {"started_at", t.started_at}, {"finished_at", t.finished_at},
          {"wall_ms", t.wall_ms}, {"tokens_in", t.tokens_in},   {"tokens_out", t.tokens_out},
          {"usd", t.expense}};
}

Result<store::TaskRow> find_task(store::JournalStore& store, const std::string& task_id) {
  auto t = store.get_task(task_id);
  if (!t.ok()) return t.error();
  if (!t->has_value()) return Error{"not_found", "no task '" + task_id + "' in the journal"};
  return **t;
}

}  // namespace

strategy::TaskRecord task_record(const store::TaskRow& t) {
  return {t.id,    t.input,   t.status,    t.strategy,   t.final_answer,
          t.error, t.wall_ms, t.tokens_in, t.tokens_out, t.expense};
}

strategy::TaskStep task_step(store::StepRow r) {
  return {r.seq,       std::move(r.agent), std::move(r.kind), std::move(r.payload),
          r.tokens_in, r.tokens_out,       r.expense,         r.at};
}

Result<strategy::TaskTree> task_tree(store::JournalStore& store, const store::TaskRow& task) {
  auto rows = store.task_steps(task.id);
  if (!rows.ok()) return rows.error();
  std::vector<strategy::TaskStep> steps;
  steps.reserve(rows->size());
  for (auto& r : *rows) steps.push_back(task_step(std::move(r)));
  return strategy::build_task_tree(task_record(task), steps);
}

Result<std::vector<std::string>> served_sessions(store::JournalStore& store, const std::string& host_session) {
  std::vector<std::string> out{host_session};
  auto hosted = store.hosted_sessions(host_session);
  if (!hosted.ok()) return hosted.error();
  for (const auto& h : *hosted) out.push_back(h.id);
  return out;
}

Result<json> agents_json(store::JournalStore& store, StepSums& step_sums, const std::string& host_session) {
  auto sessions = served_sessions(store, host_session);
  if (!sessions.ok()) return sessions.error();
  json agents = json::array();
  for (const auto& session : *sessions) {
    struct Spend {
      int64_t tokens_in = 0, tokens_out = 0, steps = 0;
      double usd = 0;
    };
    std::map<std::string, Spend> spend;
    std::vector<std::string> seen;  // step authors in order of first appearance
    auto sums = step_sums.of_session(session);
    if (!sums.ok()) return sums.error();
    for (const auto& s : *sums) {
      seen.push_back(s.agent);
      spend[s.agent] = {s.tokens_in, s.tokens_out, s.steps, s.usd};
    }
    auto numbers = [&](json& a, const std::string& name) {
      const Spend& n = spend[name];
      a["tokens_in"] = n.tokens_in;
      a["tokens_out"] = n.tokens_out;
      a["usd"] = n.usd;
      a["steps"] = n.steps;
    };
    auto hired = store.all_agents(session);
    if (!hired.ok()) return hired.error();
    // A session the server opened for a client shows once it has done something.
    if (session != host_session && seen.empty() && hired->empty()) continue;
    auto row = store.get_session(session);
    if (!row.ok()) return row.error();
    std::string ceo_name = "CEO";
    for (const auto& name : seen)
      if (ascii_lower(name) == "ceo") ceo_name = name;
    json ceo = {{"name", ceo_name},   {"role", "ceo"},
                {"state", "active"},  {"model", row->has_value() ? (*row)->ceo_model : ""},
                {"type", ""},         {"description", "the company's CEO"},
                {"session", session}, {"node", ""}};
    numbers(ceo, ceo_name);
    agents.push_back(std::move(ceo));
    std::map<std::string, bool> listed{{ceo_name, true}};
    for (const auto& r : *hired) {
      json a = {{"name", r.name},     {"role", "employee"},
                {"state", r.state},   {"model", r.model_ref.empty() ? r.base_model : r.model_ref},
                {"type", r.type},     {"description", r.description},
                {"session", session}, {"node", ""}};
      numbers(a, r.name);
      agents.push_back(std::move(a));
      listed[r.name] = true;
    }
    for (const auto& name : seen) {
      if (listed.count(name)) continue;
      json a = {{"name", name},       {"role", role_of_unhired(name)},
                {"state", "active"},  {"model", ""},
                {"type", ""},         {"description", ""},
                {"session", session}, {"node", ""}};
      numbers(a, name);
      agents.push_back(std::move(a));
    }
  }
  return json{{"session", host_session}, {"agents", std::move(agents)}};
}

Result<json> tasks_json(store::JournalStore& store, const std::string& host_session, const TaskQuery& query) {
  const int limit = std::clamp(query.limit, 1, 500);
  const int offset = std::max(query.offset, 0);
  auto page = store.search_hosted_tasks(host_session, query.text, query.status, limit, offset);
  if (!page.ok()) return page.error();
  json out = json::array();
  for (const auto& t : page->rows) out.push_back(task_row_json(t));
  return json{{"total", page->total}, {"offset", offset}, {"tasks", std::move(out)}};
}

Result<json> task_tree_json(store::JournalStore& store, const std::string& task_id) {
  auto task = find_task(store, task_id);
  if (!task.ok()) return task.error();
  auto tree = task_tree(store, *task);
  if (!tree.ok()) return tree.error();
  return json{{"task", task->id},
              {"session", task->session_id},
              {"strategy", task->strategy},
              {"status", task->status},
              {"tree", strategy::tree_to_json(*tree)}};
}

Result<json> transcript_json(store::JournalStore& store, const std::string& task_id, bool include_text, int offset,
                             int limit) {
  auto task = find_task(store, task_id);
  if (!task.ok()) return task.error();
  auto rows = store.task_steps(task_id);
  if (!rows.ok()) return rows.error();
  offset = std::max(offset, 0);
  limit = std::clamp(limit, 1, 1000);
  json steps = json::array();
  for (size_t i = static_cast<size_t>(offset); i < rows->size() && steps.size() < static_cast<size_t>(limit); ++i) {
    const auto& r = (*rows)[i];
    json s = {{"seq", r.seq},
              {"agent", r.agent},
              {"kind", r.kind},
              {"tokens_in", r.tokens_in},
              {"tokens_out", r.tokens_out},
              {"usd", r.expense},
              {"at_ms", r.at}};
    if (include_text) s["payload"] = r.payload;
    steps.push_back(std::move(s));
  }
  json out = {{"task", task->id},
              {"session", task->session_id},
              {"status", task->status},
              {"input", task->input},
              {"final_answer", task->final_answer},
              {"text_included", include_text},
              {"total", rows->size()},
              {"offset", offset},
              {"steps", std::move(steps)}};
  return out;
}

Result<json> ledger_json(store::JournalStore& store, const std::string& host_session) {
  auto sessions = served_sessions(store, host_session);
  if (!sessions.ok()) return sessions.error();
  std::vector<store::LedgerEntryRow> all;
  for (const auto& session : *sessions) {
    auto rows = store.ledger_entries(session);
    if (!rows.ok()) return rows.error();
    all.insert(all.end(), rows->begin(), rows->end());
  }
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  json points = json::array();
  for (const auto& r : all)
    points.push_back({{"at_ms", r.at},
                      {"ledger", r.ledger},
                      {"kind", r.kind},
                      {"amount", r.amount},
                      {"used", r.used_after},
                      {"total", r.total_after},
                      {"agent", r.agent},
                      {"task", r.task_id},
                      {"session", r.session_id}});
  return json{{"session", host_session}, {"points", std::move(points)}};
}

}  // namespace kaisha::dashboard
