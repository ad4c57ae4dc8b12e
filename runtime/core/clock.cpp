#include "runtime/core/clock.hpp"

#include <atomic>
#include <chrono>

namespace kaisha {

namespace {
std::atomic<int64_t> wall_shift_ms{0};
}  // namespace

int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
             .count() +
         wall_shift_ms.load(std::memory_order_relaxed);
}

void shift_wall_clock_for_testing(int64_t delta_ms) { wall_shift_ms.fetch_add(delta_ms, std::memory_order_relaxed); }

}  // namespace kaisha
