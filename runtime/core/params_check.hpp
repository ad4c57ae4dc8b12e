// Checks parameters against the small JSON Schema subset that tool and
// method parameter schemas use in practice: "type" (a name or a list of
// names), "enum", "const", "required", "properties", "additionalProperties"
// (false or a schema) and "items", at every depth. Keywords outside the
// subset are ignored, never guessed at: a schema we do not understand
// accepts rather than rejecting a valid call.
//
// The one checker for every caller: JSON-RPC params (jsonrpc::Dispatcher),
// MCP tools/call arguments, and the arguments of a model's tool call
// (company::ToolRegistry). It reports nested paths ("params.arguments.mode"),
// which a remote peer or a model needs to find its mistake.
#pragma once

#include <string>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"

namespace kaisha {

// Ok, or Error{"invalid_params", message} whose message names the first
// offending location, e.g. "params.name: expected string, got a number".
// `root` names the value in messages. Never throws; a malformed schema
// (e.g. "required" not an array) is treated as absent.
Status check_params(const json& schema, const json& value, const std::string& root = "params");

// Whether json_kind names an integer "an integer" or, like any number,
// "a number".
enum class JsonIntegers { apart, as_numbers };

// How messages name the kind of `v`: "null", "a boolean", "an integer"
// (unless `integers` is as_numbers), "a number", "a string", "an array",
// "an object".
const char* json_kind(const json& v, JsonIntegers integers = JsonIntegers::apart);

}  // namespace kaisha
