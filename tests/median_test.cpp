#include "model/median.h"

#include <gtest/gtest.h>

namespace mp {
namespace {

TEST(Median, TakesTheLowerMiddleOfAnEvenCount) {
  EXPECT_EQ(median({3.0, 1.0, 2.0}), 2.0);
  EXPECT_EQ(median({4.0, 1.0, 3.0, 2.0}), 2.0);
}

// Blocks of 7 samples: without in even blocks, with (plus `cost`) in odd ones, on a frame time
// of base(block); within a block the samples spread by +-0.02 about it.
template <class Base>
std::vector<std::vector<double>> alternating(int blocks, Base base, double cost) {
  std::vector<std::vector<double>> v(blocks);
  for (int b = 0; b < blocks; ++b)
    for (int i = 0; i < 7; ++i)
      v[b].push_back(base(b) + (b % 2 ? cost : 0) + 0.02 * ((i * 3) % 7 - 3) / 3);
  return v;
}

TEST(AlternatingBlocks, CancelsLinearDrift) {
  const auto blocks = alternating(
      41, [](int b) { return 3.0 + 0.004 * b; }, 0.05);
  const auto d = alternating_blocks_difference(blocks);
  ASSERT_TRUE(d.has_value());
  EXPECT_NEAR(*d, 0.05, 1e-9);
}

TEST(AlternatingBlocks, HoldsWhereTheFrameTimeSteps) {
  // From block 21 on, frames take 0.3 ms less (the clocks rose, say): the pooled medians fall
  // on either side of the step and say the overlay saves time.
  const auto blocks = alternating(
      41, [](int b) { return b < 21 ? 3.3 : 3.0; }, 0.05);
  std::vector<double> without, with;
  for (std::size_t b = 0; b < blocks.size(); ++b)
    for (double x : blocks[b]) (b % 2 ? with : without).push_back(x);
  EXPECT_LT(median(with) - median(without), 0);
  const auto d = alternating_blocks_difference(blocks);
  ASSERT_TRUE(d.has_value());
  EXPECT_NEAR(*d, 0.05, 1e-9);
}

TEST(AlternatingBlocks, AStretchedBlockDoesNotMoveIt) {
  auto blocks = alternating(
      21, [](int) { return 3.0; }, 0.05);
  for (double& x : blocks[7]) x += 5;  // the X server held one block's frames
  for (double& x : blocks[12]) x += 5;
  const auto d = alternating_blocks_difference(blocks);
  ASSERT_TRUE(d.has_value());
  EXPECT_NEAR(*d, 0.05, 1e-9);
}

TEST(AlternatingBlocks, NeedsABlockWithNeighboursOnBothSides) {
  EXPECT_FALSE(alternating_blocks_difference({}).has_value());
  EXPECT_FALSE(alternating_blocks_difference({{1.0}, {2.0}}).has_value());
  EXPECT_FALSE(alternating_blocks_difference({{1.0}, {2.0}, {}}).has_value());
  const auto d = alternating_blocks_difference({{1.0}, {2.0}, {1.5}});
  ASSERT_TRUE(d.has_value());
  EXPECT_DOUBLE_EQ(*d, 0.75);
}

}  // namespace
}  // namespace mp
