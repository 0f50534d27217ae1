// A deep frame in bands (src/session/deep_sliced_frame.*), on the CPU path: a view's first band
// is a few rows, unless a frame before it from the same reference says what its rows cost; and on
// the GPU no band is shorter than fills it.
#include "session/deep_sliced_frame.h"
#include "session/deep_session.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "cuda_device_test.h"
#include "device_buffer.h"
#include "kernel_params.h"
#include "reproject.h"

namespace mp {
namespace {

struct Bands {
  std::vector<int> rows;  // per band
};

Bands bands(double hint_ms_per_row, std::vector<float> expected_row_ms = {}) {
  constexpr int kW = 512, kH = 64;
  const View view = *parse_view("1.3e-31", "1", "3e-30", 400);
  DeepRenderer renderer(std::nullopt);
  renderer.use(make_reference(view, kW, kH));
  DeepSlicedFrame frame(DeltaFormat::Double, view, kW, kH, hint_ms_per_row,
                        std::move(expected_row_ms));
  std::vector<float> out(static_cast<std::size_t>(kW) * kH * kFloatsPerPixel);
  Bands b;
  while (!frame.done() && b.rows.size() < static_cast<std::size_t>(kH)) {
    const double progress = frame.progress();
    frame.step(renderer, out.data(), 15);
    b.rows.push_back(static_cast<int>(std::lround((frame.progress() - progress) * kH)));
  }
  return b;
}

TEST(DeepSlicedFrame, AFirstBandOfAFewRowsUnlessAnEarlierFrameSaysWhatTheyCost) {
  const Bands fresh = bands(0);
  ASSERT_FALSE(fresh.rows.empty());
  EXPECT_EQ(fresh.rows.front(), 8);  // 4096 pixels' worth at 512 wide
  // Rows known to be cheap: half the target's worth, here the whole frame at once.
  const Bands cheap = bands(1e-4);
  ASSERT_EQ(cheap.rows.size(), 1u);
  EXPECT_EQ(cheap.rows.front(), 64);
  // Rows known to be costly: no fewer than the first band without a hint.
  EXPECT_EQ(bands(100).rows.front(), 8);
}

// An earlier frame's row times cut a band short of costlier rows, however cheap the band before
// them ran (where a band's rows would have doubled into them): no more rows than fit the target
// at the scale the bands measured, and at least two.
TEST(DeepSlicedFrame, AnEarlierFramesRowTimesCutBandsShortOfCostlierRows) {
  std::vector<float> row_ms(64, 0.01f);
  for (int y = 40; y < 64; ++y) row_ms[y] = 6.0f;
  EXPECT_EQ(rows_within(row_ms, 0, 1.0, 15.0), 42);    // 0.4 ms, then two of 6 ms
  EXPECT_EQ(rows_within(row_ms, 24, 25.0, 15.0), 16);  // 4 ms of cheap rows; a costly one 150
  EXPECT_EQ(rows_within(row_ms, 40, 25.0, 15.0), 2);   // none fits: two all the same
  EXPECT_EQ(rows_within(row_ms, 62, 1.0, 15.0), 2);    // those left
  EXPECT_EQ(rows_within(row_ms, 0, 1e-6, 15.0), 64);
  // In a frame: its first band as without them, and every row rendered.
  const Bands b = bands(0, row_ms);
  EXPECT_EQ(b.rows.front(), 8);
  int rows = 0;
  for (int n : b.rows) rows += n;
  EXPECT_EQ(rows, 64);
  // A first band sized by the last frame's rate (1 ms a row: 8 rows for half of 15 ms) where the
  // earlier times put that frame's cost in its top rows (eight of 10 ms): cut to two of them.
  std::vector<float> top(64, 0.01f);
  for (int y = 0; y < 8; ++y) top[y] = 10.0f;
  EXPECT_EQ(bands(1.0).rows.front(), 8);
  EXPECT_EQ(bands(1.0, top).rows.front(), 2);
}

// Every band but the last is an even number of rows, so that each starts on an even row: the
// GPU's 16x2 tiles are then the divergence view's.
TEST(DeepSlicedFrame, BandsStartOnEvenRows) {
  // A first band of 15 and of 25 rows by the hint (half of 15 ms at 0.5 and 0.3 ms a row).
  for (double hint : {0.0, 0.5, 0.3}) {
    const Bands b = bands(hint);
    for (std::size_t i = 0; i + 1 < b.rows.size(); ++i) EXPECT_EQ(b.rows[i] % 2, 0) << hint;
  }
}

// A band's rows from the warps that fill the GPU: 16x2 tiles across the width, rounded up.
TEST(DeepSlicedFrame, FillRowsCountTheBandsTiles) {
  EXPECT_EQ(fill_rows(2112, 1920), 36);  // 120 tiles a pair of rows: 18 pairs hold 2112 warps
  EXPECT_EQ(fill_rows(2112, 512), 132);
  EXPECT_EQ(fill_rows(100, 16), 200);
  EXPECT_EQ(fill_rows(1, 1920), 2);
  EXPECT_EQ(fill_rows(0, 1920), 0);  // the CPU path: no floor
}

// On the GPU no band but the last is too short to fill it: a band of a few costly rows took
// about as long as one that fills it, and sizing the next by its time per row kept bands at two
// rows (docs/measurements.md).
using DeepSlicedFrameGpu = CudaDeviceTest<>;

TEST_F(DeepSlicedFrameGpu, NoBandButTheLastLeavesTheGpuIdle) {
  constexpr int kW = 512, kH = 384;
  const View view = *parse_view("1.3e-31", "1", "3e-30", 4000);
  DeepRenderer renderer(device_);
  renderer.use(make_reference(view, kW, kH));
  const int fill = fill_rows(renderer.fill_warps(), kW);
  ASSERT_GT(fill, 0);
  DeviceBuffer<float> out(static_cast<std::size_t>(kW) * kH * kFloatsPerPixel);
  DeepSlicedFrame frame(DeltaFormat::Double, view, kW, kH);
  std::vector<int> rows;
  while (!frame.done()) {
    const double progress = frame.progress();
    frame.step(renderer, out.get(), 0.001);  // a target no band meets
    rows.push_back(static_cast<int>(std::lround((frame.progress() - progress) * kH)));
  }
  int total = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i + 1 < rows.size()) EXPECT_GE(rows[i], fill) << i;
    total += rows[i];
  }
  EXPECT_EQ(total, kH);
}

}  // namespace
}  // namespace mp

