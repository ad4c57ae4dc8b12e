// The math teacher's review (hiva.md §10 item 9, the MATH environment): a
// verdict line and feedback that guides without revealing the answer,
//   VERDICT: CORRECT | INCORRECT
//   <FEEDBACK>...</FEEDBACK>
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "runtime/hiva/replies/parsed_reply.hpp"

namespace kaisha::hiva {

struct TeacherReview {
  // From the word after "VERDICT:" (case-insensitive): CORRECT, RIGHT, TRUE,
  // YES are true; INCORRECT, WRONG, FALSE, NO, PARTIALLY are false.
  // nullopt, with a problem, when missing or unreadable: the environment
  // then reports no binary success rather than a guessed one.
  std::optional<bool> correct;
  std::string feedback;  // as parse_feedback reads it
};

Parsed<TeacherReview> parse_teacher_review(std::string_view reply);

}  // namespace kaisha::hiva
