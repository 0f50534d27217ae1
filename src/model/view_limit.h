// The physical limit of a frame at a view, whatever the variant: every step costs fma4's four
// FMA-pipe instructions (the fewest a z^2 + c step takes), each an issue slot, and the SMs do
// nothing else. Two forms: warps of 16x2 pixels that run until their slowest pixel is done (the
// divergence the D view paints), and every lane busy (what lane refill can approach).
#pragma once

#include <vector>

#include "model/pipe_rates.h"

namespace mp {

inline constexpr double kLimitSlotsPerStep = 4;

struct ViewLimit {
  double pixel_steps = 0;  // sum of the pixels' step counts
  double warp_steps = 0;   // sum over 16x2 tiles of the tile's slowest pixel
  double aware_ms = 0;     // divergence-aware: warp_steps x 32 lanes
  double free_ms = 0;      // divergence-free: pixel_steps
  double clock_ghz = 0;    // the clock both are at
};

// From per-pixel step counts (row-major, width x height; the reference's, which every variant
// must equal), the chip's pipe rates, its SM count and the clock to state the limit at (the peak).
ViewLimit view_limit(const std::vector<unsigned>& counts, int width, int height,
                     const PipeRates& rates, int sm_count, double clock_hz);

// The frame's share of a limit: limit / frame, 1.0 = at the limit.
inline double fraction_of_limit(double limit_ms, double frame_ms) {
  return frame_ms > 0 ? limit_ms / frame_ms : 0;
}

}  // namespace mp
