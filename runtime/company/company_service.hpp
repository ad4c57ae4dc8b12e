// CompanyService is what everything outside the company asks of it: the
// protocol servers (MCP, A2A, ACP), `kaisha serve` and `kaisha submit`. It
// hides the actors: a task goes in, progress events come out, the task ends
// completed, failed or canceled.
//
// Tasks run one at a time per session, in submission order (a session is one
// conversation); a task waiting its turn is "submitted". A service may host
// several sessions (actors/company/company_sessions.hpp): submit_in() names the
// client's conversation, and tasks of different conversations run at once. Every method is
// thread-safe and may be called from any thread, including HTTP server threads.
// Only wait() blocks.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "runtime/company/protocol_handle.hpp"
#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/messages/agent_messages.hpp"

namespace kaisha::company {

// The lifecycle of a task as the protocols see it.
// input_required: the task waits for its user's answer (provide_input()).
enum class TaskState { submitted, working, input_required, completed, failed, canceled };
const char* to_string(TaskState s);
inline bool is_final(TaskState s) {
  return s == TaskState::completed || s == TaskState::failed || s == TaskState::canceled;
}
// The state a task is in once a listener got the progress event `kind`: the
// terminal kinds "final", "error" and "canceled" end it completed, failed or
// canceled; input_required means it waits for its user; any other kind means
// it is working. One mapping for every
// protocol adapter (A2A task states, ACP run states).
TaskState state_after_event(msg::EventKind kind);
// The terminal event kind of a final state ("final", "error", "canceled").
msg::EventKind terminal_event_kind(TaskState s);

struct TaskInfo {
  std::string id;
  std::string input;
  TaskState state = TaskState::submitted;
  std::string answer;    // when completed
  std::string error;     // when failed or canceled: why
  std::string question;  // when input_required: what the company asks its user
  // The questions it asked before and the user's answers, oldest first, as
  // long as the service holds the task in memory (the journal keeps them as
  // AskUser calls).
  struct Exchange {
    std::string question, answer;
  };
  std::vector<Exchange> exchanges;
  int64_t tokens_in = 0, tokens_out = 0;
  double expense = 0;  // USD
  int64_t created_ms = 0, updated_ms = 0;
  std::string session_id;    // the company session that ran it
  std::string conversation;  // the client's conversation it was submitted in; "" = the default one
  json to_json() const;
};

// The terminal progress event of an ended task, from its info: the CEO's
// answer or the error as text, the task as data, its tokens and spend.
msg::ProgressEvent terminal_event(const TaskInfo& info);

// Receives a task's progress events (msg::ProgressEvent, same kinds as the
// CLI shows) from any thread; the last one has kind "final", "error" or
// "canceled". Must not block for long.
using TaskListener = std::function<void(const msg::ProgressEvent&)>;

class CompanyService {
 public:
  virtual ~CompanyService() = default;

  // Queues `input` as a new task and returns its id at once. `listener` may
  // be empty. Refuses an empty input.
  virtual Result<std::string> submit(const std::string& input, TaskListener listener) = 0;

  // The same in the client's conversation `conversation` (an A2A contextId,
  // an MCP or ACP session id): each conversation is its own session where the
  // service hosts several, "" is the default one. A service of one session
  // runs every task in it. Refused, saying which limit, when the service's
  // limits on open sessions or pending tasks are reached.
  virtual Result<std::string> submit_in(const std::string& conversation, const std::string& input,
                                        TaskListener listener) {
    (void)conversation;
    return submit(input, std::move(listener));
  }

  // Replays the task's events so far to `listener`, then streams the rest
  // until the task ends or unsubscribe() is called. Returns the
  // subscription's id; fails when the task is unknown.
  virtual Result<uint64_t> subscribe(const std::string& task_id, TaskListener listener) = 0;
  // Ends a subscription early (its reader went away): the listener is
  // released and gets no event that starts being delivered after this
  // returns. Unknown or ended subscriptions are ignored.
  virtual void unsubscribe(const std::string& task_id, uint64_t subscription) = 0;

  // The task's current state; nullopt when unknown.
  virtual std::optional<TaskInfo> task(const std::string& task_id) = 0;

  // Blocks until the task has ended, asks for input, or `timeout` passed;
  // returns its state then.
  // A task has ended once its terminal event has reached every listener: after
  // wait() returns an ended task, none of its listeners is called again.
  virtual Result<TaskInfo> wait(const std::string& task_id, std::chrono::milliseconds timeout) = 0;

  // Answers the question of a task in state input_required; the task goes
  // on with `text` as its user's answer. An error when the task is unknown
  // or asks nothing now.
  virtual Status provide_input(const std::string& task_id, const std::string& text) {
    (void)text;
    return Error{"task", "task " + task_id + " asks for no input: this company does not ask its users"};
  }

  // Cancels a waiting or running task: a waiting one never starts, a running
  // one is stopped (in-flight model calls are abandoned, what was spent stays
  // spent and journaled). Canceling an ended task is an error saying so.
  virtual Status cancel(const std::string& task_id) = 0;

  // The most recent tasks of this company, newest first.
  virtual std::vector<TaskInfo> tasks(size_t limit) = 0;

  // The journaled steps of one task: [{agent, kind, payload, at_ms, ...}].
  virtual Result<json> journal(const std::string& task_id) = 0;

  // GetAgents' view: {name: {description, base_model, model_ref, type, costs...}}.
  virtual json agents() = 0;
  // GetBudget's view.
  virtual json budget() = 0;

  // Calls one CEO tool directly ("AskAgent" {agent_name, prompt},
  // "MemoryManager" {...}, ...) and returns its {status, message, output}.
  virtual json call_tool(const std::string& name, const json& arguments) = 0;

  virtual std::string session_id() const = 0;
  // The strategy the company's tasks run with ("" when it does not say).
  virtual std::string strategy() const { return ""; }

  // Protocol handles (protocol_handle.hpp). save_handle() returns once the
  // handle is committed to the journal — call it before the client learns
  // the id — or with an error saying why it is not (then do not give the id
  // out). A service without a journal keeps nothing: Ok, and find_handle()
  // and live_handles() know none.
  virtual Status save_handle(const ProtocolHandle& handle) {
    (void)handle;
    return Status::Ok();
  }
  // The handle `handle` of `protocol`, kept by this process or an earlier
  // one on the same journal, expired or not; nullopt when unknown.
  virtual std::optional<ProtocolHandle> find_handle(const std::string& protocol, const std::string& handle) {
    (void)protocol;
    (void)handle;
    return std::nullopt;
  }
  // The handles of `protocol` not expired at `now_ms`, newest first, at most `limit`.
  virtual std::vector<ProtocolHandle> live_handles(const std::string& protocol, int64_t now_ms, size_t limit) {
    (void)protocol;
    (void)now_ms;
    (void)limit;
    return {};
  }
};

}  // namespace kaisha::company
