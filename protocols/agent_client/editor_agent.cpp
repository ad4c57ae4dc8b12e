#include "protocols/agent_client/editor_agent.hpp"

#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include "protocols/agent_client/turn_updates.hpp"

namespace kaisha::agent_client {
namespace {

namespace rpc = jsonrpc;

struct Turn {
  std::string task_id;
  json request_id;
  TurnUpdates updates;
  bool cancel_requested = false;
  std::vector<std::string> terminals;  // the editor's terminals its code runs use
};

struct Session {
  std::string id;
  std::string cwd;
  std::mutex mu;                         // guards turn (and the order of its updates), always_allowed
  std::shared_ptr<Turn> turn;            // the running prompt turn, if any
  std::thread thread;                    // the turn's (joined before the next one starts)
  std::set<std::string> always_allowed;  // tools the user allowed for the rest of the session
};

struct Pending {
  std::string session_id;
  std::string method;
  std::function<void(Result<json>)> done;
};

std::string new_task_id() {
  static std::mutex mu;
  static std::mt19937_64 rng{std::random_device{}()};
  std::lock_guard<std::mutex> lock(mu);
  char buf[32];
  std::snprintf(buf, sizeof buf, "editor-%016llx", static_cast<unsigned long long>(rng()));
  return buf;
}

double number(const json& b, const char* key) {
  auto it = b.find(key);
  return it != b.end() && it->is_number() ? it->get<double>() : 0.0;
}

std::string amount(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string budget_text(const json& b) {
  if (!b.is_object()) return "no ledgers";
  return "expense $" + amount(number(b, "current_expense")) + " of $" + amount(number(b, "total_expense_budget")) +
         " ($" + amount(number(b, "current_remaining_expense_budget")) + " left); resource " +
         amount(number(b, "current_resource_usage")) + " of " + amount(number(b, "total_resource_budget"));
}

// Why a new task cannot start on these ledgers ("" when it can).
std::string spent(const json& b) {
  if (!b.is_object() || b.empty()) return "";
  if (b.contains("current_remaining_expense_budget") && number(b, "current_remaining_expense_budget") <= 0)
    return "The expense budget is spent (" + budget_text(b) + "). Raise it with /raise expense USD and ask again.";
  if (b.contains("total_resource_budget") && number(b, "current_resource_usage") >= number(b, "total_resource_budget"))
    return "The resource budget is spent (" + budget_text(b) + "). Raise it with /raise resource POINTS and ask again.";
  return "";
}

json rpc_error_for(const Error& e) {
  if (e.code == "invalid_params") return json{{"code", rpc::code::kInvalidParams}, {"message", e.message}};
  if (e.code == "not_found") return json{{"code", kResourceNotFound}, {"message", e.message}};
  return json{{"code", rpc::code::kInternalError}, {"message", e.message}};
}

}  // namespace

struct EditorAgent::Impl {
  Send send;
  std::string version;
  EditorCompany* company = nullptr;

  std::mutex mu;  // guards everything below
  bool initialized = false;
  bool stopping = false;
  ClientCapabilities caps;
  std::map<std::string, std::shared_ptr<Session>> sessions;
  int64_t next_request = 0;
  std::map<int64_t, Pending> pending;

  void reply(const json& id, json result) { send(rpc::make_result(id, std::move(result))); }
  void fail(const json& id, int code, const std::string& message) { send(rpc::make_error(id, code, message)); }
  void fail(const json& id, const Error& e) {
    json err = rpc_error_for(e);
    send(rpc::make_error(id, err["code"].get<int>(), err["message"].get<std::string>()));
  }
  void update(const std::string& session_id, json u) {
    send(rpc::make_notification("session/update", session_update(session_id, std::move(u))));
  }

  std::shared_ptr<Session> session(const std::string& id) {
    std::lock_guard<std::mutex> lock(mu);
    auto it = sessions.find(id);
    return it == sessions.end() ? nullptr : it->second;
  }

