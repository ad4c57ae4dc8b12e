#include "runtime/llm/dialect.hpp"

namespace kaisha::llm {

const Dialect* find_dialect(std::string_view name) {
  if (name == "openai") return &openai_dialect();
  if (name == "ollama") return &ollama_dialect();
  if (name == "gemini") return &gemini_dialect();
  if (name == "anthropic") return &anthropic_dialect();
  return nullptr;
}

}  // namespace kaisha::llm
