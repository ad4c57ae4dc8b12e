#include "runtime/suite/suite_parse.hpp"

#include <unordered_map>

#include "runtime/core/bounded_json.hpp"
#include "runtime/core/utf8.hpp"
#include "runtime/suite/suite_item_parse.hpp"

namespace kaisha::suite {

namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

bool blank_or_comment(std::string_view line) {
  size_t i = line.find_first_not_of(" \t\r\f\v");
  return i == std::string_view::npos || line[i] == '#';
}

// The 1-based byte of the first ill-formed sequence, 0 when there is none.
size_t first_bad_byte(std::string_view line) {
  for (size_t i = 0; i < line.size();) {
    utf8::Decoded d = utf8::decode(line.substr(i));
    if (!d.ok) return i + 1;
    i += d.length;
  }
  return 0;
}

// The parser counts lines inside the text it is given; here that is always
// one suite line, so its "line 1, column C" is the column alone.
std::string column_only(std::string message) {
  const std::string_view from = "at line 1, column ";
  if (size_t at = message.find(from); at != std::string::npos) message.replace(at, from.size(), "at column ");
  return message;
}

class Errors {
 public:
  explicit Errors(std::string file) : file_(std::move(file)) {}
  void add(size_t line, const std::string& what) {
    if (listed_.size() < kMaxListedErrors)
      listed_.push_back(file_ + ":" + std::to_string(line) + ": " + what);
    else
      ++more_;
  }
  bool any() const { return !listed_.empty(); }
  Error error() const {
    std::string text;
    for (const std::string& e : listed_) text += (text.empty() ? "" : "\n") + e;
    if (more_) text += "\n(and " + std::to_string(more_) + " more error" + (more_ == 1 ? ")" : "s)");
    return Error{"suite", text};
  }

 private:
  std::string file_;
  std::vector<std::string> listed_;
  size_t more_ = 0;
};

}  // namespace

Result<std::vector<SuiteItem>> parse_suite(std::string_view text, const std::string& file_name,
                                           const SuiteLimits& limits) {
  if (text.size() > limits.max_file_bytes)
    return Error{"suite", file_name + ": " + std::to_string(text.size()) + " bytes, more than the " +
                              std::to_string(limits.max_file_bytes) + " a suite may have"};

  Errors errors(file_name);
  std::vector<SuiteItem> items;
  std::unordered_map<std::string, size_t> id_lines;
  size_t line_no = 0;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.substr(0, kBom.size()) == kBom) line.remove_prefix(kBom.size());  // files joined with cat keep theirs
    if (blank_or_comment(line)) continue;
    if (line.size() > limits.max_line_bytes) {
      errors.add(line_no, std::to_string(line.size()) + " bytes, more than the " +
                              std::to_string(limits.max_line_bytes) + " a task's line may have");
      continue;
    }
    if (size_t bad = first_bad_byte(line)) {
      errors.add(line_no, "not valid UTF-8 at byte " + std::to_string(bad) + " of the line");
      continue;
    }
    BoundedJson parsed = parse_bounded_json(line, JsonLimits{limits.max_line_bytes, limits.max_depth});
    if (!parsed.ok) {
      errors.add(line_no, column_only(parsed.error.message));
      continue;
    }
    Result<SuiteItem> item = parse_suite_item(parsed.value, line_no);
    if (!item) {
      errors.add(line_no, item.error().message);
      continue;
    }
    auto [seen, fresh] = id_lines.emplace(item->id, line_no);
    if (!fresh) {
      errors.add(line_no, "\"id\": \"" + utf8::one_line(item->id, 80) + "\" is already the id of line " +
                              std::to_string(seen->second));
      continue;
    }
    if (items.size() == limits.max_items) {
      errors.add(line_no, "more than the " + std::to_string(limits.max_items) + " tasks a suite may have");
      break;
    }
    items.push_back(std::move(item.value()));
  }
  if (errors.any()) return errors.error();
  if (items.empty()) return Error{"suite", file_name + ": holds no task (every line is blank or a comment)"};
  return items;
}

}  // namespace kaisha::suite
