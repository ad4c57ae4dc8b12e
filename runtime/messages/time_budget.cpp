#include "runtime/messages/time_budget.hpp"

#include <algorithm>

namespace kaisha::msg {

void set_time_budget(Envelope& e, int64_t timeout_ms, int64_t wall_now_ms) {
  e.budget_ms = std::max<int64_t>(0, timeout_ms);
  e.deadline_ms = e.budget_ms > 0 ? wall_now_ms + e.budget_ms : 0;
}

int64_t receive_deadline(const Envelope& e, int64_t steady_now_ms, int64_t wall_now_ms) {
  if (e.envelope_version >= 2) return e.budget_ms > 0 ? steady_now_ms + e.budget_ms : 0;
  if (e.deadline_ms <= 0) return 0;
  return steady_now_ms + std::max<int64_t>(0, e.deadline_ms - wall_now_ms);
}

}  // namespace kaisha::msg
