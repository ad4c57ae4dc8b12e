#include "actors/system/model_client_actor.hpp"

#include <unordered_map>

#include "actors/caf/atoms.hpp"
#include "runtime/llm/model_ref.hpp"
#include "runtime/telemetry/gen_ai_attributes.hpp"
#include "runtime/telemetry/tracer.hpp"

namespace kaisha::actors {
namespace {

struct ModelClientState {
  std::shared_ptr<company::ChatClient> chat;
  std::shared_ptr<company::ProgressSink> progress;
  std::unordered_map<uint64_t, caf::response_promise> pending;
  uint64_t next_id = 1;
  static inline const char* name = "model_client";
};

// The call's "chat {model}" span (GenAI semantic conventions), when it
// belongs to a trace; empty otherwise.
telemetry::Span chat_span(const msg::LlmCall& call) {
  namespace attr = telemetry::attr;
  auto ref = llm::parse_model_ref(call.model_ref);
  const std::string model = ref.ok() ? ref->model : call.model_ref;
  telemetry::Span s = telemetry::begin_span(attr::chat_span_name(model), telemetry::SpanKind::client, call.trace, "");
  if (s.span_id.empty()) return s;
  s.set(attr::kGenAiOperationName, attr::kOperationChat);
  if (ref.ok()) s.set(attr::kGenAiProviderName, ref->provider);
  s.set(attr::kGenAiRequestModel, model);
  if (!call.agent.empty()) s.set(attr::kGenAiAgentName, call.agent);
  if (telemetry::tracer()->include_text() && !call.request.messages.empty())
    s.set(attr::kGenAiInputMessages, call.request.messages.back().content);
  return s;
}

void end_chat_span(telemetry::Span& s, const Result<llm::ChatResponse>& r) {
  namespace attr = telemetry::attr;
  if (s.span_id.empty()) return;
  if (!r.ok()) {
    s.set(attr::kErrorType, r.error().code.empty() ? std::string("error") : r.error().code);
    return telemetry::end_span(s, telemetry::SpanStatus::error, r.error().message);
  }
  if (!r->model.empty()) s.set(attr::kGenAiResponseModel, r->model);
  s.set(attr::kGenAiUsageInputTokens, r->usage.input_tokens);
  s.set(attr::kGenAiUsageOutputTokens, r->usage.output_tokens);
  if (!r->finish_reason.empty()) s.set(attr::kGenAiResponseFinishReasons, r->finish_reason);
  if (telemetry::tracer() && telemetry::tracer()->include_text()) s.set(attr::kGenAiOutputMessages, r->message.content);
  telemetry::end_span(s);
}

caf::behavior model_client(caf::stateful_actor<ModelClientState>* self, std::shared_ptr<company::ChatClient> chat,
                           std::shared_ptr<company::ProgressSink> progress) {
  self->state.chat = std::move(chat);
  self->state.progress = std::move(progress);
  return {
      [=](chat_atom, msg::LlmCall& call) -> caf::result<msg::LlmResult> {
        const uint64_t id = self->state.next_id++;
        auto promise = self->make_response_promise<msg::LlmResult>();
        self->state.pending.emplace(id, promise);
        // The chat calls back on its own thread: post the result to this
        // actor's mailbox, never touch state from there.
        caf::actor me = caf::actor_cast<caf::actor>(self);
        company::ChatHandlers h;
        std::shared_ptr<telemetry::Span> span;
        if (telemetry::tracer()) span = std::make_shared<telemetry::Span>(chat_span(call));
        h.on_done = [me, id, span](Result<llm::ChatResponse> r) {
          if (span) end_chat_span(*span, r);
          msg::LlmResult out;
          out.ok = r.ok();
          if (r.ok())
            out.response = std::move(r).value();
          else
            out.error = r.error().message;
          caf::anon_send(me, done_atom::value, id, std::move(out));
        };
        if (auto sink = self->state.progress) {
          h.on_retry = [sink, ref = call.model_ref](int attempt, int64_t delay_ms, const std::string& why) {
            msg::ProgressEvent e;
            e.agent = ref;
            e.kind = msg::EventKind::retry;
            e.text = ref + ": " + why + ", retrying in " + std::to_string(delay_ms) + " ms (attempt " +
                     std::to_string(attempt) + ")";
            e.data = json{{"model_ref", ref}, {"attempt", attempt}, {"delay_ms", delay_ms}, {"reason", why}};
            sink->emit(e);
          };
        }
        self->state.chat->chat(call.model_ref, std::move(call.request), std::move(h));
        return promise;
      },
      [=](done_atom, uint64_t id, msg::LlmResult& result) {
        auto it = self->state.pending.find(id);
        if (it == self->state.pending.end()) return;
        it->second.deliver(std::move(result));
        self->state.pending.erase(it);
      },
  };
}

}  // namespace

caf::actor spawn_model_client(caf::actor_system& sys, std::shared_ptr<company::ChatClient> chat,
                              std::shared_ptr<company::ProgressSink> progress) {
  return sys.spawn(model_client, std::move(chat), std::move(progress));
}

}  // namespace kaisha::actors
