// The real ChatBackend: provider::LlmClient over libcurl, configured from
// the providers and retry settings of a Config.
#pragma once

#include <memory>

#include "runtime/company/chat_backend.hpp"
#include "runtime/config/config.hpp"

namespace kaisha::actors {

std::shared_ptr<company::ChatBackend> make_llm_backend(const config::Config& config);

}  // namespace kaisha::actors
