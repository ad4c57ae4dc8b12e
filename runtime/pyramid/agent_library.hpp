// AgentLibrary: the pyramid strategy's agents, as data (InfiAgent,
// infiagent.md §10 items 1–6). A YAML file lists the agents; each has a
// level (-1 the judge, >= 1 an agent; level 0 is the built-in tools), a
// description (what its parents see as the tool's description), its
// responsibility and workflow (its system prompt), the closed list of tools
// and lower agents it may call, its model ("" = the strategy's default) and
// a bound on its turns per call.
//
//   max_children: 5                  # K_max, sub-agents per agent (default 5)
//   agents:
//     - name: judge_agent
//       level: -1
//       description: Verifies task completion and output quality.
//       responsibility: ...
//       workflow: |
//         1. ...
//       available_tools: [file_read, dir_list, execute_code, final_output]
//     - name: code_builder_agent
//       level: 1
//       ...
//       available_tools: [judge_agent, final_output, file_read, file_write]
//       model: ollama:qwen3:8b         # optional
//       max_turns: 100                 # optional, default 100
//     - name: idea_agent
//       ...
//       candidates: [ollama:qwen3:8b, ollama:llama3.2, openai:gpt-4o]   # instead of model
//
// load() refuses a library that breaks the pyramid's rules, naming file,
// line and key like the rest of kaisha's configuration:
//   - names are tool names a model can call ([A-Za-z0-9_-], 1–64), unique;
//   - an agent calls only level-0 tools, the judge, and agents of strictly
//     lower level (so the graph is a DAG); nothing calls upward or itself;
//   - at most one judge, and it calls read-only tools only;
//   - at most max_children sub-agents (level >= 1) per agent; tools and
//     the judge do not count.
// Shared children (one agent listed by many parents) are allowed.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"

namespace kaisha::pyramid {

// The level-0 tools the pyramid offers its agents (infiagent.md §10 item 47).
const std::vector<std::string>& level0_tools();
// The ones the judge may call: it reads and runs, never writes.
const std::vector<std::string>& judge_tools();

// A review step an agent's workflow requires before it may claim success
// (infiagent.md §10 item 34): the call must have written `file`, or called
// `call` (a tool or agent of its list) with success — for the judge, its
// approval. Exactly one of the two is set.
struct ReviewStep {
  std::string file;
  std::string call;
  std::string describe() const;  // "write <file>" / "call <call> with success"
};

// The employee that runs `agent`'s candidate `index` (from 0): "<agent>__<index + 1>".
std::string candidate_instance(const std::string& agent, size_t index);

struct AgentDefinition {
  std::string name;
  int level = 1;
  std::string description;
  std::string responsibility;
  std::string workflow;
  std::vector<std::string> available_tools;  // as listed: tools, the judge, lower agents
  std::string model;                         // "" = the strategy's default model
  // Candidate models (2 or more; then `model` is not given): each call runs
  // once per candidate, each on its own branch of the task's directory, and
  // the first success in this order is merged (infiagent.md §10 item 20).
  std::vector<std::string> candidates;
  int64_t max_turns = 100;
  std::vector<ReviewStep> review;  // done before a success is accepted
  int line = 0;                    // where it starts in its file
};

// The shape of a library (infiagent.md §3.3, Eq. 4): depth L (delegation
// edges from a root to the deepest functional agent), each agent's fan-out
// (sub-agents it may call), N_func (agents that call no sub-agent) and the
// mean branching factor b over the agents that do. N_func ≈ b^L for a
// balanced pyramid.
struct LibraryShape {
  int depth = 0;
  std::map<std::string, int> fan_out;
  int functional = 0;
  double branching = 0;
  std::vector<std::string> roots;  // agents of level >= 1 no agent calls, by level then name
  json to_json() const;
};

class AgentLibrary {
 public:
  // Reads and validates the file at `path`.
  static Result<AgentLibrary> load_file(const std::string& path);
  // The same for `yaml` text; `source` names it in errors.
  static Result<AgentLibrary> parse(const std::string& yaml, const std::string& source);

  // In file order.
  const std::vector<AgentDefinition>& agents() const { return agents_; }
  // The agent named `name`, or nullptr.
  const AgentDefinition* find(const std::string& name) const;
  // The judge (level -1), or nullptr when the library has none.
  const AgentDefinition* judge() const;
  // The agents `a` may call (its sub-agents and the judge), in listed order.
  std::vector<const AgentDefinition*> callees(const AgentDefinition& a) const;
  int max_children() const { return max_children_; }
  LibraryShape shape() const;

 private:
  // parse() without its guard against yaml-cpp's exceptions.
  static Result<AgentLibrary> read(const std::string& yaml, const std::string& source);

  std::vector<AgentDefinition> agents_;
  int max_children_ = 5;
};

}  // namespace kaisha::pyramid
