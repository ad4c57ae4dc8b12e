// TaskTable: the tasks of the MCP tasks extension (io.modelcontextprotocol/
// tasks, 2026-07-28) that one server holds — their state machine, their
// outstanding input requests and their time to live. No transport, no
// threads of its own: McpTasks (mcp_tasks.hpp) runs the work and answers
// the protocol; this class keeps the state.
//
// A task is `working` when made, may go to `input_required` while its work
// waits for answers (ask() blocks the work's thread until tasks/update
// brought them all), and ends `completed` (a result, even one with isError),
// `failed` (a JSON-RPC error) or `cancelled`. A terminal task does not
// change again: a late result of cancelled work is dropped.
//
// Bounded: at most `max_live` tasks are kept, running or finished; a task is
// discarded once its TTL (from creation) has passed — a task still running
// then is cancelled — so finished tasks make room for new ones by expiring.
// Times are wall-clock (system_clock): a task restored after a restart
// (restore()) keeps counting its TTL from its creation.
// Task ids are 128 random bits (hex), unguessable (they are the only key to
// a task). Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::mcp {

struct TaskLimits {
  size_t max_live = 64;                                     // tasks kept at once (running or finished)
  std::chrono::milliseconds ttl{60 * 60 * 1000};            // how long a task is kept after creation
  std::chrono::milliseconds poll_interval{500};             // what clients are told to poll at
  std::chrono::milliseconds input_timeout{60 * 60 * 1000};  // how long work waits for tasks/update
};

// Error codes of TaskTable's Errors.
inline constexpr const char* kTaskNotFound = "task_not_found";
inline constexpr const char* kTaskCapacity = "task_capacity";
inline constexpr const char* kTaskEnded = "task_ended";  // ask() on a cancelled or expired task

// A task as the table holds it, without its outstanding questions: what a
// server keeps so that a restarted one can take the task back (restore()).
struct TaskSnapshot {
  std::string id;
  std::string status = "working";
  std::string status_message;
  std::chrono::system_clock::time_point created, updated;  // wall clock: they must survive a restart
  std::chrono::milliseconds ttl{0};
  json result, error;  // completed / failed
};

class TaskTable {
 public:
  using Clock = std::function<std::chrono::system_clock::time_point()>;
  // Called after each change of a task's state with its DetailedTask (what
  // tasks/get answers), in the order of the changes, outside the table's
  // lock (it must not block for long: changes wait for it).
  using Listener = std::function<void(const std::string& task_id, const json& detailed)>;

  explicit TaskTable(
      TaskLimits limits = {}, Clock clock = [] { return std::chrono::system_clock::now(); });

  // A new working task: its Task fields (taskId, status, createdAt,
  // lastUpdatedAt, ttlMs, pollIntervalMs). Error kTaskCapacity when
  // max_live tasks are kept.
  Result<json> create();
  // Takes back a task an earlier server made: its id, times and TTL as they
  // were; a task that had not ended is `working` again (its work starts
  // over and may ask again). Error kTaskCapacity when max_live tasks are
  // kept, kTaskNotFound when its TTL has passed, "exists" for a known id.
  Status restore(const TaskSnapshot& task);
  // Removes a task without telling the listener (one that could not be kept).
  void drop(const std::string& task_id);
  // The task's state (to keep it); nullopt when unknown.
  std::optional<TaskSnapshot> snapshot(const std::string& task_id) const;
  // Whether `status` is completed, failed or cancelled.
  static bool terminal(const std::string& status);

  // The flag the task's work watches: set by cancel() and by expiry.
  std::shared_ptr<std::atomic<bool>> cancel_flag(const std::string& task_id) const;

  // The DetailedTask: the Task fields plus inputRequests (input_required),
  // result (completed) or error (failed). Error kTaskNotFound.
  Result<json> get(const std::string& task_id);

  // From the work's thread: asks the client `requests` ({key: {"method",
  // "params"}}) through tasks/get and waits until tasks/update answered every
  // one; the answers by the same keys. A key the task used before is
  // renamed on the wire (keys are unique over a task's life). Error
  // kTaskEnded when the task is cancelled or expires meanwhile, "timeout"
  // after input_timeout.
  Result<json> ask(const std::string& task_id, const json& requests);

  // tasks/update: takes the answers to outstanding keys and ignores others
  // (never issued, already answered). Error kTaskNotFound; "invalid_params"
  // when an answer is not an object.
  Status update(const std::string& task_id, const json& input_responses);
  // tasks/cancel: a task still running becomes cancelled and its flag is
  // set; a finished one is left as it is. Error kTaskNotFound.
  Status cancel(const std::string& task_id, const std::string& message = "Cancelled by the client");

  // The work's outcome; ignored when the task already ended or is gone.
  void complete(const std::string& task_id, json result);
  void fail(const std::string& task_id, json error, const std::string& message);

  // Drops the tasks whose TTL passed (cancelling the running ones); done by
  // create() and get() too.
  void expire();
  // Cancels every running task (the server stops).
  void cancel_all(const std::string& message);

  void set_listener(Listener listener);
  size_t size() const;     // tasks kept
  size_t running() const;  // of which not ended yet
  const TaskLimits& limits() const { return limits_; }

 private:
  struct Task {
    std::string id;
    std::string status = "working";
    std::string status_message;
    std::chrono::system_clock::time_point created, updated;
    std::chrono::milliseconds ttl{0};
    json pending = json::object();  // wire key -> request, while input_required
    json answers = json::object();  // wire key -> answer, until ask() takes them
    std::set<std::string> used_keys;
    json result, error;
    std::shared_ptr<std::atomic<bool>> cancel = std::make_shared<std::atomic<bool>>(false);
  };
  json detailed(const Task& t) const;
  void set_status(Task& t, std::string status, std::string message = "");
  // Purges expired tasks under the lock; the ones whose state changed are
  // added to `changed` for the listener.
  void expire_locked(std::vector<std::pair<std::string, json>>& changed);
  // Releases `lock` and tells the listener about `changed`.
  void publish(std::unique_lock<std::mutex>& lock, const std::vector<std::pair<std::string, json>>& changed);

  TaskLimits limits_;
  Clock clock_;
  mutable std::mutex mu_;
  std::mutex tell_mu_;  // after mu_; guards listener_ and orders the listener's calls
  std::condition_variable answered_;
  std::map<std::string, Task> tasks_;
  Listener listener_;  // under tell_mu_
};

// An ISO 8601 UTC timestamp with milliseconds ("2026-07-28T10:30:00.000Z").
std::string iso8601(std::chrono::system_clock::time_point t);

}  // namespace kaisha::mcp
