// The physical limit of a view and bench's views, on hand-computed cases.
#include <gtest/gtest.h>

#include "cli/options.h"
#include "model/view_limit.h"

namespace mp {
namespace {

TEST(ViewLimit, SlowestPixelOfEach16x2TileAgainstEveryPixel) {
  // Two tiles: the left one all 10 but one pixel of 100, the right one all 20.
  std::vector<unsigned> counts(32 * 2, 10);
  for (int y = 0; y < 2; ++y)
    for (int x = 16; x < 32; ++x) counts[y * 32 + x] = 20;
  counts[1 * 32 + 5] = 100;
  // sm_90: 4 FMA-pipe and 4 issue warp-instructions per clock per SM; 2 SMs at 1 GHz make
  // 8 warp-instructions per ns, so a warp step (4 of them) takes 0.5 ns = 5e-7 ms.
  const ViewLimit l = view_limit(counts, 32, 2, pipe_rates(9, 0), 2, 1e9);
  EXPECT_DOUBLE_EQ(l.pixel_steps, 31 * 10 + 100 + 32 * 20);
  EXPECT_DOUBLE_EQ(l.warp_steps, 100 + 20);
  EXPECT_DOUBLE_EQ(l.aware_ms, 120 * 5e-7);
  EXPECT_DOUBLE_EQ(l.free_ms, 1050.0 / 32 * 5e-7);
  EXPECT_DOUBLE_EQ(l.clock_ghz, 1.0);
}

TEST(ViewLimit, TilesCutAtTheImageEdge) {
  // 17x3: tiles x 0-15 and 16 over rows 0-1 and row 2; every pixel 1 but (16, 2), which is 7.
  std::vector<unsigned> counts(17 * 3, 1);
  counts[2 * 17 + 16] = 7;
  const ViewLimit l = view_limit(counts, 17, 3, pipe_rates(9, 0), 1, 2e9);
  EXPECT_DOUBLE_EQ(l.warp_steps, 1 + 1 + 1 + 7);
  EXPECT_DOUBLE_EQ(l.pixel_steps, 50 + 7);
  // One SM at 2 GHz: 4 warp-instructions per clock, so a warp step is one clock, 5e-7 ms.
  EXPECT_DOUBLE_EQ(l.aware_ms, 10 * 5e-7);
}

TEST(ViewLimit, TheSlowerOfFmaAndIssueSetsThePace) {
  // sm_75: 64 FMA lanes per SM, 2 warp-instructions a clock, though 4 can issue.
  const std::vector<unsigned> counts(32, 8);
  const ViewLimit l = view_limit(counts, 16, 2, pipe_rates(7, 5), 1, 1e9);
  EXPECT_DOUBLE_EQ(l.aware_ms, 8 * 4 / 2.0 * 1e-6);
  EXPECT_DOUBLE_EQ(l.free_ms, l.aware_ms);  // no divergence
}

TEST(ViewLimit, RefusesCountsOfAnotherSize) {
  EXPECT_THROW(view_limit(std::vector<unsigned>(10), 4, 4, pipe_rates(9, 0), 1, 1e9),
               std::invalid_argument);
  EXPECT_THROW(view_limit(std::vector<unsigned>(16), 4, 4, pipe_rates(9, 0), 1, 0),
               std::invalid_argument);
}

TEST(ZoomViews, GeometricFromFirstToLastSpan) {
  const std::vector<View> v =
      zoom_views({BigReal(-0.75), BigReal(0.1), to_floatexp(1.0), to_floatexp(1e-3), 4, 500});
  ASSERT_EQ(v.size(), 4u);
  EXPECT_DOUBLE_EQ(to_double(v[0].span), 1.0);
  EXPECT_NEAR(to_double(v[1].span), 0.1, 1e-15);
  EXPECT_NEAR(to_double(v[2].span), 0.01, 1e-16);
  EXPECT_DOUBLE_EQ(to_double(v[3].span), 1e-3);
  for (const View& w : v) {
    EXPECT_EQ(w.center_x.to_double(), -0.75);
    EXPECT_EQ(w.center_y.to_double(), 0.1);
    EXPECT_EQ(w.max_iter, 500u);
  }
  EXPECT_EQ(zoom_views({BigReal(), BigReal(), to_floatexp(2.0), to_floatexp(1.0), 1, 64}).size(),
            1u);
}

ParseResult parse(std::vector<std::string> args) {
  args.insert(args.begin(), "mandelpipe");
  return parse_command_line(args);
}

TEST(BenchViews, ViewsAndZoomParsed) {
  const ParseResult r = parse({"bench", "--view", "-0.75,0.1,0.01,2048", "--view", "0,1,2,64",
                               "--width", "640", "--height", "360"});
  ASSERT_TRUE(r.options) << r.err;
  ASSERT_EQ(std::get<BenchOptions>(*r.options).views.size(), 2u);
  EXPECT_EQ(std::get<BenchOptions>(*r.options).views[0], *parse_view("-0.75", "0.1", "0.01", 2048));
  EXPECT_EQ(std::get<BenchOptions>(*r.options).views[1], *parse_view("0", "1", "2", 64));
  EXPECT_EQ(std::get<BenchOptions>(*r.options).width, 640);
  EXPECT_EQ(std::get<BenchOptions>(*r.options).height, 360);
  const ParseResult z = parse({"bench", "--zoom", "-1.25,0.02", "--from", "0.5", "--to", "1e-6",
                               "--steps", "20", "--iters", "3000"});
  ASSERT_TRUE(z.options) << z.err;
  ASSERT_TRUE(std::get<BenchOptions>(*z.options).zoom);
  EXPECT_EQ(std::get<BenchOptions>(*z.options).zoom->steps, 20);
  EXPECT_EQ(std::get<BenchOptions>(*z.options).zoom->iters, 3000u);
  EXPECT_EQ(std::get<BenchOptions>(*z.options).zoom->to, to_floatexp(1e-6));
  EXPECT_EQ(std::get<BenchOptions>(*z.options).width, 3840);  // bench's default size
  EXPECT_EQ(std::get<BenchOptions>(*z.options).height, 2160);
}

TEST(BenchViews, BadValuesGiveOneLineAndExit2) {
  const std::vector<std::vector<std::string>> bad = {
      {"bench", "--view", "nan,0,1,100"},
      {"bench", "--view", "0,0,0,100"},
      {"bench", "--view", "0,0,-1,100"},
      {"bench", "--view", "0,0,1"},
      {"bench", "--view", "0,0,1,100,5"},
      {"bench", "--view", "0,0,1,0"},
      {"bench", "--view", "0,0,1,1.5"},
      {"bench", "--zoom", "0,0", "--from", "1", "--to", "1", "--steps", "5"},
      {"bench", "--zoom", "0,0", "--from", "1", "--to", "0.1", "--steps", "0"},
      {"bench", "--zoom", "0,0", "--from", "0", "--to", "0.1", "--steps", "5"},
      {"bench", "--zoom", "0,0", "--from", "1", "--to", "nan", "--steps", "5"},
      {"bench", "--zoom", "nan,0", "--from", "1", "--to", "0.1", "--steps", "5"},
      {"bench", "--zoom", "0,0", "--from", "1", "--steps", "5"},
      {"bench", "--from", "1"},
      {"bench", "--zoom", "0,0", "--from", "1", "--to", "0.1", "--steps", "5", "--iters", "0"},
  };
  for (const auto& args : bad) {
    const ParseResult r = parse(args);
    std::string joined;
    for (const std::string& a : args) joined += a + " ";
    EXPECT_FALSE(r.options) << joined;
    EXPECT_EQ(r.exit_code, 2) << joined;
    EXPECT_FALSE(r.err.empty()) << joined;
    EXPECT_EQ(r.err.find('\n'), std::string::npos) << joined << ": " << r.err;
  }
}

}  // namespace
}  // namespace mp
