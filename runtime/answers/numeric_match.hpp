// Numeric answers (GSM8K-style word problems): the number an answer gives,
// compared with the reference number within a tolerance.
//
// A number is written: an optional sign, digits (groups of three may be
// separated by commas: "1,234,567"), an optional fraction (".5", "2.50")
// and an optional exponent ("1e6", "2.5E-3"). "$1,200.50" reads 1200.5 (the
// currency sign is not part of it); "50%" reads 50; "3/4" reads 3 then 4
// (fractions are LaTeX answers: use the latex format). A comma not followed
// by exactly three digits ends the number ("1,2" is 1 then 2).
#pragma once

#include <optional>
#include <string_view>

namespace kaisha::answers {

// The value when the whole of `text`, trimmed, is one number (nothing
// before or after it); nullopt otherwise.
std::optional<double> parse_number(std::string_view text);

// The number an answer gives, looking in this order and taking the first
// place that holds a number:
//   1. the content of the last \boxed{...}: its last number;
//   2. the text after the last "####" (GSM8K's marker): its first number;
//   3. the text after the last "answer is" / "answer:" (ASCII
//      case-insensitive): its first number;
//   4. the whole answer: its last number.
// nullopt when the answer holds no number.
std::optional<double> answer_number(std::string_view answer);

// The default tolerance: relative, 1e-6 of the reference (at least 1e-6).
inline constexpr double kNumericRelativeTolerance = 1e-6;

// |got - reference| <= tolerance, where the tolerance is `absolute` when
// given, else kNumericRelativeTolerance * max(1, |reference|).
bool numbers_match(double got, double reference, std::optional<double> absolute = std::nullopt);

// answer_number(answer) matches parse_number(reference); false when either
// holds no number.
bool numeric_match(std::string_view answer, std::string_view reference, std::optional<double> absolute = std::nullopt);

}  // namespace kaisha::answers
