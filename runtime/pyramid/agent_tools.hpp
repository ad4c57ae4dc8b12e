// Agents as tools (InfiAgent, infiagent.md §10 items 2, 8 and 9): what a
// pyramid agent's model sees of the agents it may call, and the checks on
// each call it makes.
//
// Every agent of level >= 1 and the judge appear to their parents as a tool
// named after the agent, described by the agent's description, taking
//   {"task_id": "...", "task_input": "...", "max_turns": 100,
//    "references": [{"path": "notes/plan.md", "description": "..."}]}
// (max_turns and references optional). A call runs the agent with a fresh
// context of its own in the same task workspace; the caller gets its
// final_output JSON. References are the material a sub-task works from, by
// (addr, desc) as final outputs hand files on (infiagent.md §10 item 11):
// the runtime checks that each exists before the callee starts, and the
// callee's instruction lists them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/result.hpp"
#include "runtime/llm/chat.hpp"
#include "runtime/pyramid/agent_library.hpp"
#include "runtime/pyramid/final_output.hpp"

namespace kaisha::pyramid {

// The tool an agent is to its parents.
llm::ToolSpec agent_tool_spec(const AgentDefinition& agent);

// The tools `agent` may call, in the order its library entry lists them:
// the agents as agent_tool_spec(), the level-0 tools as `level0_specs` holds
// them (one without a spec there is left out). final_output is always there.
std::vector<llm::ToolSpec> tools_of(const AgentLibrary& library, const AgentDefinition& agent,
                                    const std::map<std::string, llm::ToolSpec>& level0_specs);

// Ok when `agent` may call `tool`; else an Error (code "tool_not_allowed")
// for the model, naming the tools it may call.
Status check_allowed(const AgentDefinition& agent, const std::string& tool);

// One call of an agent-tool, read from the model's arguments text.
struct AgentCall {
  std::string task_id;
  std::string task_input;
  int64_t max_turns = 100;  // at most the callee's own max_turns
  std::vector<FileRef> references;
};

inline constexpr size_t kMaxReferences = 64;

// The instruction the callee gets: task_input, then the references, one per
// line as "- path: description" (task_input alone when there are none).
std::string instruction_with_references(const AgentCall& call);

// The arguments of a call of `callee`, checked: task_input is required and
// non-empty, max_turns (optional) is an integer >= 1 and is capped at the
// callee's max_turns, references (optional) are at most kMaxReferences
// (addr, desc) pairs as parse_file_refs() reads them. Errors (code "agent_call") are written for the model.
Result<AgentCall> parse_agent_call(const AgentDefinition& callee, std::string_view arguments,
                                   size_t max_input_bytes = 16 * 1024);

}  // namespace kaisha::pyramid
