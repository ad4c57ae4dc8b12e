// Replies no parser can read, shared by the parsers' tests: each must give
// its role's default and say what was wrong.
#pragma once

#include <string>
#include <vector>

namespace kaisha::halo::testing {

struct Malformed {
  const char* name;
  std::string reply;
  std::string problem;  // a part of the problem text expected
};

// `key` is the role's JSON key; the reply puts a value of the right kind
// under a wrong key or truncates it.
inline std::vector<Malformed> malformed_replies(const std::string& key) {
  return {
      {"empty", "", "the answer is empty"},
      {"blank", " \n\t ", "the answer is empty"},
      {"prose", "I think it went well.", "no JSON object found"},
      {"truncated", "{\"" + key + "\": \"succ", "JSON parse error"},
      {"array", "[\"success\", \"0.5\"]", "the reply is a JSON array, expected an object with key \"" + key + "\""},
      {"missing key", R"({"other": "x", "more": 1})", "is missing (the object has \"more\", \"other\")"},
      {"empty object", "{}", "is missing (the object is empty)"},
      {"not UTF-8", "{\"" + key + "\": \"caf\xE9\"}", "invalid UTF-8 at byte"},
  };
}

}  // namespace kaisha::halo::testing
