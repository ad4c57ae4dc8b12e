// kaisha history TASK --commits | --diff COMMIT | --revert COMMIT: the
// main-branch history of a pyramid task's directory
// (runtime/tools/workspace_history.hpp).
#include <iomanip>
#include <iostream>

#include "cli/commands.hpp"
#include "runtime/core/json_text.hpp"
#include "runtime/store/journal_store.hpp"
#include "runtime/tools/file_view.hpp"
#include "runtime/tools/tool_setup.hpp"
#include "runtime/tools/workspace_history.hpp"

namespace kaisha::cli {
namespace {

int history_fail(const std::string& message) {
  std::cerr << "kaisha: " << message << "\n";
  return 2;
}

std::string verdict_text(const tools::Commit& c) {
  if (c.verdict.is_object() && c.verdict.contains("status")) return c.verdict.value("status", "");
  return "-";
}

size_t count(const json& changes, const char* key) {
  auto it = changes.find(key);
  return it != changes.end() && it->is_array() ? it->size() : 0;
}

}  // namespace

int history_commits_command(const CommonOptions& o, const std::string& task_id, const std::string& mode,
                            int64_t commit) {
  if (task_id.empty()) return history_fail("--" + mode + " needs the task: kaisha history TASK --" + mode);
  auto c = load_cli_config(o, /*needs_model=*/false);
  if (!c.ok()) return history_fail(c.error().message);
  if (no_journal_yet(c->store_path)) return history_fail("no task '" + task_id + "' in " + c->store_path);
  const bool reverting = mode == "revert";
  auto st = reverting ? open_to_write(*c) : store::JournalStore::open_read_only(c->store_path);
  if (!st.ok()) return history_fail(st.error().message);
  auto task = (*st)->get_task(task_id);
  if (!task.ok()) return history_fail(task.error().message);
  if (!task->has_value())
    return history_fail("no task '" + task_id + "' in " + c->store_path + " (see kaisha history)");
  const store::TaskRow& t = **task;
  const std::string root = tools::workspace_root_of(*c);
  auto dir = tools::task_history_dir(root, t.session_id, t.id);
  if (!dir.ok()) return history_fail(dir.error().message);
  auto history = tools::WorkspaceHistory::open_existing(*dir);
  if (!history.ok()) return history_fail(history.error().message);
  if (!history->has_value())
    return history_fail(
        "task " + t.id +
        " has no commit history (a pyramid task records one when an agent with candidate models merges)");
  tools::WorkspaceHistory& h = **history;

  if (mode == "commits") {
    auto all = h.commits();
    if (!all.ok()) return history_fail(all.error().message);
    if (o.json) {
      json a = json::array();
      for (const auto& x : *all) {
        json j = x.to_json();
        j.erase("tree");
        j.erase("output");
        a.push_back(std::move(j));
      }
      std::cout << dump_text(json{{"task", t.id}, {"commits", a}}, 2) << "\n";
      return 0;
    }
    std::cout << "task " << t.id << ": " << all->size() << " commit(s)\n";
    for (const auto& x : *all) {
      std::cout << "  " << std::left << std::setw(4) << x.id << std::setw(9) << x.kind << "parent " << std::setw(4)
                << x.parent << std::setw(14) << (x.agent.empty() ? "-" : x.agent) << std::setw(22)
                << (x.model.empty() ? "-" : x.model) << "verdict " << std::setw(8) << verdict_text(x) << "+"
                << count(x.changes, "added") << " ~" << count(x.changes, "modified") << " -"
                << count(x.changes, "removed") << "  " << x.why << "\n";
    }
    return 0;
  }
  if (mode == "diff") {
    auto d = h.diff(commit);
    if (!d.ok()) return history_fail(d.error().message);
    std::cout << *d;
    return 0;
  }
  // A running or interrupted task may still write (or be resumed into) its
  // directory: it is reverted once it has ended.
  if (t.status == "running" || t.status == "interrupted")
    return history_fail("task " + t.id + " is " + t.status + "; revert its directory once it has ended");
  if (auto target = h.get(commit); !target.ok()) return history_fail(target.error().message);
  auto work = tools::task_work_dir(root, t.session_id, t.id);
  if (!work.ok()) return history_fail(work.error().message);
  auto view = tools::FileView::open(*work);
  if (!view.ok()) return history_fail(view.error().message);
  // Journaled before it takes effect; a revert cut short is finished by
  // running it again (it writes the same tree).
  store::StepRow step;
  step.session_id = t.session_id;
  step.task_id = t.id;
  step.agent = "user";
  step.kind = "note";
  step.payload = json{{"revert", json{{"to", commit}}}};
  if (auto r = (*st)->append_step(step); !r.ok()) return history_fail(r.error().message);
  auto done = h.revert(*view, commit, store::JournalStore::now_ms());
  if (!done.ok()) return history_fail(done.error().message);
  if (o.json)
    std::cout << dump_text(json{{"task", t.id}, {"reverted_to", commit}, {"commit", done->id}}, 2) << "\n";
  else
    std::cout << "task " << t.id << ": its directory is as it was at commit " << commit << " (recorded as commit "
              << done->id << ")\n";
  return 0;
}

}  // namespace kaisha::cli
