// AuditLoop is the pure logic of the execution-level audit (infiagent.md
// §3.6, §10 items 23–27): a producer's claimed result goes to the judge
// together with the original instruction; a success verdict is delivered;
// an error verdict goes back to the producer as feedback and it tries again,
// up to `max_retries` times (3: four judge calls in all); after that the
// parent receives status=error with the last judge report. A producer that
// itself gives up delivers its error unaudited — an error never passes as
// a success, and never as an exception either (item 27).
//
// Use: on_claim(result) → ask the judge (render_judge_prompt of
// judge_prompt.hpp with instruction() and step.claimed_result); feed its
// parsed answer to on_verdict(); on retry send step.feedback to the producer and
// call on_claim again with its new result; stop at deliver.
#pragma once

#include <optional>
#include <string>

#include "runtime/core/json.hpp"
#include "runtime/core/result.hpp"
#include "runtime/judge/judge_verdict.hpp"

namespace kaisha::planning {

struct AuditLimits {
  int max_retries = 3;  // producer retries after a rejection (infiagent.md item 26, N = 3)
};

// What the parent receives: the Output Control JSON plus the audit trail.
struct AuditReport {
  VerdictStatus status = VerdictStatus::error;
  std::string output;                   // success: the producer's result; error: the last judge report
  std::string error_information;        // error: the core error message
  std::optional<JudgeVerdict> verdict;  // the last verdict, when the judge was asked
  std::string claimed_result;           // the producer's last claimed result
  int judge_calls = 0;
  int attempts = 0;  // producer results audited or given up
};

// {"status", "output", "error_information", "judge_calls", "judge_verdict"?}
json to_json(const AuditReport& r);

struct AuditStep {
  enum class Kind { ask_judge, retry, deliver };
  Kind kind = Kind::deliver;
  std::string claimed_result;  // ask_judge: what the judge must verify against instruction()
  std::string feedback;        // retry: the message to the producer
  AuditReport report;          // deliver
};

class AuditLoop {
 public:
  AuditLoop(std::string instruction, AuditLimits limits = {});

  // The producer claims success with `result`. Valid at the start and after
  // a retry step; otherwise Error (code "audit").
  Result<AuditStep> on_claim(std::string result);
  // The producer gave up (its own status=error). Valid whenever a claim is due.
  Result<AuditStep> on_producer_error(std::string error_information);
  // The judge answered. Valid after ask_judge.
  Result<AuditStep> on_verdict(const JudgeVerdict& verdict);

  int judge_calls() const { return judge_calls_; }
  bool delivered() const { return phase_ == Phase::delivered; }
  const std::string& instruction() const { return instruction_; }

 private:
  enum class Phase { awaiting_claim, awaiting_verdict, delivered };

  std::string instruction_;
  AuditLimits limits_;
  Phase phase_ = Phase::awaiting_claim;
  std::string claimed_;
  int judge_calls_ = 0;
  int attempts_ = 0;
  int retries_ = 0;  // invariant: <= limits_.max_retries
  std::optional<JudgeVerdict> last_;
};

}  // namespace kaisha::planning
