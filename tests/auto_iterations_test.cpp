#include "model/auto_iterations.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace mp {
namespace {

// A w x h frame whose pixels (x, y) are inside where inside(x, y).
template <class F>
std::vector<float> frame(int w, int h, F inside) {
  std::vector<float> d(static_cast<std::size_t>(w) * h * 2, 5.0f);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      if (inside(x, y)) d[(static_cast<std::size_t>(y) * w + x) * 2] = -1.0f;
  return d;
}

TEST(AutoIterations, TheEdgeShareCountsEachEdgePixelOnce) {
  const auto none = frame(10, 6, [](int, int) { return false; });
  EXPECT_EQ(edge_inside_share(none.data(), 10, 6), 0.0);
  const auto all = frame(10, 6, [](int, int) { return true; });
  EXPECT_EQ(edge_inside_share(all.data(), 10, 6), 1.0);
  // The left column: 6 of the 28 edge pixels.
  const auto left = frame(10, 6, [](int x, int) { return x == 0; });
  EXPECT_DOUBLE_EQ(edge_inside_share(left.data(), 10, 6), 6.0 / 28);
  const auto centre = frame(10, 6, [](int x, int y) { return x > 2 && x < 7 && y > 1 && y < 4; });
  EXPECT_EQ(edge_inside_share(centre.data(), 10, 6), 0.0);
  const auto one = frame(1, 1, [](int, int) { return true; });
  EXPECT_EQ(edge_inside_share(one.data(), 1, 1), 1.0);
}

TEST(AutoIterations, DoublesWhileDoublingFreesTheEdge) {
  AutoIterations a;
  EXPECT_EQ(a.next(0.0, 0.0, 1024, 1u << 20), 1024u);
  EXPECT_EQ(a.next(0.5, 0.0, 1024, 1u << 20), 2048u);
  EXPECT_EQ(a.next(0.3, 0.0, 2048, 1u << 20), 4096u);   // fewer inside: the limit held them
  EXPECT_EQ(a.next(0.29, 0.0, 4096, 1u << 20), 4096u);  // nearly as many: they are inside
  EXPECT_TRUE(a.stalled());
  EXPECT_EQ(a.next(0.29, 0.0, 4096, 1u << 20), 4096u);
  a.reset();
  EXPECT_EQ(a.next(0.29, 0.0, 4096, 1u << 20), 8192u);
  EXPECT_EQ(a.next(0.2, 0.0, 8192, 10000), 10000u);  // never past the ceiling
  EXPECT_EQ(a.next(0.1, 0.0, 10000, 10000), 10000u);
}

TEST(AutoIterations, AnEdgeThatEscapesStartsAfresh) {
  AutoIterations a;
  EXPECT_EQ(a.next(0.5, 0.0, 1024, 1u << 20), 2048u);
  EXPECT_EQ(a.next(0.49, 0.0, 2048, 1u << 20), 2048u);
  EXPECT_TRUE(a.stalled());
  EXPECT_EQ(a.next(0.01, 0.0, 2048, 1u << 20), 2048u);
  EXPECT_FALSE(a.stalled());
  EXPECT_EQ(a.next(0.4, 0.0, 2048, 1u << 20), 4096u);
}

// At a deep view whose edge is mostly at the limit, a doubling that frees few is no stall below
// the depth's floor (seahorse valley's pixels at 1e-20 escape only after thousands of steps,
// docs/measurements.md); an edge half free or more, or a limit at the floor, stalls as before.
TEST(AutoIterations, AnEdgeMostlyAtTheLimitDoublesOnToTheDepthsFloor) {
  EXPECT_EQ(depth_floor(to_floatexp(3.0)), 0u);
  EXPECT_EQ(depth_floor(to_floatexp(1e-3)), 0u);
  EXPECT_EQ(depth_floor(to_floatexp(1e-30)), 30000u);
  EXPECT_NEAR(depth_floor(FloatExp{1.0, -3322}), 1000000.0, 100.0);  // 2^-3322: about 1e-1000
  const unsigned floor = depth_floor(to_floatexp(1e-30));
  AutoIterations a;
  unsigned limit = 1024;
  for (const unsigned next : {2048u, 4096u, 8192u, 16384u, 32768u}) {
    EXPECT_EQ(a.next(1.0, 0.0, limit, 1u << 20, floor), next);
    limit = next;
  }
  EXPECT_FALSE(a.stalled());
  EXPECT_EQ(a.next(1.0, 0.0, limit, 1u << 20, floor), limit);  // past the floor: the set's inside
  EXPECT_TRUE(a.stalled());
  // Seahorse valley at 1e-20, whose pixels escape after some 9,200 steps: doubled past that.
  AutoIterations s;
  limit = 1024;
  while (limit < 9200) {
    const unsigned next = s.next(1.0, 0.0, limit, 1u << 20, depth_floor(to_floatexp(1e-20)));
    ASSERT_GT(next, limit);
    limit = next;
  }
  AutoIterations b;
  EXPECT_EQ(b.next(1.0, 0.0, 1024, 1u << 20), 2048u);
  EXPECT_EQ(b.next(1.0, 0.0, 2048, 1u << 20), 2048u);  // a shallow view: no floor
  // Most of the edge at the limit below the floor, a doubling that freed few is no stall (a
  // minibrot's valley frees a few percent a doubling); an edge half free is.
  // The limit after a first doubling from 1,024 with this share of the edge at the limit both
  // times, and whether that second frame stalled it.
  const auto second = [floor](double edge) {
    AutoIterations a;
    EXPECT_EQ(a.next(edge, 0.0, 1024, 1u << 20, floor), 2048u) << edge;
    const unsigned next = a.next(edge, 0.0, 2048, 1u << 20, floor);
    return std::make_pair(next, a.stalled());
  };
  EXPECT_EQ(second(0.9), std::make_pair(4096u, false));
  EXPECT_EQ(second(0.51), std::make_pair(4096u, false));
  EXPECT_EQ(second(0.5), std::make_pair(2048u, true));
  EXPECT_EQ(second(0.3), std::make_pair(2048u, true));
}

// With a minibrot of period p in view, whose surroundings escape only after several times p (a
// period-8,007 minibrot 9e-33 across at span 3.6e-32 escapes past the depth's floor,
// docs/measurements.md), an edge at the limit doubles on to 16 p; a short period leaves the
// depth's floor. Where the view is on the boundary of one out of view, to 64 p.
TEST(AutoIterations, AWholeEdgeAtTheLimitDoublesOnToSixteenTimesTheMinibrotsPeriod) {
  const FloatExp span = to_floatexp(3.6e-32);
  EXPECT_EQ(limit_floor(span, 0, true), depth_floor(span));
  EXPECT_EQ(limit_floor(span, 100, true), depth_floor(span));
  EXPECT_EQ(limit_floor(span, 8007, true), 128112u);
  EXPECT_EQ(limit_floor(span, 8007, false), 512448u);
  EXPECT_EQ(limit_floor(span, 400, false), depth_floor(span));
  EXPECT_FALSE(floor_from_period(span, 100, true));
  EXPECT_TRUE(floor_from_period(span, 8007, true));
  EXPECT_TRUE(floor_from_period(span, 8007, false));
  EXPECT_EQ(limit_floor(span, 4000000000u, true), 1000000000u);
  EXPECT_EQ(minibrot_words(8007, true), "a minibrot of period 8007 in view");
  EXPECT_EQ(minibrot_words(684, false), "a minibrot of period 684 near the view");
  AutoIterations a;
  unsigned limit = 1024;
  for (const unsigned next : {2048u, 4096u, 8192u, 16384u, 32768u, 65536u, 131072u}) {
    EXPECT_EQ(a.next(1.0, 0.0, limit, 1u << 24, limit_floor(span, 8007, true)), next);
    limit = next;
  }
  EXPECT_EQ(a.next(1.0, 0.0, limit, 1u << 24, limit_floor(span, 8007, true)), limit);  // inside
  AutoIterations before;  // by the depth alone it had stopped at 32,768, the image all black
  limit = 16384;
  EXPECT_EQ(before.next(1.0, 0.0, limit, 1u << 24, depth_floor(span)), 32768u);
  EXPECT_EQ(before.next(1.0, 0.0, 32768, 1u << 24, depth_floor(span)), 32768u);
}

// A frame whose pixels escape at the given smooth values (negative: inside).
std::vector<float> smooth_frame(const std::vector<float>& values) {
  std::vector<float> d;
  for (float v : values) {
    d.push_back(v);
    d.push_back(0.0f);
  }
  return d;
}

TEST(AutoIterations, TheLateShareCountsPixelsEscapingInTheLimitsLastHalf) {
  // Limit 1000: 600 and 999 are late, 500 (the half) and 20 are not, -1 never escaped.
  const auto f = smooth_frame({600.0f, 999.0f, 500.0f, 20.0f, -1.0f});
  EXPECT_DOUBLE_EQ(late_share(f.data(), 5, 1, 1000), 2.0 / 5);
  EXPECT_DOUBLE_EQ(late_share(f.data(), 5, 1, 2000), 0.0);
  EXPECT_EQ(late_share(f.data(), 0, 1, 1000), 0.0);
  // Every pixel escaped (a deep view's counts, all near its lowest): a higher limit would change
  // none of them, however late they came.
  const auto escaped = smooth_frame({600.0f, 999.0f, 700.0f, 800.0f});
  EXPECT_EQ(late_share(escaped.data(), 4, 1, 1000), 0.0);
}

// Zooming on into a minibrot's interior starts afresh every factor of 8; a whole edge at a limit
// that a doubling already failed to free there doubles no more, until the view is elsewhere.
TEST(AutoIterations, AWholeEdgeAtALimitFoundInsideDoublesNoMoreDeeperIn) {
  const unsigned floor = depth_floor(to_floatexp(1e-34));  // 34,000
  AutoIterations a;
  EXPECT_EQ(a.next(1.0, 0.0, 65536, 1u << 24, floor), 131072u);
  EXPECT_EQ(a.next(1.0, 0.0, 131072, 1u << 24, floor), 131072u);
  EXPECT_TRUE(a.stalled());
  for (int zoom = 0; zoom < 4; ++zoom) {
    a.reset();
    EXPECT_EQ(a.next(1.0, 0.0, 131072, 1u << 24, floor + 1000 * zoom), 131072u) << zoom;
  }
  // Below the depth's floor it still doubles; elsewhere it starts remembering nothing.
  a.reset();
  EXPECT_EQ(a.next(1.0, 0.0, 131072, 1u << 24, 200000), 262144u);
  a.forget();
  EXPECT_EQ(a.next(1.0, 0.0, 65536, 1u << 24, floor), 131072u);
}

// A minibrot in the middle of the view: the edge all escapes, but a ring of pixels escapes late
// around the blob the limit leaves; the limit doubles until that ring thins out.
TEST(AutoIterations, DoublesWhileManyPixelsEscapeLateThoughTheEdgeEscapes) {
  AutoIterations a;
  EXPECT_EQ(a.next(0.0, 0.005, 1024, 1u << 20), 1024u);  // a thin late ring: left alone
  EXPECT_EQ(a.next(0.0, 0.08, 1024, 1u << 20), 2048u);
  EXPECT_EQ(a.next(0.0, 0.04, 2048, 1u << 20), 4096u);   // thinner: the limit made it
  EXPECT_EQ(a.next(0.0, 0.009, 4096, 1u << 20), 4096u);  // under 1%: resolved
  EXPECT_FALSE(a.stalled());
  // A ring that doubling does not thin (the pixels nearest a parabolic point): it stops.
  a.reset();
  EXPECT_EQ(a.next(0.0, 0.05, 1024, 1u << 20), 2048u);
  EXPECT_EQ(a.next(0.0, 0.048, 2048, 1u << 20), 2048u);
  EXPECT_TRUE(a.stalled());
}

// After the edge is freed, a late ring that was not what asked for the last doubling still gets
// one of its own.
TEST(AutoIterations, ALateRingAfterTheEdgeIsFreedIsNotTakenForAStall) {
  AutoIterations a;
  EXPECT_EQ(a.next(0.3, 0.0, 1024, 1u << 20), 2048u);
  EXPECT_EQ(a.next(0.0, 0.06, 2048, 1u << 20), 4096u);
  EXPECT_FALSE(a.stalled());
  // Jumping to a minibrot 8e-601 across (an explorer's figures at 343x360): the edge 83% inside
  // and 2.6% late at 8,192; at 16,384 the edge escapes, 89% of the image late, the freed pixels
  // themselves: a doubling more (at 32,768 1.5% late, at 65,536 the minibrot resolved).
  a.reset();
  EXPECT_EQ(a.next(0.83, 0.026, 8192, 1u << 20), 16384u);
  EXPECT_EQ(a.next(0.0, 0.888, 16384, 1u << 20), 32768u);
  EXPECT_EQ(a.next(0.0, 0.015, 32768, 1u << 20), 65536u);
  EXPECT_EQ(a.next(0.0, 0.002, 65536, 1u << 20), 65536u);
  EXPECT_FALSE(a.stalled());
}

}  // namespace
}  // namespace mp
