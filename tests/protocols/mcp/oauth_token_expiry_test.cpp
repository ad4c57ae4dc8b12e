// When a token is refreshed ahead of its expiry: within a tenth of its
// lifetime, at most 60 s; measured on the monotonic clock; a stored token
// counts from its absolute expiry once.
#include "protocols/mcp/oauth/oauth_token_expiry.hpp"

#include <gtest/gtest.h>

namespace kaisha::mcp {
namespace {

using std::chrono::seconds;
const OAuthTokenExpiry::Steady::time_point kExpiryT0{seconds(1'000'000)};

TEST(OAuthTokenExpiry, ATokenWithoutALifetimeIsNeverDue) {
  EXPECT_FALSE(OAuthTokenExpiry().due(kExpiryT0 + seconds(100'000)));
  EXPECT_FALSE(OAuthTokenExpiry::from_expires_in(0, kExpiryT0).due(kExpiryT0 + seconds(100'000)));
  EXPECT_FALSE(OAuthTokenExpiry::from_stored(0, 3600, 5000, kExpiryT0).due(kExpiryT0 + seconds(100'000)));
}

TEST(OAuthTokenExpiry, ALongLivedTokenIsDueSixtySecondsBeforeItsExpiry) {
  const auto e = OAuthTokenExpiry::from_expires_in(3600, kExpiryT0);
  EXPECT_EQ(e.margin(), seconds(60));
  EXPECT_FALSE(e.due(kExpiryT0 + seconds(3539)));
  EXPECT_TRUE(e.due(kExpiryT0 + seconds(3540)));
  EXPECT_TRUE(e.due(kExpiryT0 + seconds(4000)));  // expired: due all the more
}

TEST(OAuthTokenExpiry, AShortLivedTokenIsDueATenthOfItsLifetimeBefore) {
  const auto e = OAuthTokenExpiry::from_expires_in(60, kExpiryT0);
  EXPECT_EQ(e.margin(), seconds(6));
  EXPECT_FALSE(e.due(kExpiryT0 + seconds(53)));
  EXPECT_TRUE(e.due(kExpiryT0 + seconds(54)));
}

TEST(OAuthTokenExpiry, AStoredTokenCountsFromItsAbsoluteExpiry) {
  // Read back at wall time 10,000 with 100 s left of a one-hour token.
  const auto e = OAuthTokenExpiry::from_stored(10'100, 3600, 10'000, kExpiryT0);
  EXPECT_FALSE(e.due(kExpiryT0 + seconds(39)));
  EXPECT_TRUE(e.due(kExpiryT0 + seconds(40)));
  // Expired while the process was not running: due at once.
  EXPECT_TRUE(OAuthTokenExpiry::from_stored(9'000, 3600, 10'000, kExpiryT0).due(kExpiryT0));
  // A lifetime the store does not know: the largest margin.
  EXPECT_EQ(OAuthTokenExpiry::from_stored(10'100, 0, 10'000, kExpiryT0).margin(), seconds(60));
}

}  // namespace
}  // namespace kaisha::mcp
