#include "actors/charged_call.hpp"

#include "actors/atoms.hpp"
#include "runtime/llm/usage_estimate.hpp"

namespace kaisha::actors {

void charged_chat(caf::event_based_actor* self, ChargedCall c, std::function<void(ChargedCallResult)> done) {
  const int64_t est_in = llm::estimate_input_tokens(c.request);
  const int64_t max_out = c.request.max_tokens.value_or(4096);
  auto call = std::make_shared<ChargedCall>(std::move(c));
  self->request(call->ledger, caf::infinite, reserve_atom::value, call->cost, est_in, max_out, call->agent,
                call->task_id)
      .then([=](LedgerReply& held) {
        if (!held.ok) {
          ChargedCallResult r;
          r.refused = true;
          r.error = held.error;
          r.budget = held.budget;
          return done(std::move(r));
        }
        const economy::AskReservation reservation = held.reservation;
        auto release = [=](std::string why) {
          self->request(call->ledger, caf::infinite, cancel_atom::value, reservation, call->agent, call->task_id)
              .then([=](LedgerReply& after) {
                ChargedCallResult r;
                r.error = why;
                r.budget = after.budget;
                done(std::move(r));
              });
        };
        self->request(call->model_client, call->timeout, chat_atom::value,
                      msg::LlmCall{call->model_ref, call->request})
            .then(
                [=](msg::LlmResult& res) {
                  if (!res.ok) return release(res.error);
                  const llm::Usage u = res.response.usage;
                  self->request(call->ledger, caf::infinite, settle_atom::value, reservation, u.input_tokens,
                                u.output_tokens, call->agent, call->task_id)
                      .then([=](LedgerReply& after) {
                        ChargedCallResult r;
                        r.ok = true;
                        r.response = res.response;
                        r.expense = economy::Budget::expense_for(reservation.cost, u.input_tokens, u.output_tokens);
                        r.budget = after.budget;
                        done(std::move(r));
                      });
                },
                [=](caf::error& err) { release("model call failed: " + self->system().render(err)); });
      });
}

}  // namespace kaisha::actors
