// The topology decision (Fig. 10, hiva.md §7.4): one of five operations on
// the agent's local neighbourhood, written "OPERATION: argument".
//   ADD_PARALLEL: <new agent description>    a sibling of the successors
//   ADD_SERIAL: <new agent description>      inserted before the successors
//   REMOVE_SUCCESSOR: <successor>            id, 0-based index or least_visited
//   CONNECT_TO_AGGREGATOR[: reason]          an edge to the sink
//   NO_CHANGE[: reason]
// TopologyChoice is the reply's vocabulary only; the driver maps it onto the
// graph's own operations and checks them there (limits, cycles).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "runtime/hiva/replies/parsed_reply.hpp"

namespace kaisha::hiva {

enum class TopologyChoice { add_parallel, add_serial, remove_successor, connect_to_aggregator, no_change };

// "ADD_PARALLEL", ..., as the prompt spells them.
std::string_view to_string(TopologyChoice choice);

// How REMOVE_SUCCESSOR names the successor to remove.
enum class RemoveTarget {
  id,             // `argument` as given: the driver matches it to a successor's id
  index,          // a 0-based position in the successor list the prompt showed
  least_visited,  // the successor routed to least often
};

struct TopologyReply {
  TopologyChoice choice = TopologyChoice::no_change;
  // The text after the operation, trimmed, without the markdown, quotes or
  // [brackets] around it: the new agent's description (ADD_*, never
  // empty), the successor (REMOVE_SUCCESSOR, never empty), or the reason
  // (may be empty).
  std::string argument;
  RemoveTarget target = RemoveTarget::id;  // REMOVE_SUCCESSOR only
  size_t target_index = 0;                 // RemoveTarget::index only
};

// Which line holds the decision: operation names match case-insensitively
// ("add parallel", "Add-Parallel"), and count only when followed by a
// separator (':', '-', '(' ...) or a line end, so a mention inside a
// sentence is not a decision. The first of these places that holds any
// operation decides: after a label ("Decision:", "**Answer:**", "Output:"),
// at a line start (after markdown or a list marker), anywhere. Operations of
// two kinds in that place are ambiguous. The argument is the rest of the
// line, or the next non-blank line when the rest is blank.
//
// Bad input is NO_CHANGE, with a problem saying what was wrong: no
// operation, an ambiguous reply, an ADD_* without a description, a
// REMOVE_SUCCESSOR without a successor. A change the model did not clearly
// ask for is never made.
Parsed<TopologyReply> parse_topology_decision(std::string_view reply);

}  // namespace kaisha::hiva
