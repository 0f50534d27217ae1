#include "commands/frame_order.h"

#include <gtest/gtest.h>

#include <vector>

namespace mp {
namespace {

TEST(FrameOrder, FramesWithoutAReferenceGoFromBothEndsInTurn) {
  EXPECT_EQ(render_order({0, 1, 2, 3, 4, 5}, false), (std::vector<int>{0, 5, 1, 4, 2, 3}));
  EXPECT_EQ(render_order({0, 1, 2, 3, 4}, false), (std::vector<int>{0, 4, 1, 3, 2}));
  // A rank's or a resumed run's frames: the ones it has, each once.
  EXPECT_EQ(render_order({1, 4, 7, 10}, false), (std::vector<int>{1, 10, 4, 7}));
  EXPECT_EQ(render_order({3, 8}, false), (std::vector<int>{3, 8}));
  EXPECT_EQ(render_order({5}, false), (std::vector<int>{5}));
  EXPECT_EQ(render_order({}, false), (std::vector<int>{}));
}

TEST(FrameOrder, FramesWithAReferenceOrbitStayInOrder) {
  EXPECT_EQ(render_order({0, 1, 2, 3, 4, 5}, true), (std::vector<int>{0, 1, 2, 3, 4, 5}));
}

}  // namespace
}  // namespace mp
