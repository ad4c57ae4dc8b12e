// How retrieved memories reach the CEO (hashiru.md §2.8, §9 item 49): a user
// message "Here are the relevant memories for the user's query: [...]" for
// the model, and "Memories: ['The user is vegetarian.']" for the transcript.
#pragma once

#include <string>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/memory/memory_bank.hpp"
#include "runtime/memory/memory_manager.hpp"
#include "runtime/memory/memory_texts.hpp"

namespace kaisha::memory {

// {"injection": text for the model, "transcript": text for people,
//  "memories": [{"key", "memory", "similarity", "score"}]}. With no
// memories, "injection" and "transcript" are empty.
json injection_payload(const std::vector<RetrievedMemory>& memories, const MemoryTexts& texts);

// The retrieval query: the last `context_messages` − 1 texts of the
// conversation before it (the paper's "current context") and the new message.
std::string retrieval_query(const std::vector<std::string>& recent, const std::string& message, int context_messages);

}  // namespace kaisha::memory
