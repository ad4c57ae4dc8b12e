// ProgressFanOut hands every event to several sinks in turn (the transcript,
// the metrics, the `/events` stream). It listens when any of them does, and
// a sink that does not listen is skipped. Thread-safe as its sinks are; the
// list is fixed at construction.
#pragma once

#include <memory>
#include <vector>

#include "runtime/company/progress_sink.hpp"

namespace kaisha::company {

class ProgressFanOut : public ProgressSink {
 public:
  // Null entries are ignored.
  explicit ProgressFanOut(std::vector<std::shared_ptr<ProgressSink>> sinks) {
    for (auto& s : sinks)
      if (s) sinks_.push_back(std::move(s));
  }
  void emit(const msg::ProgressEvent& event) override {
    for (const auto& s : sinks_)
      if (s->listening()) s->emit(event);
  }
  bool listening() const override {
    for (const auto& s : sinks_)
      if (s->listening()) return true;
    return false;
  }

 private:
  std::vector<std::shared_ptr<ProgressSink>> sinks_;
};

}  // namespace kaisha::company
