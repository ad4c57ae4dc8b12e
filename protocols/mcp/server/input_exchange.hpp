// InputExchange: one modern request's side of the multi round-trip pattern
// (MRTR, SEP-2322), which replaces server->client requests in 2026-07-28.
//
// A tool (or prompt) that needs input from the client — an elicitation, a
// sampling, the roots — asks for it; when the request did not bring the
// answers, the server answers with an InputRequiredResult listing what it
// needs ("inputRequests", by key) and an opaque "requestState", and the
// client retries the original request with "inputResponses" (same keys) and
// that state.
//
// The state is the server's, carried by the client: kaisha seals it (HMAC-
// SHA256 with a key made at process start), so a state the client altered,
// or one minted by another process, is refused with -32602 rather than
// trusted. A retry after a restart therefore starts over.
#pragma once

#include <optional>
#include <string>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::mcp {

// The Error code a tool returns (passes on) when it needs input the request
// did not bring: the server turns it into an InputRequiredResult.
inline constexpr const char* kInputRequired = "input_required";

// Whether an Error from McpCallContext::ask_client must be returned by the
// call as it is: input required (the client will be asked) or a missing
// client capability. Other errors (a legacy client that refused or timed
// out) are the tool's to report as it sees fit.
bool ends_the_call(const Error& error);

// The client capability an input request's method needs ("sampling" for
// sampling/createMessage, "elicitation", "roots"); empty for other methods.
std::string capability_for(const std::string& method);

class InputExchange {
 public:
  // Reads params.inputResponses and params.requestState of a modern request.
  // Error (code "invalid_params", saying what and where) when they are
  // malformed or the state fails its integrity check.
  static Result<InputExchange> from_params(const json& params);

  // The client's answer to the input request `key`, nullptr when it sent none.
  const json* response(const std::string& key) const;
  // What the previous round asked to carry (null on the first round).
  const json& state() const { return state_; }

  // Asks for `requests` ({key: {"method", "params"}}): the answers by key when
  // the client sent every one, else records what is missing (with `state` to
  // carry) and returns Error kInputRequired.
  Result<json> ask(const json& requests, const json& state);

  bool input_required() const { return !needed_.empty(); }
  // The InputRequiredResult for what ask() recorded.
  json input_required_result() const;

 private:
  json responses_ = json::object();
  json state_;
  json needed_ = json::object();
  json next_state_;
};

// requestState in its wire form and back (sealed as described above).
std::string seal_state(const json& state);
std::optional<json> open_state(const std::string& sealed);

}  // namespace kaisha::mcp
