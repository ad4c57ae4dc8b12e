// A2A 1.0 (section 9.5): an A2A-specific JSON-RPC error (codes -32001 to
// -32099) carries a google.rpc.ErrorInfo in its `data` array, e.g.
//   "data": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo",
//             "reason": "TASK_NOT_FOUND", "domain": "a2a-protocol.org",
//             "metadata": {...}}]
// Standard JSON-RPC errors (-32700, -326xx) are left as they are.
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

}  // namespace kaisha::a2a
