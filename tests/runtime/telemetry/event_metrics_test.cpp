#include "runtime/telemetry/event_metrics.hpp"

#include <gtest/gtest.h>

#include "runtime/telemetry/metered_chat_client.hpp"
#include "runtime/telemetry/prometheus_text.hpp"

namespace kaisha::telemetry {
namespace {

msg::ProgressEvent event(msg::EventKind kind) {
  msg::ProgressEvent e;
  e.kind = kind;
  return e;
}

TEST(EventMetrics, CountsEventsByKindAndEndedTasksWithTheirCosts) {
  MetricsRegistry r;
  EventMetrics m(r);
  m.emit(event(msg::EventKind::ask));
  m.emit(event(msg::EventKind::ask));
  m.emit(event(msg::EventKind::refusal));
  msg::ProgressEvent agent_error = event(msg::EventKind::error);  // an agent's error: the task goes on
  m.emit(agent_error);
  msg::ProgressEvent done = event(msg::EventKind::final);
  done.data = {{"wall_ms", 5}};
  done.tokens_in = 120;
  done.tokens_out = 30;
  done.usd = 0.25;
  m.emit(done);
  msg::ProgressEvent failed = event(msg::EventKind::error);
  failed.data = {{"wall_ms", 9}};
  failed.tokens_in = 10;
  failed.usd = 0.5;
  m.emit(failed);
  auto p = parse_prometheus_text(r.render());
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->value("kaisha_events_total", {{"kind", "ask"}}), 2);
  EXPECT_EQ(p->value("kaisha_events_total", {{"kind", "refusal"}}), 1);
  EXPECT_EQ(p->value("kaisha_events_total", {{"kind", "error"}}), 2);
  EXPECT_EQ(p->value("kaisha_events_total", {{"kind", "hire"}}), 0);
  EXPECT_EQ(p->value("kaisha_tasks_total", {{"outcome", "completed"}}), 1);
  EXPECT_EQ(p->value("kaisha_tasks_total", {{"outcome", "failed"}}), 1);
  EXPECT_EQ(p->value("kaisha_tasks_total", {{"outcome", "canceled"}}), 0);
  EXPECT_EQ(p->value("kaisha_task_tokens_total", {{"direction", "input"}}), 130);
  EXPECT_EQ(p->value("kaisha_task_tokens_total", {{"direction", "output"}}), 30);
  EXPECT_EQ(p->value("kaisha_task_cost_usd_total"), 0.75);
}

class ScriptedChat : public company::ChatClient {
 public:
  Status check_model(const std::string&) const override { return Status::Ok(); }
  void chat(const std::string&, llm::ChatRequest, company::ChatHandlers h) override {
    if (h.on_retry) h.on_retry(1, 10, "HTTP 503");
    if (fail) return h.on_done(Error{"provider", "down"});
    llm::ChatResponse r;
    r.usage.input_tokens = 11;
    r.usage.output_tokens = 4;
    h.on_done(r);
  }
  bool fail = false;
};

TEST(MeteredChatClient, CountsCallsTokensRetriesAndLatencyPerProviderAndModel) {
  MetricsRegistry r;
  auto inner = std::make_shared<ScriptedChat>();
  auto chat = metered(inner, r);
  int answered = 0;
  company::ChatHandlers h;
  h.on_done = [&](Result<llm::ChatResponse> res) { answered += res.ok() ? 1 : 100; };
  chat->chat("ollama:llama3.2", {}, h);
  chat->chat("ollama:llama3.2", {}, h);
  inner->fail = true;
  chat->chat("openai:gpt-4o", {}, h);
  EXPECT_EQ(answered, 102);  // the handlers still get every answer
  auto p = parse_prometheus_text(r.render());
  ASSERT_TRUE(p.ok()) << p.error().message;
  const std::map<std::string, std::string> llama{{"provider", "ollama"}, {"model", "llama3.2"}};
  EXPECT_EQ(p->value("kaisha_model_calls_total", {{"provider", "ollama"}, {"model", "llama3.2"}, {"outcome", "ok"}}),
            2);
  EXPECT_EQ(p->value("kaisha_model_calls_total", {{"provider", "openai"}, {"outcome", "error"}}), 1);
  EXPECT_EQ(p->value("kaisha_model_tokens_total", {{"model", "llama3.2"}, {"direction", "input"}}), 22);
  EXPECT_EQ(p->value("kaisha_model_tokens_total", {{"model", "llama3.2"}, {"direction", "output"}}), 8);
  EXPECT_EQ(p->value("kaisha_model_retries_total", llama), 2);
  EXPECT_EQ(p->value("kaisha_model_call_seconds_count", llama), 2);
  EXPECT_EQ(p->value("kaisha_model_call_seconds_count", {{"model", "gpt-4o"}}), 1);
}

}  // namespace
}  // namespace kaisha::telemetry
