#include "runtime/judge/audit_loop.hpp"

namespace kaisha::planning {
namespace {

Error wrong_phase(const char* call, const char* expected) {
  return Error{"audit", std::string(call) + " called out of turn: the loop is waiting for " + expected};
}

}  // namespace

json to_json(const AuditReport& r) {
  json j{{"status", to_string(r.status)},
         {"output", r.output},
         {"error_information", r.error_information},
         {"judge_calls", r.judge_calls}};
  if (r.verdict) j["judge_verdict"] = to_json(*r.verdict);
  return j;
}

AuditLoop::AuditLoop(std::string instruction, AuditLimits limits)
    : instruction_(std::move(instruction)), limits_(limits) {
  if (limits_.max_retries < 0) limits_.max_retries = 0;
}

Result<AuditStep> AuditLoop::on_claim(std::string result) {
  if (phase_ != Phase::awaiting_claim)
    return wrong_phase("on_claim", phase_ == Phase::awaiting_verdict ? "the judge's verdict" : "nothing (delivered)");
  claimed_ = std::move(result);
  ++attempts_;
  ++judge_calls_;
  phase_ = Phase::awaiting_verdict;
  AuditStep step;
  step.kind = AuditStep::Kind::ask_judge;
  step.claimed_result = claimed_;
  return step;
}

Result<AuditStep> AuditLoop::on_producer_error(std::string error_information) {
  if (phase_ != Phase::awaiting_claim)
    return wrong_phase("on_producer_error",
                       phase_ == Phase::awaiting_verdict ? "the judge's verdict" : "nothing (delivered)");
  ++attempts_;
  phase_ = Phase::delivered;
  AuditStep step;
  step.report.status = VerdictStatus::error;
  step.report.output = last_ ? last_->output : "";
  step.report.error_information = std::move(error_information);
  step.report.verdict = last_;
  step.report.claimed_result = claimed_;
  step.report.judge_calls = judge_calls_;
  step.report.attempts = attempts_;
  return step;
}

Result<AuditStep> AuditLoop::on_verdict(const JudgeVerdict& verdict) {
  if (phase_ != Phase::awaiting_verdict)
    return wrong_phase("on_verdict", phase_ == Phase::awaiting_claim ? "the producer's result" : "nothing (delivered)");
  last_ = verdict;
  AuditStep step;
  if (verdict.success()) {
    phase_ = Phase::delivered;
    step.report.status = VerdictStatus::success;
    step.report.output = claimed_;
  } else if (retries_ < limits_.max_retries) {
    ++retries_;
    phase_ = Phase::awaiting_claim;
    step.kind = AuditStep::Kind::retry;
    step.feedback = "The judge rejected your result (rejection " + std::to_string(retries_) + "; " +
                    std::to_string(limits_.max_retries - retries_ + 1) + " attempt(s) left).\nJudge's report:\n" +
                    verdict.output + "\nCore error: " + verdict.error_information +
                    "\nFix these problems, keep the parts the report says can be kept, and give your result again.";
    return step;
  } else {
    phase_ = Phase::delivered;
    step.report.status = VerdictStatus::error;
    step.report.output = verdict.output;
    step.report.error_information = verdict.error_information;
  }
  step.kind = AuditStep::Kind::deliver;
  step.report.verdict = verdict;
  step.report.claimed_result = claimed_;
  step.report.judge_calls = judge_calls_;
  step.report.attempts = attempts_;
  return step;
}

}  // namespace kaisha::planning
