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

#include "protocols/a2a/a2a_agent.hpp"
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

// A request field by its JSON name ("historyLength"), or by its proto field
// name ("history_length"), which ProtoJSON parsers must accept too; null
// when neither is there.
const json* proto_field(const json& obj, std::string_view json_name);

// The value of the A2A-Version header (or query parameter): empty means 0.3
// (the spec's rule for old clients); "1.0" and "0.3"/"0.3.0" are served;
// anything else is an Error naming the versions we speak.
Result<WireVersion> parse_version_header(std::string_view value);

// ---- task states -----------------------------------------------------------
// A2A's eight states: "TASK_STATE_INPUT_REQUIRED" in v1.0, "input-required"
// in v0.3.
std::string state_name(TaskState s, WireVersion v);
// kaisha's company lifecycle has five of them.
TaskState a2a_state(company::TaskState s);
std::string state_name(company::TaskState s, WireVersion v);
// Reads either era's name ("TASK_STATE_WORKING" or "working"). The A2A
// states kaisha has no equivalent for (rejected, input-required,
// auth-required, unspecified) come back with `state` empty and `name` set,
// so a client can still report them; an unknown name is an Error.
struct RemoteState {
  std::optional<company::TaskState> state;
  std::string name;          // as received
  bool terminal = false;     // completed, failed, canceled, rejected
  bool interrupted = false;  // input-required, auth-required
};
Result<RemoteState> parse_state(const json& value);

// ---- parts and messages ----------------------------------------------------
json text_part(std::string_view text, WireVersion v);
// {messageId, role, parts:[text], contextId?, taskId?} (+ kind in v0.3).
json agent_message(std::string_view message_id, std::string_view text, std::string_view context_id,
                   std::string_view task_id, WireVersion v);
json user_message(std::string_view message_id, std::string_view text, std::string_view context_id,
                  std::string_view task_id, WireVersion v);

// A request's message, read from either era's shape (IncomingMessage is in
// a2a_agent.hpp): ids, role, the text, and every part in v1.0 shape. Text,
// data and file parts (v1.0 raw/url, v0.3 file with bytes/uri) are read;
// which of them an agent accepts is the agent's business. `where` prefixes
// error messages ("params.message").
Result<IncomingMessage> read_message(const json& message, const std::string& where = "params.message");

// A v1.0 Part or Message in the shape of `v` (unchanged for v1.0; for v0.3
// with `kind`, file parts as {"file": {bytes|uri, name, mimeType}}, roles
// "user"/"agent").
json part_json(const json& v1_part, WireVersion v);
json message_json(const json& v1_message, WireVersion v);

// The text of a message's or artifact's parts, either era; non-text parts
// are skipped (data parts are rendered as JSON).
std::string parts_text(const json& parts);

// ---- tasks and events ------------------------------------------------------
// ISO-8601 UTC with milliseconds, as A2A timestamps are written.
std::string iso_timestamp(int64_t unix_ms);
// An RFC 3339 / ISO-8601 date-time ("2026-11-29T10:00:00Z", fractions of a
// second and a "+09:00" offset allowed) in ms since the epoch; nullopt when
// the text is not one.
std::optional<int64_t> parse_iso_timestamp(const std::string& text);

// The Task object: id, contextId, status (state, timestamp, the agent's
// message if any), artifacts, history (the last `history_length` messages;
// all when unset) and metadata. Without artifacts when include_artifacts is
// false.
json task_json(const AgentTask& task, WireVersion v, std::optional<int> history_length = std::nullopt,
               bool include_artifacts = true);
json artifact_json(const Artifact& artifact, WireVersion v);

// The result of SendMessage: {"task": T} in v1.0, T itself in v0.3.
json send_result(const json& task, WireVersion v);

// Stream events (the `result` of one SSE JSON-RPC response).
json stream_task(const json& task, WireVersion v);
// `message` is a v1.0 Message or null; v0.3 updates carry `final` (true for
// terminal and interrupted states, which end a stream).
json stream_status(std::string_view task_id, std::string_view context_id, TaskState state, int64_t at_ms,
                   const json& message, WireVersion v, const json& metadata = json::object());
json stream_artifact(std::string_view task_id, std::string_view context_id, const Artifact& artifact, bool append,
                     bool last_chunk, WireVersion v);
// A Message as a stream's only event (or a SendMessage result): {"message": M}
// in v1.0, M itself in v0.3.
json message_result(const json& v1_message, WireVersion v);

// What one stream event (or a SendMessage result) is, read from either era.
struct StreamEvent {
  enum class Kind { task, message, status, artifact } kind = Kind::message;
  json body;  // the Task, Message, status or artifact update object
  std::string task_id;
  std::string text;   // message text, status message text, or artifact text
  RemoteState state;  // task and status events
};
Result<StreamEvent> read_stream_event(const json& result);

}  // namespace kaisha::a2a
