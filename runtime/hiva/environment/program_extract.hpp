// The program in an answer to a coding task: models wrap code in markdown
// fences and often write prose around it.
#pragma once

#include <string>
#include <string_view>

namespace kaisha::hiva {

// The content of the last fenced block whose language is python, py or
// python3 (ASCII case-insensitive); else of the last fenced block of any
// language; else the whole answer. A fence is a line starting (after at
// most three spaces) with three or more backticks or tildes; it closes at a
// line of at least as many of the same character and nothing else but
// spaces. A block left open runs to the end of the answer (a reply cut by
// its token limit still yields its code).
std::string extract_program(std::string_view answer);

}  // namespace kaisha::hiva
