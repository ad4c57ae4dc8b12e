// The role designer's reply (halo.md §5.2, §8 item 7): the roles whose
// agents work on one subtask, the actions of that subtask's search.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/halo/replies/parsed_reply.hpp"

namespace kaisha::halo {

inline constexpr std::string_view kAgentRolesKey = "agent roles";
inline constexpr std::string_view kDefaultRole = "assistant";

// HALO does not bound the roles (a gap of the paper, halo.md §5.2); every
// role costs three prompt-building calls and a child at every expansion.
struct RoleLimits {
  size_t max_roles = 5;         // the first ones are kept (0 counts as 1)
  size_t max_role_bytes = 200;  // longer names are cut at a code point
};

// Reads {"agent roles": ["...", ...]} into a list that is never empty:
//   * a string instead of a list is one role (not one per character, the
//     reference's bug);
//   * each role has control characters turned into spaces, is trimmed, and
//     cut to max_role_bytes at a UTF-8 code-point boundary; blank ones are
//     dropped;
//   * non-string entries are skipped;
//   * repeats are dropped (ASCII case-insensitive), keeping the first;
//   * past max_roles the rest of the list is not read;
// each of these is noted in `problem`. When no role is left, or the reply
// cannot be read, the list is ["assistant"]. Linear in the reply: a list of
// 10,000 names costs one parse and max_roles kept names.
Parsed<std::vector<std::string>> parse_agent_roles(std::string_view reply, const RoleLimits& limits = {});

}  // namespace kaisha::halo
