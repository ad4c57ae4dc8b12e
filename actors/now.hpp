// Wall-clock milliseconds since the epoch, for journal timestamps and latency.
#pragma once

#include <chrono>
#include <cstdint>

namespace kaisha::actors {

inline int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace kaisha::actors
