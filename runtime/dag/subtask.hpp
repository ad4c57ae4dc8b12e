// The vocabulary of an effGen task decomposition (effgen.md §4.1, §4.3):
// one Subtask per unit of work a sub-agent will do, and the Decomposition a
// model's answer describes. These are plain values; DecompositionParser
// builds them from the model's JSON and SubtaskDag checks their graph.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kaisha::planning {

// The four decomposition prompts of effgen.md §4.3, one per execution shape.
enum class Strategy { parallel, sequential, hybrid, hierarchical };

const char* to_string(Strategy s);
// "parallel", "sequential", "hybrid", "hierarchical"; nullopt otherwise.
std::optional<Strategy> strategy_from_string(const std::string& s);

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

// The hierarchical prompt's coordinating task: it runs after the workers
// and synthesizes (and quality-checks) their results.
struct ManagerTask {
  std::string description;
  std::vector<std::string> responsibilities;  // e.g. coordinate, synthesize, quality_check
};

// A model's whole answer. For the hierarchical strategy `subtasks` holds the
// worker_subtasks and `manager_task` is set; for the others it holds
// "subtasks" and `manager_task` is empty.
struct Decomposition {
  Strategy strategy = Strategy::hybrid;
  std::vector<Subtask> subtasks;
  std::vector<std::vector<std::string>> parallel_groups;  // hybrid only; advisory (see parser)
  std::optional<ManagerTask> manager_task;                // hierarchical only
  std::string reasoning;                                  // may be empty
};

}  // namespace kaisha::planning
