#include "actors/company/company_host.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "runtime/core/clock.hpp"
#include "runtime/store/journal_store.hpp"
#include "runtime/store/step_json.hpp"

namespace kaisha::actors {
namespace {

using company::TaskInfo;
using company::TaskListener;
using company::TaskState;

// Events kept per task for late subscribers; beyond this the oldest go (a
// subscriber then misses them, but never the terminal event).
constexpr size_t kMaxEventsPerTask = 10000;
// Ended tasks remembered in memory; older ones are still in the journal.
constexpr size_t kMaxEndedTasks = 1000;
// Question-and-answer exchanges kept per task; beyond this the oldest go.
constexpr size_t kMaxExchangesPerTask = 100;

struct HostEntry {
  TaskInfo info;
  uint64_t seq = 0;  // submission order: tasks of one millisecond stay ordered
  std::deque<msg::ProgressEvent> events;
  std::vector<std::pair<uint64_t, TaskListener>> listeners;  // by subscription id
  bool cancel_requested = false;
  std::string cancel_reason;
  // Final, but its terminal event is still being handed to listeners: wait()
  // holds on, so that a caller may destroy its listener once wait() returns.
  bool delivering = false;
  bool timed_out = false;  // its question went unanswered: it fails
};

// The runtime's own "final" event and the "error" event that ends a task are
// replaced by the host's terminal event; finish() marks them with wall_ms.
bool is_runtime_terminal(const msg::ProgressEvent& e) { return msg::ends_task(e); }

TaskState state_from_row(const std::string& status) {
  if (status == "done") return TaskState::completed;
  if (status == "canceled") return TaskState::canceled;
  if (status == "running") return TaskState::working;
  return TaskState::failed;
}

// A task of this session from the journal (one the host did not run itself).
TaskInfo info_from_row(const store::TaskRow& r) {
  TaskInfo info;
  info.id = r.id;
  info.input = r.input;
  info.state = state_from_row(r.status);
  info.answer = r.final_answer;
  info.error = r.error;
  info.tokens_in = r.tokens_in;
  info.tokens_out = r.tokens_out;
  info.expense = r.expense;
  info.created_ms = r.started_at;
  info.updated_ms = r.finished_at ? r.finished_at : r.started_at;
  info.session_id = r.session_id;
  return info;
}

}  // namespace

struct CompanyHost::Impl : company::ProgressSink {
  std::unique_ptr<CompanyRuntime> runtime;
  std::shared_ptr<company::ProgressSink> outer;  // the embedder's own sink, if any
  std::string store_path;

  std::mutex mu;
  std::condition_variable changed;
  std::map<std::string, HostEntry> tasks;
  std::deque<std::string> queue;                      // waiting task ids, in order
  std::set<std::string> resuming;                     // queued tasks that resume an interrupted one
  std::deque<std::string> ended;                      // ended task ids, oldest first
  std::string running;                                // "" when idle
  uint64_t submitted = 0;                             // tasks submitted so far
  uint64_t subscriptions = 0;                         // ids handed out by subscribe (and submit's listener)
  std::atomic<bool> stopping{false};                  // set under mu; read by RunSlots' waits without it
  std::shared_ptr<company::RunSlots> slots;           // null: no limit beyond this host's own order
  std::shared_ptr<company::UserQuestions> questions;  // null: the CEO asks its user nothing
  std::thread worker;

  // ProgressSink: called from actor threads.
  void emit(const msg::ProgressEvent& e) override {
    if (outer) outer->emit(e);
    if (e.task_id.empty() || is_runtime_terminal(e)) return;
    msg::ProgressEvent out = e;
    if (out.kind == msg::EventKind::error) out.kind = msg::EventKind::agent_error;
    deliver(out);
  }
  bool listening() const override { return true; }

  // Records `e` in its task and hands it to the task's listeners, outside the lock.
  void deliver(const msg::ProgressEvent& e) {
    std::vector<std::pair<uint64_t, TaskListener>> to_call;
    {
      std::lock_guard<std::mutex> lock(mu);
      auto it = tasks.find(e.task_id);
      if (it == tasks.end()) return;
      HostEntry& t = it->second;
      t.events.push_back(e);
      if (t.events.size() > kMaxEventsPerTask) t.events.pop_front();
      if (t.info.state == TaskState::submitted) t.info.state = TaskState::working;
      t.info.updated_ms = wall_ms();
      to_call = t.listeners;
    }
    for (auto& [_, l] : to_call) l(e);
  }

