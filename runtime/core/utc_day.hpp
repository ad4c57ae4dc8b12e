// A UTC day as a command line names it ("2026-11-01"), as the milliseconds
// since the epoch of its first instant: `kaisha forget --before DAY`,
// `kaisha pyramid export-training --since DAY`. The error says what was
// wrong with the text ("'28/11/2026' is not a date: expected YYYY-MM-DD (a
// UTC day)", "'2026-02-30' is not a day of the calendar"); the caller puts
// its option's name in front.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/core/result.hpp"

namespace kaisha {

Result<int64_t> utc_day_start_ms(const std::string& day);

}  // namespace kaisha
