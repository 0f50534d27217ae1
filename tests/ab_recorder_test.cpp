#include "model/ab_recorder.h"

#include <gtest/gtest.h>

#include <string>

namespace mp {
namespace {

// Frames as the window's loop runs them: each frame's time arrives at the next one's start.
// A frames take `a` ms, B frames `b` ms; the last frame is never timed.
AbRecorder run(long long frames, double a, double b) {
  AbRecorder r(true);
  for (long long f = 0; f < frames; ++f) {
    if (f > 0) r.frame_time(AbRecorder::b_half(f - 1) ? b : a);
    const bool half = AbRecorder::b_half(f);
    r.ui_cpu(f, half, half ? 0.5 : 0.25);
    r.kernel(f, half, 2.0);
    r.close_frame(f, half);
  }
  return r;
}

TEST(AbRecorder, BlocksAlternateAndTheirFirstFramesDoNotCount) {
  const AbRecorder r(true);
  EXPECT_FALSE(AbRecorder::b_half(0));
  EXPECT_FALSE(AbRecorder::b_half(9));
  EXPECT_TRUE(AbRecorder::b_half(10));
  EXPECT_FALSE(AbRecorder::b_half(20));
  EXPECT_FALSE(r.settled(12));
  EXPECT_TRUE(r.settled(13));
  EXPECT_FALSE(AbRecorder(false).settled(13));
}

TEST(AbRecorder, CountsSevenFramesABlockAndTheDifference) {
  const std::string s = run(100, 4.0, 5.0).summary("overlay", 0.125);
  EXPECT_EQ(s.rfind("overlay A/B: 35 frames without, 34 with: mean 4 -> 5 ms per frame (25%), "
                    "median 4 -> 5 ms (25%), block by block +1 ms (25%); overlay's own CPU 0.125 "
                    "ms; UI end of frame CPU 0.25 -> 0.5 ms, GPU 0 -> 0 ms; kernel 2 -> 2 ms",
                    0),
            0u)
      << s;
}

TEST(AbRecorder, TheCpuPathsKernelsAreNotTimed) {
  const std::string s = run(100, 4.0, 5.0).summary("overlay", 0, "GPU", false);
  EXPECT_NE(s.find("; kernel: not timed (the CPU path has no CUDA events)"), std::string::npos)
      << s;
  EXPECT_EQ(s.find("(events)"), std::string::npos) << s;
}

TEST(AbRecorder, SaysWhenOneHalfHasNoFrames) {
  EXPECT_EQ(run(12, 4.0, 5.0).summary("counters", 0),
            "counters A/B: too few frames to time both halves");
  AbRecorder off(false);
  off.close_frame(15, true);
  off.frame_time(3.0);
  EXPECT_FALSE(off.both_halves());
}

TEST(AbRecorder, TooFewBlocksForThePairedDifference) {
  // Two blocks: B has no A block after it.
  const std::string s = run(20, 4.0, 5.0).summary("overlay", 0);
  EXPECT_NE(s.find("block by block n/a (too few blocks)"), std::string::npos) << s;
}

}  // namespace
}  // namespace mp
