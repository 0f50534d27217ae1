// Lane refill's trips and rounds (cuda/launch_refill.cuh) simulated on the CPU from a frame's
// step counts: the kernel does not count them (it cost the kernel 3 to 25% of its time:
// docs/measurements.md), and its lanes change pixels within a warp, so no warp's loops are its
// lanes' maxima. Which warp takes which tile is decided at run time by atomics; the simulation
// decides it by a stated rule (docs/model.md, "lane refill"), so its counts are a simulation's.
#pragma once

#include <array>

namespace mp {

// The round's code that only some rounds run (the paths of launch_refill.cuh's refill).
enum class RefillPath {
  Pass,            // an outer loop's pass up to the test that ends the warp: rounds + 1 a warp
  Round,           // a round: the waiting lanes' replays and new pixels
  Finish,          // a round in which a lane finished a pixel (replayed and written)
  NewTile,         // a round that takes a new tile (the atomic and the warp's sum)
  CurrentEntered,  // a round in which a lane takes a pixel of the warp's current tile
  CurrentStarted,  // the same where the current tile is one of the range's
  FreshEntered,    // a round in which a lane takes a pixel of the new tile
  FreshStarted,    // the same where the new tile is one of the range's
};
inline constexpr int kRefillPathCount = 8;

struct RefillRounds {
  double trips = 0;         // the warps' trips of two blocks
  double replay_steps = 0;  // each round's longest replay, summed (its single steps' trips)
  double warp_steps = 0;    // trips x 2K + replay_steps: the kernel's warp_iters
  double warps = 0;
  std::array<double, kRefillPathCount> paths{};
  double path(RefillPath p) const { return paths[static_cast<int>(p)]; }
};

// A launch of `warps` warps (blocks of kWarpsPerBlock) over every 16x2 tile of a width x height
// frame, K-step blocks, limit max_iter; counts: each pixel's steps, row by row. Warp k starts on
// tile k; later tiles come from counter k % kRefillCounters. Time is counted in steps (a trip 2K,
// a replay step 1, a round 4K: about its instructions against a trip's); the warp that reaches
// its take first takes the counter's next tile (the lower warp on a tie).
RefillRounds simulate_refill(int width, int height, unsigned max_iter, int block, double warps,
                             const unsigned* counts);

}  // namespace mp
