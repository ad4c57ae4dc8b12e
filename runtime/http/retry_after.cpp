#include "runtime/http/retry_after.hpp"

#include <cctype>
#include <cmath>
#include <string>

#include <curl/curl.h>

namespace kaisha::http {
namespace {

std::string_view trim_spaces(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Delay-seconds: digits with an optional fraction. Anything else (a sign,
// letters, a second dot) means "not a number" and we try the date forms.
std::optional<std::chrono::milliseconds> parse_seconds(std::string_view s) {
  bool seen_dot = false;
  for (char c : s) {
    if (c == '.' && !seen_dot) {
      seen_dot = true;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  }
  if (s == ".") return std::nullopt;
  double seconds = std::strtod(std::string(s).c_str(), nullptr);
  // A week is far beyond any sane retry; callers cap anyway, this only keeps
  // the conversion below clear of overflow.
  constexpr double kMaxSeconds = 7 * 24 * 3600.0;
  if (!std::isfinite(seconds) || seconds > kMaxSeconds) seconds = kMaxSeconds;
  return std::chrono::milliseconds(static_cast<int64_t>(std::llround(seconds * 1000.0)));
}

}  // namespace

std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view value,
                                                           std::chrono::system_clock::time_point now) {
  value = trim_spaces(value);
  if (value.empty()) return std::nullopt;
  if (std::isdigit(static_cast<unsigned char>(value.front())) || value.front() == '.') {
    if (auto secs = parse_seconds(value)) return secs;
    return std::nullopt;  // "12abc" is neither seconds nor a date
  }
  // HTTP-dates start with a day name. curl_getdate understands all three
  // forms RFC 9110 requires recipients to accept.
  if (!std::isalpha(static_cast<unsigned char>(value.front()))) return std::nullopt;
  const std::string text(value);
  const time_t when = curl_getdate(text.c_str(), nullptr);
  if (when == -1) return std::nullopt;
  const auto at = std::chrono::system_clock::from_time_t(when);
  if (at <= now) return std::chrono::milliseconds(0);
  return std::chrono::duration_cast<std::chrono::milliseconds>(at - now);
}

}  // namespace kaisha::http
