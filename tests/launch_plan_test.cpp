// The sizing of a GPU frame's launches (cuda/launch_plan.h) on made-up frames whose
// tiles cost a known time each.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

// Host arithmetic of the CUDA library, read here without its runtime headers.
#include "../cuda/launch_plan.h"

namespace mp {
namespace {

constexpr unsigned kMinTiles = 132 * kWarpsPerBlock;  // one block per SM on an H100

// A made-up frame: tile t needs need[t] steps (its slowest pixel's), each costing ms_per_step[t]
// of launch time; a launch takes the sum over its tiles of the steps they ran within its budget,
// and no less than its slowest tile's steps at floor_ms_per_step (a warp's orbit alone).
struct Frame {
  std::vector<unsigned> need;
  std::vector<double> ms_per_step;
  double floor_ms_per_step = 0;
  unsigned full_tiles = 0;  // the GPU's full wave (0: one block per SM)
  double launch_ms = 0;     // what a launch costs besides its steps
};
// A frame whose tile t costs costs[t] ms for kLimit steps.
constexpr unsigned kLimit = 1000;
Frame by_cost(const std::vector<double>& costs) {
  Frame f;
  f.need.assign(costs.size(), kLimit);
  for (double c : costs) f.ms_per_step.push_back(c / kLimit);
  return f;
}

// The frame cut into launches as the window does: each launch's range, budget, pass and time;
// every tile's steps all run at the end.
struct Launch {
  unsigned begin, tiles, budget;
  int pass;
  double ms;
};
std::vector<Launch> launches(const Frame& f, double target_ms, unsigned max_iter,
                             double previous_frame_ms = -1) {
  std::vector<Launch> out;
  const unsigned total = static_cast<unsigned>(f.need.size());
  std::vector<unsigned> ran(total, 0);
  LaunchPasses p(total, max_iter);
  while (!p.done()) {
    const LaunchSize l = p.next(kMinTiles, f.full_tiles, target_ms, previous_frame_ms);
    const unsigned begin = p.next_tile();
    double ms = 0, warp_steps = 0;
    unsigned slowest = 0;
    bool unfinished = false;
    for (unsigned t = begin; t < begin + l.tiles; ++t) {
      const unsigned steps = std::min(l.budget, f.need[t] - ran[t]);
      ran[t] += steps;
      ms += steps * f.ms_per_step[t];
      warp_steps += steps;
      slowest = std::max(slowest, steps);
      unfinished = unfinished || ran[t] < f.need[t];
    }
    ms = f.launch_ms + std::max(ms, slowest * f.floor_ms_per_step);
    out.push_back({begin, l.tiles, l.budget, p.pass(), ms});
    p.launched(l, ms, warp_steps, unfinished);
    if (out.size() > 4 * total + 100) break;  // a stuck plan fails the tests instead of hanging
  }
  for (unsigned t = 0; t < total; ++t) EXPECT_EQ(ran[t], f.need[t]) << "tile " << t;
  return out;
}
std::vector<Launch> launches(const std::vector<double>& costs, double target_ms,
                             double previous_frame_ms = -1) {
  return launches(by_cost(costs), target_ms, kLimit, previous_frame_ms);
}

// The first pass takes every tile once, in order, in whole waves but for its last launch.
void expect_covers(const std::vector<Launch>& l, unsigned total) {
  unsigned next = 0;
  for (std::size_t i = 0; i < l.size() && l[i].pass == 0; ++i) {
    EXPECT_EQ(l[i].begin, next) << "launch " << i;
    EXPECT_GT(l[i].tiles, 0u) << "launch " << i;
    if (i + 1 < l.size() && l[i + 1].pass == 0) {
      EXPECT_EQ(l[i].tiles % kMinTiles, 0u) << "launch " << i;
    }
    next += l[i].tiles;
  }
  EXPECT_EQ(next, total);
}

LaunchSizing sizing(unsigned left, unsigned last_tiles, double last_ms) {
  LaunchSizing s;
  s.left = left;
  s.min_tiles = kMinTiles;
  s.target_ms = 15;
  s.max_iter = kLimit;
  s.last_tiles = last_tiles;
  s.last_budget = kLimit;
  s.last_ms = last_ms;
  return s;
}

TEST(LaunchPlan, AnEmptyFrameHasNoLaunch) {
  EXPECT_TRUE(launches({}, 15).empty());
  EXPECT_EQ(next_launch(sizing(0, 0, 0)).tiles, 0u);
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

TEST(LaunchPlan, ALaunchOverTheTargetShrinksItsTilesThenBelowAWaveItsBudget) {
  LaunchSizing s = sizing(60000, 4 * kMinTiles, 30);
  EXPECT_EQ(next_launch(s).tiles, 2 * kMinTiles);
  EXPECT_EQ(next_launch(s).budget, kLimit);
  // A launch is never shorter than its slowest warp's orbits: below a wave, fewer steps.
  s.last_ms = 240;  // a wave would take 60 ms: a quarter of the steps, to whole quanta
  EXPECT_EQ(next_launch(s).tiles, kMinTiles);
  EXPECT_EQ(next_launch(s).budget, kLimit / 4 / kBudgetQuantum * kBudgetQuantum);
  s.last_ms = 3e6;  // never below one quantum
  EXPECT_EQ(next_launch(s).budget, kBudgetQuantum);
}

TEST(LaunchPlan, RangesAreWholeWavesAndTheLastIsClipped) {
  LaunchSizing s = sizing(5000, 0, 0);
  s.min_tiles = 100;  // a wave, rounded up to whole blocks
  EXPECT_EQ(next_launch(s).tiles, 104u);
  s.last_tiles = 104;
  s.last_ms = 10;  // 156 tiles for 15 ms: part of a second wave, so one
  EXPECT_EQ(next_launch(s).tiles, 104u);
  s.last_ms = 5;  // 312 for 15 ms, capped at twice the last
  EXPECT_EQ(next_launch(s).tiles, 208u);
  s.left = 150;  // what is left, however many that is
  EXPECT_EQ(next_launch(s).tiles, 150u);
  s.left = 3;
  EXPECT_EQ(next_launch(s).tiles, 3u);
}

TEST(LaunchPlan, AFrameThatWasCheapAtThisSizeGoesInOneLaunch) {
  const std::vector<double> costs(65280, 0.00005);  // 3.3 ms in all
  EXPECT_EQ(launches(costs, 15, 3.3).size(), 1u);
  // Not when the last such frame took near the target, nor when there was none.
  EXPECT_GT(launches(costs, 15, 9).size(), 1u);
  EXPECT_GT(launches(costs, 15).size(), 1u);
}

TEST(LaunchPlan, AnUnmeasurablyShortLaunchGrowsByTheCap) {
  EXPECT_EQ(next_launch(sizing(60000, 2 * kMinTiles, 0)).tiles, 4 * kMinTiles);
}

TEST(LaunchPlan, ABudgetBelowTheLimitGrowsBeforeTheTiles) {
  LaunchSizing s = sizing(60000, kMinTiles, 1);
  s.max_iter = 100000;
  s.last_budget = kFirstBudget;
  EXPECT_EQ(next_launch(s).budget, 2 * kFirstBudget);
  EXPECT_EQ(next_launch(s).tiles, kMinTiles);
  s.last_budget = 90000;  // the limit caps it; the tiles take the rest of the growth
  EXPECT_EQ(next_launch(s).budget, 100000u);
  EXPECT_EQ(next_launch(s).tiles, kMinTiles);  // 1.8 waves: one
  s.last_budget = 100000;                      // at the limit, the tiles grow
  EXPECT_EQ(next_launch(s).tiles, 2 * kMinTiles);
}

TEST(LaunchPlan, AFrameStartsWithWholeOrbitsUpToTheFirstBudget) {
  EXPECT_EQ(next_launch(sizing(60000, 0, 0)).budget, kLimit);
  LaunchSizing s = sizing(60000, 0, 0);
  s.max_iter = 2'000'000;
  EXPECT_EQ(next_launch(s).budget, kFirstBudget);
  EXPECT_EQ(next_launch(s).tiles, kMinTiles);
  s.target_ms = 0;  // no target: everything, whole
  EXPECT_EQ(next_launch(s).budget, 2'000'000u);
  EXPECT_EQ(next_launch(s).tiles, 60000u);
}

// The window's heavy case, with rates of the order docs/measurements.md has for it: 1080p at
// 2,000,000 iterations where every orbit runs to the limit and one wave's orbits alone take 22 us
// a thousand steps, so a whole-orbit launch would take 44 ms;
// the whole frame's work takes `frame_ms` where the GPU is full.
Frame long_orbits(double frame_ms, unsigned full_tiles) {
  Frame f;
  f.need.assign(65280, 2'000'000);
  f.ms_per_step.assign(65280, frame_ms / 65280 / 2'000'000);
  f.floor_ms_per_step = 0.022 / 1000;
  f.full_tiles = full_tiles;
  return f;
}

// Orbits are cut: after the first launches no launch is much longer than the target, and every
// tile runs all its steps, each once.
TEST(LaunchPlan, LongOrbitsAreCutSoThatLaunchesStayNearTheTarget) {
  const Frame f = long_orbits(0.022 / 1000 / kMinTiles * 65280 * 2'000'000, 0);
  const std::vector<Launch> l = launches(f, 15, 2'000'000);
  expect_covers(l, 65280);
  double longest = 0;
  int passes = 0;
  for (const Launch& x : l) {
    longest = std::max(longest, x.ms);
    passes = std::max(passes, x.pass + 1);
    EXPECT_LE(x.budget, 2'000'000u);
  }
  EXPECT_LE(longest, kLaunchGrowth * 15);
  EXPECT_GT(passes, 1);
  // The work is the frame's, plus no more than a wave's worth of rounding per launch.
  double sum = 0;
  for (const Launch& x : l) sum += x.ms;
  EXPECT_LT(sum, 65280.0 * 2'000'000 * f.ms_per_step[0] * 1.5);
}

// The same frame where the GPU holds eight blocks per SM: launches settle at full waves with a
// cut budget rather than single waves of whole orbits, so the frame takes about what it takes
// in one launch.
TEST(LaunchPlan, LongOrbitsGoInFullWavesWithACutBudget) {
  const Frame f = long_orbits(1342, 8 * kMinTiles);  // 1342 ms in one launch
  const std::vector<Launch> l = launches(f, 15, 2'000'000);
  expect_covers(l, 65280);
  double sum = 0, longest = 0;
  int full = 0;
  for (const Launch& x : l) {
    sum += x.ms;
    longest = std::max(longest, x.ms);
    full += x.tiles >= f.full_tiles;
  }
  EXPECT_LE(longest, kLaunchGrowth * 15);
  EXPECT_GT(full, static_cast<int>(l.size()) * 2 / 3);  // the rest: growing, and passes' ends
  EXPECT_LT(sum, 1342 * 1.1);
}

TEST(LaunchPlan, AFullWaveShrinksItsBudgetBeforeItsTiles) {
  LaunchSizing s = sizing(60000, 8 * kMinTiles, 60);
  s.full_tiles = 8 * kMinTiles;
  EXPECT_EQ(next_launch(s).tiles, 8 * kMinTiles);
  EXPECT_EQ(next_launch(s).budget, kLimit / 4 / kBudgetQuantum * kBudgetQuantum);
  s.last_tiles = 16 * kMinTiles;  // above a full wave: the tiles first, down to it
  s.last_ms = 30;
  EXPECT_EQ(next_launch(s).tiles, 8 * kMinTiles);
  EXPECT_EQ(next_launch(s).budget, kLimit);
}

// The case that overshot on the GPU (docs/measurements.md, cut launches on other views):
// short orbits first, whose launches let the budget grow to the limit, then long ones. Sized for
// the worst case at the last launch's rate per warp-step, no launch passes the target.
TEST(LaunchPlan, LongOrbitsAfterShortOnesStayWithinTheTarget) {
  Frame f = long_orbits(1342, 8 * kMinTiles);
  f.launch_ms = 0.03;
  for (unsigned t = 0; t < 30000; ++t) f.need[t] = 200;
  for (unsigned t = 30000; t < 65280; ++t) f.need[t] = 1'000'000;
  const std::vector<Launch> l = launches(f, 15, 1'000'000);
  expect_covers(l, 65280);
  double longest = 0, sum = 0;
  for (const Launch& x : l) {
    longest = std::max(longest, x.ms);
    sum += x.ms;
  }
  EXPECT_LE(longest, 15.0);
  // The work is the frame's, plus the launches' own costs and their ramp.
  const double work = 35280.0 * 1'000'000 * f.ms_per_step[0];
  EXPECT_LT(sum, work * 1.25 + l.size() * f.launch_ms) << l.size() << " launches";
}

TEST(LaunchPlan, LaterPassesCoverOnlyTheTilesLeftUnfinished) {
  // Costly tiles in the middle third only: later passes start and end there.
  Frame f;
  f.need.assign(65280, 100);
  f.ms_per_step.assign(65280, 1e-7);
  for (unsigned t = 20000; t < 40000; ++t) f.need[t] = 200'000;
  f.floor_ms_per_step = 0.022 / 1000;
  const std::vector<Launch> l = launches(f, 15, 200'000);
  for (const Launch& x : l) {
    if (x.pass == 0) continue;
    EXPECT_GE(x.begin + x.tiles, 20000u - 2 * 65280 / 8);
    EXPECT_LE(x.begin, 40000u);
  }
}

TEST(LaunchPlan, AWorstCaseThatFewerTilesMeetKeepsWholeOrbits) {
  // The tiles shrink enough on their own (to 302, over a full wave): the budget must stay the
  // limit, not lose a quantum to rounding in what is left of the scaling.
  LaunchSizing s;
  s.left = 156923;
  s.min_tiles = 74;
  s.full_tiles = 148;
  s.target_ms = 1.716;
  s.max_iter = 1000;
  s.last_tiles = 816;
  s.last_budget = 1000;
  s.last_ms = 4.532;
  s.last_warp_steps = 798864;
  const LaunchSize l = next_launch(s);
  EXPECT_EQ(l.budget, 1000u) << "whole orbits";
  EXPECT_EQ(l.tiles, 240u);
}

TEST(LaunchPlan, PixelsInTilesCountsTheImagesPixelsOfWholeBlocks) {
  // Block by block, against the image's edges, for sizes with partial blocks on either edge or
  // none, and ranges that start and end anywhere in a row of blocks.
  for (const auto [w, h] : {std::pair{37, 21}, {16, 16}, {1, 1}, {300, 47}, {3840, 2160}}) {
    PixelGrid g;
    g.width = w;
    g.height = h;
    const unsigned tiles = static_cast<unsigned>(warp_count(w, h));
    const unsigned across = static_cast<unsigned>(blocks_across(w));
    for (unsigned begin = 0; begin <= tiles; begin += kWarpsPerBlock * (1 + tiles / 97 / 8))
      for (unsigned end = begin; end <= tiles; end += kWarpsPerBlock * (1 + tiles / 89 / 8)) {
        unsigned long long expected = 0;
        for (unsigned b = begin / kWarpsPerBlock; b < end / kWarpsPerBlock; ++b) {
          const int bx = static_cast<int>(b % across) * kBlockW;
          const int by = static_cast<int>(b / across) * kBlockH;
          expected += static_cast<unsigned long long>(std::min(kBlockW, w - bx)) *
                      std::min(kBlockH, h - by);
        }
        ASSERT_EQ(pixels_in_tiles(g, begin, end), expected)
            << w << "x" << h << " " << begin << ".." << end;
      }
    EXPECT_EQ(pixels_in_tiles(g, 0, tiles), static_cast<unsigned long long>(w) * h);
  }
}

}  // namespace
}  // namespace mp
