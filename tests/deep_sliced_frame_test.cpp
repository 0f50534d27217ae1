// A deep frame in bands (src/session/deep_sliced_frame.*), on the CPU path: a view's first band
// is a few rows, unless a frame before it from the same reference says what its rows cost.
#include "session/deep_sliced_frame.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernel_params.h"

namespace mp {
namespace {

struct Bands {
  std::vector<int> rows;  // per band
};

Bands bands(double hint_ms_per_row) {
  constexpr int kW = 512, kH = 64;
  const View view = *parse_view("1.3e-31", "1", "3e-30", 400);
  DeepRenderer renderer(std::nullopt);
  renderer.use(make_reference(view, kW, kH));
  DeepSlicedFrame frame(DeltaFormat::Double, view, kW, kH, hint_ms_per_row);
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

// Every band but the last is an even number of rows, so that each starts on an even row: the
// GPU's 16x2 tiles are then the divergence view's.
TEST(DeepSlicedFrame, BandsStartOnEvenRows) {
  // A first band of 15 and of 25 rows by the hint (half of 15 ms at 0.5 and 0.3 ms a row).
  for (double hint : {0.0, 0.5, 0.3}) {
    const Bands b = bands(hint);
    for (std::size_t i = 0; i + 1 < b.rows.size(); ++i) EXPECT_EQ(b.rows[i] % 2, 0) << hint;
  }
}

}  // namespace
}  // namespace mp
