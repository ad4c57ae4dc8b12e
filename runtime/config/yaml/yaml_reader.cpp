#include "runtime/config/yaml/yaml_reader.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <unordered_map>

#include "runtime/core/ascii_case.hpp"

namespace kaisha::config {

namespace {

Error config_error(std::string message) { return Error{"config", std::move(message)}; }

std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Null:
      return "nothing";
    default:
      return "\"" + node.Scalar() + "\"";
  }
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// Nesting deeper than this is not a kaisha file; the walk stops there rather
// than recursing without bound.
constexpr int kMaxKeyCheckDepth = 64;

Status unique_keys(const YAML::Node& node, const std::string& source, const std::string& path, int depth) {
  if (depth > kMaxKeyCheckDepth) return Status::Ok();
  if (node.IsSequence()) {
    for (size_t i = 0; i < node.size(); ++i)
      if (Status s = unique_keys(node[i], source, path + "[" + std::to_string(i) + "]", depth + 1); !s) return s;
    return Status::Ok();
  }
  if (!node.IsMap()) return Status::Ok();
  std::unordered_map<std::string, int> first_line;
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string key = it->first.IsScalar() ? it->first.Scalar() : std::string();
    const std::string at = YamlReader::join(path, key);
    if (it->first.IsScalar()) {
      const int line = it->first.Mark().line + 1;
      auto [seen, fresh] = first_line.emplace(key, line);
      if (!fresh)
        return config_error(source + ":" + std::to_string(line) + ": '" + at + "' is given twice (lines " +
                            std::to_string(seen->second) + " and " + std::to_string(line) + "); keep one");
    }
    if (Status s = unique_keys(it->second, source, at, depth + 1); !s) return s;
  }
  return Status::Ok();
}

}  // namespace

Result<YAML::Node> parse_yaml(const std::string& text, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return config_error(source + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                        ": YAML syntax error: " + e.msg);
  }
  if (Status s = check_unique_keys(root, source); !s) return s.error();
  return root;
}

Status check_unique_keys(const YAML::Node& root, const std::string& source) { return unique_keys(root, source, "", 0); }

Result<std::string> substitute_env(const std::string& text, const std::string& where) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c != '$' || i + 1 >= text.size()) {
      out += c;
      continue;
    }
    if (text[i + 1] == '$') {  // "$$" escapes a literal '$'
      out += '$';
      ++i;
      continue;
    }
    if (text[i + 1] != '{') {
      out += c;
      continue;
    }
    size_t close = text.find('}', i + 2);
    if (close == std::string::npos) {
      return config_error(where + ": unterminated '${' in \"" + text + "\"");
    }
    std::string body = text.substr(i + 2, close - i - 2);
    std::string name = body, fallback;
    bool has_default = false;
    if (size_t d = body.find(":-"); d != std::string::npos) {
      name = body.substr(0, d);
      fallback = body.substr(d + 2);
      has_default = true;
    }
    if (name.empty()) return config_error(where + ": empty variable name in \"" + text + "\"");
    const char* value = std::getenv(name.c_str());
    if (value && *value) {
      out += value;
    } else if (has_default) {
      out += fallback;
    } else if (value) {
      out += "";  // set but empty, no default: use the empty value
    } else {
      return config_error(where + ": environment variable '" + name + "' is not set (write ${" + name +
                          ":-default} to give a default)");
    }
    i = close;
  }
  return out;
}