  void end_task(const std::string& id, const msg::TaskResult& r) {
    msg::ProgressEvent e;
    {
      std::lock_guard<std::mutex> lock(mu);
      auto it = tasks.find(id);
      if (it == tasks.end()) return;
      HostEntry& t = it->second;
      TaskInfo& info = t.info;
      if (r.ok) {
        info.state = TaskState::completed;
        info.answer = r.answer;
      } else {
        info.state = t.timed_out                          ? TaskState::failed
                     : (r.canceled || t.cancel_requested) ? TaskState::canceled
                                                          : TaskState::failed;
        info.error = r.error;
      }
      info.tokens_in = r.tokens_in;
      info.tokens_out = r.tokens_out;
      info.expense = r.expense;
      info.question.clear();
      info.updated_ms = wall_ms();
      e = company::terminal_event(info);
      if (!r.metadata.empty()) e.data["metadata"] = r.metadata;
      t.delivering = true;
      ended.push_back(id);
      while (ended.size() > kMaxEndedTasks) {
        tasks.erase(ended.front());
        ended.pop_front();
      }
    }
    deliver_terminal(id, e);
    {
      std::lock_guard<std::mutex> lock(mu);
      if (auto it = tasks.find(id); it != tasks.end()) it->second.delivering = false;
    }
    changed.notify_all();
  }

  // The terminal event is recorded even if the event log is full.
  void deliver_terminal(const std::string& id, const msg::ProgressEvent& e) {
    std::vector<std::pair<uint64_t, TaskListener>> to_call;
    {
      std::lock_guard<std::mutex> lock(mu);
      auto it = tasks.find(id);
      if (it == tasks.end()) return;
      it->second.events.push_back(e);
      to_call = std::move(it->second.listeners);
      it->second.listeners.clear();
    }
    for (auto& [_, l] : to_call) l(e);
  }

  // AskUser: the task waits for its user.
  void on_asked(const std::string& id, const std::string& question) {
    msg::ProgressEvent e;
    {
      std::lock_guard<std::mutex> lock(mu);
      auto it = tasks.find(id);
      if (it == tasks.end() || company::is_final(it->second.info.state)) return;
      it->second.info.state = TaskState::input_required;
      it->second.info.question = question;
      e.session_id = runtime ? runtime->session_id() : "";
    }
    e.task_id = id;
    e.agent = "CEO";
    e.kind = msg::EventKind::input_required;
    e.text = question;
    e.at_ms = wall_ms();
    if (outer) outer->emit(e);
    deliver(e);
    changed.notify_all();  // wait() returns at a question
  }

  void on_timed_out(const std::string& id, std::chrono::milliseconds timeout) {
    {
      std::lock_guard<std::mutex> lock(mu);
      auto it = tasks.find(id);
      if (it == tasks.end() || company::is_final(it->second.info.state)) return;
      it->second.timed_out = true;
    }
    runtime->cancel(id,
                    "the task asked its user a question and no answer came within " +
                        std::to_string(timeout.count() / 1000) + " s (serve.input_timeout_s)",
                    /*failed=*/true);
  }

  msg::TaskResult resumed(const std::string& id) {
    auto r = runtime->resume_interrupted(id);
    if (r.ok() && !r->empty()) return r->front();
    msg::TaskResult failed;
    failed.task_id = id;
    failed.ok = false;
    failed.error = r.ok() ? "nothing to resume" : r.error().message;
    return failed;
  }

