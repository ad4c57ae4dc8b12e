#include "runtime/hiva/routing/number_text.hpp"

#include <charconv>
#include <cmath>

namespace kaisha::hiva {

std::string number_text(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buffer[32];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, v);
  return std::string(buffer, end);
}

}  // namespace kaisha::hiva
