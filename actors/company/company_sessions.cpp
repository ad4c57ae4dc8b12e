#include "actors/company/company_sessions.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <unordered_map>

#include "actors/system/provider_chat_client.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/store/journal_store.hpp"

namespace kaisha::actors {
namespace {

using company::TaskInfo;
using company::TaskListener;

// Conversations and tasks remembered to route later calls; beyond these the
// oldest are forgotten (a forgotten conversation starts a new session, a
// forgotten task is still found in the journal).
constexpr size_t kMaxConversations = 100000;
constexpr size_t kMaxPlacedTasks = 100000;

struct OpenSession {
  std::shared_ptr<CompanyHost> host;
  std::string conversation;
  int64_t last_used_ms = 0;  // monotonic
};

company::ProtocolHandle handle_from_row(store::HandleRow r) {
  return company::ProtocolHandle{std::move(r.protocol),   std::move(r.handle), std::move(r.task_id),
                                 std::move(r.session_id), r.created_at,        r.ttl_ms,
                                 std::move(r.data)};
}

struct Placement {
  std::string conversation;
  std::string session_id;
};

}  // namespace

struct CompanySessions::Impl {
  RuntimeOptions base;  // what a new session starts from
  SessionLimits limits;
  HostOptions host_options;  // one RunSlots for every session
  std::string store_path;
  // Destroyed last (declared first): it stops the shared tool sources.
  std::shared_ptr<CompanyHost> main;
  std::string main_id;

  mutable std::mutex mu;
  std::condition_variable opened;                     // a conversation's session finished opening
  std::map<std::string, OpenSession> open;            // by session id; not the default one
  std::set<std::string> opening;                      // conversations whose session is starting
  std::map<std::string, std::string> session_of;      // conversation -> session id, open or closed
  std::deque<std::string> conversations;              // session_of's keys, oldest first
  std::unordered_map<std::string, Placement> placed;  // task id -> where it runs
  std::deque<std::string> placed_order;
  size_t pending = 0;  // tasks submitted through submit_in that have not ended
  bool stopping = false;

  // The host that runs (or ran) `task_id`; null when its session is closed.
  std::shared_ptr<CompanyHost> host_of(const std::string& task_id, Placement* where = nullptr) {
    std::lock_guard<std::mutex> lock(mu);
    auto p = placed.find(task_id);
    if (p == placed.end()) return main;
    if (where) *where = p->second;
    if (p->second.session_id == main_id) return main;
    auto o = open.find(p->second.session_id);
    if (o == open.end()) return nullptr;
    o->second.last_used_ms = steady_ms();
    return o->second.host;
  }

  // The host whose budget session `session_id` charges; null when it is not open.
  std::shared_ptr<CompanyHost> budget_host(const std::string& session_id) {
    if (session_id.empty() || session_id == main_id || !limits.per_session_budget) return main;
    std::lock_guard<std::mutex> lock(mu);
    auto o = open.find(session_id);
    return o == open.end() ? nullptr : o->second.host;
  }

  void fill(TaskInfo& info) {
    std::lock_guard<std::mutex> lock(mu);
    if (auto p = placed.find(info.id); p != placed.end()) info.conversation = p->second.conversation;
  }

  void remember_conversation(const std::string& conversation, const std::string& session_id) {
    if (session_of.emplace(conversation, session_id).second) conversations.push_back(conversation);
    while (conversations.size() > kMaxConversations) {
      session_of.erase(conversations.front());
      conversations.pop_front();
    }
  }

  void place(const std::string& task_id, Placement where) {
    std::lock_guard<std::mutex> lock(mu);
    placed.emplace(task_id, std::move(where));
    placed_order.push_back(task_id);
    while (placed_order.size() > kMaxPlacedTasks) {
      placed.erase(placed_order.front());
      placed_order.pop_front();
    }
  }

