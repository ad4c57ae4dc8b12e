// A judge's verdict (infiagent.md §3.6.2, §3.9, §10 item 24): the Output
// Control JSON {"status": "success"|"error", "output": "...",
// "error_information": "..."} the judge returns through final_output.
#pragma once

#include <string>
#include <string_view>

#include "runtime/core/json.hpp"

namespace kaisha::planning {

enum class VerdictStatus { success, error };

const char* to_string(VerdictStatus s);

struct JudgeVerdict {
  VerdictStatus status = VerdictStatus::error;
  std::string output;             // the judge's report
  std::string error_information;  // non-empty whenever status is error
  bool malformed = false;         // the judge's answer could not be read (status is then error)

  bool success() const { return status == VerdictStatus::success; }
};

// Reads the judge's answer (its final_output arguments, or message text; a
// ```json fence or leading prose is tolerated as json_extract.hpp says).
//
// Never fails. An unreadable answer — no JSON, a status other than
// "success"/"error" (any case), a non-string output or error_information —
// becomes an error verdict with malformed=true and an error_information
// saying what was wrong, because an unreadable verdict must never pass as a
// success; the audit loop then treats it like any rejection.
// An error verdict with an empty error_information is kept as an error and
// gets one: the judge's output, or a note that no reason was given.
JudgeVerdict parse_verdict(std::string_view answer);

// {"status", "output", "error_information"}.
json to_json(const JudgeVerdict& v);

}  // namespace kaisha::planning
