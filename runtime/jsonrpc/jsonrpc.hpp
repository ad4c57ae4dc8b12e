// JSON-RPC 2.0 messages: parsing a request body (one object or a batch) into
// requests, notifications and responses, and building the response objects.
// MCP and A2A speak this on the wire; the transports (HTTP, SSE, stdio) only
// move bodies, so every decision about what a body means is made here.
//
// Nothing here throws for bad input: an unparseable body, an invalid request
// object or a body over the size limit becomes the JSON-RPC error response
// the peer is owed, with a message saying what was wrong and where.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "runtime/core/bounded_json.hpp"
#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::jsonrpc {

// The error codes JSON-RPC 2.0 defines. -32000..-32099 are left to
// implementations: MCP (-32002 resource not found, -32020, -32022 ...) and A2A
// (-32001 TaskNotFound ... -32009 VersionNotSupported) use that range, and
// this layer passes such codes through unchanged.
namespace code {
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
inline constexpr int kServerErrorFirst = -32099;  // implementation-defined range
inline constexpr int kServerErrorLast = -32000;
}  // namespace code

// The "error" member of a response. `data` is omitted from the wire when null.
struct RpcError {
  int code = code::kInternalError;
  std::string message;
  json data;
};

// A request or notification that passed validation. `id` is a string, a
// number or null exactly as the peer sent it, so that it can be echoed
// byte-for-byte in the response. `params` is an object, an array, or null
// when the member was absent.
struct Request {
  std::string method;
  json params;
  json id;
  bool notification = false;  // true when the "id" member was absent
};

// A response the peer sent us (MCP servers send requests to clients, and the
// client's answers arrive on the same endpoint). Exactly one of result/error
// was present; `error` holds it when it was an error response.
struct IncomingResponse {
  json id;
  json result;
  std::optional<RpcError> error;
};

// One element of a parsed body: something to dispatch, a response to route to
// whoever sent the matching request, or an error response (a JSON object,
// ready to send) that stands in for an element that was not a valid message.
using Message = std::variant<Request, IncomingResponse, json>;

struct Limits {
  JsonLimits body;         // size and nesting of a body (the one limit for every JSON body)
  size_t max_batch = 256;  // elements in one batch
};

// The outcome of parsing a body. When the body as a whole is unusable
// (unparseable, empty batch, too large, too deep, not an object or array)
// `messages` holds exactly one error response and `batch` is false: the peer
// gets a single error object, as JSON-RPC 2.0 requires.
struct ParsedBody {
  bool batch = false;
  std::vector<Message> messages;
};

// Parses a request body. Never throws.
ParsedBody parse_body(std::string_view body, const Limits& limits = {});

// Validates one already-parsed JSON value as a message. Never throws. Used
// for each batch element and by transports that parse frames themselves.
Message parse_message(const json& value);

// Ok, or an Error (code "too_large") naming the size and the limit. Lets a
// transport refuse a body by its Content-Length before reading it.
Status check_body_size(size_t bytes, size_t limit);

// Response builders. `id` must be what the request carried (null when it
// could not be determined).
json make_result(const json& id, json result);
json make_error(const json& id, const RpcError& error);
json make_error(const json& id, int code, std::string message, json data = nullptr);
json make_request(const json& id, std::string_view method, json params = nullptr);
json make_notification(std::string_view method, json params = nullptr);

// Joins the responses owed for one parsed body: nullopt when nothing is owed
// (a notification, or a batch of only notifications), the single response
// for a non-batch body, else the array.
std::optional<json> join_responses(bool batch, std::vector<json> responses);

// The standard message text for a standard code ("Parse error", "Invalid
// Request", ...); empty for other codes.
std::string_view standard_message(int code);

}  // namespace kaisha::jsonrpc
