// One earlier agent's output as a later agent sees it: the "communication
// transition" of halo.md §6.2 (item 12). A new agent is shown, in order, the
// role and answer of every agent on its root path below the dummy root, as
// "Here is the response from the agent role of {role}: {answer}".
#pragma once

#include <string>

namespace kaisha::halo {

struct PathEntry {
  int role = 0;  // index into the subtask's role list
  std::string answer;

  bool operator==(const PathEntry&) const = default;
};

}  // namespace kaisha::halo