namespace mp {
namespace {

// The window's preview of a new deep view (session/deep_session.h): the previous image moved into
// place for a zoom, and none of it after a jump to another place, where every pixel of the new
// frame starts as unknown rather than as a piece of the old image.
TEST(DeepPreview, AZoomMovesTheImageAndAJumpLeavesNothingOfIt) {
  constexpr int kW = 64, kH = 36;
  const View shown = *parse_view("-0.75", "0.1", "3e-20", 1000);
  const View zoomed = *parse_view("-0.75", "0.1", "1.5e-20", 1000);
  const View elsewhere = *parse_view("-1.7685736562992577616568911564224",
                                     "0.00073918952043486226063213245668", "3e-20", 1000);
  const auto covered = [&](const View& next) {
    const auto [from, to] = deep_preview_grids(shown, next, kW, kH);
    int n = 0;
    for (int y = 0; y < kH; ++y)
      for (int x = 0; x < kW; ++x) n += reprojected_source(from, to, x, y) >= 0;
    return n;
  };
  EXPECT_EQ(covered(zoomed), kW * kH);  // a zoom in: the old image covers the new one
  EXPECT_EQ(covered(elsewhere), 0);
  std::vector<float> out(static_cast<std::size_t>(kW) * kH * kFloatsPerPixel, 5.0f);
  const auto [from, to] = deep_preview_grids(shown, elsewhere, kW, kH);
  // Of the new grid's size: the pipeline moves an image only between grids of one size, and
  // leaves it where they differ (the old image would stay under the new frame's rows).
  EXPECT_EQ(from.width, to.width);
  EXPECT_EQ(from.height, to.height);
  const std::vector<float> old = out;
  reproject_on_host(from, old.data(), to, out.data());
  for (std::size_t i = 0; i < out.size(); i += kFloatsPerPixel) ASSERT_EQ(out[i], kUnknownSmooth);
}

}  // namespace
}  // namespace mp
