// Multiple-choice answers (MMLU, BBH, ...): the option letter an answer
// picks, compared with the reference letter. Letters are A..Z; the result
// is always upper case.
#pragma once

#include <optional>
#include <string_view>

namespace kaisha::answers {

// The letter when the whole of `text`, trimmed and stripped of surrounding
// '*', '`', '"' and '\'' (markdown emphasis, quotes), is one option: "B",
// "b", "(B)", "[B]", "B.", "B)", "B:"; nullopt otherwise. References are read
// this way.
std::optional<char> parse_choice(std::string_view text);

// The letter an answer picks, looking in this order:
//   1. the whole answer is one option (parse_choice);
//   2. after the last "answer is", "answer:", "option" or "choice" (ASCII
//      case-insensitive), past spaces, '*', ':' and "is": "(x)" or "[x]" in
//      either case, or an upper-case letter not followed by a letter or
//      digit;
//   3. the last "(X)" with X upper case anywhere in the answer.
// nullopt when none of these finds a letter.
std::optional<char> answer_choice(std::string_view answer);

// answer_choice(answer) == parse_choice(reference), both present.
bool choice_match(std::string_view answer, std::string_view reference);

}  // namespace kaisha::answers
