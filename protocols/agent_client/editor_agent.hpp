// EditorAgent is kaisha's side of an Agent Client Protocol connection: it
// takes the editor's lines one at a time (handle_line), answers them, and
// streams each prompt turn's progress as session/update notifications.
//
// - `initialize` first: any other request before it is refused (-32600);
//   the version is negotiated (agent_client_wire.hpp) and the client's file
//   system and terminal capabilities are kept.
// - `session/new` opens a new company session, `session/load` a journaled
//   one (its past turns replayed as user and agent message chunks); each
//   editor session is one kaisha session, with the same id. Several in one
//   connection.
// - `session/prompt` runs one task in the session on a thread of its own
//   and answers with the stop reason once the company is done; one turn at
//   a time per session. `/budget` and `/raise expense|resource AMOUNT` (the
//   advertised slash commands) are answered without a task. A turn whose
//   session's budget is spent ends with `refusal` before any model call.
// - `session/cancel` cancels the session's running task: the turn ends
//   with `cancelled`, its pending permission requests are withdrawn and the
//   editor's terminals its code runs use are killed.
// - A permission answered "always allow" lets that tool run without asking
//   for the rest of the session (in this process).
// - Each turn ends with a usage_update (the CEO's context and the session's
//   expense from its ledger), and the CEO's model calls send one as they land.
// - shutdown() (the editor closed its end) cancels every running turn,
//   answers every pending request to the editor as refused, and waits for
//   the turns to end, so that what they did is journaled.
//
// Thread-safe: handle_line() is called from the reader's thread; events,
// tool calls and turns come from others. `send` must write one whole line
// per message and be thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "protocols/agent_client/agent_client_wire.hpp"
#include "protocols/agent_client/editor_tools.hpp"
#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/messages/agent_messages.hpp"

namespace kaisha::agent_client {

// What the agent needs of kaisha: company sessions, by id.
class EditorCompany {
 public:
  virtual ~EditorCompany() = default;
  // Opens a new session (`session_id` "") or the journaled session
  // `session_id` (an Error with code "not_found" when the journal has none)
  // for the editor's `params`; returns its id.
  virtual Result<std::string> open(const std::string& session_id, const SessionParams& params) = 0;
  // Runs one task to its end under `task_id`. Blocking.
  virtual msg::TaskResult run(const std::string& session_id, const std::string& input, const std::string& task_id) = 0;
  // Cancels running task `task_id`; false when it is not running (yet).
  virtual bool cancel(const std::string& session_id, const std::string& task_id) = 0;
  virtual json budget(const std::string& session_id) = 0;
  virtual Status raise_budget(const std::string& session_id, const std::string& which, double amount) = 0;
  // The CEO's context window in tokens, for the editor's usage display; 0
  // sends no usage updates.
  virtual int64_t context_size(const std::string& /*session_id*/) { return 0; }
  struct PastTurn {
    std::string input, answer, status;  // status: done | failed | canceled | interrupted | running
  };
  // The session's tasks from the journal, oldest first.
  virtual Result<std::vector<PastTurn>> history(const std::string& session_id) = 0;
};

class EditorAgent : public EditorBridge, public std::enable_shared_from_this<EditorAgent> {
 public:
  using Send = std::function<void(const json&)>;
  // `version`: kaisha's, for agentInfo. `company` must outlive the agent's
  // turns (call shutdown() before destroying it).
  static std::shared_ptr<EditorAgent> create(Send send, std::string version);
  ~EditorAgent() override;

  // Set once, before the first line: the company the sessions run in.
  void attach(EditorCompany* company);

  // One line of input (without its newline).
  void handle_line(std::string_view line);
  // A line the reader refused unread (longer than its limit).
  void refuse_line(const std::string& why);
  // A progress event of any session (the company's progress sink).
  void on_event(const msg::ProgressEvent& e);
  // The editor is gone: see above. Idempotent.
  void shutdown();

  // EditorBridge
  void ask_permission(const company::ToolCallContext& ctx, const std::string& tool, const json& arguments,
                      std::function<void(bool allowed, std::string why)> done) override;
  std::string cwd(const std::string& session_id) override;
  bool client_reads(const std::string& session_id) override;
  bool client_writes(const std::string& session_id) override;
  bool client_terminals(const std::string& session_id) override;
  void show_terminal(const company::ToolCallContext& ctx, const std::string& tool,
                     const std::string& terminal_id) override;
  void call_client(const std::string& method, json params, std::function<void(Result<json>)> done) override;

  struct Impl;

 private:
  explicit EditorAgent(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kaisha::agent_client
