// What one subtask's workflow search returns (halo.md §6.3 "Output", §12
// item 16): the answer that ends it, whether that answer was judged a
// success, why the search ended, and the trajectory that led there.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "runtime/halo/search/path_entry.hpp"

namespace kaisha::halo {

enum class EndReason {
  terminal_success,  // the selected node was judged success
  terminal_fail,     // the selected node was judged fail
  depth_limit,       // the selected node is at the maximum depth, judged continue
  iteration_cap,     // max_iterations ran without selecting a terminal node
  evaluation_cap,    // the next step could have needed more than max_evaluations
  stopped,           // the driver called stop()
};

// "terminal success", "terminal fail", "depth limit", "iteration cap",
// "evaluation cap" or "stopped".
std::string_view to_string(EndReason reason);

struct SearchResult {
  EndReason reason = EndReason::stopped;
  // The answer of the trajectory's last node, and whether the judge labelled
  // that node success. Empty and false when the tree has no node below the
  // root (the search ended before its first expansion).
  std::string answer;
  bool success = false;
  // The trajectory's nodes below the root, root side first, and their
  // (role, answer) in the same order.
  std::vector<int> nodes;
  std::vector<PathEntry> trajectory;
  int iterations = 0;   // selections made
  int evaluations = 0;  // evaluations requested

  bool operator==(const SearchResult&) const = default;
};

}  // namespace kaisha::halo
