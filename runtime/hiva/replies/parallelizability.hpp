// The parallelizability analysis (hiva.md §7.4 [CODE]): four labelled
// fields about the task an agent handles,
//   CAN_PARALLELIZE: True|False
//   SUBTASKS_COUNT: 0-5
//   COORDINATION_REQUIRED: High|Medium|Low|None (or True|False)
//   PARALLEL_BENEFIT: High|Medium|Low|None
// folded into one score in [0, 1] that the topology decision prompt shows
// and the driver compares with its threshold (0.5, App. B.3).
#pragma once

#include <string>
#include <string_view>

#include "runtime/hiva/replies/parsed_reply.hpp"

namespace kaisha::hiva {

enum class Level { none, low, medium, high };

std::string_view to_string(Level level);  // "none", "low", "medium", "high"

struct Parallelizability {
  bool can_parallelize = false;
  int subtasks = 0;  // as read, capped at 100
  Level coordination = Level::medium;
  Level benefit = Level::none;
  double score = 0.0;  // parallelizability_score(*this)
};

// The score: 0 when the task cannot be parallelized, has fewer than two
// subtasks or no benefit; else
//   benefit × (0.5 + 0.25·(min(subtasks, 5) − 1)/4 + 0.25·independence)
// with benefit High 1, Medium 0.7, Low 0.3 and independence 1 for no or low
// coordination, 0.5 for medium, 0 for high. So against the 0.5 threshold a
// High benefit always passes, a Low one never does, and a Medium one passes
// with little coordination or three subtasks or more: the benefit the model
// claims decides, and the structure tips the balance.
double parallelizability_score(const Parallelizability& p);

// Labels as parse_agent_feedback reads them; the value is the first word or
// number after the label ("True", "**High**", "3 subtasks"). Defaults, each
// with a problem naming the field: a missing or unreadable CAN_PARALLELIZE
// is inferred (true when at least two subtasks are named and the benefit is
// not None), SUBTASKS_COUNT 2 when parallelizable else 0, COORDINATION
// Medium, BENEFIT Medium when parallelizable else None. A reply with none of
// the four fields scores 0 (`defaulted`): an unread analysis never pushes
// the graph to grow.
Parsed<Parallelizability> parse_parallelizability(std::string_view reply);

// One line for the topology decision prompt:
// "0.61 (can parallelize: yes, subtasks: 3, coordination: low, benefit: medium)".
std::string describe(const Parallelizability& p);

}  // namespace kaisha::hiva
