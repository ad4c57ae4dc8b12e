#include "runtime/suite/scripted_turns.hpp"

#include <string_view>

#include "runtime/core/params_check.hpp"

namespace kaisha::suite {

namespace {

Error turn_error(const std::string& where, const std::string& what) { return Error{"suite", where + ": " + what}; }

std::string expected(const char* kind, const json& got) {
  return std::string("expected ") + kind + ", got " + json_kind(got);
}

Result<std::vector<std::string>> read_expect(const json& v, const std::string& where) {
  std::vector<std::string> out;
  if (v.is_string()) {
    if (v.get_ref<const std::string&>().empty())
      return turn_error(where, "is empty (leave \"expect\" out to accept any answer)");
    out.push_back(v.get<std::string>());
    return out;
  }
  if (!v.is_array()) return turn_error(where, expected("a string or an array of strings", v));
  if (v.empty()) return turn_error(where, "is an empty array (leave \"expect\" out to accept any answer)");
  for (size_t i = 0; i < v.size(); ++i) {
    std::string at = where + "[" + std::to_string(i) + "]";
    if (!v[i].is_string()) return turn_error(at, expected("a string", v[i]));
    if (v[i].get_ref<const std::string&>().empty()) return turn_error(at, "is empty");
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

Result<ScriptedTurn> read_turn(const json& t, const std::string& where, bool last) {
  if (!t.is_object()) return turn_error(where, expected("an object", t));
  ScriptedTurn turn;
  for (const auto& [key, v] : t.items()) {
    std::string at = where + "." + key;
    if (key == "expect") {
      auto e = read_expect(v, at);
      if (!e) return e.error();
      turn.expect = std::move(e.value());
    } else if (key == "reply" || key == "otherwise") {
      if (!v.is_string()) return turn_error(at, expected("a string", v));
      if (key == "reply")
        turn.reply = v.get<std::string>();
      else
        turn.otherwise = v.get<std::string>();
    } else if (key == "attempts") {
      if (!v.is_number_integer() || v.get<int64_t>() < 1 || v.get<int64_t>() > kMaxAttempts)
        return turn_error(at, "expected an integer from 1 to " + std::to_string(kMaxAttempts) + ", got " + v.dump());
      turn.attempts = static_cast<int>(v.get<int64_t>());
    } else if (key == "success") {
      if (!last) return turn_error(at, "only the last turn ends the episode, so only it may say \"success\"");
      if (!v.is_boolean()) return turn_error(at, expected("a boolean", v));
      turn.success = v.get<bool>();
    } else {
      return turn_error(at, "unknown key (keys: expect, reply, otherwise, attempts, success)");
    }
  }
  if (!t.contains("reply")) return turn_error(where, "\"reply\" is missing (the observation after a matching answer)");
  if (turn.attempts > 1 && !turn.otherwise)
    return turn_error(where, "\"attempts\" above 1 needs \"otherwise\" (the observation after a missed attempt)");
  return turn;
}

}  // namespace

Result<std::vector<ScriptedTurn>> parse_scripted_turns(const json& turns) {
  const std::string where = "\"turns\"";
  if (!turns.is_array()) return turn_error(where, expected("an array of turns", turns));
  if (turns.empty()) return turn_error(where, "is empty (an interactive task needs at least one turn)");
  if (turns.size() > kMaxTurns)
    return turn_error(where, "has " + std::to_string(turns.size()) + " turns, more than the " +
                                 std::to_string(kMaxTurns) + " allowed");
  std::vector<ScriptedTurn> out;
  out.reserve(turns.size());
  for (size_t i = 0; i < turns.size(); ++i) {
    auto t = read_turn(turns[i], where + "[" + std::to_string(i) + "]", i + 1 == turns.size());
    if (!t) return t.error();
    out.push_back(std::move(t.value()));
  }
  return out;
}

}  // namespace kaisha::suite
