#include "runtime/telemetry/event_metrics.hpp"

namespace kaisha::telemetry {

EventMetrics::EventMetrics(MetricsRegistry& registry) {
  auto& events = registry.counter("kaisha_events_total", "Progress events reported, by kind", {"kind"});
  for (const auto& k : msg::event_kinds()) {
    const size_t i = static_cast<size_t>(k.kind);
    if (by_kind_.size() <= i) by_kind_.resize(i + 1, nullptr);
    by_kind_[i] = &events.with({std::string(k.name)});
  }
  auto& tasks = registry.counter("kaisha_tasks_total", "Tasks ended, by outcome", {"outcome"});
  completed_ = &tasks.with({"completed"});
  failed_ = &tasks.with({"failed"});
  canceled_ = &tasks.with({"canceled"});
  auto& tokens = registry.counter("kaisha_task_tokens_total", "Model tokens of ended tasks", {"direction"});
  tokens_in_ = &tokens.with({"input"});
  tokens_out_ = &tokens.with({"output"});
  usd_ = &registry.counter("kaisha_task_cost_usd_total", "Dollars spent by ended tasks").with();
}

void EventMetrics::emit(const msg::ProgressEvent& e) {
  const size_t i = static_cast<size_t>(e.kind);
  if (i < by_kind_.size() && by_kind_[i]) by_kind_[i]->add();
  if (!msg::ends_task(e)) return;
  (e.kind == msg::EventKind::final ? completed_ : e.kind == msg::EventKind::canceled ? canceled_ : failed_)->add();
  tokens_in_->add(static_cast<double>(e.tokens_in));
  tokens_out_->add(static_cast<double>(e.tokens_out));
  usd_->add(e.usd);
}

}  // namespace kaisha::telemetry
