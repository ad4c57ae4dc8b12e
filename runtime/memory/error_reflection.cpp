#include "runtime/memory/error_reflection.hpp"

#include "runtime/core/data_paths.hpp"
#include "runtime/memory/memory_texts.hpp"

namespace kaisha::memory {

Result<ErrorReflection> ErrorReflection::load(const std::string& path) {
  auto text = read_text_file(path.empty() ? data_file("prompts/memory/error_reflection.md") : path);
  if (!text.ok()) return text.error();
  return ErrorReflection(std::move(text).value());
}

std::string ErrorReflection::prompt(const std::string& task, const std::string& answer, const std::string& why) const {
  // {why} last: a reason quoting "{task}" must stay as written.
  return fill(fill(fill(template_, "task", task), "answer", answer), "why", why);
}

json ErrorReflection::verdict_note(const std::string& why, const std::string& by) {
  return json{{"feedback", "wrong"}, {"why", why}, {"by", by}};
}

}  // namespace kaisha::memory
