#include "model/auto_iterations.h"

#include <gtest/gtest.h>

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
  EXPECT_EQ(a.next(0.0, 1024, 1u << 20), 1024u);
  EXPECT_EQ(a.next(0.5, 1024, 1u << 20), 2048u);
  EXPECT_EQ(a.next(0.3, 2048, 1u << 20), 4096u);   // fewer inside: the limit held them
  EXPECT_EQ(a.next(0.29, 4096, 1u << 20), 4096u);  // nearly as many: they are inside
  EXPECT_TRUE(a.stalled());
  EXPECT_EQ(a.next(0.29, 4096, 1u << 20), 4096u);
  a.reset();
  EXPECT_EQ(a.next(0.29, 4096, 1u << 20), 8192u);
  EXPECT_EQ(a.next(0.2, 8192, 10000), 10000u);  // never past the ceiling
  EXPECT_EQ(a.next(0.1, 10000, 10000), 10000u);
}

TEST(AutoIterations, AnEdgeThatEscapesStartsAfresh) {
  AutoIterations a;
  EXPECT_EQ(a.next(0.5, 1024, 1u << 20), 2048u);
  EXPECT_EQ(a.next(0.49, 2048, 1u << 20), 2048u);
  EXPECT_TRUE(a.stalled());
  EXPECT_EQ(a.next(0.01, 2048, 1u << 20), 2048u);
  EXPECT_FALSE(a.stalled());
  EXPECT_EQ(a.next(0.4, 2048, 1u << 20), 4096u);
}

}  // namespace
}  // namespace mp
