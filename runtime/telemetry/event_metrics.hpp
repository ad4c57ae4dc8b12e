// EventMetrics counts a company's progress events into a MetricsRegistry:
// every event by kind, and each ended task by outcome with the tokens and $
// it reported. A ProgressSink, so it sits beside the transcript in the sink
// chain (company::ProgressFanOut). Thread-safe; emit() only touches atomics
// once a kind's counter exists.
//
// Metrics:
//   kaisha_events_total{kind}                    events by their wire kind
//   kaisha_tasks_total{outcome}                  completed | failed | canceled
//   kaisha_task_tokens_total{direction}          input | output, of ended tasks
//   kaisha_task_cost_usd_total                   $ of ended tasks
#pragma once

#include <array>

#include "runtime/company/progress_sink.hpp"
#include "runtime/telemetry/metrics_registry.hpp"

namespace kaisha::telemetry {

class EventMetrics : public company::ProgressSink {
 public:
  explicit EventMetrics(MetricsRegistry& registry = default_registry());
  void emit(const msg::ProgressEvent& event) override;

 private:
  std::vector<Counter*> by_kind_;  // indexed by EventKind
  Counter *completed_, *failed_, *canceled_;
  Counter *tokens_in_, *tokens_out_, *usd_;
};

}  // namespace kaisha::telemetry
