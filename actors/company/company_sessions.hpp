// CompanySessions serves many clients at once: each client conversation (an
// A2A contextId, an MCP session, an ACP session) gets its own company
// session — its own CEO, employees, conversation memory and task order — and
// tasks of different sessions run at the same time in one process.
//
// What the sessions share: the model client (one connection pool), the MCP
// servers and other caller tool sources, long-term memory, the journal file,
// the progress sink and the metrics registry; and, unless
// SessionLimits::per_session_budget, one Budget: every session charges the
// same two ledgers, so the config's budget bounds them all together.
//
// Limits, each refused with an error that names it:
//   max_sessions       sessions open at once. At the limit, the session idle
//                      longest is closed to make room (its tasks, agents and
//                      charges stay in the journal; its conversation reopens
//                      it on its next task); when every open session has work,
//                      a new conversation is refused.
//   max_tasks          tasks waiting or running, all sessions together.
//   max_running_tasks  tasks running at once; the others wait their turn,
//                      each in its session's order.
//
// The default session (conversation "") is the one `options` names — new,
// or continued with its interrupted tasks resumed first — and the one
// agents(), budget() and call_tool() act on. With SessionLimits::shared,
// every conversation uses it: one task at a time, as CompanyHost alone.
//
// Tasks are found by id in whichever session ran them, or in the journal
// once their session was closed. Thread-safe.
#pragma once

#include <memory>

#include "actors/company/company_host.hpp"

namespace kaisha::actors {

struct SessionLimits {
  bool shared = false;              // every conversation in the default session
  bool per_session_budget = false;  // each session with its own Budget from the config
  size_t max_sessions = 64;
  size_t max_tasks = 256;
  int max_running_tasks = 16;
  // > 0: the CEO may ask its user (HostOptions::input_timeout).
  std::chrono::milliseconds input_timeout{0};
};

class CompanySessions : public company::CompanyService {
 public:
  // Starts the default session as CompanyHost::start does; the others start
  // from the same options (a new session each) when their conversation first
  // submits a task.
  static Result<std::unique_ptr<CompanySessions>> start(RuntimeOptions options, SessionLimits limits);
  ~CompanySessions() override;

  Result<std::string> submit(const std::string& input, company::TaskListener listener) override;
  Result<std::string> submit_in(const std::string& conversation, const std::string& input,
                                company::TaskListener listener) override;
  Result<uint64_t> subscribe(const std::string& task_id, company::TaskListener listener) override;
  void unsubscribe(const std::string& task_id, uint64_t subscription) override;
  std::optional<company::TaskInfo> task(const std::string& task_id) override;
  Result<company::TaskInfo> wait(const std::string& task_id, std::chrono::milliseconds timeout) override;
  Status provide_input(const std::string& task_id, const std::string& text) override;
  Status cancel(const std::string& task_id) override;
  // Newest first, over the open sessions (and the default session's older
  // tasks from the journal).
  std::vector<company::TaskInfo> tasks(size_t limit) override;
  Result<json> journal(const std::string& task_id) override;
  json agents() override;
  json budget() override;
  json call_tool(const std::string& name, const json& arguments) override;
  // The default session's id.
  std::string session_id() const override;
  std::string strategy() const override;
  // Through the default session's journal writer; read from the journal file.
  Status save_handle(const company::ProtocolHandle& handle) override;
  std::optional<company::ProtocolHandle> find_handle(const std::string& protocol, const std::string& handle) override;
  std::vector<company::ProtocolHandle> live_handles(const std::string& protocol, int64_t now_ms, size_t limit) override;

  // The budget session `session_id` charges ("": the default session's), as
  // budget() gives the default one's: without
  // SessionLimits::per_session_budget every session's is the one shared
  // budget. An error "not_found" when that session is not open (never
  // opened, or closed to make room: its ledger is in the journal).
  Result<json> session_budget(const std::string& session_id);
  // An operator's raise of that budget, as CompanyRuntime::raise_budget
  // (journaled in the session that owns the budget).
  Status raise_session_budget(const std::string& session_id, const std::string& which, double amount);

  // Sessions open now, the default one included.
  size_t open_sessions() const;
  // The default session's company.
  CompanyRuntime& runtime();

 private:
  struct Impl;
  explicit CompanySessions(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kaisha::actors
