// The judge's verdict on one node's answer (halo.md §6.1, §12 item 18):
// the subtask is done (success), cannot be done along this path (fail), or
// needs more agents after this one (continue). The search reads nothing else
// from the judge; parsing its reply, with `continue` as the fallback, is the
// reply parser's job.
#pragma once

#include <string_view>

namespace kaisha::halo {

// `continue_` because `continue` is a keyword; to_string gives "continue".
enum class NodeLabel { success, fail, continue_ };

// "success", "fail" or "continue", the judge's own words.
std::string_view to_string(NodeLabel label);

}  // namespace kaisha::halo
