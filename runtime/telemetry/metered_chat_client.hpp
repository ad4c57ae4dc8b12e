// MeteredChatClient wraps a ChatClient and measures every model call that
// goes through it: how many, how long (on the monotonic clock, from the call
// to its answer, retries included), and the tokens the provider reported.
// Nothing else changes: the call, its handlers and its errors pass through.
//
// Metrics (provider is the model ref's prefix, "ollama" in "ollama:llama3.2"):
//   kaisha_model_calls_total{provider,model,outcome}   outcome ok | error
//   kaisha_model_call_seconds{provider,model}          latency histogram
//   kaisha_model_tokens_total{provider,model,direction} input | output
//   kaisha_model_retries_total{provider,model}
//
// Thread-safe as the wrapped client is.
#pragma once

#include <memory>

#include "runtime/company/chat_client.hpp"
#include "runtime/telemetry/metrics_registry.hpp"

namespace kaisha::telemetry {

std::shared_ptr<company::ChatClient> metered(std::shared_ptr<company::ChatClient> inner,
                                             MetricsRegistry& registry = default_registry());

}  // namespace kaisha::telemetry
