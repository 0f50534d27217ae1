#include "render/cpu_renderer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "model/variant_table.h"
#include "model/view.h"
#include "pixel.h"

namespace mp {
namespace {

TEST(Iterate, KnownOrbits) {
  // c = 1: z = 1, 2, 5, 26 -> |z|^2 = 676 > 256 after 4 steps.
  EXPECT_EQ(iterate<variants::Fma4>(1.0f, 0.0f, 100).iters, 4u);
  EXPECT_EQ(iterate<variants::Fma5>(1.0f, 0.0f, 100).iters, 4u);
  // c = 0.5: 0.5, 0.75, 1.0625, 1.629, 3.153, 10.44, 109.5 -> 7 steps.
  EXPECT_EQ(iterate<variants::Fma4>(0.5f, 0.0f, 100).iters, 7u);
  // c = 0 and c = -2 never escape.
  const PixelResult zero = iterate<variants::Fma4>(0.0f, 0.0f, 1000);
  EXPECT_EQ(zero.iters, 1000u);
  EXPECT_LT(zero.smooth, 0.0f);
  EXPECT_EQ(iterate<variants::Fma5>(-2.0f, 0.0f, 1000).iters, 1000u);
  // c = i: 0 -> i -> -1+i -> -i -> -1+i: a cycle, never escapes.
  EXPECT_EQ(iterate<variants::Fma4>(0.0f, 1.0f, 500).iters, 500u);
}

// Blocks of steps, paired or not, undone and replayed where they escaped: the same counts and the
// same smooth values as one step at a time, at every iteration limit around a block's edges.
TEST(Iterate, BlocksOfStepsGiveExactlyTheOneStepCounts) {
  int escaped = 0, inside = 0;
  for (unsigned max_iter : {1u, 2u, 7u, 8u, 15u, 16u, 17u, 31u, 32u, 33u, 63u, 100u, 1000u})
    for (int i = 0; i < 61; ++i)
      for (int j = 0; j < 37; ++j) {
        const float cx = -2.1f + i * 0.045f, cy = -0.1f + j * 0.033f;
        // fma4 as written, and as the GPU fuses it (the exact-FMA variants' one-step form).
        const PixelResult one = iterate<variants::Fma4>(cx, cy, max_iter);
        const PixelResult fused = iterate<variants::ExactFma4>(cx, cy, max_iter);
        const std::pair<PixelResult, PixelResult> pairs[] = {
            {iterate<variants::Fma4Esc8>(cx, cy, max_iter), one},
            {iterate<variants::Fma4X16>(cx, cy, max_iter), fused},
            {iterate<variants::Fma4Refill>(cx, cy, max_iter), fused}};
        for (const auto& [r, ref] : pairs) {
          ASSERT_EQ(r.iters, ref.iters) << cx << "," << cy << " at " << max_iter;
          ASSERT_EQ(r.smooth, ref.smooth) << cx << "," << cy << " at " << max_iter;
        }
        (one.iters < max_iter ? escaped : inside) += 1;
      }
  EXPECT_GT(escaped, 1000);  // the grid holds both kinds of points
  EXPECT_GT(inside, 1000);
}

TEST(Iterate, SmoothValueIsContinuousAroundTheCount) {
  const PixelResult r = iterate<variants::Fma4>(0.26f, 0.0f, 1000);  // just past the cusp
  ASSERT_GT(r.iters, 0u);
  ASSERT_LT(r.iters, 1000u);
  EXPECT_GT(r.smooth, static_cast<float>(r.iters) - 2.0f);
  EXPECT_LE(r.smooth, static_cast<float>(r.iters) + 1.0f);
}

TEST(Iterate, SineVariantCarriesAStripeTermOthersDoNot) {
  const PixelResult s = iterate<variants::Fma4Sin>(0.3f, 0.5f, 1000);
  const PixelResult f = iterate<variants::Fma4>(0.3f, 0.5f, 1000);
  EXPECT_EQ(s.iters, f.iters);  // the sine never feeds back into z
  EXPECT_NE(s.aux, 0.0f);
  EXPECT_GE(s.aux, -1.0f);
  EXPECT_LE(s.aux, 1.0f);
  EXPECT_EQ(f.aux, 0.0f);
}

TEST(CpuRenderer, ThreadCountDoesNotChangeTheImage) {
  const View v{-0.75, 0.1, 0.3, 500};
  const PixelGrid g = pixel_grid(v, 67, 41);
  std::vector<float> a(67 * 41 * 2), b(a.size());
  std::vector<unsigned> ca(67 * 41), cb(ca.size());
  const CpuFrameStats sa = CpuRenderer(1).render(VariantId::Fma4Sin, g, 500, a.data(), ca.data());
  const CpuFrameStats sb = CpuRenderer(5).render(VariantId::Fma4Sin, g, 500, b.data(), cb.data());
  EXPECT_EQ(a, b);
  EXPECT_EQ(ca, cb);
  EXPECT_EQ(sa.pixel_iters, sb.pixel_iters);
  unsigned long long sum = 0;
  for (unsigned n : ca) sum += n;
  EXPECT_EQ(sa.pixel_iters, sum);
  // Every pixel matches a direct evaluation at its centre.
  for (int py = 0; py < 41; py += 7)
    for (int px = 0; px < 67; px += 5) {
      const float cx =
          std::fma(static_cast<float>(px), static_cast<float>(g.dx), static_cast<float>(g.x0));
      const float cy =
          std::fma(static_cast<float>(py), static_cast<float>(g.dy), static_cast<float>(g.y0));
      EXPECT_EQ(ca[py * 67 + px], iterate<variants::Fma4Sin>(cx, cy, 500).iters);
    }
}

}  // namespace
}  // namespace mp

namespace mp {
namespace {

// The tile order's buckets are powers of two: [2^b, 2^(b+1)), with 0 and 1 sharing bucket 0.
TEST(CostBucket, PowersOfTwo) {
  EXPECT_EQ(cost_bucket(0), 0);
  EXPECT_EQ(cost_bucket(1), 0);
  EXPECT_EQ(cost_bucket(2), 1);
  EXPECT_EQ(cost_bucket(3), 1);
  EXPECT_EQ(cost_bucket(4095), 11);
  EXPECT_EQ(cost_bucket(4096), 12);
  EXPECT_EQ(cost_bucket(0x80000000u), 31);
  EXPECT_EQ(cost_bucket(0xffffffffu), kCostBuckets - 1);
}

// The tile queue's packed tiles name the same 16x2 pixels as the tile numbering, at any width
// up to the largest image.
TEST(TileRef, PacksTheTilesPixels) {
  for (int width : {1, 16, 17, 997, 3840, kMaxImageSize}) {
    const int height = width == 997 ? kMaxImageSize : 37;
    for (int py = 0; py<height; py += height> 37 ? 331 : 3)
      for (int px = 0; px < width; px += std::max(1, width / 50)) {
        const long long t = warp_of(px, py, width);
        const unsigned ref = tile_ref(t, width);
        // The tile's top-left pixel: the lane's pixel with its low bits cleared.
        EXPECT_EQ(static_cast<int>(ref & 0xffffu), px / kBlockW * kBlockW) << width << " " << px;
        EXPECT_EQ(static_cast<int>(ref >> 16), py / 2 * 2) << width << " " << py;
        EXPECT_EQ(static_cast<int>((ref & 0xffffu) | (px % kBlockW)), px) << width;
        EXPECT_EQ(static_cast<int>((ref >> 16) | (py % 2)), py) << width;
        EXPECT_EQ(tile_of_ref(ref, width), t) << width;
      }
  }
}

}  // namespace
}  // namespace mp
