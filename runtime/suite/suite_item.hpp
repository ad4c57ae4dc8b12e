// One task of a task suite (a JSONL file, docs/suites.md): what the company
// is asked, and how its answer is checked. The suite is shared by
// `kaisha evolve` (HiVA's environment) and `kaisha eval`; parse_suite
// (suite_parse.hpp) only ever returns items that passed every check below,
// so consumers never re-validate.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/core/json.hpp"

namespace kaisha::suite {

// How an answer is checked.
inline constexpr std::string_view kExact = "exact";                     // trimmed byte equality with `answer`
inline constexpr std::string_view kNumeric = "numeric";                 // the answer's number within a tolerance
inline constexpr std::string_view kMultipleChoice = "multiple_choice";  // the option letter picked
inline constexpr std::string_view kLatex = "latex";                     // LaTeX-normalised equality (maths)
inline constexpr std::string_view kF1 = "f1";                           // token F1 / normalised exact match
inline constexpr std::string_view kCode = "code";                       // Python unit tests run on the program
inline constexpr std::string_view kInteractive = "interactive";         // a scripted multi-turn environment
// In the order users read them (docs/suites.md and error messages).
inline constexpr std::array<std::string_view, 7> kFormats = {
    kExact, kNumeric, kMultipleChoice, kLatex, kF1, kCode, kInteractive,
};

// Whether `format` is one of kFormats (exact spelling, lower case).
bool known_format(std::string_view format);

struct SuiteItem {
  // Unique in its suite. From the line's "id" (a string, or an integer
  // written in decimal), else "line-N" for the item on line N.
  std::string id;
  std::string input;  // the task, as the company receives it; never empty
  // The reference answer: required by exact, numeric (a number),
  // multiple_choice (one letter), latex and f1; for code an optional
  // reference solution, never shown; absent for interactive.
  std::optional<std::string> answer;
  // One of kFormats, or empty for an item nothing can check (only useful
  // where the environment is switched off and answers are self-critiqued).
  std::string format;
  std::string tests;                // code: the Python tests (never empty for code)
  std::string entry_point;          // code: the function the tests call, when they need one
  std::optional<double> tolerance;  // numeric: absolute tolerance; default relative 1e-6
  json turns;                       // interactive: the script (scripted_turns.hpp), checked
  json metadata = json::object();   // anything else the line carried under "metadata"
};

}  // namespace kaisha::suite
