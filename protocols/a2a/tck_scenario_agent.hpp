// TckScenarioAgent: a TEST FIXTURE, not an agent anyone should talk to. It is
// the official A2A TCK's scenario agent (the kit's scenarios/*.feature and
// docs/SUT_REQUIREMENTS.md), served by `kaisha serve --fixture a2a-tck` so
// that the kit can check kaisha's A2A layer (both bindings, both eras)
// against an agent that does what each of its tests expects. It acts on the
// prefix of the message's messageId:
//
//   tck-complete-task            completed, status message "Hello from TCK"
//   tck-artifact-text            artifact text "Generated text content", completed
//   tck-artifact-file            artifact file output.txt (text/plain, bytes "tck"), completed
//   tck-artifact-file-url        artifact file URL https://example.com/output.txt, completed
//   tck-artifact-data            artifact data {"key": "value", "count": 42}, completed
//   tck-message-response         no task: answers the Message "Direct message response"
//   tck-input-required           input-required (the next message with its taskId continues it)
//   tck-reject-task              rejected, status message "rejected"
//   tck-stream-001 / -003        working, artifact "Stream hello from TCK" /
//                                "Stream task lifecycle", completed
//   tck-stream-002               completed
//   tck-stream-ordering-001      working, artifact "Ordered output", completed
//   tck-stream-artifact-text     working, artifact "Streamed text content", completed
//   tck-stream-artifact-file     working, artifact file output.txt, completed
//   tck-stream-artifact-chunked  working, artifact chunks "chunk-1 " then "chunk-2", completed
//   test-resubscribe-message-id  working, then completed after `long_task`
//                                (2 x TCK_STREAMING_TIMEOUT, so a client can resubscribe)
//   anything else                completed, "Unhandled messageId prefix: <id>"
//
// Like the kit's own reference agents it reads no part of the message, so it
// accepts parts of any kind. Every task but the long one reaches its state
// inside send(); tasks live in memory for the process's life. A message that
// names a task continues it only while it waits for input; a contextId that
// is not the task's is refused.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "protocols/a2a/a2a_agent.hpp"

namespace kaisha::a2a {

class TckScenarioAgent : public A2aAgent {
 public:
  // 2 x $TCK_STREAMING_TIMEOUT seconds (the kit's setting; 2 when unset).
  static std::chrono::milliseconds long_task_from_env();

  explicit TckScenarioAgent(std::chrono::milliseconds long_task = long_task_from_env()) : long_task_(long_task) {}
  ~TckScenarioAgent() override;  // ends the long tasks' timers
  TckScenarioAgent(const TckScenarioAgent&) = delete;
  TckScenarioAgent& operator=(const TckScenarioAgent&) = delete;

  Result<SendOutcome> send(const IncomingMessage& message) override;
  std::optional<AgentTask> task(const std::string& task_id) override;
  Result<AgentTask> wait(const std::string& task_id, std::chrono::milliseconds timeout) override;
  Status cancel(const std::string& task_id) override;
  std::vector<AgentTask> tasks(size_t limit) override;
  Result<uint64_t> subscribe(const std::string& task_id, UpdateListener listener) override;
  void unsubscribe(const std::string& task_id, uint64_t subscription) override;
  std::vector<jsonrpc::CapabilityDescriptor> skills() override;

 private:
  struct Entry {
    AgentTask task;
    std::vector<TaskUpdate> turn;  // the current turn's updates, replayed to new subscribers
    std::map<uint64_t, UpdateListener> listeners;
  };
  // Plays the scenario of `message_id` on the task.
  void play(const std::string& task_id, const std::string& message_id);
  // Applies one update to the task and tells its listeners; updates to a
  // task that has ended are dropped.
  void apply(const std::string& task_id, TaskUpdate update);
  void status(const std::string& task_id, TaskState state, const std::string& text = "");
  void artifact(const std::string& task_id, Artifact a, bool append = false, bool last_chunk = true);

  const std::chrono::milliseconds long_task_;
  // Held while updates are delivered (live or replayed), so that each
  // listener sees a task's updates once and in order. Taken before mu_.
  std::mutex deliver_mu_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::map<std::string, Entry> tasks_;
  std::vector<std::string> order_;  // oldest first
  uint64_t next_task_ = 0, next_subscription_ = 0, next_message_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> timers_;
};

}  // namespace kaisha::a2a
