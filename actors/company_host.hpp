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
// Thread-safe. Destroying the host cancels waiting tasks, stops the running
// one and then stops the company.
#pragma once

#include <memory>

#include "actors/company_runtime.hpp"
#include "runtime/company/company_service.hpp"
#include "runtime/company/run_slots.hpp"

namespace kaisha::actors {

class CompanyHost : public company::CompanyService {
 public:
  // Starts the company as CompanyRuntime::start does. `options.progress`,
  // when set, still receives every event of every task.
  // With `slots`, each task takes one of them to run (shared by the hosts
  // of one process).
  static Result<std::unique_ptr<CompanyHost>> start(RuntimeOptions options,
                                                    std::shared_ptr<company::RunSlots> slots = nullptr);
  ~CompanyHost() override;

  Result<std::string> submit(const std::string& input, company::TaskListener listener) override;
  Result<uint64_t> subscribe(const std::string& task_id, company::TaskListener listener) override;
  void unsubscribe(const std::string& task_id, uint64_t subscription) override;
  std::optional<company::TaskInfo> task(const std::string& task_id) override;
  Result<company::TaskInfo> wait(const std::string& task_id, std::chrono::milliseconds timeout) override;
  Status cancel(const std::string& task_id) override;
  std::vector<company::TaskInfo> tasks(size_t limit) override;
  Result<json> journal(const std::string& task_id) override;
  json agents() override;
  json budget() override;
  json call_tool(const std::string& name, const json& arguments) override;
  std::string session_id() const override;

  // Tasks waiting or running now.
  size_t pending() const;
  // A task of any session of the journal at `store_path`; nullopt when
  // unknown or unreadable.
  static std::optional<company::TaskInfo> journaled_task(const std::string& store_path, const std::string& task_id);
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