  // The conversations of the default session's earlier runs, so that they
  // come back to their sessions; with `resume`, the sessions whose tasks a
  // killed process left running are reopened now and resume them.
  Status reopen_hosted(bool resume) {
    auto st = store::JournalStore::open_read_only(store_path);
    if (!st.ok()) return st.error();
    auto hosted = (*st)->hosted_sessions(main_id);
    if (!hosted.ok()) return hosted.error();
    for (const auto& row : *hosted) {
      const std::string conversation = row.config.value("conversation", "");
      if (conversation.empty()) continue;
      {
        std::lock_guard<std::mutex> lock(mu);
        remember_conversation(conversation, row.id);
      }
      if (!resume) continue;
      auto tasks = (*st)->tasks(row.id);
      if (!tasks.ok()) return tasks.error();
      if (std::none_of(tasks->begin(), tasks->end(), [](const store::TaskRow& t) { return t.status == "running"; }))
        continue;
      RuntimeOptions o = base;
      o.session_id = row.id;
      o.resume = true;
      auto host = CompanyHost::start(std::move(o), host_options);
      if (!host.ok())
        return Error{host.error().code,
                     "resuming session " + row.id + " (conversation " + conversation + "): " + host.error().message};
      std::shared_ptr<CompanyHost> h = std::move(host).value();
      for (const std::string& id : h->runtime().interrupted_tasks()) place(id, Placement{conversation, row.id});
      std::lock_guard<std::mutex> lock(mu);
      open[row.id] = OpenSession{h, conversation, steady_ms()};
    }
    return Status::Ok();
  }

