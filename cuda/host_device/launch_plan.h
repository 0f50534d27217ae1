// How a GPU frame is cut into launches of bounded length: the size of each launch's range of
// tiles, from the frame's previous launch. Pure host arithmetic, tested without a GPU.
#pragma once

#include <algorithm>

#include "kernel_params.h"

namespace mp {

// A range may grow at most this much from one launch to the next: a range sized by the rate of
// cheap tiles that runs into costly ones overshoots the target by no more than this factor times
// their difference in cost.
inline constexpr double kLaunchGrowth = 2;
// A frame that took less than this share of the target (the previous one at the same size,
// iteration limit and variant) goes in one launch.
inline constexpr double kWholeFrameShare = 0.5;

struct LaunchSizing {
  unsigned left = 0;        // tiles of the frame not yet launched
  unsigned min_tiles = 0;   // a wave: one block per SM, the smallest launch worth making
  double target_ms = 0;     // the time a launch should take; 0: the rest of the frame at once
  unsigned last_tiles = 0;  // the frame's previous launch (0: this is its first)
  double last_ms = 0;       // ...and its time
  // The previous frame at the same size, limit and variant took this long (< 0: none did).
  double previous_frame_ms = -1;
};

// The tiles of the next launch: whole waves (a multiple of min_tiles, rounded up to whole 16x16
// blocks) unless it is the rest of the frame; 0 only when nothing is left. Whole waves, since
// where a warp's pixels take longer than the target, part of a second wave on some SMs doubles
// the launch without shortening the next.
inline unsigned next_launch_tiles(const LaunchSizing& s) {
  if (s.left == 0) return 0;
  if (s.target_ms <= 0) return s.left;
  const unsigned wave =
      std::max(1u, (s.min_tiles + kWarpsPerBlock - 1) / kWarpsPerBlock) * kWarpsPerBlock;
  double n = wave;
  if (s.last_tiles == 0) {
    if (s.previous_frame_ms >= 0 && s.previous_frame_ms < kWholeFrameShare * s.target_ms)
      return s.left;
  } else {
    n = s.last_tiles * kLaunchGrowth;
    if (s.last_ms > 0) n = std::min(n, s.last_tiles * (s.target_ms / s.last_ms));
  }
  if (n >= s.left) return s.left;
  const unsigned waves = static_cast<unsigned>(n) / wave * wave;
  return std::min(std::max(waves, wave), s.left);
}

}  // namespace mp
