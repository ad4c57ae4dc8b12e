// The judge: an execution-level auditor (infiagent.md §10 items 21–27, 30).
// It checks a producer's claimed result against the instruction it answers
// with one model call, and keeps each producer's quality score
// Q <- aQ + (1-a)v in SQLite across tasks and sessions.
//
// Protocol: (audit_atom, msg::AuditRequest) -> msg::AuditVerdict
// A judge that cannot be asked (budget refused, provider down) answers with
// judge_failed=true and success=false: an unaudited result never passes as
// audited. An unreadable verdict counts as a rejection (malformed=true).
#pragma once

#include <memory>
#include <string>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "runtime/company/progress_sink.hpp"
#include "runtime/config/config.hpp"
#include "runtime/economy/model_cost.hpp"

namespace kaisha::actors {

struct JudgeDeps {
  caf::actor ledger;
  caf::actor model_client;
  caf::actor journal;
  std::shared_ptr<company::ProgressSink> progress;
  std::string session_id;
  std::string model_ref;    // the judge's model
  economy::ModelCost cost;  // what its calls are charged at
  config::Config config;
};

caf::actor spawn_judge(caf::actor_system& sys, JudgeDeps deps);

}  // namespace kaisha::actors
