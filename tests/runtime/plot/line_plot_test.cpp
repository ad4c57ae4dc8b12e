// The plot: points land where pixel_of() says, in their series' colour;
// coinciding points all show; lines join points; the PNG's chunks are well
// formed; a file that cannot be written is an error naming it.
#include "runtime/plot/line_plot.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>

namespace kaisha::plot {
namespace {

constexpr int kW = 400, kH = 300;

Rgb pixel(const std::vector<uint8_t>& rgb, int x, int y) {
  const size_t at = (static_cast<size_t>(y) * kW + static_cast<size_t>(x)) * 3;
  return Rgb{rgb[at], rgb[at + 1], rgb[at + 2]};
}

bool same(Rgb a, Rgb b) { return a.r == b.r && a.g == b.g && a.b == b.b; }

const Rgb kBlue{0, 114, 178}, kRed{213, 94, 0}, kGreen{0, 158, 115};

TEST(LinePlot, PointsLandWhereTheAxesSayAndCoincidingOnesAllShow) {
  LinePlot p("accuracy against cost", "cost ($)", "accuracy (%)");
  p.add("full", kBlue, {{0.02, 80}}, LinePlot::Marks::points);
  p.add("no tools", kRed, {{0.02, 80}}, LinePlot::Marks::points);  // the same spot
  p.add("alone 一人", kGreen, {{0.005, 40}}, LinePlot::Marks::points);
  const std::vector<uint8_t> rgb = p.render(kW, kH);
  ASSERT_EQ(rgb.size(), static_cast<size_t>(kW) * kH * 3);
  auto [fx, fy] = p.pixel_of(0.02, 80, kW, kH);
  auto [ax, ay] = p.pixel_of(0.005, 40, kW, kH);
  EXPECT_LT(ax, fx);  // cheaper: further left
  EXPECT_GT(ay, fy);  // less accurate: lower
  // The later series on top at the centre; the earlier one's ring around it.
  EXPECT_TRUE(same(pixel(rgb, fx, fy), kRed));
  // Red's side is 9; blue, under it, 13: a ring 5 to 6 px out. Green,
  // alone, keeps 9.
  EXPECT_TRUE(same(pixel(rgb, fx + 6, fy), kBlue));
  EXPECT_TRUE(same(pixel(rgb, fx + 4, fy), kRed));
  EXPECT_FALSE(same(pixel(rgb, ax + 5, ay), kGreen));
  EXPECT_TRUE(same(pixel(rgb, ax + 4, ay), kGreen));
  EXPECT_TRUE(same(pixel(rgb, ax, ay), kGreen));
  // Axes from 0: x up to 0.02 (a round end), y up to 100.
  auto [ox, oy] = p.pixel_of(0, 0, kW, kH);
  auto [ex, ey] = p.pixel_of(0.02, 100, kW, kH);
  EXPECT_EQ(ex, fx);
  EXPECT_LT(ey, fy);
  EXPECT_LT(ox, ax);
  EXPECT_GT(oy, ay);
}

TEST(LinePlot, LinesJoinTheirPointsAndTheFileIsAPng) {
  LinePlot p("growth", "x", "y");
  p.add("series", kBlue, {{0, 0}, {10, 10}});
  const std::vector<uint8_t> rgb = p.render(kW, kH);
  auto [mx, my] = p.pixel_of(5, 5, kW, kH);
  bool found = false;  // the 2-pixel line passes by the midpoint
  for (int dx = -1; dx <= 1 && !found; ++dx)
    for (int dy = -1; dy <= 1 && !found; ++dy) found = same(pixel(rgb, mx + dx, my + dy), kBlue);
  EXPECT_TRUE(found);

  const std::string path = testing::TempDir() + "line_plot_test.png";
  std::string error;
  ASSERT_TRUE(p.write_png(path, kW, kH, &error)) << error;
  std::ifstream in(path, std::ios::binary);
  const std::string png((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(png.size(), 33u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(png.substr(12, 4), "IHDR");
  auto u32 = [&png](size_t at) {
    return (static_cast<uint32_t>(static_cast<uint8_t>(png[at])) << 24) |
           (static_cast<uint32_t>(static_cast<uint8_t>(png[at + 1])) << 16) |
           (static_cast<uint32_t>(static_cast<uint8_t>(png[at + 2])) << 8) | static_cast<uint8_t>(png[at + 3]);
  };
  EXPECT_EQ(u32(16), static_cast<uint32_t>(kW));
  EXPECT_EQ(u32(20), static_cast<uint32_t>(kH));
  EXPECT_EQ(png.substr(png.size() - 8, 4), "IEND");
  std::remove(path.c_str());

  EXPECT_FALSE(p.write_png("/proc/no-such-dir/plot.png", kW, kH, &error));
  EXPECT_EQ(error, "cannot write /proc/no-such-dir/plot.png");
}

}  // namespace
}  // namespace kaisha::plot
