// LibraryGeneration: a pyramid agent library written by a model from a
// description of a domain (InfiAgent's generated libraries, infiagent.md §10
// item 58). Each answer is checked with AgentLibrary's own rules (the
// loader's, exactly as `kaisha agents --library` and the pyramid strategy
// apply them); an answer that breaks one goes back to the model with the
// loader's error, until one passes or `max_attempts` answers have been read.
//
// Pure: the caller makes the model calls (first_request, then on_answer with
// each answer's text) and writes the library it ends with. The prompts are
// data: prompts/pyramid/generate_library*.md.
#pragma once

#include <string>
#include <vector>

#include "runtime/core/result.hpp"
#include "runtime/llm/chat.hpp"
#include "runtime/prompt/prompt_template.hpp"

namespace kaisha::pyramid {

// The YAML of a model's answer: the first fenced block (```yaml or ```),
// else the whole text, trimmed.
std::string answer_yaml(const std::string& text);

class LibraryGeneration {
 public:
  // `source` names the library in the loader's errors (the file it will be
  // written to). Errors: an empty description, max_attempts outside 1..10,
  // or a prompt file missing or with the wrong placeholders.
  static Result<LibraryGeneration> create(std::string description, std::string source, int max_attempts,
                                          const std::string& prompts_dir = "");

  // The first request: the system prompt and the domain.
  llm::ChatRequest first_request() const;

  struct Step {
    enum class Kind { ask_again, done, failed } kind = Kind::failed;
    std::string yaml;          // done: the library, as the model wrote it
    std::string error;         // ask_again, failed: the loader's error for the last answer
    llm::ChatRequest request;  // ask_again: the conversation so far and the loader's error
  };
  // One answer's text. After `done` or `failed`, further answers are refused.
  Step on_answer(const std::string& text);

  int attempts() const { return attempts_; }

 private:
  LibraryGeneration(std::string description, std::string source, int max_attempts, planning::PromptTemplate system,
                    planning::PromptTemplate request, planning::PromptTemplate retry);

  std::string description_;
  std::string source_;
  int max_attempts_;
  planning::PromptTemplate system_, request_, retry_;
  std::vector<llm::ChatMessage> messages_;
  int attempts_ = 0;
  bool over_ = false;
};

}  // namespace kaisha::pyramid
