#include "runtime/judge/judge_verdict.hpp"

#include <algorithm>
#include <cctype>

#include "runtime/core/ascii_case.hpp"
#include "runtime/core/utf8.hpp"
#include "runtime/prompt/json_extract.hpp"

namespace kaisha::planning {
namespace {

constexpr size_t kQuoteLimit = 500;  // how much of an unreadable answer to quote back

JudgeVerdict malformed(std::string_view answer, const std::string& what) {
  JudgeVerdict v;
  v.malformed = true;
  v.error_information = "the judge's verdict could not be read: " + what;
  v.output = utf8::shorten(answer, kQuoteLimit);
  return v;
}

std::string trim_lower(std::string s) {
  auto sp = [](unsigned char c) { return std::isspace(c); };
  s.erase(s.begin(), std::find_if_not(s.begin(), s.end(), sp));
  s.erase(std::find_if_not(s.rbegin(), s.rend(), sp).base(), s.end());
  return ascii_lower(s);
}

}  // namespace

const char* to_string(VerdictStatus s) { return s == VerdictStatus::success ? "success" : "error"; }

JudgeVerdict parse_verdict(std::string_view answer) {
  Result<json> parsed = extract_json(answer, JsonTop::object);
  if (!parsed) return malformed(answer, parsed.error().message);
  const json& j = *parsed;

  auto status = j.find("status");
  if (status == j.end() || !status->is_string())
    return malformed(answer, "\"status\" must be the string \"success\" or \"error\"");
  std::string s = trim_lower(status->get<std::string>());
  JudgeVerdict v;
  if (s == "success")
    v.status = VerdictStatus::success;
  else if (s == "error")
    v.status = VerdictStatus::error;
  else
    return malformed(answer, "\"status\" is '" + status->get<std::string>() + "', not \"success\" or \"error\"");

  auto output = j.find("output");
  if (output != j.end() && !output->is_null()) {
    if (!output->is_string()) return malformed(answer, "\"output\" must be a string");
    v.output = output->get<std::string>();
  }
  auto info = j.find("error_information");
  if (info != j.end() && !info->is_null()) {
    if (!info->is_string()) return malformed(answer, "\"error_information\" must be a string");
    v.error_information = info->get<std::string>();
  }
  if (v.status == VerdictStatus::error && trim_lower(v.error_information).empty())
    v.error_information = v.output.empty() ? "the judge rejected the result without giving a reason" : v.output;
  return v;
}

json to_json(const JudgeVerdict& v) {
  return json{{"status", to_string(v.status)}, {"output", v.output}, {"error_information", v.error_information}};
}

}  // namespace kaisha::planning