  // The open session of `conversation`, opened (or reopened) if need be.
  Result<std::shared_ptr<CompanyHost>> session_for(const std::string& conversation) {
    std::shared_ptr<CompanyHost> closing;  // an idle session closed to make room
    std::string reopen;                    // the conversation's closed session, if any
    {
      std::unique_lock<std::mutex> lock(mu);
      opened.wait(lock, [&] { return stopping || !opening.count(conversation); });
      if (stopping) return Error{"task", "the company is shutting down"};
      if (auto s = session_of.find(conversation); s != session_of.end()) {
        if (s->second == main_id) return main;
        if (auto o = open.find(s->second); o != open.end()) {
          o->second.last_used_ms = steady_ms();
          return o->second.host;
        }
        reopen = s->second;
      }
      // The default session counts as one, and so do the ones starting.
      if (1 + open.size() + opening.size() >= limits.max_sessions) {
        auto victim = open.end();
        for (auto it = open.begin(); it != open.end(); ++it)
          if (it->second.host->pending() == 0 &&
              (victim == open.end() || it->second.last_used_ms < victim->second.last_used_ms))
            victim = it;
        if (victim == open.end())
          return Error{"limit", "too many sessions: " + std::to_string(limits.max_sessions) +
                                    " company sessions are open and every one has work (serve.max_sessions); "
                                    "try again when a task has ended"};
        closing = std::move(victim->second.host);
        open.erase(victim);
      }
      opening.insert(conversation);
    }
    closing.reset();  // stops that session's actors; its state is in the journal

    RuntimeOptions o = base;
    o.session_id = reopen;
    o.session_tags = json{{"host_session", main_id}, {"conversation", conversation}};
    auto host = CompanyHost::start(std::move(o), host_options);
    std::lock_guard<std::mutex> lock(mu);
    opening.erase(conversation);
    opened.notify_all();
    if (!host.ok()) return host.error();
    std::shared_ptr<CompanyHost> h = std::move(host).value();
    const std::string id = h->session_id();
    open[id] = OpenSession{h, conversation, steady_ms()};
    remember_conversation(conversation, id);
    return h;
  }
};

CompanySessions::CompanySessions(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Result<std::unique_ptr<CompanySessions>> CompanySessions::start(RuntimeOptions options, SessionLimits limits) {
  auto impl = std::make_unique<Impl>();
  impl->limits = limits;
  impl->limits.max_sessions = std::max<size_t>(1, limits.max_sessions);
  impl->host_options.slots = std::make_shared<company::RunSlots>(limits.max_running_tasks);
  impl->host_options.input_timeout = limits.input_timeout;
  impl->store_path = options.config.store_path;
  // One model client (one connection pool) for every session.
  if (!options.chat) options.chat = make_provider_chat_client(options.config);
  impl->base = options;
  const bool resume = options.resume;
  auto main = CompanyHost::start(std::move(options), impl->host_options);
  if (!main.ok()) return main.error();
  impl->main = std::move(main).value();
  impl->main_id = impl->main->session_id();

  RuntimeOptions& b = impl->base;
  b.session_id.clear();
  b.resume = false;
  if (!limits.per_session_budget) {
    b.shared_budget = impl->main->runtime().budget_handle();
    b.shared_budget_session = impl->main_id;
  }
  b.shared_memory = impl->main->runtime().memory_handle();
  b.stops_tool_sources = false;  // the default session stops them, last
  b.level_metrics = false;
  b.apply_retention = false;  // applied once, when the default session opened
  if (Status s = impl->reopen_hosted(resume); !s.ok()) return s.error();
  return std::unique_ptr<CompanySessions>(new CompanySessions(std::move(impl)));
}

CompanySessions::~CompanySessions() {
  std::vector<std::shared_ptr<CompanyHost>> hosts;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->stopping = true;
    for (auto& [_, s] : impl_->open) hosts.push_back(std::move(s.host));
    impl_->open.clear();
  }
  impl_->opened.notify_all();
  hosts.clear();        // each cancels its tasks and stops its actors
  impl_->main.reset();  // last: it stops the tool sources every session used
}

Result<std::string> CompanySessions::submit(const std::string& input, TaskListener listener) {
  return submit_in("", input, std::move(listener));
}

Result<std::string> CompanySessions::submit_in(const std::string& conversation, const std::string& input,
                                               TaskListener listener) {
  Impl& d = *impl_;
  {
    std::lock_guard<std::mutex> lock(d.mu);
    if (d.pending >= d.limits.max_tasks)
      return Error{"limit", "too many tasks: " + std::to_string(d.limits.max_tasks) +
                                " are waiting or running (serve.max_tasks); try again when some have ended"};
    ++d.pending;  // held from here, so that concurrent submits cannot pass the limit together
  }
  auto release = [&d] {
    std::lock_guard<std::mutex> lock(d.mu);
    --d.pending;
  };
  std::shared_ptr<CompanyHost> host = d.main;
  if (!conversation.empty() && !d.limits.shared) {
    auto h = d.session_for(conversation);
    if (!h.ok()) {
      release();
      return h.error();
    }
    host = std::move(h).value();
  }
  // Counts the task as pending until its terminal event.
  TaskListener counted = [impl = &d, l = std::move(listener)](const msg::ProgressEvent& e) {
    if (l) l(e);
    if (company::is_final(company::state_after_event(e.kind))) {
      std::lock_guard<std::mutex> lock(impl->mu);
      --impl->pending;
    }
  };
  auto id = host->submit(input, std::move(counted));
  if (!id.ok()) {
    release();
    return id.error();
  }
  d.place(*id, Placement{conversation, host->session_id()});
  return id;
}

Result<uint64_t> CompanySessions::subscribe(const std::string& task_id, TaskListener listener) {
  if (auto host = impl_->host_of(task_id)) return host->subscribe(task_id, std::move(listener));
  auto info = task(task_id);
  if (!info) return Error{"task", "no task '" + task_id + "' in this company"};
  listener(company::terminal_event(*info));  // its session closed only once it had ended
  return uint64_t{0};
}

void CompanySessions::unsubscribe(const std::string& task_id, uint64_t subscription) {
  if (auto host = impl_->host_of(task_id)) host->unsubscribe(task_id, subscription);
}

std::optional<TaskInfo> CompanySessions::task(const std::string& task_id) {
  std::optional<TaskInfo> info;
  if (auto host = impl_->host_of(task_id)) info = host->task(task_id);
  // A task of a closed session, or of one an earlier process served.
  if (!info) info = CompanyHost::journaled_task(impl_->store_path, task_id);
  if (info) impl_->fill(*info);
  return info;
}

Result<TaskInfo> CompanySessions::wait(const std::string& task_id, std::chrono::milliseconds timeout) {
  if (auto host = impl_->host_of(task_id)) {
    auto r = host->wait(task_id, timeout);
    if (r.ok()) {
      impl_->fill(*r);
      return r;
    }
  }
  if (auto info = task(task_id)) return *info;
  return Error{"task", "no task '" + task_id + "' in this company"};
}

Status CompanySessions::provide_input(const std::string& task_id, const std::string& text) {
  if (auto host = impl_->host_of(task_id)) return host->provide_input(task_id, text);
  return Error{"task", "task " + task_id + " asks for no input (it has ended)"};
}

Status CompanySessions::cancel(const std::string& task_id) {
  if (auto host = impl_->host_of(task_id)) {
    if (host->task(task_id)) return host->cancel(task_id);
  }
  auto info = task(task_id);
  if (!info) return Error{"task", "no task '" + task_id + "' in this company"};
  if (company::is_final(info->state))
    return Error{"task", "task " + task_id + " has already ended (" + company::to_string(info->state) + ")"};
  return Error{"task", "task " + task_id + " belongs to a session this process does not run"};
}

std::vector<TaskInfo> CompanySessions::tasks(size_t limit) {
  // The journal holds every session's tasks, open or closed; an open
  // session's own view of a task is the fresher (a question, a queued task
  // not yet journaled).
  std::vector<std::shared_ptr<CompanyHost>> hosts{impl_->main};
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    for (const auto& [_, s] : impl_->open) hosts.push_back(s.host);
  }
  std::map<std::string, TaskInfo> held;
  for (const auto& h : hosts)
    for (auto& info : h->held_tasks()) held.emplace(info.id, std::move(info));
  std::vector<TaskInfo> out = CompanyHost::journaled_tasks(impl_->store_path, impl_->main_id, limit);
  for (auto& info : out) {
    auto it = held.find(info.id);
    if (it == held.end()) continue;
    info = std::move(it->second);
    held.erase(it);
  }
  for (auto& [_, info] : held) out.push_back(std::move(info));
  std::stable_sort(out.begin(), out.end(), [](const TaskInfo& a, const TaskInfo& b) {
    return a.created_ms != b.created_ms ? a.created_ms > b.created_ms : a.id > b.id;
  });
  if (limit > 0 && out.size() > limit) out.resize(limit);
  for (auto& info : out) impl_->fill(info);
  return out;
}

