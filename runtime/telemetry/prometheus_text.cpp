#include "runtime/telemetry/prometheus_text.hpp"

#include <cmath>
#include <cstdlib>

namespace kaisha::telemetry {
namespace {

bool name_char(char c, bool first) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' || (!first && c >= '0' && c <= '9');
}

std::optional<double> parse_number(std::string_view t) {
  if (t == "NaN") return std::nan("");
  if (t == "+Inf" || t == "Inf") return HUGE_VAL;
  if (t == "-Inf") return -HUGE_VAL;
  if (t.empty()) return std::nullopt;
  std::string s(t);
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return std::nullopt;
  return v;
}

struct Cursor {
  std::string_view s;
  size_t i = 0;
  bool done() const { return i >= s.size(); }
  char peek() const { return s[i]; }
  void skip_blanks() {
    while (!done() && (s[i] == ' ' || s[i] == '\t')) ++i;
  }
};

Error line_error(size_t line, const std::string& what) {
  return Error{"metrics_format", "line " + std::to_string(line) + ": " + what};
}

}  // namespace

namespace {

// True when `s` is named `name` and has every pair of `labels`.
bool matches(const ParsedSample& s, std::string_view name, const std::map<std::string, std::string>& labels) {
  if (s.name != name) return false;
  for (const auto& [k, v] : labels) {
    auto it = s.labels.find(k);
    if (it == s.labels.end() || it->second != v) return false;
  }
  return true;
}

}  // namespace

std::optional<double> ParsedExposition::value(std::string_view name,
                                              const std::map<std::string, std::string>& labels) const {
  std::optional<double> found;
  for (const auto& s : samples) {
    if (!matches(s, name, labels)) continue;
    if (found) return std::nullopt;
    found = s.value;
  }
  return found;
}

double ParsedExposition::sum(std::string_view name, const std::map<std::string, std::string>& labels) const {
  double total = 0;
  for (const auto& s : samples)
    if (matches(s, name, labels)) total += s.value;
  return total;
}

Result<ParsedExposition> parse_prometheus_text(std::string_view text) {
  ParsedExposition out;
  size_t line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) return line_error(line_no + 1, "the exposition must end with a newline");
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (line.empty()) continue;
    if (line[0] == '#') {
      // "# HELP name text" / "# TYPE name type"; other comments are ignored.
      for (std::string_view kw : {std::string_view("# HELP "), std::string_view("# TYPE ")}) {
        if (line.substr(0, kw.size()) != kw) continue;
        std::string_view rest = line.substr(kw.size());
        size_t sp = rest.find(' ');
        std::string name(rest.substr(0, sp));
        std::string arg = sp == std::string_view::npos ? "" : std::string(rest.substr(sp + 1));
        if (kw == "# TYPE ") {
          if (arg != "counter" && arg != "gauge" && arg != "histogram" && arg != "summary" && arg != "untyped")
            return line_error(line_no, "unknown metric type '" + arg + "'");
          if (out.types.count(name)) return line_error(line_no, "a second TYPE line for " + name);
          out.types[name] = arg;
        } else {
          std::string h;
          for (size_t i = 0; i < arg.size(); ++i) {
            if (arg[i] == '\\' && i + 1 < arg.size()) {
              ++i;
              h += arg[i] == 'n' ? '\n' : arg[i];
            } else {
              h += arg[i];
            }
          }
          out.help[name] = h;
        }
      }
      continue;
    }
    Cursor c{line};
    ParsedSample s;
    if (c.done() || !name_char(c.peek(), true)) return line_error(line_no, "a sample must start with a metric name");
    while (!c.done() && name_char(c.peek(), false)) s.name += line[c.i++];
    if (!c.done() && c.peek() == '{') {
      ++c.i;
      while (true) {
        c.skip_blanks();
        if (c.done()) return line_error(line_no, "unterminated label set");
        if (c.peek() == '}') {
          ++c.i;
          break;
        }
        std::string label;
        if (!name_char(c.peek(), true)) return line_error(line_no, "bad label name");
        while (!c.done() && name_char(c.peek(), false)) label += line[c.i++];
        if (c.done() || c.peek() != '=') return line_error(line_no, "label " + label + " has no '='");
        ++c.i;
        if (c.done() || c.peek() != '"') return line_error(line_no, "label " + label + "'s value is not quoted");
        ++c.i;
        std::string value;
        bool closed = false;
        while (!c.done()) {
          char ch = line[c.i++];
          if (ch == '"') {
            closed = true;
            break;
          }
          if (ch == '\\') {
            if (c.done()) break;
            char esc = line[c.i++];
            if (esc == 'n')
              value += '\n';
            else if (esc == '\\' || esc == '"')
              value += esc;
            else
              return line_error(line_no, std::string("bad escape \\") + esc + " in label " + label);
          } else {
            value += ch;
          }
        }
        if (!closed) return line_error(line_no, "label " + label + "'s value is not closed");
        if (s.labels.count(label)) return line_error(line_no, "label " + label + " given twice");
        s.labels[label] = value;
        c.skip_blanks();
        if (!c.done() && c.peek() == ',') ++c.i;
      }
    }
    if (c.done() || (c.peek() != ' ' && c.peek() != '\t')) return line_error(line_no, "no value after " + s.name);
    c.skip_blanks();
    size_t vstart = c.i;
    while (!c.done() && c.peek() != ' ' && c.peek() != '\t') ++c.i;
    auto v = parse_number(line.substr(vstart, c.i - vstart));
    if (!v) return line_error(line_no, "'" + std::string(line.substr(vstart, c.i - vstart)) + "' is not a number");
    s.value = *v;
    c.skip_blanks();
    if (!c.done()) {  // an optional timestamp in ms
      size_t tstart = c.i;
      while (!c.done() && c.peek() != ' ') ++c.i;
      if (!parse_number(line.substr(tstart, c.i - tstart))) return line_error(line_no, "bad timestamp");
      c.skip_blanks();
      if (!c.done()) return line_error(line_no, "text after the timestamp");
    }
    out.samples.push_back(std::move(s));
  }
  return out;
}

}  // namespace kaisha::telemetry
