#include "runtime/hiva/environment/answer_check.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "runtime/answers/choice_match.hpp"
#include "runtime/answers/equivalence.hpp"
#include "runtime/answers/latex_equivalence.hpp"
#include "runtime/answers/numeric_match.hpp"
#include "runtime/answers/token_f1.hpp"
#include "runtime/answers/trim.hpp"
#include "runtime/core/utf8.hpp"

namespace kaisha::hiva {

namespace {

using suite::SuiteItem;

constexpr size_t kQuoted = 300;  // bytes of an answer or reference quoted

std::string quote(std::string_view s) { return "\"" + utf8::one_line(answers::trim(s), kQuoted) + "\""; }

std::string number_text(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : std::to_string(v);
}

EnvironmentFeedback verdict(bool ok, std::string text) { return {std::move(text), ok, ok ? 1.0 : 0.0}; }

EnvironmentFeedback check_exact(const SuiteItem& item, const std::string& answer, bool reveal) {
  if (answers::exact_match(answer, *item.answer)) return verdict(true, "Correct: the answer matches the reference.");
  if (reveal) return verdict(false, "Wrong: expected " + quote(*item.answer) + ", got " + quote(answer) + ".");
  return verdict(false, "Wrong: the answer " + quote(answer) + " does not match the reference.");
}

EnvironmentFeedback check_numeric(const SuiteItem& item, const std::string& answer, bool reveal) {
  std::optional<double> got = answers::answer_number(answer);
  double want = *answers::parse_number(*item.answer);  // parse_suite checked it
  if (!got)
    return verdict(false, "Wrong: no number could be read from the answer " + quote(answer) +
                              " (give the final number in \\boxed{}, after \"####\" or last).");
  if (answers::numbers_match(*got, want, item.tolerance))
    return verdict(true, "Correct: the answer's number, " + number_text(*got) + ", is right.");
  if (reveal)
    return verdict(false, "Wrong: expected " + std::string(answers::trim(*item.answer)) + ", the answer gives " +
                              number_text(*got) + ".");
  return verdict(false, "Wrong: the answer's number, " + number_text(*got) + ", is not the right one.");
}

EnvironmentFeedback check_choice(const SuiteItem& item, const std::string& answer, bool reveal) {
  std::optional<char> got = answers::answer_choice(answer);
  char want = *answers::parse_choice(*item.answer);  // parse_suite checked it
  if (!got)
    return verdict(false, "Wrong: no option letter could be read from the answer " + quote(answer) +
                              " (say \"The answer is (X)\").");
  std::string picked = std::string("(") + *got + ")";
  if (*got == want) return verdict(true, "Correct: the answer picks " + picked + ".");
  if (reveal) return verdict(false, "Wrong: the answer picks " + picked + ", the right option is (" + want + ").");
  return verdict(false, "Wrong: the answer picks " + picked + ", which is not the right option.");
}

EnvironmentFeedback check_latex(const SuiteItem& item, const std::string& answer, bool reveal) {
  std::string read = answers::normalize_latex(answer);
  std::string how = answers::boxed_content(answer) ? "" : " (no \\boxed{} found: the whole answer was compared)";
  if (answers::latex_equivalence(answer, *item.answer))
    return verdict(true, "Correct: the final answer " + quote(read) + " is right.");
  if (reveal)
    return verdict(false, "Wrong: the final answer reads " + quote(read) + how + "; the reference is " +
                              quote(*item.answer) + ".");
  return verdict(false, "Wrong: the final answer reads " + quote(read) + how + ", which is not the right answer.");
}

EnvironmentFeedback check_f1(const SuiteItem& item, const std::string& answer, bool reveal) {
  double f1 = answers::token_f1(answer, *item.answer);
  bool exact = answers::normalized_exact_match(answer, *item.answer);
  char score[16];
  std::snprintf(score, sizeof score, "%.2f", f1);
  std::string text = std::string(exact ? "Correct" : "Wrong") + ": token F1 " + score;
  if (reveal)
    text += " against the reference " + quote(*item.answer) + "; the answer was " + quote(answer) + ".";
  else
    text += exact ? "." : " (the answer " + quote(answer) + " is not an exact match).";
  return {text, exact, f1};
}

}  // namespace

EnvironmentFeedback check_answer(const SuiteItem& item, const std::string& answer, const CheckOptions& options) {
  const std::string& f = item.format;
  bool math = f == suite::kNumeric || f == suite::kLatex;
  bool reveal = options.reveal_reference.value_or(!math);
  if (item.answer) {
    if (f == suite::kExact) return check_exact(item, answer, reveal);
    if (f == suite::kNumeric) return check_numeric(item, answer, reveal);
    if (f == suite::kMultipleChoice) return check_choice(item, answer, reveal);
    if (f == suite::kLatex) return check_latex(item, answer, reveal);
    if (f == suite::kF1) return check_f1(item, answer, reveal);
  }
  if (f == suite::kCode) return {"Format code is judged by running its tests, not by comparing answers.", {}, {}};
  if (f == suite::kInteractive) return {"Format interactive is judged by its scripted episode.", {}, {}};
  return {"This task has no reference answer, so the environment cannot judge the answer.", {}, {}};
}

}  // namespace kaisha::hiva
