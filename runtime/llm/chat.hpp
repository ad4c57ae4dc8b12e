// The provider-neutral chat vocabulary. Every dialect (OpenAI-compatible,
// Ollama, Gemini, Anthropic) converts to and from these types; the mock LLM
// server matches its rules against them. They carry a msgpack map encoding so
// that a chat request can cross a process boundary unchanged.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <msgpack.hpp>

#include "runtime/core/json.hpp"
#include "runtime/core/json_msgpack.hpp"

namespace kaisha::llm {

enum class Role : int { system = 0, user = 1, assistant = 2, tool = 3 };

const char* to_string(Role r);

// A function call requested by the model. `arguments` is the JSON text exactly
// as the model produced it: it may be malformed, and the caller decides what to
// do with a parse failure (the CEO sends the error back to the model).
struct ToolCall {
  std::string id;
  std::string name;
  std::string arguments;
  MSGPACK_DEFINE_MAP(id, name, arguments)
};

struct ChatMessage {
  Role role = Role::user;
  std::string content;
  std::vector<ToolCall> tool_calls;  // assistant messages only
  std::string tool_call_id;          // tool messages: which call this answers
  std::string name;                  // tool messages: the tool's name
  MSGPACK_DEFINE_MAP(role, content, tool_calls, tool_call_id, name)
};

// A function the model may call: name, description and a JSON Schema object
// for its parameters.
struct ToolSpec {
  std::string name;
  std::string description;
  json parameters = json::object();
  MSGPACK_DEFINE_MAP(name, description, parameters)
};

struct Usage {
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
  bool estimated = false;  // true when the provider sent no usage figures
  MSGPACK_DEFINE_MAP(input_tokens, output_tokens, estimated)
};

struct ChatRequest {
  std::string model;  // the provider's own model name, e.g. "llama3.2"
  std::vector<ChatMessage> messages;
  std::vector<ToolSpec> tools;
  std::optional<double> temperature;
  std::optional<int64_t> max_tokens;
  bool stream = false;
  // The provider's sampling seed, for the dialects that take one (OpenAI,
  // Ollama, Gemini; Anthropic has none and is sent none). Last in the map: a
  // peer of an earlier version skips the key it does not know.
  std::optional<int64_t> seed;
  MSGPACK_DEFINE_MAP(model, messages, tools, temperature, max_tokens, stream, seed)
};

struct ChatResponse {
  std::string model;
  ChatMessage message;  // role assistant; text and/or tool calls
  Usage usage;
  std::string finish_reason;  // "stop", "tool_calls", "length", ...
  MSGPACK_DEFINE_MAP(model, message, usage, finish_reason)
};

struct EmbedRequest {
  std::string model;
  std::vector<std::string> inputs;
  MSGPACK_DEFINE_MAP(model, inputs)
};

struct EmbedResponse {
  std::vector<std::vector<float>> vectors;
  Usage usage;
  MSGPACK_DEFINE_MAP(vectors, usage)
};

}  // namespace kaisha::llm

MSGPACK_ADD_ENUM(kaisha::llm::Role);
