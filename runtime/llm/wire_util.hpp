// Small helpers shared by the dialect files: tolerant JSON access (a missing
// or mistyped field is an absent value, never an exception), tool-argument
// conversion, URL joining. Internal to runtime/llm.
#pragma once

#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/llm/chat.hpp"
#include "runtime/llm/dialect.hpp"

namespace kaisha::llm::wire {

// Error{"llm", "<dialect>: <message>"}.
Error error(std::string_view dialect, std::string_view message);

// Parses wire text as JSON (discarded when malformed). This is where a
// model's text enters kaisha: ill-formed UTF-8 is repaired first (U+FFFD,
// runtime/core/utf8.hpp), so a provider's stray byte costs one character,
// not the whole answer, and nothing downstream meets invalid text.
json parse_text(std::string_view text);

// Parses `body` as a JSON object; `what` names it in the error ("response").
Result<json> parse_object(std::string_view dialect, std::string_view body, std::string_view what);

// The member `key` of `j`, or nullptr when `j` is not an object, has no such
// member, or the member is null.
const json* member(const json& j, const char* key);
// The member as a string; "" when absent or not a string.
std::string str(const json& j, const char* key);
// The member as an integer; `fallback` when absent or not a number.
int64_t integer(const json& j, const char* key, int64_t fallback = 0);
// A JSON number as an integer: a float is truncated, and anything beyond
// int64_t is clamped to its range (a plain conversion of such a float is
// undefined behaviour, and the number may come from any peer).
int64_t as_int64(const json& number);
// The member if it is an array, else nullptr.
const json* array(const json& j, const char* key);
// Text of a "content" that is a string, null, or (OpenAI style) an array of
// {"type":"text","text":...} parts.
std::string text_of(const json& content);

// Tool-call arguments as stored in ToolCall::arguments: a wire string is kept
// verbatim, anything else (normally an object) becomes its dump(); absent or
// null is "{}".
std::string args_from_wire(const json* v);
// For dialects whose wire form is a JSON object: the parsed arguments when
// they are a JSON object; empty text as {}; anything else (malformed JSON, a
// non-object) as a JSON string holding the text verbatim, so that nothing is
// lost (args_from_wire gives it back unchanged).
json args_to_wire(const std::string& arguments);

// base_url without trailing '/' followed by `path`.
std::string join_url(std::string_view base_url, std::string_view path);

// Appends the endpoint's extra headers to `spec`.
void add_endpoint_headers(HttpRequestSpec& spec, const Endpoint& ep);

// A JSON POST to base_url + `path`: Content-Type, the API key (when the
// endpoint has one) as header `key_header` with value `key_prefix` + key,
// `extra` headers, then the endpoint's own headers (which may override).
HttpRequestSpec json_post(const Endpoint& ep, std::string_view path, const json& body, const char* key_header,
                          std::string_view key_prefix = "",
                          std::vector<std::pair<std::string, std::string>> extra = {});

// Fills the name of tool-result messages that lack one from the assistant
// tool call with the same id earlier in `messages`.
void resolve_tool_names(std::vector<ChatMessage>& messages);

// The name of the tool call with id `id` in the assistant messages before
// position `before`; "" when not found.
std::string tool_name_for(const std::vector<ChatMessage>& messages, size_t before, const std::string& id);

// At most the first 300 bytes of `body` (cut at a character, repaired), for
// error messages.
std::string excerpt(std::string_view body);

// `text` cut into pieces of about `size` bytes without splitting a UTF-8
// sequence; empty text gives no pieces. Used to render realistic streams.
std::vector<std::string> pieces(std::string_view text, size_t size = 24);

// When usage is all zero and absent from the wire: estimated output from the
// reply, estimated flag set.
void mark_estimated_usage(ChatResponse& resp);

// Runs `fn` (returning Result<T>) and turns any exception from a JSON
// accessor into an Error, so no exception escapes a dialect.
template <class T, class Fn>
Result<T> guarded(std::string_view dialect, Fn&& fn) {
  try {
    return fn();
  } catch (const std::exception& e) {
    return error(dialect, std::string("malformed body: ") + e.what());
  }
}

}  // namespace kaisha::llm::wire