std::string closest_key(std::string_view key, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = std::max<size_t>(2, key.size() / 3) + 1;
  for (const auto& c : candidates) {
    size_t d = edit_distance(key, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

std::string YamlReader::where(const YAML::Node& node) const {
  if (!node.IsDefined()) return source_;
  YAML::Mark m = node.Mark();
  if (m.line < 0) return source_;
  return source_ + ":" + std::to_string(m.line + 1);
}

Error YamlReader::error_at(const YAML::Node& node, const std::string& path, const std::string& message) const {
  if (path.empty()) return config_error(where(node) + ": " + message);
  return config_error(where(node) + ": " + path + ": " + message);
}

Status YamlReader::expect_map(const YAML::Node& node, const std::string& path) const {
  if (!node.IsDefined() || node.IsNull() || node.IsMap()) return Status::Ok();
  return error_at(node, path, "expected a map, got " + describe(node));
}

namespace {
thread_local KeyCatalog* t_catalog = nullptr;
}  // namespace

KeyCatalog::KeyCatalog() { t_catalog = this; }
KeyCatalog::~KeyCatalog() { t_catalog = nullptr; }
void KeyCatalog::add(const std::string& path, const std::vector<std::string>& allowed) {
  sections_[path].insert(allowed.begin(), allowed.end());
}

Status YamlReader::check_keys(const YAML::Node& map, const std::string& path,
                              const std::vector<std::string>& allowed) const {
  if (t_catalog) t_catalog->add(path, allowed);
  if (!map.IsMap()) return Status::Ok();
  for (auto it = map.begin(); it != map.end(); ++it) {
    const YAML::Node k = it->first;  // a copy: it-> returns a temporary proxy
    std::string key = k.IsScalar() ? k.Scalar() : std::string("<non-scalar key>");
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string msg = "unknown key '" + key + "' in " + (path.empty() ? "top level" : path);
    if (std::string s = closest_key(key, allowed); !s.empty()) msg += " (did you mean '" + s + "'?)";
    return config_error(where(k) + ": " + msg);
  }
  return Status::Ok();
}

Result<std::string> YamlReader::scalar(const YAML::Node& node, const std::string& path, const char* expected) const {
  if (!node.IsScalar()) {
    return error_at(node, path, std::string("expected ") + expected + ", got " + describe(node));
  }
  return substitute_env(node.Scalar(), where(node));
}

Result<std::string> YamlReader::read_string(const YAML::Node& node, const std::string& path) const {
  if (node.IsNull()) return std::string();
  return scalar(node, path, "a string");
}

Result<double> YamlReader::read_number(const YAML::Node& node, const std::string& path) const {
  auto s = scalar(node, path, "a number");
  if (!s) return s.error();
  const std::string& t = *s;
  double v = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size() || !std::isfinite(v)) {
    return error_at(node, path, "expected a number, got \"" + t + "\"");
  }
  return v;
}

Result<int64_t> YamlReader::read_int(const YAML::Node& node, const std::string& path) const {
  auto s = scalar(node, path, "an integer");
  if (!s) return s.error();
  const std::string& t = *s;
  int64_t v = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size()) {
    return error_at(node, path, "expected an integer, got \"" + t + "\"");
  }
  return v;
}

Result<bool> YamlReader::read_bool(const YAML::Node& node, const std::string& path) const {
  auto s = scalar(node, path, "true or false");
  if (!s) return s.error();
  const std::string t = ascii_lower(*s);
  if (t == "true" || t == "yes" || t == "on") return true;
  if (t == "false" || t == "no" || t == "off") return false;
  return error_at(node, path, "expected true or false, got \"" + *s + "\"");
}

Status YamlReader::expect_section(const YAML::Node& node, const std::string& path,
                                  const std::vector<std::string>& allowed) const {
  if (Status s = expect_map(node, path); !s) return s;
  return check_keys(node, path, allowed);
}

Status YamlReader::optional_string(const YAML::Node& map, const std::string& path, const char* key,
                                   std::string& out) const {
  const YAML::Node n = map[key];
  if (!present(n)) return Status::Ok();
  auto v = read_string(n, join(path, key));
  if (!v) return v.error();
  out = std::move(*v);
  return Status::Ok();
}

Status YamlReader::optional_bool(const YAML::Node& map, const std::string& path, const char* key, bool& out) const {
  const YAML::Node n = map[key];
  if (!present(n)) return Status::Ok();
  auto v = read_bool(n, join(path, key));
  if (!v) return v.error();
  out = *v;
  return Status::Ok();
}

Status YamlReader::optional_int(const YAML::Node& map, const std::string& path, const char* key, int64_t& out,
                                int64_t min, int64_t max) const {
  const YAML::Node n = map[key];
  if (!present(n)) return Status::Ok();
  auto v = read_int(n, join(path, key));
  if (!v) return v.error();
  if (*v < min)
    return error_at(n, join(path, key),
                    "expected an integer >= " + std::to_string(min) + ", got " + std::to_string(*v));
  if (*v > max)
    return error_at(n, join(path, key),
                    "expected an integer <= " + std::to_string(max) + ", got " + std::to_string(*v));
  out = *v;
  return Status::Ok();
}

Status YamlReader::optional_number(const YAML::Node& map, const std::string& path, const char* key, double& out,
                                   double min, bool strict, double max) const {
  const YAML::Node n = map[key];
  if (!present(n)) return Status::Ok();
  auto v = read_number(n, join(path, key));
  if (!v) return v.error();
  const auto text = [](double x) {
    std::ostringstream ss;
    ss << x;
    return ss.str();
  };
  if (strict ? !(*v > min) : !(*v >= min))
    return error_at(n, join(path, key),
                    std::string("expected a number ") + (strict ? "> " : ">= ") + text(min) + ", got " + text(*v));
  if (*v > max)
    return error_at(n, join(path, key),
                    "expected a number between " + text(min) + " and " + text(max) + ", got " + text(*v));
  out = *v;
  return Status::Ok();
}

Status YamlReader::optional_choice(const YAML::Node& map, const std::string& path, const char* key, std::string& out,
                                   const std::vector<std::string>& allowed) const {
  const YAML::Node n = map[key];
  if (!present(n)) return Status::Ok();
  auto v = read_string(n, join(path, key));
  if (!v) return v.error();
  if (std::find(allowed.begin(), allowed.end(), *v) == allowed.end()) {
    std::string list;
    for (size_t i = 0; i < allowed.size(); ++i) list += (i ? ", " : "") + allowed[i];
    std::string msg = "expected one of " + list + ", got \"" + *v + "\"";
    if (std::string s = closest_key(*v, allowed); !s.empty()) msg += " (did you mean '" + s + "'?)";
    return error_at(n, join(path, key), msg);
  }
  out = *v;
  return Status::Ok();
}

Status YamlReader::optional_strings(const YAML::Node& map, const std::string& path, const char* key,
                                    std::vector<std::string>& out) const {
  const YAML::Node n = map[key];
  if (!present(n)) return Status::Ok();
  const std::string p = join(path, key);
  if (!n.IsSequence()) return error_at(n, p, "expected a list of strings");
  for (size_t i = 0; i < n.size(); ++i) {
    auto v = read_string(n[i], p + "[" + std::to_string(i) + "]");
    if (!v) return v.error();
    out.push_back(std::move(*v));
  }
  return Status::Ok();
}

}  // namespace kaisha::config
