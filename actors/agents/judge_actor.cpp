#include "actors/agents/judge_actor.hpp"

#include "actors/caf/atoms.hpp"
#include "actors/strategy_kit/charged_call.hpp"
#include "actors/strategy_kit/handler_failure.hpp"
#include "actors/system/journal_actor.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/judge/judge_prompt.hpp"
#include "runtime/judge/judge_verdict.hpp"
#include "runtime/judge/quality_score.hpp"
#include "runtime/store/journal_store.hpp"
#include "runtime/telemetry/gen_ai_attributes.hpp"
#include "runtime/telemetry/tracer.hpp"

namespace kaisha::actors {
namespace {

constexpr const char* kJudge = "Judge";
constexpr int64_t kJudgeMaxOutputTokens = 1024;

struct JudgeState {
  JudgeDeps deps;
  PendingReplies audits;  // audits not answered yet (see handler_failure.hpp)
  static inline const char* name = "judge";
};

using JudgeSelf = caf::stateful_actor<JudgeState>;

// The audit's promise, forgotten by the state's PendingReplies when answered.
// The audit's span ("invoke_agent Judge") ends with its verdict.
struct AuditAnswer {
  JudgeSelf* self;
  uint64_t ticket;
  caf::typed_response_promise<msg::AuditVerdict> promise;
  std::shared_ptr<telemetry::Span> span;  // null when tracing is off
  void deliver(msg::AuditVerdict v) {
    if (span) {
      span->set("kaisha.verdict.success", v.success);
      span->set("kaisha.verdict.malformed", v.malformed);
      span->set("kaisha.quality", v.quality);
      if (!v.success && !v.error_information.empty()) span->set("kaisha.verdict.reason", v.error_information);
      telemetry::end_span(*span, v.judge_failed ? telemetry::SpanStatus::error : telemetry::SpanStatus::ok,
                          v.judge_failed ? v.error_information : "");
    }
    self->state.audits.done(ticket);
    promise.deliver(std::move(v));
  }
};

std::shared_ptr<telemetry::Span> audit_span(const msg::AuditRequest& req) {
  namespace attr = telemetry::attr;
  if (!telemetry::tracer()) return nullptr;
  auto s = std::make_shared<telemetry::Span>(
      telemetry::begin_span(attr::invoke_agent_span_name(kJudge), telemetry::SpanKind::internal, "", req.task_id));
  if (s->span_id.empty()) return nullptr;
  s->set(attr::kGenAiOperationName, attr::kOperationInvokeAgent);
  s->set(attr::kGenAiAgentName, kJudge);
  s->set("kaisha.verdict.producer", req.producer);
  return s;
}

void emit(JudgeSelf* self, const std::string& task_id, const std::string& text, json data) {
  auto& d = self->state.deps;
  if (!d.progress) return;
  msg::ProgressEvent e;
  e.session_id = d.session_id;
  e.task_id = task_id;
  e.agent = kJudge;
  e.kind = msg::EventKind::verdict;
  e.text = text;
  e.data = std::move(data);
  e.at_ms = wall_ms();
  d.progress->emit(e);
}

// Updates the producer's stored quality score on the single writer and
// answers with the new value once it is committed.
void record_quality(JudgeSelf* self, const std::string& producer, bool success, std::function<void(double)> then) {
  auto q = std::make_shared<double>(planning::QualityScore::kDefaultInitial);
  JournalOp op = [producer, success, q](store::JournalStore& s) {
    auto row = s.load_quality(producer);
    double start = planning::QualityScore::kDefaultInitial;
    int64_t verdicts = 0;
    if (row.ok() && row->has_value()) {
      start = (*row)->q;
      verdicts = (*row)->verdicts;
    }
    auto score = planning::QualityScore::create(planning::QualityScore::kDefaultAlpha, start);
    *q = score.ok() ? score->update(success) : start;
    s.save_quality({producer, *q, verdicts + 1, 0});
  };
  if (!self->state.deps.journal) return then(*q);
  self->request(self->state.deps.journal, caf::infinite, sync_atom::value, std::move(op))
      .then([q, then](bool) { then(*q); }, [q, then](caf::error&) { then(*q); });
}

caf::behavior judge(JudgeSelf* self, JudgeDeps deps) {
  self->state.deps = std::move(deps);
  // The audits in flight come back as failed judgements (judge_failed): the
  // asker carries on without the judge, as when its model call fails.
  self->set_exception_handler([self](std::exception_ptr& e) -> caf::error {
    const std::string why = describe_handler_failure("the judge", e);
    self->state.audits.fail_all(why);
    return handler_failure_error(why);
  });
  return {
      [=](audit_atom, msg::AuditRequest& req) -> caf::result<msg::AuditVerdict> {
        auto taken = self->make_response_promise<msg::AuditVerdict>();
        const uint64_t ticket = self->state.audits.add([taken](const std::string& why) mutable {
          msg::AuditVerdict v;
          v.judge_failed = true;
          v.error_information = why;
          taken.deliver(std::move(v));
        });
        // Every answer below goes through here, so the audit is no longer held.
        auto promise = AuditAnswer{self, ticket, taken, audit_span(req)};
        auto& d = self->state.deps;
        auto prompt = planning::render_judge_prompt(req.task_id, req.instruction, req.claimed_result);
        if (!prompt.ok()) {
          msg::AuditVerdict v;
          v.judge_failed = true;
          v.error_information = prompt.error().message;
          promise.deliver(std::move(v));
          return taken;
        }
        ChargedCall call;
        call.ledger = d.ledger;
        call.model_client = d.model_client;
        call.cost = d.cost;
        call.agent = kJudge;
        call.task_id = req.task_id;
        call.kept = KeptWith{req.kept_call, -1};
        call.model_ref = d.model_ref;
        if (promise.span) call.trace = telemetry::traceparent_of(*promise.span);
        call.request.messages = {{llm::Role::system, prompt->system, {}, "", ""},
                                 {llm::Role::user, prompt->user, {}, "", ""}};
        call.request.temperature = 0.0;
        call.request.max_tokens = kJudgeMaxOutputTokens;
        charged_chat(self, std::move(call), [=](ChargedCallResult r) mutable {
          auto& dd = self->state.deps;
          if (!r.ok) {
            msg::AuditVerdict v;
            v.judge_failed = true;
            v.error_information = "the judge could not be asked: " + r.error;
            journal_step(dd.journal, {dd.session_id, req.task_id, kJudge, msg::EventKind::error,
                                      json{{"error", v.error_information}}});
            emit(self, req.task_id, v.error_information, json{{"producer", req.producer}, {"judge_failed", true}});
            promise.deliver(std::move(v));
            return;
          }
          planning::JudgeVerdict parsed = planning::parse_verdict(r.response.message.content);
          msg::AuditVerdict v;
          v.success = parsed.success();
          v.output = parsed.output;
          v.error_information = parsed.error_information;
          v.malformed = parsed.malformed;
          journal_step(dd.journal, {dd.session_id, req.task_id, kJudge, msg::EventKind::note,
                                    json{{"producer", req.producer}, {"verdict", planning::to_json(parsed)}},
                                    r.response.usage.input_tokens, r.response.usage.output_tokens, r.expense});
          record_quality(self, req.producer, v.success, [=](double q) mutable {
            v.quality = q;
            emit(self, req.task_id, req.producer + ": " + (v.success ? "success" : "error: " + v.error_information),
                 json{{"producer", req.producer},
                      {"success", v.success},
                      {"quality", q},
                      {"malformed", v.malformed},
                      {"expense", r.expense}});
            promise.deliver(std::move(v));
          });
        });
        return taken;
      },
  };
}

}  // namespace

caf::actor spawn_judge(caf::actor_system& sys, JudgeDeps deps) { return sys.spawn(judge, std::move(deps)); }

}  // namespace kaisha::actors
