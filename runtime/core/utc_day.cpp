#include "runtime/core/utc_day.hpp"

#include <ctime>
#include <regex>

namespace kaisha {

Result<int64_t> utc_day_start_ms(const std::string& day) {
  static const std::regex re(R"((\d{4})-(\d{2})-(\d{2}))");
  std::smatch m;
  if (!std::regex_match(day, m, re))
    return Error{"usage", "'" + day + "' is not a date: expected YYYY-MM-DD (a UTC day)"};
  std::tm tm{};
  tm.tm_year = std::stoi(m[1]) - 1900;
  tm.tm_mon = std::stoi(m[2]) - 1;
  tm.tm_mday = std::stoi(m[3]);
  const int mon = tm.tm_mon, mday = tm.tm_mday;
  const std::time_t t = timegm(&tm);
  // timegm normalises 2026-02-30 to March 2: a day that moved did not exist.
  if (mon < 0 || mon > 11 || tm.tm_mon != mon || tm.tm_mday != mday)
    return Error{"usage", "'" + day + "' is not a day of the calendar"};
  return static_cast<int64_t>(t) * 1000;
}

}  // namespace kaisha
