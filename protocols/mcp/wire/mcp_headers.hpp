// The values modern (2026-07-28) Streamable HTTP requests mirror into
// headers (SEP-2243): Mcp-Name, and Mcp-Param-{name} for the tool arguments
// a tool's inputSchema marks with "x-mcp-header". Shared by kaisha's server
// (which checks the headers against the body) and client (which sends them).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "protocols/mcp/wire/mcp_revision.hpp"
#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::mcp {

// The value of an Mcp-Name or Mcp-Param-* header as the body has it: the
// "=?base64?...?=" sentinel decoded (strictly: the base64 alphabet, whole
// quads, padding only at the end, UTF-8 inside); nullopt when that encoding
// is broken or the plain value has characters a header may not carry.
std::optional<std::string> decode_header_value(const std::string& value);
// The header form of `value`: itself when it is plain visible ASCII without
// leading or trailing blanks, else the base64 sentinel.
std::string encode_header_value(const std::string& value);

// One argument mirrored into a header: Mcp-Param-<header> carries the
// argument at `path` (a chain of "properties" keys from the schema root).
struct HeaderParam {
  std::string header;
  std::vector<std::string> path;
};

// The x-mcp-header parameters of `input_schema`; an Error (code
// "invalid_tool", saying which annotation breaks which rule) when one is
// empty, not a header token, repeated (in any case), on a type other than
// string, integer or boolean, or not reachable through "properties" alone.
Result<std::vector<HeaderParam>> header_params(const json& input_schema);

// The header text of an argument value: a string as it is, an integer in
// decimal, a boolean as true/false; nullopt for null, absent or other types.
std::optional<std::string> header_text(const json& value);

// The argument at `path` in `arguments`, nullptr when absent.
const json* value_at(const json& arguments, const std::vector<std::string>& path);

// Server side: every x-mcp-header argument the call carries must come with
// its Mcp-Param header, decoding to the same value (-32020 otherwise; an
// integer compares as a number). nullopt when all is well, and for a tool
// whose annotations are invalid (nothing is expected of such a tool).
std::optional<Rejection> check_param_headers(const json& input_schema, const json& arguments,
                                             const RequestEnvelope& envelope);

}  // namespace kaisha::mcp
