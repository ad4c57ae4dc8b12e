#include "runtime/suite/suite_item_parse.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "runtime/answers/choice_match.hpp"
#include "runtime/answers/numeric_match.hpp"
#include "runtime/core/params_check.hpp"
#include "runtime/core/utf8.hpp"
#include "runtime/suite/scripted_turns.hpp"

namespace kaisha::suite {

namespace {

constexpr std::string_view kFields = "id, input, answer, format, tests, entry_point, tolerance, turns, metadata";

Error bad(std::string_view field, const std::string& what) {
  return Error{"suite", "\"" + std::string(field) + "\": " + what};
}

Error wrong_type(std::string_view field, const char* kind, const json& got) {
  return bad(field, std::string("expected ") + kind + ", got " + json_kind(got));
}

// A value from the file, quoted in a message: one line, cut.
std::string shown(std::string_view s) { return "\"" + utf8::one_line(s, 80) + "\""; }

bool python_identifier(std::string_view s) {
  auto head = [](char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  if (s.empty() || !head(s[0])) return false;
  return std::all_of(s.begin(), s.end(), [&](char c) { return head(c) || (c >= '0' && c <= '9'); });
}

Result<std::string> read_id(const json& v) {
  if (v.is_number_unsigned() || v.is_number_integer()) return v.dump();
  if (!v.is_string()) return wrong_type("id", "a string or an integer", v);
  const std::string& id = v.get_ref<const std::string&>();
  if (id.empty()) return bad("id", "is empty");
  if (id.size() > kMaxIdBytes) return bad("id", "is longer than " + std::to_string(kMaxIdBytes) + " bytes");
  if (std::any_of(id.begin(), id.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
    return bad("id", "holds a control character");
  return id;
}

// Which format an item without "format" has: what it carries decides.
std::string inferred_format(const json& v) {
  if (v.contains("turns")) return std::string(kInteractive);
  if (v.contains("tests")) return std::string(kCode);
  if (v.contains("answer")) return std::string(kExact);
  return "";
}

// The fields a format needs and those it does not take.
Status check_format_fields(const SuiteItem& item, const json& v) {
  const std::string& f = item.format;
  auto refuse = [&](std::string_view field, const std::string& why) -> Status {
    if (v.contains(field)) return bad(field, "not used by format " + f + " (" + why + ")");
    return {};
  };
  bool needs_answer = f == kExact || f == kNumeric || f == kMultipleChoice || f == kLatex || f == kF1;
  if (needs_answer && !item.answer) return bad("answer", "is missing (format " + f + " compares with it)");
  if (f == kNumeric && !answers::parse_number(*item.answer))
    return bad("answer", shown(*item.answer) + " is not a number (format numeric)");
  if (f == kMultipleChoice && !answers::parse_choice(*item.answer))
    return bad("answer", shown(*item.answer) + " is not one option letter such as B or (B) (format multiple_choice)");
  if (f == kCode && item.tests.empty()) return bad("tests", "is missing (format code runs them)");
  if (f == kInteractive && !v.contains("turns")) return bad("turns", "is missing (format interactive plays them)");
  if (f != kCode) {
    if (Status s = refuse("tests", "only format code runs tests"); !s) return s;
    if (Status s = refuse("entry_point", "only format code calls one"); !s) return s;
  }
  if (f != kInteractive)
    if (Status s = refuse("turns", "only format interactive plays turns"); !s) return s;
  if (f == kInteractive)
    if (Status s = refuse("answer", "its turns say what succeeds"); !s) return s;
  if (f != kNumeric)
    if (Status s = refuse("tolerance", "only format numeric has one"); !s) return s;
  return {};
}

}  // namespace

Result<SuiteItem> parse_suite_item(const json& v, size_t line) {
  if (!v.is_object()) return Error{"suite", std::string("expected a JSON object, got ") + json_kind(v)};
  SuiteItem item;
  item.id = "line-" + std::to_string(line);
  for (const auto& [key, field] : v.items()) {
    if (key == "id") {
      auto id = read_id(field);
      if (!id) return id.error();
      item.id = std::move(id.value());
    } else if (key == "input") {
      if (!field.is_string()) return wrong_type(key, "a string", field);
      item.input = field.get<std::string>();
    } else if (key == "answer") {
      if (field.is_string())
        item.answer = field.get<std::string>();
      else if (field.is_number())
        item.answer = field.dump();  // 42 -> "42"; numeric answers are often written bare
      else
        return wrong_type(key, "a string or a number", field);
    } else if (key == "format") {
      if (!field.is_string()) return wrong_type(key, "a string", field);
      item.format = field.get<std::string>();
      if (!known_format(item.format))
        return bad(
            key, shown(item.format) + " is not one of: exact, numeric, multiple_choice, latex, f1, code, interactive");
    } else if (key == "tests") {
      if (!field.is_string()) return wrong_type(key, "a string (Python source)", field);
      item.tests = field.get<std::string>();
      if (item.tests.empty()) return bad(key, "is empty");
    } else if (key == "entry_point") {
      if (!field.is_string()) return wrong_type(key, "a string", field);
      item.entry_point = field.get<std::string>();
      if (!python_identifier(item.entry_point))
        return bad(key, shown(item.entry_point) + " is not a Python function name");
    } else if (key == "tolerance") {
      if (!field.is_number() || !std::isfinite(field.get<double>()) || field.get<double>() < 0)
        return bad(key, "expected a number >= 0, got " + field.dump());
      item.tolerance = field.get<double>();
    } else if (key == "turns") {
      auto turns = parse_scripted_turns(field);
      if (!turns) return turns.error();
      item.turns = field;
    } else if (key == "metadata") {
      if (!field.is_object()) return wrong_type(key, "an object", field);
      item.metadata = field;
    } else {
      return Error{"suite", "unknown field \"" + key + "\" (fields: " + std::string(kFields) + ")"};
    }
  }
  if (!v.contains("input")) return bad("input", "is missing (the task itself)");
  if (item.input.empty()) return bad("input", "is empty");
  if (!v.contains("format")) item.format = inferred_format(v);
  if (Status s = check_format_fields(item, v); !s) return s.error();
  return item;
}

}  // namespace kaisha::suite
