#include "protocols/mcp/oauth/oauth_token_expiry.hpp"

#include <algorithm>

namespace kaisha::mcp {

namespace {

std::chrono::seconds margin_for(int64_t lifetime_s) {
  if (lifetime_s <= 0) return OAuthTokenExpiry::kMaxMargin;
  return std::min(OAuthTokenExpiry::kMaxMargin, std::chrono::seconds(lifetime_s / 10));
}

}  // namespace

OAuthTokenExpiry OAuthTokenExpiry::from_expires_in(int64_t expires_in_s, Steady::time_point now) {
  OAuthTokenExpiry e;
  if (expires_in_s <= 0) return e;
  e.expires_ = now + std::chrono::seconds(expires_in_s);
  e.margin_ = margin_for(expires_in_s);
  return e;
}

OAuthTokenExpiry OAuthTokenExpiry::from_stored(int64_t expires_at_s, int64_t lifetime_s, int64_t wall_now_s,
                                               Steady::time_point now) {
  OAuthTokenExpiry e;
  if (expires_at_s <= 0) return e;
  e.expires_ = now + std::chrono::seconds(expires_at_s - wall_now_s);  // in the past when it has expired
  e.margin_ = margin_for(lifetime_s);
  return e;
}

bool OAuthTokenExpiry::due(Steady::time_point now) const { return expires_ && now >= *expires_ - margin_; }

}  // namespace kaisha::mcp
