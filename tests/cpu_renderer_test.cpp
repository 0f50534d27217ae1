#include "render/cpu_renderer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "model/variant_table.h"
#include "model/view.h"
#include "orbit_budgets.h"
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
  // 31..33 and 511..640: around fma4-rows's growing blocks (4 steps to 32, 16 to 512, then 32).
  for (unsigned max_iter : {1u, 2u, 7u, 8u, 15u, 16u, 17u, 31u, 32u, 33u, 63u, 100u, 511u, 512u,
                            513u, 575u, 577u, 640u, 1000u})
    for (int i = 0; i < 61; ++i)
      for (int j = 0; j < 37; ++j) {
        const float cx = -2.1f + i * 0.045f, cy = -0.1f + j * 0.033f;
        // fma4 as written, and as the GPU fuses it (the exact-FMA variants' one-step form).
        const PixelResult one = iterate<variants::Fma4>(cx, cy, max_iter);
        const PixelResult fused = iterate<variants::ExactFma4>(cx, cy, max_iter);
        const std::pair<PixelResult, PixelResult> pairs[] = {
            {iterate<variants::Fma4Esc8>(cx, cy, max_iter), one},
            {iterate<variants::Fma4X16>(cx, cy, max_iter), fused},
            {iterate<variants::Fma4Rows>(cx, cy, max_iter), fused},
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

// An orbit run in launches of `budget` steps, as a frame cut by steps runs it: the pixel's result.
template <class V>
PixelResult in_budgets(float cx, float cy, unsigned max_iter, unsigned budget) {
  Orbit<float> o;
  const bool inside = run_in_budgets<V>(cx, cy, o, max_iter, budget);
  return pixel_result<V>(counted_steps(o, max_iter), o.x, o.y, inside, o.acc);
}

// Near the cusp of the cardioid orbits escape after hundreds to thousands of steps: fma4-rows's
// long blocks and their replays, and orbits cut into budgets that start and stop them anywhere
// (a frame cut by steps), give exactly the one-step counts and values.
TEST(Iterate, LongAndResumedOrbitsGiveExactlyTheOneStepCounts) {
  int long_escapes = 0;
  for (int i = 0; i < 40; ++i)
    for (int j = 0; j < 25; ++j) {
      const float cx = 0.250001f + i * 0.0000008f, cy = j * 1e-9f;  // on the real axis, outside
      const unsigned max_iter = 3000;
      const PixelResult ref = iterate<variants::ExactFma4>(cx, cy, max_iter);
      const PixelResult whole = iterate<variants::Fma4Rows>(cx, cy, max_iter);
      ASSERT_EQ(whole.iters, ref.iters) << cx << "," << cy;
      ASSERT_EQ(whole.smooth, ref.smooth) << cx << "," << cy;
      for (unsigned budget : {37u, 100u, 513u}) {
        const PixelResult cut = in_budgets<variants::Fma4Rows>(cx, cy, max_iter, budget);
        ASSERT_EQ(cut.iters, ref.iters) << cx << "," << cy << " in budgets of " << budget;
        ASSERT_EQ(cut.smooth, ref.smooth) << cx << "," << cy << " in budgets of " << budget;
      }
      const PixelResult cycles = iterate<variants::Fma4Cycles>(cx, cy, max_iter);
      ASSERT_EQ(cycles.iters, ref.iters) << cx << "," << cy;
      ASSERT_EQ(cycles.smooth, ref.smooth) << cx << "," << cy;
      long_escapes += ref.iters > 576 && ref.iters < max_iter;
    }
  EXPECT_GT(long_escapes, 100);  // the long blocks' escapes and replays are met
}

// fma4-cycles stops an orbit once z repeats exactly. Against the one-step loop, over the set's
// bulbs, a minibrot and view C's neighbourhood (where nearly equal values that are not equal
// would change counts), whole and in budgets: the same counts and values. Where it stopped an
// orbit, z and the steps it says it ran are those of the one-step loop run that many steps, so
// the steps run are counted right whichever block met the repeat.
void expect_periodic_orbits_exact(float x0, float y0, float dx, float dy, int nx, int ny,
                                  unsigned max_iter, int& cycled, int& escaped,
                                  bool budgets = true) {
  for (int i = 0; i < nx; ++i)
    for (int j = 0; j < ny; ++j) {
      const float cx = x0 + i * dx, cy = y0 + j * dy;
      const PixelResult ref = iterate<variants::ExactFma4>(cx, cy, max_iter);
      const PixelResult r = iterate<variants::Fma4Cycles>(cx, cy, max_iter);
      ASSERT_EQ(r.iters, ref.iters) << cx << "," << cy;
      ASSERT_EQ(r.smooth, ref.smooth) << cx << "," << cy;
      Orbit<float> o;
      iterate_orbit<variants::Fma4Cycles>(cx, cy, o, max_iter);
      if (o.cycled) {
        float x = 0, y = 0, acc = 0;
        for (unsigned n = 0; n < o.n; ++n) variants::ExactFma4::step(x, y, cx, cy, acc);
        ASSERT_EQ(std::memcmp(&x, &o.x, sizeof x), 0) << cx << "," << cy << " at " << o.n;
        ASSERT_EQ(std::memcmp(&y, &o.y, sizeof y), 0) << cx << "," << cy << " at " << o.n;
        ASSERT_EQ(r.run, o.n) << cx << "," << cy;
        ASSERT_LT(o.n, max_iter) << cx << "," << cy;
        ++cycled;
      } else {
        ASSERT_EQ(r.run, r.iters) << cx << "," << cy;
      }
      escaped += ref.iters < max_iter;
      for (unsigned budget : {100u, 700u}) {
        if (!budgets) break;
        const PixelResult cut = in_budgets<variants::Fma4Cycles>(cx, cy, max_iter, budget);
        ASSERT_EQ(cut.iters, ref.iters) << cx << "," << cy << " in budgets of " << budget;
        ASSERT_EQ(cut.smooth, ref.smooth) << cx << "," << cy << " in budgets of " << budget;
      }
    }
}

TEST(Iterate, OrbitsFoundPeriodicStopWithExactlyTheOneStepCounts) {
  int cycled = 0, escaped = 0;
  expect_periodic_orbits_exact(-2.0f, 0.0f, 0.0217f, 0.0193f, 120, 60, 2500, cycled, escaped);
  EXPECT_GT(cycled, 1000);   // the check finds cycles, and
  EXPECT_GT(escaped, 1000);  // the view is not all inside
  int minibrot = 0, minibrot_escaped = 0, c_view = 0, c_escaped = 0;
  expect_periodic_orbits_exact(-1.7748776662f, -0.01125f, 0.000125f, 0.000125f, 320, 180, 4096,
                               minibrot, minibrot_escaped, false);
  expect_periodic_orbits_exact(-0.775f, -0.014f, 0.0006f, 0.0006f, 80, 48, 16384, c_view, c_escaped,
                               false);
  EXPECT_GT(minibrot, 1000);
  EXPECT_GT(c_view, 1000);
}

// Orbits whose float cycle is 32 steps long, a whole number of 16-step blocks: met at the end of
// a trip as well as after its first block (the two exits of the trip).
TEST(Iterate, CyclesMetAtEitherBlockOfATripCountTheStepsRun) {
  int cycled = 0, escaped = 0;
  expect_periodic_orbits_exact(-0.349999994f, -0.618749976f, 0, 0, 1, 1, 2500, cycled, escaped);
  expect_periodic_orbits_exact(-0.640625f, -0.215625003f, 0, 0, 1, 1, 2500, cycled, escaped);
  EXPECT_EQ(cycled, 2);
}

TEST(Iterate, SmoothValueIsContinuousAroundTheCount) {
  const PixelResult r = iterate<variants::Fma4>(0.26f, 0.0f, 1000);  // just past the cusp
  ASSERT_GT(r.iters, 0u);
  ASSERT_LT(r.iters, 1000u);
  EXPECT_GT(r.smooth, static_cast<float>(r.iters) - 2.0f);
  EXPECT_LE(r.smooth, static_cast<float>(r.iters) + 1.0f);
}

// A point far past the bailout escapes at its first step with log2(log2|z|^2) over 3, which in
// n + 2 - log2(log2|z|^2) went under 0, the mark of the inside: the corners of spans past about
// 28, or a view centred at 500, were drawn as inside. Held at 0, escaped.
TEST(Iterate, PointsFarOutsideEscapeWithAValueOfAtLeastZero) {
  for (const float cx : {17.0f, 32.0f, 500.0f, 1100.0f}) {
    const PixelResult r = iterate<variants::Fma4>(cx, 0.0f, 100);
    EXPECT_EQ(r.iters, 1u) << cx;
    EXPECT_GE(r.smooth, 0.0f) << cx;
    EXPECT_EQ(iterate<variants::Fp64>(cx, 0.0f, 100).smooth, r.smooth) << cx;
  }
  EXPECT_GT(iterate<variants::Fma4>(15.0f, 0.0f, 100).smooth, 0.0f);
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
  const View v = view_at(-0.75, 0.1, 0.3, 500);
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

namespace mp {
namespace {

// A frame in slices: the window renders a CPU frame a slice at a time.
struct SliceCase {
  View view;
  int width, height;
};

const SliceCase kSliceCase{view_at(-0.75, 0.1, 0.3, 700), 83, 29};

struct Frame {
  std::vector<float> data;
  std::vector<unsigned> counts;
  std::uint64_t pixel_iters = 0;
};

Frame whole_frame(const SliceCase& c) {
  Frame f{std::vector<float>(std::size_t{2} * c.width * c.height),
          std::vector<unsigned>(std::size_t{1} * c.width * c.height)};
  const CpuFrameStats s =
      CpuRenderer(3).render(VariantId::Fma4Sin, pixel_grid(c.view, c.width, c.height),
                            c.view.max_iter, f.data.data(), f.counts.data());
  f.pixel_iters = s.pixel_iters;
  EXPECT_EQ(s.pixels, std::uint64_t{1} * c.width * c.height);
  EXPECT_EQ(s.slices, 1u);
  return f;
}

TEST(CpuRenderer, SlicesInAnyCutGiveTheWholeFrame) {
  const SliceCase& c = kSliceCase;
  const Frame whole = whole_frame(c);
  const PixelGrid g = pixel_grid(c.view, c.width, c.height);
  const std::uint64_t n = std::uint64_t{1} * c.width * c.height;
  // Cuts mid-row, on row edges, a pixel long and empty, on 1 to 4 threads.
  const std::vector<std::vector<std::uint64_t>> cuts = {
      {0, n}, {0, 1, 2, n}, {0, 83, 83, 166, 1000, n - 1, n}, {0, 17, 400, 401, 2000, n}};
  for (unsigned threads = 1; threads <= 4; ++threads)
    for (const auto& cut : cuts) {
      // Sentinels: a pixel computed twice or never shows as a mismatch or a leftover value.
      Frame f{std::vector<float>(whole.data.size(), -7.0f),
              std::vector<unsigned>(whole.counts.size(), 12345u)};
      CpuFrameStats sum;
      for (std::size_t k = 0; k + 1 < cut.size(); ++k) {
        const CpuFrameStats s =
            CpuRenderer(threads).render_pixels(VariantId::Fma4Sin, g, c.view.max_iter, cut[k],
                                               cut[k + 1], f.data.data(), f.counts.data());
        EXPECT_EQ(s.pixels, cut[k + 1] - cut[k]);
        sum += s;
      }
      EXPECT_EQ(f.data, whole.data) << threads << " threads, " << cut.size() - 1 << " slices";
      EXPECT_EQ(f.counts, whole.counts);
      EXPECT_EQ(sum.pixel_iters, whole.pixel_iters);
      EXPECT_EQ(sum.pixels, n);
      EXPECT_EQ(sum.slices, cut.size() - 1);
    }
}

TEST(CpuRenderer, TimeBoundedSlicesResumeWhereTheyStopped) {
  const SliceCase& c = kSliceCase;
  const Frame whole = whole_frame(c);
  const CpuRenderer r(2);
  // A bound far below one chunk's cost: every call stops early, yet each makes progress.
  CpuSlicedFrame frame(VariantId::Fma4Sin, pixel_grid(c.view, c.width, c.height), c.view.max_iter);
  Frame f{std::vector<float>(whole.data.size(), -7.0f),
          std::vector<unsigned>(whole.counts.size(), 12345u)};
  double last_progress = 0;
  while (!frame.done()) {
    frame.step(r, f.data.data(), f.counts.data(), 1e-6);
    ASSERT_GT(frame.progress(), last_progress);
    last_progress = frame.progress();
  }
  EXPECT_EQ(frame.progress(), 1.0);
  EXPECT_EQ(f.data, whole.data);
  EXPECT_EQ(f.counts, whole.counts);
  EXPECT_EQ(frame.stats().pixel_iters, whole.pixel_iters);
  EXPECT_EQ(frame.stats().pixels, whole.counts.size());
  EXPECT_GT(frame.stats().slices, 1u);
  // Done is done: a further step computes nothing.
  const CpuFrameStats before = frame.stats();
  frame.step(r, f.data.data(), f.counts.data(), 20);
  EXPECT_EQ(frame.stats().slices, before.slices);
  // Unbounded, the one slice is the whole frame.
  CpuSlicedFrame once(VariantId::Fma4Sin, pixel_grid(c.view, c.width, c.height), c.view.max_iter);
  EXPECT_EQ(once.next_slice_pixels(0), whole.counts.size());
  once.step(r, f.data.data(), f.counts.data(), 0);
  EXPECT_TRUE(once.done());
  EXPECT_EQ(once.stats().slices, 1u);
}

TEST(CpuSlicedFrame, SlicesFollowTheMeasuredRate) {
  const View v = view_at(-0.75, 0.1, 0.3, 64);
  const CpuRenderer r(2);
  CpuSlicedFrame frame(VariantId::Fma4, pixel_grid(v, 1000, 1000), v.max_iter);
  std::vector<float> data(2'000'000);
  // No rate yet: a small first piece, which a cheap frame's step goes on from within its time.
  const std::uint64_t first = frame.next_slice_pixels(20);
  EXPECT_GT(first, 0u);
  EXPECT_LT(first, 10'000u);
  frame.step(r, data.data(), nullptr, 20);
  EXPECT_EQ(frame.stats().slices, 1u);
  EXPECT_GT(frame.stats().pixels, first);
  // With a rate: at most a few times the last piece, and no fewer pixels for a longer target.
  const std::uint64_t last = frame.next_slice_pixels(1e9);
  EXPECT_LE(frame.next_slice_pixels(20), last);
  EXPECT_GE(frame.next_slice_pixels(40), frame.next_slice_pixels(10));
  while (!frame.done()) frame.step(r, data.data(), nullptr, 20);
  EXPECT_EQ(frame.stats().pixels, 1'000'000u);
}

}  // namespace
}  // namespace mp
