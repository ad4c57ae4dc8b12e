// Time bounds in tests, stretched under a sanitizer.
//
// A test that shows something does not wait ("send() returns at once on a
// full peer") bounds it in time, with slack for a loaded machine. Code built
// with ThreadSanitizer or AddressSanitizer runs several times slower, so
// scripts/sanitize.sh sets KAISHA_TEST_TIME_SCALE and scaled() multiplies
// such bounds by it. Unset, or not a number of at least 1, it is 1.
#pragma once

#include <chrono>
#include <cstdlib>

namespace kaisha::testing {

inline double time_scale() {
  const char* s = std::getenv("KAISHA_TEST_TIME_SCALE");
  if (!s) return 1.0;
  char* end = nullptr;
  const double v = std::strtod(s, &end);
  return end != s && *end == '\0' && v >= 1.0 ? v : 1.0;
}

template <class Rep, class Period>
std::chrono::milliseconds scaled(std::chrono::duration<Rep, Period> d) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
  return std::chrono::milliseconds(static_cast<long long>(static_cast<double>(ms) * time_scale()));
}

}  // namespace kaisha::testing
