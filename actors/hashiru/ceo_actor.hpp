// The CEO: one per session and the only entry point for user tasks
// (hashiru.md §2.1, §9 A–B). It runs the tool-calling loop with its model,
// hires, asks and fires employees through the HASHIRU tools (AgentCreator,
// AskAgent, FireAgent, GetAgents, AgentCostManager, GetBudget), charges every
// call — its own included — to the ledgers, journals every step, and
// synthesises the final answer.
//
// Protocol:
//   (task_atom, msg::TaskRequest) -> msg::TaskResult   one user turn; one at a time
//   (tool_atom, name, arguments)  -> json               call one CEO tool directly (JSON args text)
//   (switch_atom, name, on)       -> bool               toggle a §9 item 54 switch mid-session
//
// Tool calls of one model answer run concurrently; their results go back to
// the model in the order it asked for them. The algorithm is the HASHIRU
// driver's (runtime/hashiru/hashiru_driver.hpp); the actor runs its effects
// through the strategy kit and its sourced tools.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "actors/agents/employee_placer.hpp"
#include "runtime/company/chat_client.hpp"
#include "runtime/company/progress_sink.hpp"
#include "runtime/company/tool_health.hpp"
#include "runtime/company/tool_source.hpp"
#include "runtime/config/config.hpp"
#include "runtime/economy/cost_table.hpp"
#include "runtime/memory/conversation_summarizer.hpp"
#include "runtime/memory/error_reflection.hpp"
#include "runtime/messages/agent_messages.hpp"

namespace kaisha::actors {

struct CeoDeps {
  caf::actor model_client;
  caf::actor ledger;
  caf::actor journal;
  caf::actor judge;  // valid: the judge audits every final answer (judge.final_answer)
  std::shared_ptr<company::ProgressSink> progress;
  std::shared_ptr<company::ChatClient> chat;  // to vet a new hire's model
  std::shared_ptr<economy::CostTable> cost_table;
  config::Config config;
  std::string session_id;
  std::string system_prompt;
  std::vector<llm::ToolSpec> tool_specs;        // the HASHIRU CEO tools
  std::vector<msg::AgentSpec> restored_agents;  // employees of a resumed session
  // Tools beyond the HASHIRU six (built-ins, created tools, MCP servers):
  // synced into the CEO's registry before every model call.
  std::vector<std::shared_ptr<company::ToolSource>> tool_sources;
  // The tools' health and circuit breakers (tools.failures), shared with the
  // employees; null: none.
  std::shared_ptr<company::ToolHealth> tool_health;
  // Where employees run; null = in this process (see employee_placer.hpp).
  std::shared_ptr<EmployeePlacer> placer;
  // Memory retrieval before each user turn (hashiru.md §2.8), used when set
  // and the `memory` switch is on. Called with the user's message; `done`
  // gets {"injection", "transcript", "memories": [...]} (no memories: nothing
  // is injected) or {"error": ...}, once, from any thread.
  std::function<void(const std::string& message, std::function<void(json)> done)> recall;
  // Set: when the judge rejects the final answer for good, the CEO is asked
  // to write a critique memory (HASHIRU Case Study 4) before the task ends
  // as failed; skipped while the `memory` switch is off.
  std::shared_ptr<const memory::ErrorReflection> error_reflection;
  // Set: short-term memory — before a model call, a conversation at 0.85 of
  // the context budget is summarised by the CEO's model (memory.short_term).
  std::shared_ptr<const memory::ConversationSummarizer> summarizer;
};

caf::actor spawn_ceo(caf::actor_system& sys, CeoDeps deps);

}  // namespace kaisha::actors
