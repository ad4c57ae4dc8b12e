// Resolving a model ref ("openai:gpt-4o-mini") against the configuration:
// which provider entry, which dialect, which endpoint. Every check that can be
// made before any network traffic happens here, so that a typo in a model ref
// or a missing API key is reported up front with a message saying what to fix.
#pragma once

#include <string>
#include <string_view>

#include "runtime/config/config.hpp"
#include "runtime/core/result.hpp"
#include "runtime/llm/dialect.hpp"
#include "runtime/llm/model_ref.hpp"

namespace kaisha::provider {

struct ResolvedModel {
  std::string text;  // the ref as given, trimmed: "openai:gpt-4o-mini"
  llm::ModelRef ref;
  const config::ProviderConfig* provider = nullptr;  // points into the Config
  const llm::Dialect* dialect = nullptr;             // a program-lifetime singleton
  llm::Endpoint endpoint;
};

// True when `url`'s host is loopback (localhost, 127.x.x.x, [::1]).
bool is_loopback_url(std::string_view url);

// Whether requests to `p` (with its dialect `dialect`) must carry an API key:
// always for gemini and anthropic; for openai-compatible endpoints unless they
// are on loopback (a local llama.cpp / vLLM / Ollama server); never for ollama.
bool needs_api_key(const config::ProviderConfig& p, std::string_view dialect);

// Resolves `model_ref` against `cfg`. The provider's dialect is its `dialect`
// field or, when that is empty, its name. Errors have code "config" and say
// what is wrong, e.g. "unknown provider 'foo' in model ref 'foo:bar'
// (configured providers: anthropic, gemini, ollama, openai)". The result
// points into `cfg`, which must outlive it.
Result<ResolvedModel> resolve_model(const config::Config& cfg, std::string_view model_ref);

}  // namespace kaisha::provider
