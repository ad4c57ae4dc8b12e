#include "runtime/hiva/replies/teacher_review.hpp"

#include "runtime/core/ascii_case.hpp"
#include "runtime/hiva/replies/reply_text.hpp"
#include "runtime/hiva/replies/tagged_reply.hpp"

namespace kaisha::hiva {
namespace {

std::optional<size_t> verdict_value(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (!reply::is_word_char(text[i]) || (i > 0 && reply::is_word_char(text[i - 1]))) continue;
    std::optional<size_t> end = reply::match_words(text, i, {"verdict"});
    if (!end) continue;
    if (std::optional<size_t> v = reply::after_separator(text, *end, false)) return v;
    i = *end - 1;
  }
  return std::nullopt;
}

}  // namespace

Parsed<TeacherReview> parse_teacher_review(std::string_view raw) {
  reply::Problems problems("math teacher");
  const std::string text = reply::normalize(raw, problems);
  TeacherReview review;
  bool defaulted = false;
  if (std::optional<size_t> v = verdict_value(text)) {
    size_t b = *v;
    while (b < text.size() && !reply::is_word_char(text[b]) && text[b] != '\n') ++b;
    size_t e = b;
    while (e < text.size() && reply::is_word_char(text[e])) ++e;
    std::string word = ascii_lower(std::string_view(text).substr(b, e - b));
    if (word == "correct" || word == "right" || word == "true" || word == "yes")
      review.correct = true;
    else if (word == "incorrect" || word == "wrong" || word == "false" || word == "no" || word == "partially")
      review.correct = false;
    else
      problems.add("the verdict is " + reply::in_quotes(word) + ", expected CORRECT or INCORRECT"), defaulted = true;
  } else {
    problems.add("no VERDICT"), defaulted = true;
  }
  Parsed<std::string> feedback = parse_feedback(text);
  if (feedback.problem) problems.add(*feedback.problem);
  review.feedback = std::move(feedback.value);
  return {std::move(review), problems.text(), defaulted || feedback.defaulted};
}

}  // namespace kaisha::hiva
