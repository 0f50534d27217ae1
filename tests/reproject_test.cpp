#include "reproject.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace mp {
namespace {

PixelGrid grid(int w, int h, double x0, double y0, double d) {
  return PixelGrid{w, h, x0, y0, d, -d};
}

// Pixel i's smooth value is i, its aux -i: where each pixel came from is readable.
std::vector<float> numbered(const PixelGrid& g) {
  std::vector<float> v(static_cast<size_t>(g.width) * g.height * kFloatsPerPixel);
  for (size_t i = 0; i < v.size() / 2; ++i) {
    v[2 * i] = static_cast<float>(i);
    v[2 * i + 1] = -static_cast<float>(i);
  }
  return v;
}

std::vector<float> reprojected(const PixelGrid& from, const PixelGrid& to) {
  const std::vector<float> src = numbered(from);
  std::vector<float> dst(static_cast<size_t>(to.width) * to.height * kFloatsPerPixel, 99.0f);
  reproject_on_host(from, src.data(), to, dst.data());
  return dst;
}

TEST(Reproject, TheSameViewIsACopy) {
  const PixelGrid g = grid(7, 5, -1.0, 1.0, 0.25);
  EXPECT_EQ(reprojected(g, g), numbered(g));
}

TEST(Reproject, APanMovesThePixelsAndLeavesTheUncoveredOnesUnknown) {
  const PixelGrid from = grid(8, 4, 0.0, 0.0, 1.0);
  const PixelGrid to = grid(8, 4, 3.0, 0.0, 1.0);  // three pixels to the right
  const std::vector<float> d = reprojected(from, to);
  for (int px = 0; px < 8; ++px) {
    const int src = px + 3;
    EXPECT_EQ(d[2 * px], src < 8 ? static_cast<float>(src) : kUnknownSmooth) << px;
    EXPECT_EQ(d[2 * px + 1], src < 8 ? -static_cast<float>(src) : 0.0f) << px;
  }
}

TEST(Reproject, ZoomingInByTwoShowsEachOldPixelFourTimes) {
  const PixelGrid from = grid(8, 8, 0.0, 8.0, 1.0);
  // Half the spacing, centred on the same middle: new pixel 2k and 2k+1 near old pixel k+2.
  const PixelGrid to = grid(8, 8, 1.75, 6.25, 0.5);
  const std::vector<float> d = reprojected(from, to);
  for (int py = 0; py < 8; ++py)
    for (int px = 0; px < 8; ++px) {
      const long long s = reprojected_source(from, to, px, py);
      ASSERT_GE(s, 0);
      EXPECT_EQ(s % 8, (px + 0) / 2 + 2) << px << "," << py;
      EXPECT_EQ(s / 8, (py + 0) / 2 + 2) << px << "," << py;
      EXPECT_EQ(d[2 * (py * 8 + px)], static_cast<float>(s));
    }
}

TEST(Reproject, ZoomingOutLeavesTheBorderUnknown) {
  const PixelGrid from = grid(4, 4, 0.0, 4.0, 1.0);
  const PixelGrid to = grid(8, 8, -2.0, 6.0, 1.0);  // the old frame in the middle
  const std::vector<float> d = reprojected(from, to);
  EXPECT_EQ(d[0], kUnknownSmooth);
  EXPECT_EQ(d[2 * (2 * 8 + 2)], 0.0f);   // old pixel (0, 0)
  EXPECT_EQ(d[2 * (5 * 8 + 5)], 15.0f);  // old pixel (3, 3)
  EXPECT_EQ(d[2 * (6 * 8 + 6)], kUnknownSmooth);
}

TEST(Reproject, NonsenseGridsGiveUnknownNotUndefinedBehaviour) {
  const PixelGrid g = grid(4, 4, 0.0, 0.0, 1.0);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(reprojected_source(grid(4, 4, nan, 0.0, 1.0), g, 1, 1), -1);
  EXPECT_EQ(reprojected_source(g, grid(4, 4, 0.0, 0.0, 0.0), 1, 1), 0);   // all one point
  EXPECT_EQ(reprojected_source(grid(4, 4, 0.0, 0.0, 0.0), g, 1, 1), -1);  // 1/0
  EXPECT_EQ(reprojected_source(g, grid(4, 4, 1e300, 0.0, 1e300), 3, 3), -1);
}

}  // namespace
}  // namespace mp
