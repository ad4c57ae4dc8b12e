#include "runtime/halo/replies/answer_parse.hpp"

#include "runtime/answers/latex_equivalence.hpp"
#include "runtime/answers/trim.hpp"
#include "runtime/halo/replies/reply_json.hpp"

namespace kaisha::halo {
namespace {

// The "answer" string of the reply, or nullopt with the reason in `problems`.
std::optional<std::string> answer_text(std::string_view reply, reply::Problems& problems) {
  const std::string key(kAnswerKey);
  Result<json> object = reply::object(reply, key);
  if (!object) {
    problems.add(object.error().message);
  } else if (auto it = object->find(key); it == object->end()) {
    problems.add(reply::missing(*object, key));
  } else if (!it->is_string()) {
    problems.add("key \"" + key + "\" is " + reply::kind(*it) + ", expected a string");
  } else {
    return it->get<std::string>();
  }
  return std::nullopt;
}

}  // namespace

Parsed<std::string> parse_mmlu_answer(std::string_view reply) {
  reply::Problems problems("MMLU answer parser");
  if (std::optional<std::string> text = answer_text(reply, problems)) {
    std::string_view letter = answers::trim(*text);
    if (letter.size() == 1) {
      char c = letter[0] >= 'a' && letter[0] <= 'd' ? static_cast<char>(letter[0] - 'a' + 'A') : letter[0];
      if (c >= 'A' && c <= 'D') return {std::string(1, c), std::nullopt, false};
    }
    problems.add("\"answer\" is " + reply::in_quotes(*text) + ", expected one letter A-D");
  }
  problems.add("the answer is C");
  return {std::string(kDefaultMmluAnswer), problems.text(), true};
}

Parsed<MathAnswer> parse_math_answer(std::string_view reply) {
  reply::Problems problems("MATH answer parser");
  if (std::optional<std::string> text = answer_text(reply, problems)) {
    std::optional<std::string> boxed = answers::boxed_content(*text);
    std::string latex = boxed ? *boxed : std::string(answers::trim(*text));
    std::string normalized = answers::normalize_latex(latex);
    if (!normalized.empty()) {
      if (!boxed) problems.add("\"answer\" is not in boxed{...}; used as written");
      return {MathAnswer{std::move(latex), std::move(normalized)}, problems.text(), false};
    }
    problems.add("\"answer\" is " + reply::in_quotes(*text) + ", which holds no formula");
  }
  problems.add("the answer is boxed$0$");
  return {MathAnswer{"0", "0"}, problems.text(), true};
}

}  // namespace kaisha::halo
