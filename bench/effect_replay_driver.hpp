// The driver benchmarks' baseline (HALO's, HiVA's): a trivial driver that
// issues exactly the effects a recorded task of a strategy's driver issued,
// in the same waves, with no search or routing, no prompt rendering and no
// reply parsing. An EffectRecording holds what the driver returned from
// start() and from each outcome (by the effect's id); ReplayDriver returns
// copies of the same, whatever the outcomes say, so the effects' number,
// sizes and concurrency are the strategy's and only its own work is missing.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "runtime/driver/driver_effects.hpp"

namespace kaisha::bench {

struct EffectRecording {
  driver::Effects start;
  std::map<driver::CallId, driver::Effects> after;  // the effects returned on the outcome of id
};

inline driver::CallId outcome_id(const driver::Outcome& o) {
  return std::visit([](const auto& x) { return static_cast<driver::CallId>(x.id); }, o);
}

class ReplayDriver {
 public:
  explicit ReplayDriver(std::shared_ptr<const EffectRecording> recording) : recording_(std::move(recording)) {}

  driver::Effects start() { return release(recording_->start); }

  driver::Effects on(const driver::Outcome& o) {
    auto it = recording_->after.find(outcome_id(o));
    if (it == recording_->after.end()) return {};
    ++answered_;
    driver::Effects out = release(it->second);
    // Outcomes may come in another order than when recorded: the finish
    // waits for every recorded outcome, as the recorded driver's did.
    if (finish_ && answered_ == recording_->after.size()) out.push_back(std::move(*finish_)), finish_.reset();
    return out;
  }

  driver::Effects cancel(const std::string& why) { return {driver::Finish{false, why}}; }

 private:
  driver::Effects release(const driver::Effects& recorded) {
    driver::Effects out;
    out.reserve(recorded.size());
    for (const driver::Effect& e : recorded) {
      if (std::holds_alternative<driver::Finish>(e) && answered_ < recording_->after.size())
        finish_ = std::get<driver::Finish>(e);
      else
        out.push_back(e);
    }
    return out;
  }

  std::shared_ptr<const EffectRecording> recording_;
  size_t answered_ = 0;
  std::optional<driver::Finish> finish_;
};

}  // namespace kaisha::bench
