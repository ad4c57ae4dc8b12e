// The samplers: their first draws pinned (so a change of algorithm shows),
// their moments over 100,000 draws of a fixed stream (seeded, so the bounds,
// five standard errors or more, are checked against one fixed set of draws
// and cannot flake), and their refusal of invalid parameters.
#include "runtime/random/samplers.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace kaisha::random {
namespace {

constexpr double kGoldenTolerance = 1e-12;
constexpr int kDraws = 100000;

RandomStream golden_stream(const StreamKey& key) { return RandomStream(TaskSeed("t-golden"), key); }

struct Moments {
  double mean = 0;
  double variance = 0;
};

Moments moments_of(RandomStream& stream, const std::function<double(RandomStream&)>& draw) {
  std::vector<double> xs;
  xs.reserve(kDraws);
  double sum = 0;
  for (int i = 0; i < kDraws; ++i) {
    xs.push_back(draw(stream));
    sum += xs.back();
  }
  Moments m;
  m.mean = sum / kDraws;
  double squares = 0;
  for (double x : xs) squares += (x - m.mean) * (x - m.mean);
  m.variance = squares / (kDraws - 1);
  return m;
}

std::string invalid_argument_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(nothing thrown)";
}

TEST(Samplers, FirstDrawsArePinned) {
  // Uniform draws need no math library, so they are pinned to the bit.
  auto u = golden_stream(StreamKey("uniform01"));
  EXPECT_EQ(uniform01(u), 0.18118488290318691);
  EXPECT_EQ(uniform01(u), 0.16840332162181271);
  EXPECT_EQ(uniform01(u), 0.40330035676019216);
  EXPECT_EQ(uniform01(u), 0.04439590580749786);

  auto below = golden_stream(StreamKey("uniform_below"));
  for (uint64_t expected : {4, 2, 7, 1, 5, 7}) EXPECT_EQ(uniform_below(below, 10), expected);

  auto normal = golden_stream(StreamKey("normal"));
  EXPECT_NEAR(standard_normal(normal), 0.16398388104321207, kGoldenTolerance);
  EXPECT_NEAR(standard_normal(normal), -1.525213742381748, kGoldenTolerance);
  EXPECT_NEAR(standard_normal(normal), -1.1882907790929267, kGoldenTolerance);
  EXPECT_NEAR(standard_normal(normal), 1.7826255195236478, kGoldenTolerance);

  auto small = golden_stream(StreamKey("gamma", 1));
  EXPECT_NEAR(gamma(small, 0.5, 1), 0.46410710141184602, kGoldenTolerance);
  EXPECT_NEAR(gamma(small, 0.5, 1), 0.11150325966393036, kGoldenTolerance);
  EXPECT_NEAR(gamma(small, 0.5, 1), 0.01258609123549019, kGoldenTolerance);
  EXPECT_NEAR(gamma(small, 0.5, 1), 0.12823837983911388, kGoldenTolerance);

  auto large = golden_stream(StreamKey("gamma", 2));
  EXPECT_NEAR(gamma(large, 3, 2), 5.2496221008139887, kGoldenTolerance);
  EXPECT_NEAR(gamma(large, 3, 2), 5.8863930880983277, kGoldenTolerance);
  EXPECT_NEAR(gamma(large, 3, 2), 1.9193430881753715, kGoldenTolerance);
  EXPECT_NEAR(gamma(large, 3, 2), 2.9969196539584968, kGoldenTolerance);

  auto b = golden_stream(StreamKey("beta"));
  EXPECT_NEAR(beta(b, 2, 5), 0.10025276032326952, kGoldenTolerance);
  EXPECT_NEAR(beta(b, 2, 5), 0.45691998199966988, kGoldenTolerance);
  EXPECT_NEAR(beta(b, 2, 5), 0.34990138474304505, kGoldenTolerance);
  EXPECT_NEAR(beta(b, 2, 5), 0.13491526676244858, kGoldenTolerance);

  auto thompson = golden_stream(StreamKey("thompson", 7));
  EXPECT_NEAR(beta(thompson, 0.1, 0.1), 8.6887487721814483e-05, kGoldenTolerance);
  EXPECT_NEAR(beta(thompson, 0.1, 0.1), 0.00031128524920311454, kGoldenTolerance);
  EXPECT_NEAR(beta(thompson, 0.1, 0.1), 0.9821914877200929, kGoldenTolerance);
  EXPECT_NEAR(beta(thompson, 0.1, 0.1), 9.1875532251640586e-05, kGoldenTolerance);
}

TEST(Samplers, Uniform01IsOnThe53BitGridInZeroToOne) {
  auto stream = golden_stream(StreamKey("uniform01.grid"));
  int odd = 0;  // draws that use the 53rd bit: about half of them
  for (int i = 0; i < 10000; ++i) {
    const double x = uniform01(stream);
    ASSERT_GE(x, 0.0);
    ASSERT_LT(x, 1.0);
    const double scaled = x * 0x1.0p53;
    ASSERT_EQ(scaled, std::floor(scaled)) << x;
    if (std::fmod(scaled, 2.0) == 1.0) ++odd;
  }
  EXPECT_NEAR(odd, 5000, 300);
  const Moments m = moments_of(stream, uniform01);
  EXPECT_NEAR(m.mean, 0.5, 5 * std::sqrt(1.0 / 12 / kDraws));
  EXPECT_NEAR(m.variance, 1.0 / 12, 0.002);
}

