#include "runtime/halo/replies/agent_roles.hpp"

#include <algorithm>
#include <unordered_set>

#include "runtime/answers/trim.hpp"
#include "runtime/core/ascii_case.hpp"
#include "runtime/core/utf8.hpp"
#include "runtime/halo/replies/reply_json.hpp"

namespace kaisha::halo {
namespace {

// A role is put into prompts ("You are a <role>"): no line breaks or
// control bytes, no surrounding blanks.
std::string clean_role(std::string_view raw, size_t max_bytes, bool& cut) {
  std::string role(answers::trim(raw));
  for (char& c : role)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = ' ';
  role = std::string(answers::trim(role));
  cut = role.size() > max_bytes;
  if (cut) role = std::string(answers::trim(utf8::truncate(role, max_bytes)));
  return role;
}

std::string count(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

Parsed<std::vector<std::string>> parse_agent_roles(std::string_view reply, const RoleLimits& limits) {
  reply::Problems problems("role designer");
  const std::string key(kAgentRolesKey);
  const size_t max_roles = std::max<size_t>(limits.max_roles, 1);
  Parsed<std::vector<std::string>> out;

  Result<json> object = reply::object(reply, key);
  json entries = json::array();
  if (!object) {
    problems.add(object.error().message);
  } else if (auto it = object->find(key); it == object->end()) {
    problems.add(reply::missing(*object, key));
  } else if (it->is_string()) {
    problems.add("key \"" + key + "\" is a string, expected a list; read as one role");
    entries.push_back(std::move(*it));
  } else if (!it->is_array()) {
    problems.add("key \"" + key + "\" is " + reply::kind(*it) + ", expected a list of role names");
  } else {
    entries = std::move(*it);
  }

  std::unordered_set<std::string> seen;  // lower-cased names kept so far
  size_t not_strings = 0, blank = 0, repeated = 0, cut = 0, unread = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (out.value.size() == max_roles) {
      unread = entries.size() - i;
      break;
    }
    const json& entry = entries[i];
    if (!entry.is_string()) {
      ++not_strings;
      continue;
    }
    bool was_cut = false;
    std::string role = clean_role(entry.get_ref<const std::string&>(), limits.max_role_bytes, was_cut);
    if (role.empty()) {
      ++blank;
      continue;
    }
    if (!seen.insert(ascii_lower(role)).second) {
      ++repeated;
      continue;
    }
    cut += was_cut ? 1 : 0;
    out.value.push_back(std::move(role));
  }
  if (not_strings)
    problems.add("skipped " + count(not_strings, "entry that is not a string", "entries that are not strings"));
  if (blank) problems.add("dropped " + count(blank, "blank role", "blank roles"));
  if (repeated) problems.add("dropped " + count(repeated, "repeated role", "repeated roles"));
  if (cut)
    problems.add("cut " + count(cut, "role", "roles") + " to " + std::to_string(limits.max_role_bytes) + " bytes");
  if (unread)
    problems.add("kept the first " + std::to_string(max_roles) + " roles (max_roles), dropped the " +
                 count(unread, "entry", "entries") + " after them");
  if (out.value.empty()) {
    if (object && problems.empty()) problems.add("key \"" + key + "\" lists no role");
    problems.add("the roles are [\"" + std::string(kDefaultRole) + "\"]");
    out.value = {std::string(kDefaultRole)};
    out.defaulted = true;
  }
  out.problem = problems.text();
  return out;
}

}  // namespace kaisha::halo
