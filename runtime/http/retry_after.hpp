// Parsing of the HTTP `Retry-After` response header (RFC 9110 §10.2.3), which
// a rate-limited or overloaded server uses to say when to try again.
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

namespace kaisha::http {

// Returns how long to wait according to a `Retry-After` value, which is either
// a number of seconds ("120", leniently also "1.5") or an HTTP-date
// ("Wed, 21 Oct 2015 07:28:00 GMT", plus the obsolete RFC 850 and asctime
// forms). A date in the past yields zero. Returns nullopt for an empty,
// negative or unparseable value, so the caller falls back to its own backoff.
// `now` is a parameter so that dates can be tested deterministically.
std::optional<std::chrono::milliseconds> parse_retry_after(
    std::string_view value, std::chrono::system_clock::time_point now = std::chrono::system_clock::now());

}  // namespace kaisha::http
