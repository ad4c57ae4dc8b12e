// kaisha/model.hpp: how a company reaches its models. By default the
// providers of its configuration (OpenAI-compatible, Ollama, Gemini,
// Anthropic over HTTP); a ModelBackend replaces them, for a model in this
// process or a transport of your own, and may hand the model refs it does
// not serve to the default one (default_models()).
//
// A model ref is "<provider>:<model>" ("openai:gpt-4o-mini"); every model
// the CEO hires must also be in the cost table (docs/economy.md).
// Threading: chat() is called on company threads and must not block:
// answer by calling handlers.on_done exactly once, from any thread.
// check_model() may be called from any thread. Ownership: the company shares
// the backend (CompanyOptions::models) until it is destroyed.
// Errors: a failed call is on_done(Error{...}) (code "http", "timeout", ...);
// the company retries or fails the call as configured. Nothing may throw.
#pragma once

#include <memory>
#include <string>

#include "runtime/company/chat_client.hpp"
#include "runtime/core/result.hpp"
#include "runtime/llm/chat.hpp"

namespace kaisha {

using ModelBackend = company::ChatClient;
using ModelHandlers = company::ChatHandlers;
using ChatRequest = llm::ChatRequest;
using ChatResponse = llm::ChatResponse;
using ChatMessage = llm::ChatMessage;
using Role = llm::Role;

// The backend kaisha uses when none is given: the providers (and retries)
// of the configuration in `config_file` or `config_text` (as in
// CompanyOptions). An error names what in the configuration was wrong.
Result<std::shared_ptr<ModelBackend>> default_models(const std::string& config_file,
                                                     const std::string& config_text = "");

}  // namespace kaisha
