// ErrorReflection: HASHIRU's error reflection (Case Study 4). When an answer
// is marked wrong — by the user (`kaisha feedback TASK --wrong "why"`) or by
// the judge rejecting the CEO's final answer for good — the CEO is given the
// task, its answer and the reason, and writes a critique with guidance into
// memory (MemoryManager, key ErrorAnalysis_<Topic>) where a similar later
// question retrieves it. This class holds the message that asks for it
// (prompts/memory/error_reflection.md) and the journal note of the verdict;
// the CEO's own model does the rest.
#pragma once

#include <string>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::memory {

class ErrorReflection {
 public:
  // Reads the prompt template (default prompts/memory/error_reflection.md);
  // an error names the file.
  static Result<ErrorReflection> load(const std::string& path = "");

  // The message to the CEO: the template with {task}, {answer} and {why} filled in.
  std::string prompt(const std::string& task, const std::string& answer, const std::string& why) const;

  // The journal payload of a "wrong" verdict: {"feedback": "wrong", "why", "by"}
  // where `by` is "user" (kaisha feedback) or "judge".
  static json verdict_note(const std::string& why, const std::string& by);

 private:
  explicit ErrorReflection(std::string text) : template_(std::move(text)) {}
  std::string template_;
};

}  // namespace kaisha::memory
