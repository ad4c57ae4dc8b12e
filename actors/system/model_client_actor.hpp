// The model client: every LLM call of every agent in this process goes
// through it. It hands the call to a ChatClient (one curl_multi loop) and
// answers the requester when the chat client calls back — no scheduler thread
// ever waits on the network.
//
// Protocol: (chat_atom, msg::LlmCall) -> msg::LlmResult
#pragma once

#include <memory>

#include <caf/fwd.hpp>

#include "runtime/company/chat_client.hpp"
#include "runtime/company/progress_sink.hpp"

namespace kaisha::actors {

// Retries the chat client makes are reported to `progress` (may be null).
caf::actor spawn_model_client(caf::actor_system& sys, std::shared_ptr<company::ChatClient> chat,
                              std::shared_ptr<company::ProgressSink> progress = nullptr);

}  // namespace kaisha::actors
