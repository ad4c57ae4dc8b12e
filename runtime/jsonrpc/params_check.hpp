// Checks JSON-RPC params against the small JSON Schema subset that method
// and tool parameter schemas use in practice: "type" (a name or a list of
// names), "enum", "const", "required", "properties", "additionalProperties"
// (false or a schema) and "items". Keywords outside the subset are ignored,
// never guessed at: a schema we do not understand accepts rather than
// rejecting a valid call.
//
// Lives here rather than reusing company/schema_check so that the protocol
// layer does not depend on the company layer; it also reports nested paths
// ("params.arguments.mode"), which a remote peer needs to find its mistake.
#pragma once

#include <string>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::jsonrpc {

// Ok, or Error{"invalid_params", message} whose message names the first
// offending location, e.g. "params.name: expected a string, got a number".
// `root` names the value in messages. Never throws; a malformed schema
// (e.g. "required" not an array) is treated as absent.
Status check_params(const json& schema, const json& value, const std::string& root = "params");

}  // namespace kaisha::jsonrpc
