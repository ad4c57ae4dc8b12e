// One unit of work a sub-agent will do in a decomposed task (effgen.md
// §4.1). A plain value: the decomposition parser builds them from a model's
// JSON (runtime/effgen/decomposition) and SubtaskDag checks their graph.
#pragma once

#include <string>
#include <vector>

namespace kaisha::planning {

enum class Priority { high, medium, low };

const char* to_string(Priority p);

// The specializations effgen.md §4.1 allows (the union of the §3.3 list and
// the one in the prompts). A model's answer must use one of these words.
inline constexpr const char* kSpecializations[] = {"research", "coding",   "analysis", "synthesis",
                                                   "data",     "creative", "general"};

// s_i = (id, desc, deps, out, c, spec, p) of effgen.md §4.1, plus the
// hierarchical worker's `reports_to`.
struct Subtask {
  std::string id;                                   // "st_1"; workers "wk_1"; unique in a decomposition
  std::string description;                          // what the sub-agent is asked to do; never empty
  std::vector<std::string> depends_on;              // ids whose outputs this subtask consumes; no duplicates
  std::string expected_output;                      // may be empty
  double estimated_complexity = 5.0;                // in [0, 10]; 5.0 when the model gave none
  std::string required_specialization = "general";  // one of kSpecializations
  Priority priority = Priority::medium;
  std::string reports_to;  // hierarchical workers: "manager" or a worker id; else empty
};

}  // namespace kaisha::planning
