// P1, the Task Parser Agent's reply (halo.md §4, §8 item 1): the task triple
// F that every later agent is given.
#pragma once

#include <string>
#include <string_view>

#include "runtime/halo/replies/parsed_reply.hpp"

namespace kaisha::halo {

inline constexpr std::string_view kTaskTypeKey = "Task Type";
inline constexpr std::string_view kCoreIntentKey = "Core Intent";
inline constexpr std::string_view kKeyDetailsKey = "Key Details";

struct TaskParse {
  std::string task_type;
  std::string core_intent;
  std::string key_details;
};

// Reads {"Task Type": "...", "Core Intent": "...", "Key Details": "..."}.
// Each field that cannot be read (no object, key missing, not a string) is
// the raw user query, as HALO's reference does; the others are kept. An
// empty string is a valid field (a query may have no key details).
Parsed<TaskParse> parse_task_parse(std::string_view reply, std::string_view raw_query);

}  // namespace kaisha::halo
