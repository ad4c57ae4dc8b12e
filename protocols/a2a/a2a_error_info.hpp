// A2A 1.0 (section 9.5): an A2A-specific JSON-RPC error (codes -32001 to
// -32099) carries a google.rpc.ErrorInfo in its `data` array, e.g.
//   "data": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo",
//             "reason": "TASK_NOT_FOUND", "domain": "a2a-protocol.org",
//             "metadata": {...}}]
// Standard JSON-RPC errors (-32700, -326xx) are left as they are.
//
// The HTTP+JSON binding (A2A 1.0 sections 5.4 and 11.6) carries the same
// errors as an HTTP status and an AIP-193 body:
//   {"error": {"code": 404, "status": "NOT_FOUND", "message": "...",
//              "details": [<the ErrorInfo above>]}}
#pragma once

#include <optional>
#include <string>

#include "runtime/core/json.hpp"

namespace kaisha::a2a {

// The ErrorInfo reason of an A2A error code ("TASK_NOT_FOUND" for -32001);
// none for codes outside A2A's own range or unknown within it.
std::optional<std::string> error_reason(int code);

// Adds the ErrorInfo to a JSON-RPC response (or to each response of a
// batch) whose error has an A2A code. Whatever `data` held before is kept
// as the ErrorInfo's metadata (string values; others as JSON text).
void add_error_info(json& response);

// The HTTP status and google.rpc status name of an error code: A2A's table
// for A2A codes (TaskNotFound 404, TaskNotCancelable 409, ContentType 415,
// InvalidAgentResponse 502, the others 400); parse, request and params
// errors 400, method not found 404, anything else 500.
struct HttpErrorStatus {
  int http = 500;
  const char* status = "INTERNAL";
};
HttpErrorStatus http_error_status(int code);

// The AIP-193 body for a JSON-RPC error object {code, message, data?}:
// error.code is the HTTP status, details the ErrorInfo for A2A codes.
json rest_error_body(const json& rpc_error);

}  // namespace kaisha::a2a
