#include "runtime/memory/memory_injection.hpp"

namespace kaisha::memory {

json injection_payload(const std::vector<RetrievedMemory>& memories, const MemoryTexts& texts) {
  json list = json::array(), shown = json::array();
  std::string transcript;
  for (const auto& m : memories) {
    list.push_back(
        json{{"key", m.entry.id}, {"memory", m.entry.content}, {"similarity", m.similarity}, {"score", m.score}});
    shown.push_back(memory_json(m.entry));
    transcript += (transcript.empty() ? "'" : ", '") + m.entry.content + "'";
  }
  if (memories.empty()) return json{{"injection", ""}, {"transcript", ""}, {"memories", list}};
  return json{{"injection", texts.injection + shown.dump()},
              {"transcript", texts.transcript + "[" + transcript + "]"},
              {"memories", list}};
}

std::string retrieval_query(const std::vector<std::string>& recent, const std::string& message, int context_messages) {
  std::string q;
  const size_t keep = context_messages > 1 ? static_cast<size_t>(context_messages - 1) : 0;
  const size_t first = recent.size() > keep ? recent.size() - keep : 0;
  for (size_t i = first; i < recent.size(); ++i) q += recent[i] + "\n";
  return q + message;
}

}  // namespace kaisha::memory
