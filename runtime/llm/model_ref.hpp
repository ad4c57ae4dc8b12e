// ModelRef: which provider serves a model, written "provider:model" in
// configs and on the command line, e.g. "ollama:llama3.2:3b" or
// "openai:gpt-4o-mini". Only the first ':' separates: the model part may
// itself contain ':' (Ollama tags).
#pragma once

#include <string>
#include <string_view>

#include "runtime/core/result.hpp"

namespace kaisha::llm {

struct ModelRef {
  std::string provider;  // "ollama", "openai", "gemini", "anthropic", or a configured name
  std::string model;     // the provider's own model name

  bool operator==(const ModelRef&) const = default;
};

// Splits `text` at its first ':'. Surrounding whitespace is ignored. Fails
// with code "config" (quoting `text`) when there is no ':' or either side is
// empty. The provider name is not checked against a list here: providers are
// configurable, so that is the caller's business.
Result<ModelRef> parse_model_ref(std::string_view text);

// "provider:model"; parse_model_ref(to_string(r)) == r for any valid r.
std::string to_string(const ModelRef& ref);

}  // namespace kaisha::llm