  void work() {
    for (;;) {
      std::string id, input;
      bool resume = false;
      {
        std::unique_lock<std::mutex> lock(mu);
        changed.wait(lock, [&] { return stopping || !queue.empty(); });
        if (stopping) return;
      }
      // The slot first: the task stays queued (cancelable as waiting) meanwhile.
      if (slots && !slots->acquire([this] { return stopping.load(); })) return;
      {
        std::unique_lock<std::mutex> lock(mu);
        if (stopping || queue.empty()) {  // canceled while waiting for the slot
          if (slots) slots->release();
          if (stopping) return;
          continue;
        }
        id = queue.front();
        queue.pop_front();
        auto it = tasks.find(id);
        if (it == tasks.end()) continue;
        it->second.info.state = TaskState::working;
        it->second.info.updated_ms = wall_ms();
        input = it->second.info.input;
        running = id;
        resume = resuming.erase(id) > 0;
      }
      msg::TaskResult r = resume ? resumed(id) : runtime->run_accepted_task(input, id);
      {
        std::lock_guard<std::mutex> lock(mu);
        running.clear();
      }
      if (slots) slots->release();
      if (questions) questions->withdraw(id, "the task has ended");
      end_task(id, r);
    }
  }
};

CompanyHost::CompanyHost(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

Result<std::unique_ptr<CompanyHost>> CompanyHost::start(RuntimeOptions options, HostOptions host) {
  auto impl = std::make_shared<Impl>();
  impl->slots = std::move(host.slots);
  if (host.input_timeout.count() > 0) {
    // The hooks run while the host lives: its destructor stops the questions
    // and destroys the runtime (which joins their timer) before the Impl goes.
    Impl* raw = impl.get();
    const auto timeout = host.input_timeout;
    auto q = company::UserQuestions::create(
        timeout,
        {[raw](const std::string& id, const std::string& question) { raw->on_asked(id, question); },
         [raw, timeout](const std::string& id) { raw->on_timed_out(id, timeout); },
         // A raise the user authorised goes through the ledger like `kaisha budget --raise-*`.
         [raw](const std::string& which, double amount) { return raw->runtime->raise_budget(which, amount); }});
    if (!q.ok()) return q.error();
    impl->questions = std::move(q).value();
    options.tool_sources.push_back(impl->questions);
  }
  impl->outer = options.progress;
  impl->store_path = options.config.store_path;
  // The runtime holds the sink for its life, and the host outlives it.
  options.progress = std::shared_ptr<company::ProgressSink>(impl, impl.get());
  auto rt = CompanyRuntime::start(std::move(options));
  if (!rt.ok()) return rt.error();
  impl->runtime = std::move(rt).value();
  // Tasks its last process left unfinished go first, under their own ids.
  if (!impl->runtime->interrupted_tasks().empty()) {
    auto st = store::JournalStore::open_read_only(impl->store_path);
    for (const std::string& id : impl->runtime->interrupted_tasks()) {
      HostEntry e;
      e.info.id = id;
      if (st.ok())
        if (auto t = (*st)->get_task(id); t.ok() && t->has_value()) e.info.input = (*t)->input;
      e.info.created_ms = e.info.updated_ms = wall_ms();
      e.info.session_id = impl->runtime->session_id();
      e.seq = ++impl->submitted;
      impl->tasks.emplace(id, std::move(e));
      impl->queue.push_back(id);
      impl->resuming.insert(id);
    }
  }
  impl->worker = std::thread([raw = impl.get()] { raw->work(); });
  return std::unique_ptr<CompanyHost>(new CompanyHost(std::move(impl)));
}

CompanyHost::~CompanyHost() {
  std::vector<std::string> waiting;
  std::set<std::string> interrupted;  // waiting to be resumed: they stay interrupted
  std::string running;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->stopping = true;
    waiting.assign(impl_->queue.begin(), impl_->queue.end());
    impl_->queue.clear();
    interrupted = impl_->resuming;
    running = impl_->running;
  }
  impl_->changed.notify_all();
  if (impl_->slots) impl_->slots->wake();
  if (impl_->questions) impl_->questions->stop();
  if (!running.empty()) impl_->runtime->cancel(running, "the company shut down");
  if (impl_->worker.joinable()) impl_->worker.join();
  for (const auto& id : waiting) {
    msg::TaskResult r;
    r.task_id = id;
    r.ok = false;
    r.canceled = true;
    r.error = "the company shut down before the task started";
    // As the running task is: a shutdown cancels it, for good.
    if (!interrupted.count(id))
      if (Status kept = impl_->runtime->end_accepted_task(id, r.error); !kept.ok())
        std::cerr << "kaisha: task " << id << " could not be recorded as canceled: " << kept.error().message << "\n";
    impl_->end_task(id, r);
  }
  impl_->runtime.reset();  // stops the actors; the journal finishes its writes
}

Result<std::string> CompanyHost::submit(const std::string& input, TaskListener listener) {
  if (input.find_first_not_of(" \t\r\n") == std::string::npos) return Error{"task", "the task text is empty"};
  const std::string id = store::JournalStore::make_id("t");
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (impl_->stopping) return Error{"task", "the company is shutting down"};
  }
  // In the journal before its id is given out: a task that waits its turn,
  // or runs, when the process dies is resumed by the next one, not lost.
  if (Status kept = impl_->runtime->accept_task(input, id); !kept.ok())
    return Error{"journal",
                 "the task could not be recorded in the journal, so it was not accepted: " + kept.error().message};
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    HostEntry e;
    e.info.id = id;
    e.info.input = input;
    e.info.created_ms = e.info.updated_ms = wall_ms();
    e.info.session_id = impl_->runtime->session_id();
    e.seq = ++impl_->submitted;
    if (listener) e.listeners.emplace_back(++impl_->subscriptions, std::move(listener));
    impl_->tasks.emplace(id, std::move(e));
    impl_->queue.push_back(id);
  }
  impl_->changed.notify_all();
  return id;
}