  void dispatch(const rpc::Request& r);
  void open_session(const rpc::Request& r, bool load);
  void prompt(const rpc::Request& r);
  bool slash_command(const std::shared_ptr<Session>& s, const json& id, const std::string& text);
  void run_turn(std::shared_ptr<Session> s, std::shared_ptr<Turn> t, std::string text);
  void cancel_turn(const std::shared_ptr<Session>& s);
  void withdraw_requests(const std::string& session_id);
  void on_response(const rpc::IncomingResponse& r);
  void request(const std::string& session_id, const std::string& method, json params,
               std::function<void(Result<json>)> done);
};

std::shared_ptr<EditorAgent> EditorAgent::create(Send send, std::string version) {
  auto impl = std::make_unique<Impl>();
  impl->send = std::move(send);
  impl->version = std::move(version);
  return std::shared_ptr<EditorAgent>(new EditorAgent(std::move(impl)));
}

EditorAgent::EditorAgent(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
EditorAgent::~EditorAgent() { shutdown(); }

void EditorAgent::attach(EditorCompany* company) { impl_->company = company; }

void EditorAgent::handle_line(std::string_view line) {
  // Blank lines between messages are not messages.
  if (line.find_first_not_of(" \t\r") == std::string_view::npos) return;
  Incoming m = decode_line(line);
  if (auto* err = std::get_if<json>(&m)) return impl_->send(*err);
  if (auto* resp = std::get_if<rpc::IncomingResponse>(&m)) return impl_->on_response(*resp);
  impl_->dispatch(std::get<rpc::Request>(m));
}

void EditorAgent::refuse_line(const std::string& why) {
  impl_->send(rpc::make_error(nullptr, rpc::code::kInvalidRequest, why));
}

void EditorAgent::Impl::dispatch(const rpc::Request& r) {
  bool ready;
  {
    std::lock_guard<std::mutex> lock(mu);
    ready = initialized;
  }
  if (r.method == "initialize") {
    auto p = parse_initialize(r.params);
    if (!p) return r.notification ? void() : fail(r.id, p.error());
    {
      std::lock_guard<std::mutex> lock(mu);
      initialized = true;
      caps = p->capabilities;
    }
    if (!r.notification) reply(r.id, initialize_result(version));
    return;
  }
  if (r.notification) {
    // Notifications get no answer, not even an error: an unknown one is dropped.
    if (r.method == "session/cancel" && ready) {
      auto id = parse_session_id(r.params);
      if (!id) return;
      if (auto s = session(*id)) cancel_turn(s);
    }
    return;
  }
  if (!ready)
    return fail(r.id, rpc::code::kInvalidRequest, "'" + r.method + "' came before 'initialize': initialize first");
  if (r.method == "session/new") return open_session(r, false);
  if (r.method == "session/load") return open_session(r, true);
  if (r.method == "session/prompt") return prompt(r);
  if (r.method == "authenticate")
    return fail(r.id, rpc::code::kInvalidParams,
                "kaisha offers no authentication methods (its model providers' keys come from its config)");
  fail(r.id, rpc::code::kMethodNotFound, "Method not found: '" + r.method + "'");
}

void EditorAgent::Impl::open_session(const rpc::Request& r, bool load) {
  auto p = load ? parse_load_session(r.params) : parse_new_session(r.params);
  if (!p) return fail(r.id, p.error());
  if (load) {
    if (auto open = session(p->session_id)) {
      std::lock_guard<std::mutex> lock(open->mu);
      if (open->turn)
        return fail(r.id, rpc::code::kInvalidRequest, "session " + p->session_id + " is running a prompt");
    }
  }
  auto id = session(p->session_id) ? Result<std::string>(p->session_id) : company->open(p->session_id, *p);
  if (!id) return fail(r.id, id.error());
  auto s = std::make_shared<Session>();
  s->id = *id;
  s->cwd = p->cwd;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto old = sessions.find(*id); old != sessions.end()) {
      // Loaded again: the same company session, its (ended) turn thread kept.
      std::lock_guard<std::mutex> slock(old->second->mu);
      old->second->cwd = p->cwd;
      s = old->second;
    } else {
      sessions[*id] = s;
    }
  }
  if (!load) {
    reply(r.id, json{{"sessionId", *id}});
    update(*id, available_commands());
    return;
  }
  // The conversation so far, as the editor would have shown it, then the answer.
  auto past = company->history(*id);
  if (!past) return fail(r.id, past.error());
  for (const auto& t : *past) {
    update(*id, text_chunk("user_message_chunk", t.input));
    if (t.status == "done")
      update(*id, text_chunk("agent_message_chunk", t.answer));
    else if (!t.answer.empty())
      update(*id, text_chunk("agent_message_chunk", "(" + t.status + ": " + t.answer + ")"));
    else
      update(*id, text_chunk("agent_message_chunk", "(" + t.status + ")"));
  }
  update(*id, available_commands());
  reply(r.id, json::object());
}

bool EditorAgent::Impl::slash_command(const std::shared_ptr<Session>& s, const json& id, const std::string& text) {
  if (text.rfind("/budget", 0) != 0 && text.rfind("/raise", 0) != 0) return false;
  std::string out;
  if (text.rfind("/budget", 0) == 0) {
    out = budget_text(company->budget(s->id));
  } else {
    char which[32] = {0};
    double value = 0;
    if (std::sscanf(text.c_str(), "/raise %31s %lf", which, &value) != 2) {
      out = "usage: /raise expense USD | /raise resource POINTS";
    } else {
      Status st = company->raise_budget(s->id, which, value);
      out = st.ok() ? "Raised. " + budget_text(company->budget(s->id)) : st.error().message;
    }
  }
  update(s->id, text_chunk("agent_message_chunk", out));
  reply(id, json{{"stopReason", to_string(StopReason::end_turn)}});
  return true;
}

void EditorAgent::Impl::prompt(const rpc::Request& r) {
  auto p = parse_prompt(r.params);
  if (!p) return fail(r.id, p.error());
  auto s = session(p->session_id);
  if (!s)
    return fail(r.id, kResourceNotFound,
                "no session '" + p->session_id + "' on this connection: open it with session/new or session/load");
  std::lock_guard<std::mutex> lock(s->mu);
  if (s->turn) return fail(r.id, rpc::code::kInvalidRequest, "session " + s->id + " is already running a prompt");
  {
    std::lock_guard<std::mutex> g(mu);
    if (stopping) return fail(r.id, rpc::code::kInternalError, "kaisha is shutting down");
  }
  if (slash_command(s, r.id, p->text)) return;
  if (s->thread.joinable()) s->thread.join();  // the last turn's thread, already at its end
  auto t = std::make_shared<Turn>();
  t->task_id = new_task_id();
  t->request_id = r.id;
  s->turn = t;
  s->thread = std::thread([this, s, t, text = p->text] { run_turn(s, t, text); });
}

void EditorAgent::Impl::run_turn(std::shared_ptr<Session> s, std::shared_ptr<Turn> t, std::string text) {
  StopReason reason = StopReason::end_turn;
  std::string message;
  std::optional<std::string> failed;
  const json budget_before = company->budget(s->id);
  const std::string refusal = spent(budget_before);
  const int64_t context_size = company->context_size(s->id);
  bool cancelled_early;
  {
    std::lock_guard<std::mutex> lock(s->mu);
    cancelled_early = t->cancel_requested;
    t->updates.track_usage(context_size, number(budget_before, "current_expense"));
  }
  if (!refusal.empty()) {
    reason = StopReason::refusal;
    message = refusal;
  } else if (cancelled_early) {
    reason = StopReason::cancelled;
  } else {
    msg::TaskResult r = company->run(s->id, text, t->task_id);
    std::lock_guard<std::mutex> lock(s->mu);
    reason = t->updates.stop_reason(r);
    if (r.ok)
      message = r.answer;
    else if (reason == StopReason::refusal)
      message = r.error;
    else if (!r.canceled)
      failed = r.error;
  }
  // The session's cost as its ledger has it, once the task's charges are settled.
  const json budget_after = company->budget(s->id);
  std::lock_guard<std::mutex> lock(s->mu);
  if (!message.empty()) update(s->id, text_chunk("agent_message_chunk", message));
  if (context_size > 0)
    update(s->id, usage_update(t->updates.context_used(), context_size, number(budget_after, "current_expense")));
  if (failed)
    fail(t->request_id, rpc::code::kInternalError, "the task failed: " + *failed);
  else
    reply(t->request_id, json{{"stopReason", to_string(reason)}});
  s->turn.reset();
}

void EditorAgent::Impl::cancel_turn(const std::shared_ptr<Session>& s) {
  std::string task;
  std::vector<std::string> terminals;
  {
    std::lock_guard<std::mutex> lock(s->mu);
    if (!s->turn) return;
    s->turn->cancel_requested = true;
    task = s->turn->task_id;
    terminals = s->turn->terminals;
  }
  withdraw_requests(s->id);
  // A code run in the editor's terminal stops with its turn (its tool call
  // then answers with how it ended).
  for (const auto& id : terminals)
    request(s->id, "terminal/kill", json{{"sessionId", s->id}, {"terminalId", id}}, [](Result<json>) {});
  // The task may not be registered yet (its thread is starting it): retry
  // for a while, until it is canceled or has ended.
  for (int i = 0; i < 500; ++i) {
    if (company->cancel(s->id, task)) return;
    {
      std::lock_guard<std::mutex> lock(s->mu);
      if (!s->turn || s->turn->task_id != task) return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void EditorAgent::Impl::withdraw_requests(const std::string& session_id) {
  std::vector<std::function<void(Result<json>)>> withdrawn;
  {
    std::lock_guard<std::mutex> lock(mu);
    for (auto it = pending.begin(); it != pending.end();) {
      if (it->second.session_id == session_id && it->second.method == "session/request_permission") {
        withdrawn.push_back(std::move(it->second.done));
        it = pending.erase(it);
      } else {
        ++it;
      }
    }
  }
  // The editor's late answer finds no request and is dropped.
  for (auto& done : withdrawn) done(json{{"outcome", {{"outcome", "cancelled"}}}});
}

void EditorAgent::Impl::request(const std::string& session_id, const std::string& method, json params,
                                std::function<void(Result<json>)> done) {
  int64_t id = 0;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (!stopping) {
      id = ++next_request;
      pending[id] = Pending{session_id, method, std::move(done)};
    }
  }
  // Outside the lock: what `done` sets off may come back here.
  if (id == 0) return done(Error{"closed", "the editor has closed the connection"});
  send(rpc::make_request(id, method, std::move(params)));
}

void EditorAgent::Impl::on_response(const rpc::IncomingResponse& r) {
  if (!r.id.is_number_integer()) return;
  std::function<void(Result<json>)> done;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = pending.find(r.id.get<int64_t>());
    if (it == pending.end()) return;  // withdrawn, or never asked
    done = std::move(it->second.done);
    pending.erase(it);
  }
  if (r.error) return done(Error{"client", r.error->message + " (" + std::to_string(r.error->code) + ")"});
  done(r.result);
}

void EditorAgent::on_event(const msg::ProgressEvent& e) {
  auto s = impl_->session(e.session_id);
  if (!s) return;
  std::lock_guard<std::mutex> lock(s->mu);
  // One turn at a time per session: every event of the session is its turn's
  // (an employee's events carry the same task).
  if (!s->turn) return;
  for (auto& u : s->turn->updates.on_event(e)) impl_->update(s->id, std::move(u));
}

void EditorAgent::shutdown() {
  std::vector<std::shared_ptr<Session>> open;
  std::map<int64_t, Pending> unanswered;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (impl_->stopping) return;
    impl_->stopping = true;
    for (auto& [id, s] : impl_->sessions) open.push_back(s);
    unanswered.swap(impl_->pending);
  }
  for (auto& [id, p] : unanswered) p.done(Error{"closed", "the editor has closed the connection"});
  if (!impl_->company) return;
  for (auto& s : open) impl_->cancel_turn(s);
  for (auto& s : open)
    if (s->thread.joinable()) s->thread.join();
}

void EditorAgent::ask_permission(const company::ToolCallContext& ctx, const std::string& tool, const json& arguments,
                                 std::function<void(bool allowed, std::string why)> done) {
  auto s = impl_->session(ctx.session_id);
  if (!s) return done(false, "no editor session " + ctx.session_id);
  std::string call_id, refused;
  bool allowed = false;
  {
    std::lock_guard<std::mutex> lock(s->mu);
    if (!s->turn)
      refused = "no prompt turn is running";
    else if (s->turn->cancel_requested)
      refused = "the turn was cancelled";
    else if (s->always_allowed.count(tool))
      allowed = true;
    else
      call_id = s->turn->updates.open_tool_call(ctx.agent, tool);
  }
  // Outside the lock: the refused call's result comes back as an event.
  if (!refused.empty()) return done(false, refused);
  if (allowed) return done(true, "");
  if (call_id.empty()) call_id = "permission-" + new_task_id();
  json raw = arguments;
  impl_->request(s->id, "session/request_permission", permission_request(s->id, call_id, tool, raw),
                 [s, tool, done = std::move(done)](Result<json> r) {
                   if (!r) return done(false, r.error().message);
                   switch (parse_permission_outcome(*r)) {
                     case PermissionAnswer::allowed:
                       return done(true, "");
                     case PermissionAnswer::allowed_always: {
                       {
                         std::lock_guard<std::mutex> lock(s->mu);
                         s->always_allowed.insert(tool);
                       }
                       return done(true, "");
                     }
                     case PermissionAnswer::cancelled:
                       return done(false, "the prompt turn was cancelled");
                     case PermissionAnswer::denied:
                       return done(false, "");
                   }
                 });
}

std::string EditorAgent::cwd(const std::string& session_id) {
  auto s = impl_->session(session_id);
  if (!s) return "";
  std::lock_guard<std::mutex> lock(s->mu);
  return s->cwd;
}

bool EditorAgent::client_reads(const std::string& session_id) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->caps.read_text_file && impl_->sessions.count(session_id);
}

bool EditorAgent::client_writes(const std::string& session_id) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->caps.write_text_file && impl_->sessions.count(session_id);
}

bool EditorAgent::client_terminals(const std::string& session_id) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->caps.terminal && impl_->sessions.count(session_id);
}

void EditorAgent::show_terminal(const company::ToolCallContext& ctx, const std::string& tool,
                                const std::string& terminal_id) {
  auto s = impl_->session(ctx.session_id);
  if (!s) return;
  std::lock_guard<std::mutex> lock(s->mu);
  if (!s->turn) return;
  s->turn->terminals.push_back(terminal_id);
  const std::string call_id = s->turn->updates.open_tool_call(ctx.agent, tool);
  if (call_id.empty()) return;
  impl_->update(s->id, json{{"sessionUpdate", "tool_call_update"},
                            {"toolCallId", call_id},
                            {"content", json::array({json{{"type", "terminal"}, {"terminalId", terminal_id}}})}});
}

void EditorAgent::call_client(const std::string& method, json params, std::function<void(Result<json>)> done) {
  const std::string session = params.is_object() ? params.value("sessionId", "") : "";
  impl_->request(session, method, std::move(params), std::move(done));
}

}  // namespace kaisha::agent_client
