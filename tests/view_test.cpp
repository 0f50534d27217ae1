#include "model/view.h"

#include <gtest/gtest.h>

namespace mp {
namespace {

TEST(View, PixelGridCentresOnTheView) {
  const View v{-0.5, 0.25, 4.0, 100};
  const PixelGrid g = pixel_grid(v, 400, 200);
  EXPECT_DOUBLE_EQ(g.dx, 0.01);
  EXPECT_DOUBLE_EQ(g.dy, -0.01);
  EXPECT_DOUBLE_EQ(g.x0, -0.5 - 2.0 + 0.005);  // centre of the left column
  EXPECT_DOUBLE_EQ(g.y0, 0.25 + 1.0 - 0.005);  // centre of the top row
  // The middle between the two central columns is the centre.
  EXPECT_NEAR(g.x0 + 199.5 * g.dx, -0.5, 1e-12);
  EXPECT_NEAR(g.y0 + 99.5 * g.dy, 0.25, 1e-12);
}

TEST(View, ZoomKeepsThePointUnderTheCursor) {
  const View v{-0.5, 0.0, 3.0, 100};
  const int w = 300, h = 200;
  const double px = 50, py = 40;
  auto point = [&](const View& x) {
    const double d = x.span / w;
    return std::make_pair(x.center_x + (px - w / 2.0) * d, x.center_y + (h / 2.0 - py) * d);
  };
  const View z = zoom_about(v, 2.0, px, py, w, h);
  EXPECT_DOUBLE_EQ(z.span, 1.5);
  EXPECT_NEAR(point(z).first, point(v).first, 1e-12);
  EXPECT_NEAR(point(z).second, point(v).second, 1e-12);
}

TEST(View, DragMovesTheImageWithTheCursor) {
  const View v{0.0, 0.0, 2.0, 100};
  const View p = pan_by_pixels(v, 10, 5, 200, 100);  // right and down by (10, 5) pixels
  EXPECT_DOUBLE_EQ(p.center_x, -0.1);                // content moves right: centre moves left
  EXPECT_DOUBLE_EQ(p.center_y, 0.05);
  EXPECT_EQ(p.span, v.span);
}

TEST(View, FloatPrecisionRunsOutAtDeepZoom) {
  View v{-0.743643887037151, 0.131825904205330, 0.005, 100};
  EXPECT_FALSE(float_precision(v, 1920, 1080).exhausted);
  v.span = 2e-6;  // pixel spacing 1e-9, float ulp near 0.74 is 6e-8
  const PrecisionStatus p = float_precision(v, 1920, 1080);
  EXPECT_TRUE(p.exhausted);
  EXPECT_NEAR(p.float_ulp, 5.96e-8, 1e-9);
  EXPECT_DOUBLE_EQ(p.pixel_spacing, 2e-6 / 1920);
  // Double precision goes on far deeper, double-float almost as deep: 48 bits near 0.74 are
  // 2^-48 = 3.6e-15 apart.
  EXPECT_FALSE(float_precision(v, 1920, 1080, 53).exhausted);
  EXPECT_FALSE(float_precision(v, 1920, 1080, 48).exhausted);
  EXPECT_DOUBLE_EQ(float_precision(v, 1920, 1080, 48).float_ulp, std::ldexp(1.0, -48));
  v.span = 1e-11;  // spacing 5.2e-15: double-float is out, double is not
  EXPECT_TRUE(float_precision(v, 1920, 1080, 48).exhausted);
  EXPECT_FALSE(float_precision(v, 1920, 1080, 53).exhausted);
  v.span = 1e-13;
  EXPECT_TRUE(float_precision(v, 1920, 1080, 53).exhausted);
}

}  // namespace
}  // namespace mp
