#include "runtime/economy/amount.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace kaisha::economy {

Micros to_micros(double amount) { return static_cast<Micros>(std::llround(amount * kMicrosPerUnit)); }

double from_micros(Micros micros) { return static_cast<double>(micros) / kMicrosPerUnit; }

std::string format_micros(Micros micros) {
  // Integer formatting, so no binary-fraction noise can leak into the text.
  std::string sign = micros < 0 ? "-" : "";
  uint64_t m = micros < 0 ? static_cast<uint64_t>(-(micros + 1)) + 1 : static_cast<uint64_t>(micros);
  std::string out = sign + std::to_string(m / 1000000);
  uint64_t frac = m % 1000000;
  if (frac != 0) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "%06llu", static_cast<unsigned long long>(frac));
    std::string f(buf);
    while (!f.empty() && f.back() == '0') f.pop_back();
    out += "." + f;
  }
  return out;
}

std::string format_amount(double amount) { return format_micros(to_micros(amount)); }

}  // namespace kaisha::economy
