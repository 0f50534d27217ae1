// The sizing of a GPU frame's launches (cuda/host_device/launch_plan.h) on made-up frames whose
// tiles cost a known time each.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "launch_plan.h"

namespace mp {
namespace {

constexpr unsigned kMinTiles = 132 * kWarpsPerBlock;  // one block per SM on an H100

// A frame of `costs.size()` tiles, tile t taking costs[t] ms, cut into launches as the window
// does: each launch's range and time.
struct Launch {
  unsigned begin, tiles;
  double ms;
};
std::vector<Launch> launches(const std::vector<double>& costs, double target_ms,
                             double previous_frame_ms = -1) {
  std::vector<Launch> out;
  LaunchSizing s;
  s.min_tiles = kMinTiles;
  s.target_ms = target_ms;
  s.previous_frame_ms = previous_frame_ms;
  unsigned next = 0;
  const unsigned total = static_cast<unsigned>(costs.size());
  for (;;) {
    s.left = total - next;
    const unsigned n = next_launch_tiles(s);
    if (n == 0) break;
    double ms = 0;
    for (unsigned t = next; t < next + n; ++t) ms += costs[t];
    out.push_back({next, n, ms});
    next += n;
    s.last_tiles = n;
    s.last_ms = ms;
    if (out.size() > total) break;  // a stuck plan fails the tests below instead of hanging
  }
  return out;
}

// Every tile once, in order, in whole waves but for the last launch.
void expect_covers(const std::vector<Launch>& l, unsigned total) {
  unsigned next = 0;
  for (std::size_t i = 0; i < l.size(); ++i) {
    EXPECT_EQ(l[i].begin, next) << "launch " << i;
    EXPECT_GT(l[i].tiles, 0u) << "launch " << i;
    if (i + 1 < l.size()) {
      EXPECT_EQ(l[i].tiles % kMinTiles, 0u) << "launch " << i;
    }
    next += l[i].tiles;
  }
  EXPECT_EQ(next, total);
}

TEST(LaunchPlan, AnEmptyFrameHasNoLaunch) {
  EXPECT_TRUE(launches({}, 15).empty());
  LaunchSizing s;
  s.target_ms = 15;
  s.min_tiles = kMinTiles;
  EXPECT_EQ(next_launch_tiles(s), 0u);
}

TEST(LaunchPlan, NoTargetIsTheWholeFrameInOneLaunch) {
  const std::vector<double> costs(65280, 0.01);
  const std::vector<Launch> l = launches(costs, 0);
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].tiles, 65280u);
}

TEST(LaunchPlan, AViewsFirstLaunchIsOneBlockPerSmThenGrowsAtMostTwofold) {
  // A uniform frame far costlier than the target: 1080p's 65280 tiles at 0.001 ms each.
  const std::vector<double> costs(65280, 0.001);
  const std::vector<Launch> l = launches(costs, 15);
  expect_covers(l, 65280);
  ASSERT_GE(l.size(), 3u);
  EXPECT_EQ(l[0].tiles, kMinTiles);
  for (std::size_t i = 1; i < l.size(); ++i)
    EXPECT_LE(l[i].tiles, 2 * l[i - 1].tiles) << "launch " << i;
  // Once grown to the target, each launch takes it (to a wave's rounding); the last is what
  // is left.
  for (std::size_t i = 0; i + 1 < l.size(); ++i) EXPECT_LE(l[i].ms, 15.0 + 1e-9) << "launch " << i;
  EXPECT_NEAR(l[l.size() - 2].ms, 15.0, kMinTiles * 0.001);
}

