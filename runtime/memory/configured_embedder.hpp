// The company's embedder, as the config names it: memory.embedding_model (a
// provider's model ref, checked now) or, when it is empty, the built-in
// hashed n-gram embedder with memory.embedding_dims dimensions. Memory and
// HiVA's knowledge cost both take theirs from here, so one setting chooses
// the embedder of the whole company.
#pragma once

#include <memory>

#include "runtime/config/config.hpp"
#include "runtime/core/result.hpp"
#include "runtime/memory/embedder.hpp"

namespace kaisha::memory {

// Error{"config", "memory.embedding_model '<ref>': <why>"} when the model's
// provider is not configured.
Result<std::shared_ptr<Embedder>> configured_embedder(const config::Config& c);

}  // namespace kaisha::memory
