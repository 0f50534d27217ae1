// Double-float arithmetic against long double, and the df64 variant against fp64 where float
// has long run out.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "df64.h"
#include "model/view.h"
#include "pixel.h"

namespace mp {
namespace {

long double exact(Df64 a) {
  return static_cast<long double>(a.hi) + a.lo;
}

// Each operation keeps about 48 bits: its error against the long-double result of the same
// inputs stays within a few units of 2^-48 of the result's size.
TEST(Df64, SumsAndProductsKeepAbout48Bits) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-4.0, 4.0);
  const long double tolerance = std::ldexp(1.0L, -45);
  double worst_sum = 0, worst_product = 0;
  for (int i = 0; i < 200000; ++i) {
    const Df64 a = df64_from(u(rng)), b = df64_from(u(rng) * std::pow(2.0, -(i % 30)));
    const long double sum = exact(a) + exact(b), product = exact(a) * exact(b);
    const long double es = std::fabs(exact(a + b) - sum) / std::fmax(std::fabs(sum), 1e-30L);
    const long double ep =
        std::fabs(exact(a * b) - product) / std::fmax(std::fabs(product), 1e-30L);
    worst_sum = std::fmax(worst_sum, static_cast<double>(es));
    worst_product = std::fmax(worst_product, static_cast<double>(ep));
    ASSERT_LE(ep, tolerance) << i;
    // A sum of nearly opposite values loses what the inputs lacked, not what df64 keeps:
    // measured against the larger input instead.
    ASSERT_LE(std::fabs(exact(a + b) - sum),
              tolerance * std::fmax(std::fabs(exact(a)), std::fabs(exact(b))))
        << i;
  }
  EXPECT_GT(worst_product, 0.0);  // not exact: the test measures something
  EXPECT_EQ(exact(twice(df64_from(0.1))), 2 * exact(df64_from(0.1)));
}

TEST(Df64, SplitsADoubleInto48Bits) {
  const double d = -0.743643887037151;
  const Df64 a = df64_from(d);
  EXPECT_EQ(a.hi, static_cast<float>(d));
  EXPECT_LE(std::fabs(static_cast<double>(exact(a)) - d), std::ldexp(std::fabs(d), -47));
}

// At a span of 1e-11 float is long gone (every pixel of a row the same c), while df64's
// 48 bits still tell the pixels apart: its counts follow fp64's on most pixels.
TEST(Df64, FollowsFp64WhereFloatHasRunOut) {
  const View v = view_at(-0.743643887037151, 0.131825904205330, 1e-11, 2000);
  const int w = 48, h = 27;
  const PixelGrid g = pixel_grid(v, w, h);
  int same = 0, distinct_df64 = 0;
  unsigned last = 0;
  for (int py = 0; py < h; ++py)
    for (int px = 0; px < w; ++px) {
      const unsigned d = pixel_at<variants::Df64Step>(g, px, py, v.max_iter).iters;
      const unsigned f = pixel_at<variants::Fp64>(g, px, py, v.max_iter).iters;
      same += d == f;
      distinct_df64 += d != last;
      last = d;
    }
  std::printf("  df64 against fp64 at span 1e-11: %d of %d pixels the same count\n", same, w * h);
  EXPECT_GE(same, w * h * 9 / 10);
  EXPECT_GT(distinct_df64, w * h / 10);  // an image, not blocks of one value
}

}  // namespace
}  // namespace mp
