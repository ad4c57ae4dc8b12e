#include "runtime/cluster/failure_detector.hpp"

namespace kaisha::cluster {

const char* to_string(MemberState s) {
  switch (s) {
    case MemberState::alive:
      return "alive";
    case MemberState::suspect:
      return "suspect";
    case MemberState::down:
      return "down";
    case MemberState::gone:
      return "gone";
  }
  return "?";
}

MemberState classify(int64_t silent_ms, const Timeouts& t) {
  if (silent_ms >= t.down_after_ms) return MemberState::down;
  if (silent_ms >= t.suspect_after_ms) return MemberState::suspect;
  return MemberState::alive;
}

int64_t detection_bound_ms(const Timeouts& t, int64_t tick_ms) { return t.down_after_ms + tick_ms; }

}  // namespace kaisha::cluster
