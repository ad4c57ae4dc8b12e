// PromptTemplate is a prompt text kept in a file under prompts/, with
// {{name}} placeholders (names: letters, digits, '_'; spaces inside the
// braces allowed). Everything else — JSON examples included — is literal,
// so a template can show the model the exact JSON it must return.
// Substituted values are not scanned again: a task that itself contains
// "{{x}}" is inserted as is.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/core/result.hpp"

namespace kaisha::planning {

class PromptTemplate {
 public:
  // Error (code "prompt") naming the path when the file cannot be read.
  static Result<PromptTemplate> load(const std::string& path);
  // load(), and an error (code "prompt") unless the template uses exactly
  // the placeholders `names`, so that rendering it later with those values
  // cannot fail.
  static Result<PromptTemplate> load_exactly(const std::string& path, const std::set<std::string>& names);
  // `origin` names the template in errors.
  static PromptTemplate from_text(std::string text, std::string origin = "<inline template>");

  const std::string& text() const { return text_; }
  const std::string& origin() const { return origin_; }
  // Distinct placeholder names, in order of first appearance.
  std::vector<std::string> placeholders() const;

  // Fills every placeholder. Error (code "prompt") listing the placeholders
  // that have no value; values for names the template lacks are ignored.
  Result<std::string> render(const std::map<std::string, std::string>& values) const;

 private:
  // A literal run of the text, or (placeholder) the name of one.
  struct Part {
    std::string text;
    bool placeholder = false;
  };

  PromptTemplate(std::string text, std::string origin);

  std::string text_;
  std::string origin_;
  std::vector<Part> parts_;  // text_ split once, so a render only appends
};

}  // namespace kaisha::planning
