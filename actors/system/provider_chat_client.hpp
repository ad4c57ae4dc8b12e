// The real ChatClient: provider::LlmClient over libcurl, configured from
// the providers and retry settings of a Config.
#pragma once

#include <memory>

#include "runtime/company/chat_client.hpp"
#include "runtime/config/config.hpp"

namespace kaisha::actors {

std::shared_ptr<company::ChatClient> make_provider_chat_client(const config::Config& config);

}  // namespace kaisha::actors
