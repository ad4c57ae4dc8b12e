// Amounts on the ledgers, kept as integer micro-units.
//
// Both ledgers (resource percentage points and USD) store amounts as int64
// millionths. Sums are then exact: 0.1 + 0.2 fits a 0.3 budget, and a thousand
// concurrent reservations add up to exactly what was reserved. A micro-dollar
// is finer than any provider bills, and int64 holds ±9.2e12 units, far beyond
// any budget. Conversion rounds to the nearest micro-unit.
#pragma once

#include <cstdint>
#include <string>

namespace kaisha::economy {

using Micros = int64_t;

inline constexpr double kMicrosPerUnit = 1e6;

Micros to_micros(double amount);
double from_micros(Micros micros);

// "20", "0.3", "0.000123": at most 6 decimals, trailing zeros and dot trimmed,
// no exponent. Used in every user-facing number the economy prints.
std::string format_amount(double amount);
std::string format_micros(Micros micros);

}  // namespace kaisha::economy
