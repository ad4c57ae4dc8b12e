// Dialect: one LLM wire format (OpenAI-compatible, Ollama, Gemini, Anthropic)
// in both directions. The client side builds HTTP requests from the neutral
// chat vocabulary (chat.hpp) and parses what comes back; the server side does
// the reverse, for the mock LLM server and for round-trip tests. Dialects are
// stateless, immutable singletons: every method is const and thread-safe.
//
// Nothing here throws on bad input: malformed bodies yield an Error (code
// "llm") whose message names the dialect and what was missing. Tool-call
// arguments are kept as text exactly as received (a JSON object on the wire is
// stored as its dump()), so malformed arguments survive for the caller to
// report back to the model.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/result.hpp"
#include "runtime/llm/chat.hpp"
#include "runtime/llm/http_request_spec.hpp"
#include "runtime/llm/stream_decoder.hpp"

namespace kaisha::llm {

// Where a provider lives. base_url conventions per dialect:
//   openai     "https://api.openai.com/v1"        (includes /v1)
//   ollama     "http://127.0.0.1:11434"
//   gemini     "https://generativelanguage.googleapis.com/v1beta"
//   anthropic  "https://api.anthropic.com"          (without /v1)
// A trailing '/' is ignored. `headers` are added to every request after the
// dialect's own (e.g. an OpenAI-Organization header or a proxy's auth).
struct Endpoint {
  std::string base_url;
  std::string api_key;  // empty: no auth header is sent (local servers)
  std::map<std::string, std::string> headers;
};

class Dialect {
 public:
  virtual ~Dialect() = default;

  // "openai", "ollama", "gemini" or "anthropic".
  virtual std::string_view name() const = 0;

  // ---- client side ----

  // The HTTP request for `req`; streaming when req.stream.
  virtual HttpRequestSpec chat_request(const ChatRequest& req, const Endpoint& ep) const = 0;
  // Parses a non-streamed response body.
  virtual Result<ChatResponse> parse_chat_response(std::string_view body) const = 0;
  // A fresh decoder for a streamed response body.
  virtual std::unique_ptr<StreamDecoder> stream_decoder() const = 0;

  // False for dialects without an embeddings API (Anthropic). Then
  // embed_request returns a spec with an empty url and parse_embed_response
  // an Error saying so.
  virtual bool supports_embeddings() const { return true; }
  virtual HttpRequestSpec embed_request(const EmbedRequest& req, const Endpoint& ep) const = 0;
  virtual Result<EmbedResponse> parse_embed_response(std::string_view body) const = 0;

  // "<dialect>: HTTP <status>: <provider's message>", the message taken from
  // the provider's error body when it has one, else the start of the body.
  virtual std::string describe_error(int http_status, std::string_view body) const = 0;

  // ---- server side ----

  // `path` is the request path (Gemini carries the model and the streaming
  // choice in it, e.g. "/v1beta/models/gemini-2.0-flash:streamGenerateContent").
  virtual Result<ChatRequest> parse_chat_request(std::string_view path, std::string_view body) const = 0;
  virtual std::string render_chat_response(const ChatResponse& resp) const = 0;
  // The exact chunks to write for a streamed response, in order, the last one
  // being the terminal event. Concatenated they form the whole body.
  virtual std::vector<std::string> render_chat_stream(const ChatResponse& resp) const = 0;
  // The Content-Type of a streamed body ("text/event-stream" or
  // "application/x-ndjson").
  virtual std::string stream_content_type() const = 0;
  virtual Result<EmbedRequest> parse_embed_request(std::string_view path, std::string_view body) const = 0;
  virtual std::string render_embed_response(const EmbedResponse& resp) const = 0;
  // The provider's error body for `status` carrying `message`.
  virtual std::string render_error(int status, std::string_view message) const = 0;
};

// The dialect called `name` ("openai", "ollama", "gemini", "anthropic"), or
// nullptr. The returned object lives for the whole program.
const Dialect* find_dialect(std::string_view name);

// The singletons behind find_dialect, one per dialect file.
const Dialect& openai_dialect();
const Dialect& ollama_dialect();
const Dialect& gemini_dialect();
const Dialect& anthropic_dialect();

}  // namespace kaisha::llm
