#include "actors/strategy_kit/charged_call.hpp"

#include "actors/caf/atoms.hpp"
#include "runtime/llm/token_bound.hpp"
#include "runtime/telemetry/tracer.hpp"

namespace kaisha::actors {

std::chrono::milliseconds model_call_timeout(const config::Config& c) {
  const int64_t longest_wait = std::max(c.retry.max_delay_ms, c.retry.max_retry_after_ms);
  return std::chrono::milliseconds(int64_t(c.retry.max_attempts) * (longest_wait + 300000) + 5000);
}

void charged_chat(caf::event_based_actor* self, ChargedCall c, std::function<void(ChargedCallResult)> done) {
  // The hold is the call's true worst case: no tokenizer makes more input
  // tokens than the bound, and the provider is sent the output cap held.
  if (!c.request.max_tokens) c.request.max_tokens = kDefaultMaxOutputTokens;
  const int64_t est_in = llm::input_token_bound(c.request);
  const int64_t max_out = *c.request.max_tokens;
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
          self->request(call->ledger, caf::infinite, cancel_atom::value, reservation, call->agent, call->task_id,
                        call->kept.call, call->kept.step)
              .then([=](LedgerReply& after) {
                ChargedCallResult r;
                r.error = why;
                r.budget = after.budget;
                done(std::move(r));
              });
        };
        // The request goes to the model client once and is not read here
        // again: moved, not copied (its messages and tool schemas are most
        // of a call's bytes).
        self->request(call->model_client, call->timeout, chat_atom::value,
                      msg::LlmCall{call->model_ref, std::move(call->request),
                                   telemetry::span_parent(call->trace, call->task_id), call->agent})
            .then(
                [=](msg::LlmResult& res) {
                  if (!res.ok) return release(res.error);
                  const llm::Usage u = res.response.usage;
                  auto settled = [=](const economy::BudgetSummary& budget) {
                    ChargedCallResult r;
                    r.ok = true;
                    r.response = res.response;
                    r.expense = economy::Budget::expense_for(reservation.cost, u.input_tokens, u.output_tokens);
                    r.budget = budget;
                    done(std::move(r));
                  };
                  auto settling =
                      self->request(call->ledger, caf::infinite, settle_atom::value, reservation, u.input_tokens,
                                    u.output_tokens, call->agent, call->task_id, call->kept.call, call->kept.step);
                  if (!call->await_settle) {
                    std::move(settling).then([](LedgerReply&) {});
                    return settled({});
                  }
                  std::move(settling).then([=](LedgerReply& after) { settled(after.budget); });
                },
                [=](caf::error& err) { release("model call failed: " + self->system().render(err)); });
      });
}

void charged_ask(caf::event_based_actor* self, ChargedAsk a, std::function<void(ChargedAskResult)> done) {
  auto ask = std::make_shared<ChargedAsk>(std::move(a));
  self->request(ask->ledger, caf::infinite, reserve_atom::value, ask->cost, ask->ask.input_token_bound,
                ask->ask.max_output_tokens, ask->agent, ask->ask.task_id)
      .then([=](LedgerReply& held) {
        if (!held.ok) {
          ChargedAskResult r;
          r.refused = true;
          r.error = held.error;
          r.budget = held.budget;
          return done(std::move(r));
        }
        const economy::AskReservation reservation = held.reservation;
        auto release = [=](std::string why, msg::AskReply reply) {
          self->request(ask->ledger, caf::infinite, cancel_atom::value, reservation, ask->agent, ask->ask.task_id,
                        ask->kept.call, ask->kept.step)
              .then([=](LedgerReply& after) {
                ChargedAskResult r;
                r.error = why;
                r.reply = reply;
                r.budget = after.budget;
                done(std::move(r));
              });
        };
        self->request(ask->employee, ask->timeout, ask_atom::value, ask->ask)
            .then(
                [=](msg::AskReply& reply) {
                  if (!reply.ok) return release(reply.error, reply);
                  const llm::Usage u = reply.usage;
                  auto settled = [=](const economy::BudgetSummary& budget) {
                    ChargedAskResult r;
                    r.ok = true;
                    r.reply = reply;
                    r.expense = economy::Budget::expense_for(reservation.cost, u.input_tokens, u.output_tokens);
                    r.budget = budget;
                    done(std::move(r));
                  };
                  auto settling =
                      self->request(ask->ledger, caf::infinite, settle_atom::value, reservation, u.input_tokens,
                                    u.output_tokens, ask->agent, ask->ask.task_id, ask->kept.call, ask->kept.step);
                  if (!ask->await_settle) {
                    std::move(settling).then([](LedgerReply&) {});
                    return settled({});
                  }
                  std::move(settling).then([=](LedgerReply& after) { settled(after.budget); });
                },
                [=](caf::error& err) {
                  msg::AskReply none;
                  none.agent = ask->agent;
                  none.ok = false;
                  release("did not answer: " + self->system().render(err), none);
                });
      });
}

}  // namespace kaisha::actors
