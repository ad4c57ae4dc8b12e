// The planner's reply (halo.md §5.1, §8 item 6, §12 item 6): one next
// subtask, or the word stop when the task is complete.
#pragma once

#include <string>
#include <string_view>

#include "runtime/halo/replies/parsed_reply.hpp"

namespace kaisha::halo {

inline constexpr std::string_view kNextSubtaskKey = "next subtask";

struct NextSubtask {
  bool stop = false;
  std::string subtask;  // trimmed; empty when stop
};

// Reads {"next subtask": "..."}. Stop is the value alone, trimmed and in any
// case ("stop", " STOP "); a subtask that merely contains the word ("stop
// the leak") is a subtask, unlike HALO's reference, which stopped on any
// reply containing "stop". When the value cannot be read (no object, key
// missing, not a string, blank) the subtask is Q*, the refined query.
Parsed<NextSubtask> parse_next_subtask(std::string_view reply, std::string_view refined_query);

}  // namespace kaisha::halo
