// An employee: one hired agent = a model + the system prompt the CEO wrote
// for it. It has no way to hire, fire or message other agents: the hierarchy
// has two tiers (hashiru.md §9 item 3).
//
// Without tools (no employee.tools grant, the default) it answers an
// AskRequest with one model call, as HASHIRU's employees do. With tools it
// runs the tool-calling (ReAct) loop (hashiru.md §9 item 7): each model call
// offers its granted tools; every tool call of an answer is checked (grant,
// JSON, schema) and run in order, its result appended, and the model is
// called again until it answers without tool calls — at most
// max_tool_iterations model calls, and max_malformed_tool_calls answers with
// unreadable arguments, after which it answers with what stopped it.
//
// A turn (AskRequest::messages set, as the pyramid asks) is one model call
// with the asker's messages and tools, with or without a grant: the reply
// carries the model's text and the tool calls it asks for, which the asker
// runs (a pyramid agent's context, tools and loop live in the strategy).
//
// Charging: the asker reserves and settles the FIRST model call (charged_ask,
// AskReply.usage); each further call of the loop is reserved and settled by
// the employee on the same ledger before it is sent (charged_chat, priced at
// the employee's model without a second resource hold: the ask holds it), and
// each tool's declared cost likewise — so no call is ever made unheld and
// concurrent asks still cannot overshoot. A refusal there ends the loop with
// the refusal text as the answer. AskReply.extra_* report what they came to.
//
// Protocol: (ask_atom, msg::AskRequest) -> msg::AskReply
// An AskReply with ok=false carries the provider's failure of the first
// call; the employee itself never fails a request silently.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include <caf/fwd.hpp>
#include <caf/actor.hpp>

#include "runtime/company/progress_sink.hpp"
#include "runtime/company/tool_health.hpp"
#include "runtime/company/tool_grants.hpp"
#include "runtime/company/tool_source.hpp"
#include "runtime/config/config.hpp"
#include "runtime/messages/agent_messages.hpp"

namespace kaisha::actors {

struct EmployeeDeps {
  caf::actor model_client;
  caf::actor journal;  // may be invalid: nothing journaled
  std::shared_ptr<company::ProgressSink> progress;
  int64_t max_output_tokens = 1024;
  double temperature = 0.2;
  std::optional<int64_t> seed;  // the provider's sampling seed; none by default
  bool stream = false;
  std::chrono::milliseconds call_timeout{600000};
  // Tools (employee.tools). An empty grant or no sources: no tools.
  company::GrantedTools grant;
  std::vector<std::shared_ptr<company::ToolSource>> tool_sources;
  std::map<std::string, config::ToolCostConfig> tool_costs;  // tools.costs overrides
  caf::actor ledger;                                         // charges the loop's further calls and tool costs
  int max_tool_iterations = 10;
  int max_malformed_tool_calls = 3;
  // Tools that fail (tools.failures, tools.repeatable): the retry policy and
  // the breakers' settings, and the tools' health shared with the rest of
  // the company (null: the employee keeps its own).
  config::ToolFailureConfig tool_failures;
  std::vector<std::string> tool_repeatable;
  std::shared_ptr<company::ToolHealth> tool_health;
};

// What every employee gets from the company's config (model client, journal,
// progress, output limits, timeout); tools and grants are the hirer's to add.
EmployeeDeps employee_deps_from(const config::Config& c, caf::actor model_client, caf::actor journal,
                                std::shared_ptr<company::ProgressSink> progress);

// The spec's own sampling (AgentSpec::temperature, seed), when its hirer set
// one, replaces `deps`'s for every model call of the employee.
caf::actor spawn_employee(caf::actor_system& sys, msg::AgentSpec spec, EmployeeDeps deps);

}  // namespace kaisha::actors
