// The reading every HALO reply parser shares: the reply must be valid UTF-8
// and hold a JSON object (a ```json fence or leading prose is tolerated, as
// kaisha::planning::extract_json says), and the findings are phrased the
// same way for every role.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::halo::reply {

// 1-based offset of the first byte of the first ill-formed UTF-8 sequence.
std::optional<size_t> invalid_utf8_at(std::string_view text);

// The reply's JSON object. `key` is the one the role must return: when the
// first object extract_json finds does not hold it (a '{' of LaTeX or code
// in the prose before the answer), the object around the last `"key":` is
// tried too. Errors (code "reply") say what was wrong, without the role:
//   invalid UTF-8 at byte 17 (0xFF)
//   the reply is a JSON array, expected an object with key "status"
//   JSON parse error at byte 12: ...
Result<json> object(std::string_view text, std::string_view key);

// "a number", "a string", "an array", "an object", "a boolean", "null".
std::string kind(const json& value);

// `value` in double quotes, cut at a code point to a journal-friendly length.
std::string in_quotes(std::string_view value);

// `key "status" is missing (the object has "verdict", "why")`.
std::string missing(const json& object, std::string_view key);

// Findings of one reply, each prefixed once with the role's reply name.
class Problems {
 public:
  explicit Problems(std::string_view who) : who_(who) {}
  void add(std::string what) { found_.push_back(std::move(what)); }
  bool empty() const { return found_.empty(); }
  // "<who> reply: <finding>; <finding>", or nullopt when nothing was found.
  std::optional<std::string> text() const;

 private:
  std::string who_;
  std::vector<std::string> found_;
};

}  // namespace kaisha::halo::reply
