// The hash and the generators under the random streams, checked against
// their published reference values, so that a slip in a constant or a shift
// fails here rather than as a changed draw somewhere else.
#include "runtime/core/fnv1a.hpp"
#include "runtime/random/splitmix64.hpp"
#include "runtime/random/xoshiro256_starstar.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace kaisha::random {
namespace {

TEST(Fnv1a, MatchesThePublishedValues) {
  EXPECT_EQ(fnv1a_64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(fnv1a_64("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(fnv1a_64("foobar"), 0x85944171f73967e8ull);
}

TEST(Fnv1a, ContinuingEqualsHashingTheJoinedBytes) {
  EXPECT_EQ(fnv1a_64(fnv1a_64("foo"), "bar"), fnv1a_64("foobar"));
  // Bytes above 0x7F are hashed as unsigned, whatever the sign of char.
  EXPECT_EQ(fnv1a_64("\xff"), (0xcbf29ce484222325ull ^ 0xFFull) * 0x100000001b3ull);
}

TEST(SplitMix64, MatchesTheReferenceForSeed1234567) {
  SplitMix64 mix(1234567);
  EXPECT_EQ(mix.next(), 6457827717110365317ull);
  EXPECT_EQ(mix.next(), 3203168211198807973ull);
  EXPECT_EQ(mix.next(), 9817491932198370423ull);
  EXPECT_EQ(mix.next(), 4593380528125082431ull);
  EXPECT_EQ(mix.next(), 16408922859458223821ull);
}

TEST(Xoshiro256StarStar, MatchesTheReferenceFromState1234) {
  Xoshiro256StarStar engine({1, 2, 3, 4});
  const uint64_t expected[] = {11520ull,
                               0ull,
                               1509978240ull,
                               1215971899390074240ull,
                               1216172134540287360ull,
                               607988272756665600ull,
                               16172922978634559625ull,
                               8476171486693032832ull,
                               10595114339597558777ull,
                               2904607092377533576ull};
  for (uint64_t e : expected) EXPECT_EQ(engine.next(), e);
}

TEST(Xoshiro256StarStar, SeedsItsStateWithSplitMix64) {
  SplitMix64 mix(42);
  const uint64_t a = mix.next(), b = mix.next(), c = mix.next(), d = mix.next();
  Xoshiro256StarStar seeded = Xoshiro256StarStar::from_seed(42);
  Xoshiro256StarStar direct({a, b, c, d});
  for (int i = 0; i < 16; ++i) EXPECT_EQ(seeded.next(), direct.next()) << "draw " << i;
}

TEST(Xoshiro256StarStar, RefusesTheAllZeroState) {
  EXPECT_THROW(Xoshiro256StarStar({0, 0, 0, 0}), std::invalid_argument);
  EXPECT_NO_THROW(Xoshiro256StarStar({0, 0, 0, 1}));
}

}  // namespace
}  // namespace kaisha::random
