// The A2A JSON model as it travels on the wire, in both eras one endpoint
// serves: v1.0 (ProtoJSON: `{"text": ...}` parts, "ROLE_USER",
// "TASK_STATE_COMPLETED", results wrapped as {"task": ...}) and v0.3 (`kind`
// discriminators on parts, messages, tasks and events; "user", "completed";
// a bare Task as the result). Builders take the version and produce the
// exact shape a peer of that era parses; readers accept either shape, so a
// client or server never has to know which era its peer speaks before
// reading.
//
// Everything here is pure: no I/O, no company. Readers never throw; a
// malformed value gives an Error (code "invalid_params") naming the field.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/company/company_service.hpp"
#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::a2a {

enum class WireVersion { v1_0, v0_3 };

// The method name a JSON-RPC request used tells its era: "SendMessage" is
// v1.0, "message/send" v0.3. Both map to the same canonical (v1.0) name.
struct MethodName {
  std::string canonical;  // "SendMessage", "GetTask", ...
  WireVersion version = WireVersion::v1_0;
};
std::optional<MethodName> classify_method(std::string_view method);

// The value of the A2A-Version header (or query parameter): empty means 0.3
// (the spec's rule for old clients); "1.0" and "0.3"/"0.3.0" are served;
// anything else is an Error naming the versions we speak.
Result<WireVersion> parse_version_header(std::string_view value);

// ---- task states -----------------------------------------------------------
// kaisha's lifecycle has five states; A2A's eight are a superset (kaisha
// tasks never ask for input or auth and are never rejected after submit).
std::string state_name(company::TaskState s, WireVersion v);
// Reads either era's name ("TASK_STATE_WORKING" or "working"). The A2A
// states kaisha has no equivalent for (rejected, input-required,
// auth-required, unspecified) come back with `state` empty and `name` set,
// so a client can still report them; an unknown name is an Error.
struct RemoteState {
  std::optional<company::TaskState> state;
  std::string name;            // as received
  bool terminal = false;       // completed, failed, canceled, rejected
  bool interrupted = false;    // input-required, auth-required
};
Result<RemoteState> parse_state(const json& value);

// ---- parts and messages ----------------------------------------------------
json text_part(std::string_view text, WireVersion v);
// {messageId, role, parts:[text], contextId?, taskId?} (+ kind in v0.3).
json agent_message(std::string_view message_id, std::string_view text, std::string_view context_id,
                   std::string_view task_id, WireVersion v);
json user_message(std::string_view message_id, std::string_view text, std::string_view context_id,
                  std::string_view task_id, WireVersion v);

// What a request's message says, read from either era's shape.
struct IncomingMessage {
  std::string message_id;
  std::string context_id;
  std::string task_id;
  std::string role;   // "user" or "agent", whatever the era
  std::string text;   // the text parts joined with "\n"; data parts as JSON
};
// `where` prefixes error messages ("params.message").
Result<IncomingMessage> read_message(const json& message, const std::string& where = "params.message");

// The text of a message's or artifact's parts, either era; non-text parts
// are skipped (data parts are rendered as JSON).
std::string parts_text(const json& parts);

// ---- tasks and events ------------------------------------------------------
// ISO-8601 UTC with milliseconds, as A2A timestamps are written.
std::string iso_timestamp(int64_t unix_ms);

// The Task object for `info`: status (with the error as an agent message
// when failed or canceled), the answer as one artifact when completed, the
// input as the history's user message (history_length 0 omits it).
// `context_id` is the company's session.
json task_json(const company::TaskInfo& info, std::string_view context_id, WireVersion v,
               std::optional<int> history_length = std::nullopt);

// The id of the answer artifact of a task (stable, so an artifactUpdate and a
// later GetTask agree).
std::string answer_artifact_id(std::string_view task_id);

// The result of SendMessage: {"task": T} in v1.0, T itself in v0.3.
json send_result(const json& task, WireVersion v);

// Stream events (the `result` of one SSE JSON-RPC response).
json stream_task(const json& task, WireVersion v);
json stream_status(std::string_view task_id, std::string_view context_id, company::TaskState state,
                   int64_t at_ms, const json& message, WireVersion v, const json& metadata = json::object());
json stream_artifact(std::string_view task_id, std::string_view context_id, std::string_view artifact_id,
                     std::string_view name, std::string_view text, WireVersion v);

// What one stream event (or a SendMessage result) is, read from either era.
struct StreamEvent {
  enum class Kind { task, message, status, artifact } kind = Kind::message;
  json body;             // the Task, Message, status or artifact update object
  std::string task_id;
  std::string text;      // message text, status message text, or artifact text
  RemoteState state;     // task and status events
};
Result<StreamEvent> read_stream_event(const json& result);

}  // namespace kaisha::a2a