TEST(LaunchPlan, CheapThenCostlyTilesOvershootOnceThenSettle) {
  // The first 10000 tiles are a hundred times cheaper than the rest.
  std::vector<double> costs(65280, 0.002);
  for (unsigned t = 0; t < 10000; ++t) costs[t] = 0.00002;
  const std::vector<Launch> l = launches(costs, 15);
  expect_covers(l, 65280);
  // The launches that grow over the cheap tiles stay under the target; the one sized by the
  // rate of a launch half cheap and half costly overshoots, by less than the growth cap; each
  // launch after it is sized by costly tiles alone and takes the target, to a wave.
  int over = 0;
  for (std::size_t i = 0; i + 1 < l.size(); ++i) {
    EXPECT_LE(l[i].ms, kLaunchGrowth * 15) << "launch " << i;
    if (l[i].ms > 15 + 1e-9) {
      ++over;
      continue;
    }
    if (over > 0) {
      EXPECT_GE(l[i].ms, 15 - kMinTiles * 0.002) << "launch " << i;
    }
  }
  EXPECT_EQ(over, 1);
}

TEST(LaunchPlan, CostlyTilesAfterManyCheapOnesCanOvershootByTheirCostRatio) {
  // The limit the growth cap leaves: two launches' worth of cheap tiles met by tiles a hundred
  // times costlier. docs/architecture.md (one frame in the window) says so.
  std::vector<double> costs(65280, 0.002);
  for (unsigned t = 0; t < 40000; ++t) costs[t] = 0.00002;
  const std::vector<Launch> l = launches(costs, 15);
  expect_covers(l, 65280);
  double longest = 0;
  for (const Launch& x : l) longest = std::max(longest, x.ms);
  EXPECT_GT(longest, kLaunchGrowth * 15);
  EXPECT_LE(longest, kLaunchGrowth * 15 * 100);
}

TEST(LaunchPlan, ALaunchOverTheTargetShrinksTheNextButNotBelowOneBlockPerSm) {
  LaunchSizing s;
  s.left = 60000;
  s.min_tiles = kMinTiles;
  s.target_ms = 15;
  s.last_tiles = 4 * kMinTiles;
  s.last_ms = 30;
  EXPECT_EQ(next_launch_tiles(s), 2 * kMinTiles);
  s.last_ms = 3000;  // a launch is never shorter than its slowest warp: no use going below
  EXPECT_EQ(next_launch_tiles(s), kMinTiles);
}

TEST(LaunchPlan, RangesAreWholeWavesAndTheLastIsClipped) {
  LaunchSizing s;
  s.min_tiles = 100;  // a wave, rounded up to whole blocks
  s.target_ms = 15;
  s.left = 5000;
  EXPECT_EQ(next_launch_tiles(s), 104u);
  s.last_tiles = 104;
  s.last_ms = 10;  // 156 tiles for 15 ms: part of a second wave, so one
  EXPECT_EQ(next_launch_tiles(s), 104u);
  s.last_ms = 5;  // 312 for 15 ms, capped at twice the last
  EXPECT_EQ(next_launch_tiles(s), 208u);
  s.left = 150;  // what is left, however many that is
  EXPECT_EQ(next_launch_tiles(s), 150u);
  s.left = 3;
  EXPECT_EQ(next_launch_tiles(s), 3u);
}

TEST(LaunchPlan, AFrameThatWasCheapAtThisSizeGoesInOneLaunch) {
  const std::vector<double> costs(65280, 0.00005);  // 3.3 ms in all
  EXPECT_EQ(launches(costs, 15, 3.3).size(), 1u);
  // Not when the last such frame took near the target, nor when there was none.
  EXPECT_GT(launches(costs, 15, 9).size(), 1u);
  EXPECT_GT(launches(costs, 15).size(), 1u);
}

TEST(LaunchPlan, AnUnmeasurablyShortLaunchGrowsByTheCap) {
  LaunchSizing s;
  s.left = 60000;
  s.min_tiles = kMinTiles;
  s.target_ms = 15;
  s.last_tiles = 2 * kMinTiles;
  s.last_ms = 0;
  EXPECT_EQ(next_launch_tiles(s), 4 * kMinTiles);
}

}  // namespace
}  // namespace mp
