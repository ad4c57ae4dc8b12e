// McpTasks: the server's side of the tasks extension (io.modelcontextprotocol/
// tasks, 2026-07-28): tools/call calls that may become tasks, and the
// tasks/get, tasks/update and tasks/cancel requests. The tasks' state is a
// TaskTable (task_table.hpp); this class runs their work.
//
// A call that may be a task runs on a worker thread of its own from the
// start, so that it can gather input synchronously first (multi round-trip:
// an InputRequiredResult, no task yet) and hand over to a task when it is
// ready (McpCallContext::go_async): the request is then answered with the
// CreateTaskResult while the work goes on. Work that finishes without
// going async answers the request as a plain call would.
//
// Bounded: the table keeps at most TaskLimits::max_live tasks, so at most
// that many workers run past their request; a call that finds the table
// full is refused with -32603 saying so. Stopping cancels every task and
// joins the workers.
//
// Kept tasks: a task whose tool names its `work` (go_async) is kept by the
// backend (McpBackend::keep_task) before the CreateTaskResult leaves, again
// when it ends, and before tasks/cancel is acknowledged. restore() takes
// the kept tasks back in a restarted server: ended ones answer as they
// ended, the others get a worker that resumes their work
// (McpBackend::resume_task) under their old id, TTL and creation time.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "protocols/mcp/server/mcp_backend.hpp"
#include "protocols/mcp/wire/mcp_protocol.hpp"
#include "protocols/mcp/server/task_table.hpp"

namespace kaisha::mcp {

// Whether a request's client capabilities declare the tasks extension.
bool declares_tasks(const json& client_capabilities);
// The error data of -32021 for a client that did not declare it.
json tasks_capability_required();

class McpTasks {
 public:
  // `backend` (may be null: nothing is kept) must outlive this.
  explicit McpTasks(TaskLimits limits = {}, McpBackend* backend = nullptr);
  ~McpTasks();
  McpTasks(const McpTasks&) = delete;
  McpTasks& operator=(const McpTasks&) = delete;

  // Runs `work` (a tool call whose context is `ctx`) on a worker and waits
  // until it finished (its outcome) or went async (the CreateTaskResult).
  // `keep` owns `ctx` and whatever the work needs: the worker holds it
  // until the work returns. Sets ctx.go_async.
  Result<json> run(std::shared_ptr<void> keep, McpCallContext& ctx, std::function<Result<json>()> work);

  // tasks/cancel: cancels the task in the table and, when it is kept,
  // keeps it cancelled before returning.
  Status cancel(const std::string& task_id);
  // Takes back the backend's kept tasks (a restarted server); returns how many.
  size_t restore();

  TaskTable& table() { return table_; }

 private:
  void spawn(std::function<void()> body);
  // What a task's work may ask its client: `requests` through the table,
  // refused when the client did not declare a capability it needs.
  std::function<Result<json>(const json&, const json&)> asker(const std::string& task_id, json caps);
  // The work's outcome into the table, then kept.
  void finish(const std::string& task_id, Result<json> outcome);
  // Keeps the task's `state` (default: as the table holds it now) when it is a kept one.
  Status record(const std::string& task_id, std::optional<TaskSnapshot> state = std::nullopt);

  TaskTable table_;
  McpBackend* backend_;
  std::mutex kept_mu_;
  std::map<std::string, std::pair<json, json>> kept_;  // task id -> (work, client capabilities)
  std::mutex mu_;
  std::map<uint64_t, std::thread> workers_;
  std::vector<uint64_t> finished_;  // workers done, to join at the next spawn
  uint64_t next_worker_ = 0;
  bool stopping_ = false;
};

}  // namespace kaisha::mcp
