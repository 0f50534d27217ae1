// perturb's every-step kernel runs a warp's 32 lanes in lockstep (cuda/perturb_lockstep.cuh):
// the warp leaves its steps together, in a round, whenever a lane escapes or rebases, its
// finished lanes come to the reference's end, or at the limit. Which rounds a warp runs follows
// from its lanes' orbits alone, so the CPU reference counts them as the kernel does, for the
// whole-kernel model of frames rendered without a GPU.
#pragma once

#include <vector>

namespace mp {

// A lane's orbit as the rounds see it: whether it has a pixel, the steps after which it rebased
// (ascending), and the step at which it escaped (0: it did not).
struct LaneOrbit {
  bool live = false;
  unsigned escaped_at = 0;
  std::vector<unsigned> rebases;
};

// The kernel's tallies of a warp's rounds: all of them, those after which a lane had finished,
// and those in which a lane that had not finished rebased.
struct WarpRounds {
  unsigned long long rounds = 0, done_rounds = 0, rebase_rounds = 0;
};

// The rounds of a warp of these 32 lanes against a reference orbit whose last point is `last`,
// to max_iter steps.
WarpRounds lockstep_rounds(const LaneOrbit (&lanes)[32], unsigned last, unsigned max_iter);

}  // namespace mp
