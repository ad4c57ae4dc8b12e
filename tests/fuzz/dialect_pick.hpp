// The LLM dialect a fuzz input is for, chosen by its first byte, so that one
// target and one corpus cover all four wire formats.
#pragma once

#include <cstdint>

#include "runtime/llm/dialect.hpp"

namespace kaisha::fuzz {

inline const llm::Dialect& pick_dialect(uint8_t selector) {
  switch (selector % 4) {
    case 0:
      return llm::openai_dialect();
    case 1:
      return llm::ollama_dialect();
    case 2:
      return llm::gemini_dialect();
    default:
      return llm::anthropic_dialect();
  }
}

}  // namespace kaisha::fuzz
