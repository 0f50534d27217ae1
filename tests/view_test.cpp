#include "model/view.h"

#include <gtest/gtest.h>

#include <cmath>

namespace mp {
namespace {

TEST(View, PixelGridCentresOnTheView) {
  const View v = view_at(-0.5, 0.25, 4.0, 100);
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
  const View v = view_at(-0.5, 0.0, 3.0, 100);
  const int w = 300, h = 200;
  const double px = 50, py = 40;
  auto point = [&](const View& x) {
    const double d = to_double(x.span) / w;
    return std::make_pair(x.center_x.to_double() + (px - w / 2.0) * d,
                          x.center_y.to_double() + (h / 2.0 - py) * d);
  };
  const View z = zoom_about(v, 2.0, px, py, w, h);
  EXPECT_EQ(to_double(z.span), 1.5);
  EXPECT_NEAR(point(z).first, point(v).first, 1e-12);
  EXPECT_NEAR(point(z).second, point(v).second, 1e-12);
}

TEST(View, DragMovesTheImageWithTheCursor) {
  const View v = view_at(0.0, 0.0, 2.0, 100);
  const View p = pan_by_pixels(v, 10, 5, 200, 100);  // right and down by (10, 5) pixels
  EXPECT_DOUBLE_EQ(p.center_x.to_double(), -0.1);    // content moves right: centre moves left
  EXPECT_DOUBLE_EQ(p.center_y.to_double(), 0.05);
  EXPECT_EQ(p.span, v.span);
}

TEST(View, FloatPrecisionRunsOutAtDeepZoom) {
  View v = view_at(-0.743643887037151, 0.131825904205330, 0.005, 100);
  EXPECT_FALSE(float_precision(v, 1920, 1080).exhausted);
  v.span = to_floatexp(2e-6);  // pixel spacing 1e-9, float ulp near 0.74 is 6e-8
  const PrecisionStatus p = float_precision(v, 1920, 1080);
  EXPECT_TRUE(p.exhausted);
  EXPECT_NEAR(p.float_ulp, 5.96e-8, 1e-9);
  EXPECT_DOUBLE_EQ(p.pixel_spacing, 2e-6 / 1920);
  // Double precision goes on far deeper, double-float almost as deep: 48 bits near 0.74 are
  // 2^-48 = 3.6e-15 apart.
  EXPECT_FALSE(float_precision(v, 1920, 1080, 53).exhausted);
  EXPECT_FALSE(float_precision(v, 1920, 1080, 48).exhausted);
  EXPECT_DOUBLE_EQ(float_precision(v, 1920, 1080, 48).float_ulp, std::ldexp(1.0, -48));
  v.span = to_floatexp(1e-11);  // spacing 5.2e-15: double-float is out, double is not
  EXPECT_TRUE(float_precision(v, 1920, 1080, 48).exhausted);
  EXPECT_FALSE(float_precision(v, 1920, 1080, 53).exhausted);
  v.span = to_floatexp(1e-13);
  EXPECT_TRUE(float_precision(v, 1920, 1080, 53).exhausted);
}

TEST(View, PrecisionPastDoublesRangeIsExhausted) {
  View v;
  v.center_x = BigReal(0.0);
  v.span = *parse_span("1e-500");
  for (int bits : {24, 48, 53}) EXPECT_TRUE(float_precision(v, 1920, 1080, bits).exhausted);
}

// The exact value of a + b * 2^e (MPFR at plenty of bits).
BigReal exactly(const BigReal& a, double b, int e) {
  return a.with_bits(a.bits() + 200) + scaled(to_floatexp(b), e);
}

TEST(View, DeepViewsPanAndZoomAsShallowOnesDo) {
  // Span 2^-1661 (about 1e-500) at 1024 pixels: a pixel is 2^-1671, so that every move below
  // is exact in FloatExp and the centre's rounding is the one thing to check.
  View v;
  v.span = scaled(to_floatexp(1.0), -1661);
  v.center_x = *parse_centre("-1.7400623825793399052" + std::string(500, '7'), v);
  v.center_y = *parse_centre("0.0000000001" + std::string(500, '3'), v);
  ASSERT_GE(view_bits(v, 1024), 1661 + 10 + 32);

  // Right by 10 pixels and up by 4: the centre moves left by 10 and down by 4.
  const View p = pan_by_pixels(v, 10, -4, 1024, 512);
  EXPECT_EQ(p.span, v.span);
  EXPECT_EQ(p.center_x.bits(), view_bits(v, 1024));
  EXPECT_EQ(p.center_x, exactly(v.center_x, -10, -1671).with_bits(p.center_x.bits()));
  EXPECT_EQ(p.center_y, exactly(v.center_y, -4, -1671).with_bits(p.center_y.bits()));
  EXPECT_NE(p.center_x, v.center_x.with_bits(p.center_x.bits()));

  // Zoom by 2 about pixel (768, 256): 256 pixels right of the centre, on its row. The centre
  // moves half of that, 128 pixels, and the span halves.
  const View z = zoom_about(v, 2.0, 768, 256, 1024, 512);
  EXPECT_EQ(z.span, scaled(v.span, -1));
  EXPECT_EQ(z.center_x.bits(), view_bits(z, 1024));
  EXPECT_EQ(z.center_x, exactly(v.center_x, 128, -1671).with_bits(z.center_x.bits()));
  EXPECT_EQ(z.center_y, v.center_y.with_bits(z.center_y.bits()));
}

TEST(View, ZoomPathsReachPastDoublesRange) {
  ZoomPath z;
  z.x = BigReal(-0.75);
  z.from = to_floatexp(1e-3);
  z.to = *parse_span("1e-600");
  z.steps = 4;
  const std::vector<View> views = zoom_views(z);
  ASSERT_EQ(views.size(), 4u);
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(log10_of(views[k].span), -3 - 199.0 * k, 1e-9);
  EXPECT_EQ(views[0].span, z.from);
  EXPECT_EQ(views[3].center_x, BigReal(-0.75));
}

// A zoom sequence from the whole set to 1e-40 at 0+1i: the point the two views share holds its
// place on screen (in pixels of a 160-wide frame) in every frame, also where the span is far below
// double's resolution of the centre (the way still to go once taken as 1 - u in double, it moved
// 44 pixels at 1e-16); to a millionth of a pixel.
TEST(View, AZoomSequenceHoldsItsPointOnScreenAtEveryDepth) {
  View from;
  from.center_x = BigReal(-0.75);
  from.center_y = BigReal(0.0);
  from.span = to_floatexp(3.0);
  from.max_iter = 500;
  View to;
  to.span = *parse_span("1e-40");
  const int bits = view_bits(to) + 64;
  to.center_x = BigReal(0.0, bits);
  to.center_y = BigReal(1.0, bits);
  const std::vector<View> views = zoom_sequence(from, to, 40);
  ASSERT_EQ(views.size(), 40u);
  EXPECT_EQ(views.front().center_x, from.center_x);
  EXPECT_EQ(views.back().center_y, to.center_y);
  // The shared point: to's centre moved on by (to - from) s1 / (s0 - s1).
  const FloatExp on = quotient(to.span, from.span - to.span);
  const BigReal fx = to.center_x + to_floatexp(to.center_x - from.center_x.with_bits(bits)) * on;
  const BigReal fy = to.center_y + to_floatexp(to.center_y - from.center_y.with_bits(bits)) * on;
  auto pixel = [&](const BigReal& f, const BigReal& c, const View& v) {
    return to_double(quotient(to_floatexp(f - c.with_bits(bits)), v.span)) * 160;
  };
  const double x0 = pixel(fx, views.front().center_x, views.front());
  const double y0 = pixel(fy, views.front().center_y, views.front());
  for (std::size_t k = 1; k < views.size(); ++k) {
    EXPECT_NEAR(pixel(fx, views[k].center_x, views[k]), x0, 1e-6) << "frame " << k;
    EXPECT_NEAR(pixel(fy, views[k].center_y, views[k]), y0, 1e-6) << "frame " << k;
    EXPECT_EQ(views[k].max_iter, 500u);
  }
}

TEST(View, ShallowZoomPathsKeepTheirDoubles) {
  const FloatExp s = span_between(to_floatexp(1.0), to_floatexp(1e-3), 1.0 / 3);
  EXPECT_EQ(to_double(s), 1.0 * std::pow(1e-3 / 1.0, 1.0 / 3));
}

// Each coordinate of a view is a finite double within the model's range.
void expect_in_range(const View& v) {
  EXPECT_FALSE(to_floatexp(kMaxSpan) < v.span);
  EXPECT_FALSE(v.span < kMinSpan);
  EXPECT_LE(std::abs(v.center_x.to_double()), kMaxCentre);
  EXPECT_LE(std::abs(v.center_y.to_double()), kMaxCentre);
}

TEST(View, ZoomingOutStopsAtTheWidestSpanAndComesBack) {
  // The window's `-` key 2,600 times, then its wheel 6,000 notches out at a corner: the view
  // stops at the widest span, and 50 presses of `+` come back in.
  constexpr int kW = 1024, kH = 768;
  View v;
  for (int k = 0; k < 2600; ++k) v = zoom_about(v, 1 / 1.5, kW / 2.0, kH / 2.0, kW, kH);
  EXPECT_EQ(v.span, to_floatexp(kMaxSpan));
  for (int k = 0; k < 6000; ++k) v = zoom_about(v, std::pow(1.2, -1), 0, 0, kW, kH);
  expect_in_range(v);
  EXPECT_EQ(v.span, to_floatexp(kMaxSpan));
  for (int k = 0; k < 50; ++k) v = zoom_about(v, 1.5, kW / 2.0, kH / 2.0, kW, kH);
  expect_in_range(v);
  EXPECT_NEAR(log10_of(v.span), std::log10(kMaxSpan) - 50 * std::log10(1.5), 1e-9);
  const PixelGrid g = pixel_grid(v, kW, kH);
  EXPECT_TRUE(std::isfinite(g.x0) && std::isfinite(g.y0) && g.dx > 0);
}

TEST(View, PanningStopsAtTheWidestCentre) {
  View v = view_at(0, 0, kMaxSpan);
  for (int k = 0; k < 100; ++k) v = pan_by_pixels(v, 1e6, 1e6, 1024, 768);
  expect_in_range(v);
  EXPECT_EQ(v.center_x.to_double(), -kMaxCentre);
  EXPECT_EQ(v.center_y.to_double(), kMaxCentre);
}

TEST(View, ZoomingInStopsAtTheNarrowestSpan) {
  EXPECT_EQ(held_span(quotient(kMinSpan, to_floatexp(1.5))), kMinSpan);
  EXPECT_EQ(held_span(FloatExp{}), kMinSpan);
  EXPECT_EQ(held_span(to_floatexp(1e300)), to_floatexp(kMaxSpan));
  EXPECT_EQ(held_span(to_floatexp(2.5)), to_floatexp(2.5));
}

TEST(View, SpansAndCentresPastTheRangeAreRefused) {
  EXPECT_TRUE(parse_view_span("64"));
  EXPECT_FALSE(parse_view_span("64.5"));
  EXPECT_FALSE(parse_view_span("1e300"));
  const View v;
  EXPECT_TRUE(parse_centre("-1000", v));
  EXPECT_FALSE(parse_centre("1e39", v));
  EXPECT_FALSE(parse_view("0", "0", "1e300"));
}

TEST(View, ZoomPathsAcrossTheWholeRangeStayFinite) {
  for (double t : {0.0, 0.5, 1.0}) {
    const FloatExp s = span_between(*parse_span("1e-300"), to_floatexp(kMaxSpan), t);
    EXPECT_GT(s.m, 0);
    EXPECT_NEAR(log10_of(s), -300 + t * (300 + std::log10(kMaxSpan)), 1e-9);
  }
}

TEST(View, PrecisionFailsClosedPastFloatsRange) {
  // 1e39 is past float's largest value: its ulp is NaN, which once read as "enough".
  for (int bits : {24, 48})
    EXPECT_TRUE(float_precision(view_at(1e39, 0, 1), 1920, 1080, bits).exhausted);
}

}  // namespace
}  // namespace mp