TEST(Samplers, UniformBelowStaysInRangeAndIsEven) {
  auto stream = golden_stream(StreamKey("uniform_below.dice"));
  std::vector<int> counts(6, 0);
  for (int i = 0; i < 60000; ++i) {
    const uint64_t face = uniform_below(stream, 6);
    ASSERT_LT(face, 6u);
    ++counts[face];
  }
  // 10,000 expected per face, standard deviation about 91.
  for (int c : counts) EXPECT_NEAR(c, 10000, 500);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(uniform_below(stream, 1), 0u);
}

TEST(Samplers, UniformBelowHasNoModuloBias) {
  // For n = 3 * 2^62, a plain r % n maps 2^64 values onto n: those below
  // 2^62 come up twice as often, so a third of the range would take half
  // the draws. Without bias it takes a third.
  const uint64_t n = 3ull << 62;
  auto stream = golden_stream(StreamKey("uniform_below.bias"));
  int low = 0;
  for (int i = 0; i < kDraws; ++i) {
    const uint64_t x = uniform_below(stream, n);
    ASSERT_LT(x, n);
    if (x < (1ull << 62)) ++low;
  }
  // Standard error of the fraction: sqrt(1/3 * 2/3 / 100000) ~ 0.0015.
  EXPECT_NEAR(static_cast<double>(low) / kDraws, 1.0 / 3, 0.01);
}

TEST(Samplers, StandardNormalHasMeanZeroAndVarianceOne) {
  auto stream = golden_stream(StreamKey("moments.normal"));
  const Moments m = moments_of(stream, standard_normal);
  EXPECT_NEAR(m.mean, 0.0, 0.016);     // standard error 0.0032
  EXPECT_NEAR(m.variance, 1.0, 0.03);  // standard error 0.0045
}

TEST(Samplers, GammaBelowShapeOneHasItsMoments) {
  auto stream = golden_stream(StreamKey("moments.gamma", 1));
  const Moments m = moments_of(stream, [](RandomStream& s) { return gamma(s, 0.5, 1); });
  EXPECT_NEAR(m.mean, 0.5, 0.012);      // k theta; standard error 0.0022
  EXPECT_NEAR(m.variance, 0.5, 0.035);  // k theta^2; standard error about 0.006
}

TEST(Samplers, GammaAboveShapeOneHasItsMoments) {
  auto stream = golden_stream(StreamKey("moments.gamma", 2));
  const Moments m = moments_of(stream, [](RandomStream& s) { return gamma(s, 3, 2); });
  EXPECT_NEAR(m.mean, 6.0, 0.06);      // standard error 0.011
  EXPECT_NEAR(m.variance, 12.0, 0.4);  // standard error about 0.076
}

TEST(Samplers, BetaHasItsMoments) {
  auto stream = golden_stream(StreamKey("moments.beta"));
  const Moments m = moments_of(stream, [](RandomStream& s) { return beta(s, 2, 5); });
  EXPECT_NEAR(m.mean, 2.0 / 7, 0.0026);                // standard error 0.0005
  EXPECT_NEAR(m.variance, 10.0 / (49.0 * 8), 0.0008);  // 0.0255; standard error about 0.00013
}

TEST(Samplers, BetaWithSmallShapesStaysANumberInZeroToOne) {
  // A Gamma(0.001) draw underflows to 0 about half the time (U^1000 with
  // U < 0.47); X / (X + Y) would then often be 0/0.
  auto stream = golden_stream(StreamKey("beta.small"));
  double sum = 0;
  for (int i = 0; i < 10000; ++i) {
    const double x = beta(stream, 0.001, 0.001);
    ASSERT_FALSE(std::isnan(x));
    ASSERT_GE(x, 0.0);
    ASSERT_LE(x, 1.0);
    sum += x;
  }
  // Nearly every draw is at 0 or 1, half each: standard error of the mean 0.005.
  EXPECT_NEAR(sum / 10000, 0.5, 0.03);
}

TEST(Samplers, RefuseInvalidParametersSayingWhichAndWhy) {
  auto stream = golden_stream(StreamKey("errors"));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(invalid_argument_of([&] { uniform_below(stream, 0); }),
            "uniform_below: n must be > 0, got 0 (the range [0, n) is empty)");
  EXPECT_EQ(invalid_argument_of([&] { gamma(stream, 0, 1); }), "gamma: shape must be a finite number > 0, got 0");
  EXPECT_EQ(invalid_argument_of([&] { gamma(stream, -1.5, 1); }), "gamma: shape must be a finite number > 0, got -1.5");
  EXPECT_EQ(invalid_argument_of([&] { gamma(stream, nan, 1); }), "gamma: shape must be a finite number > 0, got nan");
  EXPECT_EQ(invalid_argument_of([&] { gamma(stream, 2, 0); }), "gamma: scale must be a finite number > 0, got 0");
  EXPECT_EQ(invalid_argument_of([&] { gamma(stream, 2, inf); }), "gamma: scale must be a finite number > 0, got inf");
  EXPECT_EQ(invalid_argument_of([&] { beta(stream, 0, 1); }), "beta: alpha must be a finite number > 0, got 0");
  EXPECT_EQ(invalid_argument_of([&] { beta(stream, 1, nan); }), "beta: beta must be a finite number > 0, got nan");
  EXPECT_EQ(invalid_argument_of([&] { beta(stream, 1, -inf); }), "beta: beta must be a finite number > 0, got -inf");
  // A refused call draws nothing: the stream goes on as if it had not been made.
  auto untouched = golden_stream(StreamKey("errors"));
  EXPECT_EQ(stream.next_u64(), untouched.next_u64());
}

}  // namespace
}  // namespace kaisha::random
