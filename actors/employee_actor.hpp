// An employee: one hired agent = a model + the system prompt the CEO wrote
// for it. It answers AskRequests with one model call (HASHIRU employees are
// single-turn) and has no way to hire, fire or message other agents: the
// hierarchy has two tiers (hashiru.md §9 item 3).
//
// Protocol: (ask_atom, msg::AskRequest) -> msg::AskReply
// An AskReply with ok=false carries the provider's failure; the employee
// itself never fails a request silently.
#pragma once

#include <chrono>
#include <memory>

#include <caf/fwd.hpp>
#include <caf/actor.hpp>

#include "runtime/company/progress_sink.hpp"
#include "runtime/messages/agent_messages.hpp"

namespace kaisha::actors {

struct EmployeeDeps {
  caf::actor model_client;
  caf::actor journal;  // may be invalid: nothing journaled
  std::shared_ptr<company::ProgressSink> progress;
  int64_t max_output_tokens = 1024;
  double temperature = 0.2;
  bool stream = false;
  std::chrono::milliseconds call_timeout{600000};
};

caf::actor spawn_employee(caf::actor_system& sys, msg::AgentSpec spec, EmployeeDeps deps);

}  // namespace kaisha::actors
