// YamlReader: typed reads from a parsed YAML document whose errors name the
// place a user has to fix, as "<source>:<line>: <key.path>: <what>".
// Shared by the config loader and the cost table so that every YAML file of
// kaisha reports mistakes the same way.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "runtime/core/result.hpp"

namespace kaisha::config {

// Parses `text`. A syntax error becomes
// "<source>:<line>:<column>: YAML syntax error: <what>" (1-based); a key given
// twice in one map is an error too (see check_unique_keys).
// An empty document is returned as a Null node (callers treat it as {}).
Result<YAML::Node> parse_yaml(const std::string& text, const std::string& source);

// Runs `read`, a loader's walk over a document from parse_yaml(), and
// returns what it returns. Loaders check each node before they read it;
// should a check be missing, yaml-cpp throws, and that becomes an error
// "<source>: cannot read this file: <what>" here instead of an abort.
// `read` returns a Result<T> or a Status.
template <class Read>
auto guard_yaml(const std::string& source, Read&& read) -> decltype(read()) {
  try {
    return read();
  } catch (const YAML::Exception& e) {
    return Error{"config", source + ": cannot read this file: " + e.what()};
  }
}

// Fails on the first map of `root` that has a key twice, naming both lines:
// "<source>:<line>: <key.path> is given twice (lines 3 and 7); keep one".
// yaml-cpp keeps both pairs and every lookup finds the first, so the second
// would otherwise be silently ignored. For files not read with parse_yaml().
Status check_unique_keys(const YAML::Node& root, const std::string& source);

// Replaces ${VAR} and ${VAR:-default} with the environment's values.
// An unset ${VAR} without a default, or an unterminated "${", is an error
// that names `where` (e.g. "config.yaml:4") and the variable. "$$" is a
// literal '$'.
Result<std::string> substitute_env(const std::string& text, const std::string& where);

// Closest candidate by edit distance, or "" when nothing is close enough
// (distance > max(2, key.size()/3)).
std::string closest_key(std::string_view key, const std::vector<std::string>& candidates);

// Every read takes the node, the dotted key path used in messages ("" = the
// document root, shown as "top level") and returns the value or an Error with
// code "config". Scalars go through substitute_env() first, so `${VAR}` works
// in any value, numbers included.
class YamlReader {
 public:
  explicit YamlReader(std::string source) : source_(std::move(source)) {}

  const std::string& source() const { return source_; }

  // "<source>:<line>" for the node (line 1-based; "<source>" when unknown).
  std::string where(const YAML::Node& node) const;

  // An Error "<where>: <path>: <message>" (path omitted when empty).
  Error error_at(const YAML::Node& node, const std::string& path, const std::string& message) const;

  // Fails when `node` is not a map (Null is accepted as empty).
  Status expect_map(const YAML::Node& node, const std::string& path) const;

  // Fails on the first key of `map` not in `allowed`, suggesting the closest.
  Status check_keys(const YAML::Node& map, const std::string& path, const std::vector<std::string>& allowed) const;

  Result<std::string> read_string(const YAML::Node& node, const std::string& path) const;
  Result<double> read_number(const YAML::Node& node, const std::string& path) const;
  Result<int64_t> read_int(const YAML::Node& node, const std::string& path) const;
  Result<bool> read_bool(const YAML::Node& node, const std::string& path) const;

  // True when `node` holds a value: defined and not null.
  static bool present(const YAML::Node& node) { return node.IsDefined() && !node.IsNull(); }

  // expect_map() and then check_keys(): a section of a config file.
  Status expect_section(const YAML::Node& node, const std::string& path, const std::vector<std::string>& allowed) const;

  // Optional members of a map. Each reads map[key] into `out` and leaves `out`
  // untouched when the key is absent or null; errors name "<path>.<key>".
  Status optional_string(const YAML::Node& map, const std::string& path, const char* key, std::string& out) const;
  Status optional_bool(const YAML::Node& map, const std::string& path, const char* key, bool& out) const;
  // An integer in [min, max]; out of range is "expected an integer >= <min>".
  Status optional_int(const YAML::Node& map, const std::string& path, const char* key, int64_t& out, int64_t min,
                      int64_t max = INT64_MAX) const;
  // An integer in [min, the largest Int], for any integer type.
  template <class Int>
  Status optional_count(const YAML::Node& map, const std::string& path, const char* key, Int& out, int64_t min) const {
    constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<Int>::max());
    constexpr int64_t max = kMax > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(kMax);
    int64_t v = static_cast<int64_t>(out);
    if (Status s = optional_int(map, path, key, v, min, max); !s) return s;
    out = static_cast<Int>(v);
    return Status::Ok();
  }
  // A number >= min (> min when `strict`) and <= max; out of range is
  // "expected a number >= <min>, got <v>" (or "between <min> and <max>").
  Status optional_number(const YAML::Node& map, const std::string& path, const char* key, double& out, double min,
                         bool strict, double max = std::numeric_limits<double>::infinity()) const;
  // One of `allowed`; anything else is "expected one of a, b, got "x"",
  // suggesting the closest.
  Status optional_choice(const YAML::Node& map, const std::string& path, const char* key, std::string& out,
                         const std::vector<std::string>& allowed) const;
  // A list of strings, appended to `out`.
  Status optional_strings(const YAML::Node& map, const std::string& path, const char* key,
                          std::vector<std::string>& out) const;

  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

 private:
  Result<std::string> scalar(const YAML::Node& node, const std::string& path, const char* expected) const;
  std::string source_;
};

// Every key the loaders accept, for the test that keeps the configuration
// reference complete: while a KeyCatalog lives, each check_keys call on its
// thread records the section's path and the keys it allows. Not nestable.
class KeyCatalog {
 public:
  KeyCatalog();
  ~KeyCatalog();
  KeyCatalog(const KeyCatalog&) = delete;
  KeyCatalog& operator=(const KeyCatalog&) = delete;

  // Section path ("" for the top level, "providers.ollama", ...) → keys.
  const std::map<std::string, std::set<std::string>>& sections() const { return sections_; }
  void add(const std::string& path, const std::vector<std::string>& allowed);

 private:
  std::map<std::string, std::set<std::string>> sections_;
};

}  // namespace kaisha::config
