// The ACP (IBM/BeeAI Agent Communication Protocol, OpenAPI 0.2.0) run model:
// a run's seven states, the Run and Message objects and the events a run
// emits, as the spec's JSON. Pure data and conversions; AcpService keeps
// the runs.
//
// Not to be confused with Zed's Agent Client Protocol or agntcy's Agent
// Connect Protocol, which share the acronym.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/company/company_service.hpp"
#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/core/uuid.hpp"

namespace kaisha::acp {

// created → in-progress → completed | failed; cancel moves a live run to
// cancelling, then cancelled. awaiting (the agent asks the client for more
// input, answered by resume) is part of the protocol, but kaisha's tasks
// never enter it.
enum class RunStatus { created, in_progress, awaiting, cancelling, cancelled, completed, failed };

const char* to_string(RunStatus s);
std::optional<RunStatus> run_status_from(std::string_view s);
bool is_terminal(RunStatus s);
// The company's task state as an ACP run status.
RunStatus run_status_of(company::TaskState s);

// ACP error bodies: {"code": "server_error"|"invalid_input"|"not_found", "message", "data"?}.
json error_body(std::string_view code, std::string_view message);

// {role, parts:[{content_type:"text/plain", content, content_encoding:"plain"}], created_at, completed_at}
json text_message(std::string_view role, std::string_view text, std::string_view at);

// The text of a list of ACP messages (the run's input): every plain text
// part, messages separated by blank lines. Errors (code "invalid_input")
// name the offending element, e.g. "input[0].parts[1]: ...".
Result<std::string> input_text(const json& input);

// A run as the protocol shows it.
struct Run {
  std::string run_id;  // a UUID
  std::string agent_name;
  std::string session_id;  // UUID or "" (sent as null)
  RunStatus status = RunStatus::created;
  std::string task_id;                  // the company task behind it
  std::string output;                   // the answer, when completed
  std::string error;                    // why, when failed
  std::string created_at, finished_at;  // ISO-8601; finished_at "" until terminal
  std::string question;                 // what the company asks its user, while awaiting
  json to_json() const;
};

// Event objects: {"type": "run.created", "run": {...}} and friends.
json run_event(const Run& run);  // run.<status>
json message_created(std::string_view role, std::string_view at);
json message_part(std::string_view text);
json message_completed(std::string_view role, std::string_view text, std::string_view at);
json generic_event(const json& payload);

// ISO-8601 UTC with milliseconds.
std::string iso_now();
// `ms` since the Unix epoch as ISO 8601 UTC with milliseconds.
std::string iso_of_ms(int64_t ms);

}  // namespace kaisha::acp