Result<json> CompanySessions::journal(const std::string& task_id) {
  if (auto host = impl_->host_of(task_id)) {
    auto steps = host->journal(task_id);  // its own check that it knows the task
    if (steps.ok()) return steps;
  }
  if (!CompanyHost::journaled_task(impl_->store_path, task_id))
    return Error{"task", "no task '" + task_id + "' in this company"};
  return CompanyHost::journaled_steps(impl_->store_path, task_id);
}

json CompanySessions::agents() { return impl_->main->agents(); }
json CompanySessions::budget() { return impl_->main->budget(); }
json CompanySessions::call_tool(const std::string& name, const json& arguments) {
  return impl_->main->call_tool(name, arguments);
}
std::string CompanySessions::session_id() const { return impl_->main_id; }

std::string CompanySessions::strategy() const { return impl_->main->strategy(); }

Status CompanySessions::save_handle(const company::ProtocolHandle& h) {
  store::HandleRow row{h.protocol, h.handle, h.task_id, h.session_id, h.created_ms, h.ttl_ms, h.data};
  // The default session's writer: it lives as long as the service, and the
  // commit is what the caller waits for, whichever session runs the task.
  return impl_->main->runtime().write_journal(
      [row = std::move(row)](store::JournalStore& s) { return s.save_handle(row); });
}

std::optional<company::ProtocolHandle> CompanySessions::find_handle(const std::string& protocol,
                                                                    const std::string& handle) {
  auto st = store::JournalStore::open_read_only(impl_->store_path);
  if (!st.ok()) return std::nullopt;
  auto row = (*st)->get_handle(protocol, handle);
  if (!row.ok() || !row->has_value()) return std::nullopt;
  return handle_from_row(std::move(**row));
}

std::vector<company::ProtocolHandle> CompanySessions::live_handles(const std::string& protocol, int64_t now_ms,
                                                                   size_t limit) {
  std::vector<company::ProtocolHandle> out;
  auto st = store::JournalStore::open_read_only(impl_->store_path);
  if (!st.ok()) return out;
  auto rows = (*st)->live_handles(protocol, now_ms, static_cast<int>(std::min<size_t>(limit, 1'000'000)));
  if (!rows.ok()) return out;
  for (auto& r : *rows) out.push_back(handle_from_row(std::move(r)));
  return out;
}

size_t CompanySessions::open_sessions() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return 1 + impl_->open.size();
}

CompanyRuntime& CompanySessions::runtime() { return impl_->main->runtime(); }

Result<json> CompanySessions::session_budget(const std::string& session_id) {
  auto host = impl_->budget_host(session_id);
  if (!host) return Error{"not_found", "session '" + session_id + "' is not open on this server"};
  return host->budget();
}

Status CompanySessions::raise_session_budget(const std::string& session_id, const std::string& which, double amount) {
  auto host = impl_->budget_host(session_id);
  if (!host) return Error{"not_found", "session '" + session_id + "' is not open on this server"};
  return host->runtime().raise_budget(which, amount);
}

}  // namespace kaisha::actors
