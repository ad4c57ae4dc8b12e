// OAuthTokenExpiry: when an access token should be refreshed before a
// request goes out, rather than after the server refuses it with 401.
//
// A token whose response said `expires_in` is due for a refresh within a
// margin of its expiry: a tenth of its lifetime, at most 60 s. The lifetime
// is measured on the monotonic clock from when the token arrived, so a jump
// of the wall clock does not move it; a token read back from the store (a
// new process) counts from its stored absolute expiry (unix seconds) against
// the wall clock once, then on the monotonic clock. A token that said
// nothing of its lifetime is never due: the 401 path renews it.
//
// A plain value; the caller passes the clocks in.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

namespace kaisha::mcp {

class OAuthTokenExpiry {
 public:
  using Steady = std::chrono::steady_clock;
  static constexpr std::chrono::seconds kMaxMargin{60};

  OAuthTokenExpiry() = default;  // lifetime unknown: never due
  // A token that arrived at `now` with `expires_in_s` (<= 0: unknown).
  static OAuthTokenExpiry from_expires_in(int64_t expires_in_s, Steady::time_point now);
  // A stored token: expiry at `expires_at_s` unix seconds (0: unknown), first
  // issued for `lifetime_s` (0: unknown, the margin is then the largest),
  // read back at wall time `wall_now_s` and monotonic time `now`.
  static OAuthTokenExpiry from_stored(int64_t expires_at_s, int64_t lifetime_s, int64_t wall_now_s,
                                      Steady::time_point now);

  bool known() const { return expires_.has_value(); }
  // True when a request sent at `now` should refresh the token first.
  bool due(Steady::time_point now) const;
  std::chrono::seconds margin() const { return margin_; }

 private:
  std::optional<Steady::time_point> expires_;
  std::chrono::seconds margin_{0};
};

}  // namespace kaisha::mcp
