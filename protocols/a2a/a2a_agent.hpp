// A2aAgent: what A2aService serves. The A2A layer (JSON-RPC and HTTP+JSON
// bindings, both eras' shapes) talks to an agent only through this
// interface, in A2A's own terms: tasks with all eight A2A states, artifacts
// made of any kind of part, and messages that may be answered by a Message
// instead of a task. The company is one such agent (company_agent.hpp); the
// A2A TCK's scripted scenario agent, a test fixture, is another.
//
// Parts and messages are JSON in A2A 1.0's ProtoJSON shape ({"text": ...},
// {"raw": base64, "filename", "mediaType"}, {"url": ...}, {"data": value};
// "ROLE_AGENT"); a2a_wire.hpp turns them into a v0.3 peer's shape.
//
// Every method is thread-safe and may be called from any thread (HTTP
// server threads); only wait() blocks.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/jsonrpc/descriptor.hpp"

namespace kaisha::a2a {

// The lifecycle of an A2A task (A2A 1.0 section 4.1.3).
enum class TaskState { submitted, working, input_required, auth_required, completed, failed, canceled, rejected };
// completed, failed, canceled, rejected: the task takes no further input.
bool is_terminal(TaskState s);
// input_required, auth_required: the task waits for the client's next message.
bool is_interrupted(TaskState s);

struct Artifact {
  std::string id;
  std::string name;            // may be empty
  json parts = json::array();  // v1.0 Part objects
};

// A task as its agent reports it.
struct AgentTask {
  std::string id;
  std::string context_id;
  TaskState state = TaskState::submitted;
  json status_message;     // v1.0 Message (the agent's word on this state) or null
  int64_t updated_ms = 0;  // when the status last changed
  std::vector<Artifact> artifacts;
  std::vector<json> history;  // v1.0 Messages, oldest first
  json metadata = json::object();
};

// One change of a working task, as it happens.
struct TaskUpdate {
  enum class Kind { status, artifact } kind = Kind::status;
  // Kind::status
  TaskState state = TaskState::working;
  json message;  // v1.0 Message or null
  int64_t at_ms = 0;
  json metadata = json::object();
  // Kind::artifact: the artifact (or a chunk of it, when appending)
  Artifact artifact;
  bool append = false;
  bool last_chunk = true;
};
// Receives a task's updates, from any thread; must not block for long. The
// last one of a task is a status update with a terminal or interrupted state.
using UpdateListener = std::function<void(const TaskUpdate&)>;

// A client's message, validated and read from either era (a2a_wire.hpp).
struct IncomingMessage {
  std::string message_id;
  std::string context_id;
  std::string task_id;
  std::string role;            // "user" or "agent", whatever the era
  std::string text;            // the text parts joined with "\n"; data parts as JSON
  json parts = json::array();  // every part, in v1.0 shape
  json metadata;               // the message's metadata, or null
};

// What a SendMessage started or said: the task it created or continued, or,
// for an agent that answers without a task, the Message it answered with.
struct SendOutcome {
  std::string task_id;  // set, or else `message` is
  json message;         // v1.0 Message or null
};

// How an agent refuses, as Error codes; A2aService maps them to A2A errors.
namespace agent_error {
inline constexpr const char* kTaskNotFound = "task_not_found";
inline constexpr const char* kTaskNotCancelable = "task_not_cancelable";
inline constexpr const char* kUnsupportedOperation = "unsupported_operation";
inline constexpr const char* kContentTypeNotSupported = "content_type_not_supported";
inline constexpr const char* kInvalidParams = "invalid_params";
inline constexpr const char* kInternal = "internal";  // the agent failed to act on a valid request
// A limit of the server was reached (the company's own code for it, as
// CompanySessions refuses); the same request may succeed later.
inline constexpr const char* kBusy = "limit";
}  // namespace agent_error

class A2aAgent {
 public:
  virtual ~A2aAgent() = default;

  // Acts on a user's message: starts a new task; or, when message.task_id
  // names a task waiting for input (is_interrupted), continues it with this
  // message; or answers with a Message. Returns at once (the task works on).
  // Errors: kTaskNotFound (unknown task_id), kUnsupportedOperation (a task
  // that takes no input), kInvalidParams (a context_id that does not match
  // the task's), kContentTypeNotSupported (parts the agent cannot read).
  virtual Result<SendOutcome> send(const IncomingMessage& message) = 0;

  // The task's current state; nullopt when unknown.
  virtual std::optional<AgentTask> task(const std::string& task_id) = 0;

  // Blocks until the task is terminal or interrupted, or `timeout` passed;
  // returns it as it is then.
  virtual Result<AgentTask> wait(const std::string& task_id, std::chrono::milliseconds timeout) = 0;

  // Cancels a task that has not ended. Errors: kTaskNotFound,
  // kTaskNotCancelable (it has ended).
  virtual Status cancel(const std::string& task_id) = 0;

  // The most recent tasks, newest first.
  virtual std::vector<AgentTask> tasks(size_t limit) = 0;

  // Replays the updates of the task's current turn (since it was created,
  // or last continued after an interruption) to `listener`, then streams the
  // rest until the task is terminal or interrupted, or unsubscribe() is
  // called. Fails with kTaskNotFound.
  virtual Result<uint64_t> subscribe(const std::string& task_id, UpdateListener listener) = 0;
  // Releases a subscription: its listener gets no update that starts being
  // delivered after this returns. Unknown ones are ignored.
  virtual void unsubscribe(const std::string& task_id, uint64_t subscription) = 0;

  // The skills its agent card lists.
  virtual std::vector<jsonrpc::CapabilityDescriptor> skills() = 0;
};

}  // namespace kaisha::a2a