Result<uint64_t> CompanyHost::subscribe(const std::string& task_id, TaskListener listener) {
  std::deque<msg::ProgressEvent> replay;
  uint64_t id = 0;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    auto it = impl_->tasks.find(task_id);
    if (it == impl_->tasks.end()) return Error{"task", "no task '" + task_id + "' in this company"};
    replay = it->second.events;
    // Registered under the lock, so no event falls between replay and stream.
    // An ended task has no listeners left: the replay includes its end.
    if (!company::is_final(it->second.info.state)) {
      id = ++impl_->subscriptions;
      it->second.listeners.emplace_back(id, listener);
    }
  }
  for (const auto& e : replay) listener(e);
  return id;
}

void CompanyHost::unsubscribe(const std::string& task_id, uint64_t subscription) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto it = impl_->tasks.find(task_id);
  if (it == impl_->tasks.end()) return;
  std::erase_if(it->second.listeners, [&](const auto& l) { return l.first == subscription; });
}

std::optional<TaskInfo> CompanyHost::task(const std::string& task_id) {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    auto it = impl_->tasks.find(task_id);
    if (it != impl_->tasks.end()) return it->second.info;
  }
  // An older task of this session: from the journal.
  auto st = store::JournalStore::open_read_only(impl_->store_path);
  if (!st.ok()) return std::nullopt;
  auto row = (*st)->get_task(task_id);
  if (!row.ok() || !row->has_value() || (**row).session_id != session_id()) return std::nullopt;
  return info_from_row(**row);
}

Result<TaskInfo> CompanyHost::wait(const std::string& task_id, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(impl_->mu);
  auto ended = [&] {
    auto it = impl_->tasks.find(task_id);
    return it == impl_->tasks.end() || it->second.info.state == TaskState::input_required ||
           (company::is_final(it->second.info.state) && !it->second.delivering);
  };
  impl_->changed.wait_for(lock, timeout, ended);
  auto it = impl_->tasks.find(task_id);
  if (it != impl_->tasks.end()) return it->second.info;
  lock.unlock();
  if (auto info = task(task_id)) return *info;
  return Error{"task", "no task '" + task_id + "' in this company"};
}

Status CompanyHost::provide_input(const std::string& task_id, const std::string& text) {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    auto it = impl_->tasks.find(task_id);
    if (it == impl_->tasks.end()) return Error{"task", "no task '" + task_id + "' in this company"};
    if (it->second.info.state != TaskState::input_required)
      return Error{"task",
                   "task " + task_id + " is " + company::to_string(it->second.info.state) + " and asks for no input"};
    // Working again before the answer reaches the CEO, so that a question it
    // asks next is not overwritten.
    TaskInfo& info = it->second.info;
    info.state = TaskState::working;
    info.exchanges.push_back({std::move(info.question), text});
    if (info.exchanges.size() > kMaxExchangesPerTask) info.exchanges.erase(info.exchanges.begin());
    info.question.clear();
    info.updated_ms = wall_ms();
  }
  if (!impl_->questions || !impl_->questions->answer(task_id, text))
    return Error{"task", "task " + task_id + " no longer waits for an answer"};
  return Status::Ok();
}

Status CompanyHost::cancel(const std::string& task_id) {
  const std::string why = "canceled on request";
  bool was_waiting = false;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    auto it = impl_->tasks.find(task_id);
    if (it == impl_->tasks.end()) return Error{"task", "no task '" + task_id + "' in this company"};
    if (company::is_final(it->second.info.state))
      return Error{"task",
                   "task " + task_id + " has already ended (" + company::to_string(it->second.info.state) + ")"};
    it->second.cancel_requested = true;
    auto q = std::find(impl_->queue.begin(), impl_->queue.end(), task_id);
    if (q != impl_->queue.end()) {
      impl_->queue.erase(q);
      was_waiting = true;
    }
  }
  if (was_waiting) {
    msg::TaskResult r;
    r.task_id = task_id;
    r.ok = false;
    r.canceled = true;
    r.error = why + " before it started";
    // Journaled first: a canceled task is never resumed by a later process.
    Status kept = impl_->runtime->end_accepted_task(task_id, r.error);
    impl_->end_task(task_id, r);
    if (!kept.ok())
      return Error{"journal", "task " + task_id + " was canceled, but the journal could not record it (" +
                                  kept.error().message + "): a restart may run it"};
    return Status::Ok();
  }
  // Running: the runtime stops it, and the worker thread ends it as canceled
  // when run_task returns. Between dequeue and run_task the actors do not
  // have it yet: retry briefly.
  for (int i = 0; !impl_->runtime->cancel(task_id, why) && i < 200; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::lock_guard<std::mutex> lock(impl_->mu);
    auto it = impl_->tasks.find(task_id);
    if (it == impl_->tasks.end() || company::is_final(it->second.info.state)) break;
  }
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto it = impl_->tasks.find(task_id);
  if (it != impl_->tasks.end() && company::is_final(it->second.info.state) &&
      it->second.info.state != TaskState::canceled)
    return Error{"task", "task " + task_id + " ended (" + company::to_string(it->second.info.state) +
                             ") before it could be canceled"};
  return Status::Ok();
}

