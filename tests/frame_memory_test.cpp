// The window's memory notice: none for a frame of ordinary size, the figures for a large one.
#include "app/frame_memory.h"

#include <gtest/gtest.h>

namespace mp {
namespace {

TEST(FrameMemory, OnlyAFrameOfAQuarterGibOrMoreIsSaid) {
  EXPECT_EQ(frame_memory_notice(1920, 1080), "");
  EXPECT_EQ(frame_memory_notice(8192, 4095), "");
  EXPECT_EQ(frame_memory_notice(8192, 4096),
            "a 8192x4096 window: each copy of its frame is 256 MiB, up to four copies: up to "
            "1.0 GiB of memory");
  EXPECT_NE(frame_memory_notice(16384, 16384).find("2048 MiB"), std::string::npos);
}

}  // namespace
}  // namespace mp
