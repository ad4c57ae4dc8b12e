// CompanyHost runs one company (a CompanyRuntime, one session) as a
// company::CompanyService: the door that protocol servers (MCP, A2A, ACP),
// `kaisha serve` and `kaisha submit` use.
//
// Tasks are queued and run one at a time, in submission order, on the host's
// own worker thread (a session is one conversation); with RunSlots, a task
// also waits for one of the process's slots before it starts. Each task keeps the
// progress events it produced, so a late subscriber gets them replayed. The
// last event of every task is the host's own, of kind "final", "error" or
// "canceled", sent after the task's state is updated; an error event of an
// agent inside a task that goes on is passed on as kind "agent_error".
//
// A task whose CEO calls AskUser (HostOptions::input_timeout) pauses in
// state input_required: an "input_required" event carries the question, its
// model call is settled and its employees stay hired; provide_input() goes
// on with the answer; no answer in time fails it. Other tasks of the
// process's other sessions keep running meanwhile.
//
// Thread-safe. Destroying the host cancels waiting tasks, stops the running
// one and then stops the company.
#pragma once

#include <memory>

#include "actors/company/company_runtime.hpp"
#include "runtime/company/company_service.hpp"
#include "runtime/company/run_slots.hpp"
#include "runtime/company/user_questions.hpp"

namespace kaisha::actors {

struct HostOptions {
  // With slots, each task takes one of them to run (shared by the hosts of
  // one process).
  std::shared_ptr<company::RunSlots> slots;
  // > 0: the CEO gets the AskUser tool, a task asking its user waits in
  // state input_required until provide_input() answers it, and one left
  // unanswered this long fails saying so. 0: no AskUser tool.
  std::chrono::milliseconds input_timeout{0};
};

class CompanyHost : public company::CompanyService {
 public:
  // Starts the company as CompanyRuntime::start does. `options.progress`,
  // when set, still receives every event of every task.
  static Result<std::unique_ptr<CompanyHost>> start(RuntimeOptions options, HostOptions host = {});
  ~CompanyHost() override;

  Result<std::string> submit(const std::string& input, company::TaskListener listener) override;
  Result<uint64_t> subscribe(const std::string& task_id, company::TaskListener listener) override;
  void unsubscribe(const std::string& task_id, uint64_t subscription) override;
  std::optional<company::TaskInfo> task(const std::string& task_id) override;
  Result<company::TaskInfo> wait(const std::string& task_id, std::chrono::milliseconds timeout) override;
  Status provide_input(const std::string& task_id, const std::string& text) override;
  Status cancel(const std::string& task_id) override;
  std::vector<company::TaskInfo> tasks(size_t limit) override;
  Result<json> journal(const std::string& task_id) override;
  json agents() override;
  json budget() override;
  json call_tool(const std::string& name, const json& arguments) override;
  std::string session_id() const override;
  std::string strategy() const override;

  // Tasks waiting or running now.
  size_t pending() const;
  // The tasks this host holds in memory (those it was given, the last ended
  // ones among them), newest first; reads no journal.
  std::vector<company::TaskInfo> held_tasks() const;
  // A task of any session of the journal at `store_path`; nullopt when
  // unknown or unreadable.
  static std::optional<company::TaskInfo> journaled_task(const std::string& store_path, const std::string& task_id);
  // The tasks of `host_session` and of the sessions it hosts in the journal
  // at `store_path`, newest first, at most `limit` (0 = all); empty when
  // unreadable.
  static std::vector<company::TaskInfo> journaled_tasks(const std::string& store_path, const std::string& host_session,
                                                        size_t limit);
  // That task's journaled steps, as journal() gives them.
  static Result<json> journaled_steps(const std::string& store_path, const std::string& task_id);

  // The company itself, for what the service does not cover (switches,
  // budget raises).
  CompanyRuntime& runtime();

 private:
  struct Impl;
  explicit CompanyHost(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

}  // namespace kaisha::actors