std::vector<TaskInfo> CompanyHost::held_tasks() const {
  std::vector<std::pair<uint64_t, TaskInfo>> mine;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    for (const auto& [_, e] : impl_->tasks) mine.emplace_back(e.seq, e.info);
  }
  std::sort(mine.begin(), mine.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<TaskInfo> out;
  out.reserve(mine.size());
  for (auto& [_, info] : mine) out.push_back(std::move(info));
  return out;
}

std::vector<TaskInfo> CompanyHost::tasks(size_t limit) {
  // Newest first: the host's own tasks by submission order, after them the
  // journal's older ones by start time.
  std::vector<TaskInfo> out = held_tasks();
  const size_t own = out.size();
  std::set<std::string> held;
  for (const auto& t : out) held.insert(t.id);
  // Tasks of this session from before the host started (a resumed session).
  if (auto st = store::JournalStore::open_read_only(impl_->store_path); st.ok()) {
    if (auto rows = (*st)->tasks(session_id()); rows.ok()) {
      for (const auto& r : *rows)
        if (!held.count(r.id)) out.push_back(info_from_row(r));
    }
  }
  std::sort(out.begin() + own, out.end(), [](const TaskInfo& a, const TaskInfo& b) {
    return a.created_ms != b.created_ms ? a.created_ms > b.created_ms : a.id > b.id;
  });
  if (limit > 0 && out.size() > limit) out.resize(limit);
  return out;
}

Result<json> CompanyHost::journal(const std::string& task_id) {
  if (!task(task_id)) return Error{"task", "no task '" + task_id + "' in this company"};
  return journaled_steps(impl_->store_path, task_id);
}

Result<json> CompanyHost::journaled_steps(const std::string& store_path, const std::string& task_id) {
  auto st = store::JournalStore::open_read_only(store_path);
  if (!st.ok()) return st.error();
  auto steps = (*st)->task_steps(task_id);
  if (!steps.ok()) return steps.error();
  json out = json::array();
  // "at_ms": served as the MCP resource kaisha://tasks/<id>/journal.
  for (const auto& s : *steps) out.push_back(store::step_to_json(s, "at_ms"));
  return out;
}

json CompanyHost::agents() {
  json r = impl_->runtime->call_tool("GetAgents", json::object());
  json agents = r.value("agents", json());
  return agents.is_object() ? agents : json::object();
}

json CompanyHost::budget() { return impl_->runtime->budget(); }

json CompanyHost::call_tool(const std::string& name, const json& arguments) {
  return impl_->runtime->call_tool(name, arguments);
}

std::string CompanyHost::session_id() const { return impl_->runtime->session_id(); }

std::string CompanyHost::strategy() const { return impl_->runtime->strategy(); }

CompanyRuntime& CompanyHost::runtime() { return *impl_->runtime; }

size_t CompanyHost::pending() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->queue.size() + (impl_->running.empty() ? 0 : 1);
}

std::vector<TaskInfo> CompanyHost::journaled_tasks(const std::string& store_path, const std::string& host_session,
                                                   size_t limit) {
  std::vector<TaskInfo> out;
  auto st = store::JournalStore::open_read_only(store_path);
  if (!st.ok()) return out;
  auto rows = (*st)->hosted_tasks(host_session, static_cast<int>(std::min<size_t>(limit, 1'000'000)));
  if (!rows.ok()) return out;
  for (const auto& r : *rows) out.push_back(info_from_row(r));
  return out;
}

std::optional<TaskInfo> CompanyHost::journaled_task(const std::string& store_path, const std::string& task_id) {
  auto st = store::JournalStore::open_read_only(store_path);
  if (!st.ok()) return std::nullopt;
  auto row = (*st)->get_task(task_id);
  if (!row.ok() || !row->has_value()) return std::nullopt;
  return info_from_row(**row);
}

}  // namespace kaisha::actors
