// The whole-kernel model: every instruction a frame issues, by part (model/kernel_parts.h), from
// the SASS of the kernel build that ran and the frame's own counts (model/frame_tally.h).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "model/frame_tally.h"
#include "model/kernel_parts.h"
#include "model/pipe_load.h"

namespace mp {

struct PartFigures {
  InstrMix mix;  // warp-instructions of the frame, by pipe
};

struct WholeKernel {
  std::string unusable;  // empty: the parts hold the frame's instructions; else why not
  std::array<PartFigures, kKernelPartCount> parts{};
  // What the model counts by an estimate or leaves out, a line each (the overlay names them).
  std::vector<std::string> unplaced;
  // What the model does not predict at all, a line each (the overlay and bench name them).
  std::vector<std::string> not_modelled;

  bool ok() const { return unusable.empty(); }
  const PartFigures& part(KernelPart p) const { return parts[static_cast<int>(p)]; }
  InstrMix total() const;
  double instructions() const { return total().total(); }
  // The share of the instructions outside the step loop (0 where there are none).
  double outside_step_loop() const;
};

// run_warp_steps: the warps' slowest lanes' steps the frame ran (its warp_iters); a variant that
// stops orbits found periodic runs fewer than the counts give, and its long blocks' loop is
// scaled to what ran (named in `unplaced`). Negative: not known.
WholeKernel model_whole_kernel(const KernelCut& cut, const FrameTally& t, bool stops_cycles,
                               double run_warp_steps);

// Each pipe's busy cycles by the whole-kernel model over the measured SM cycles (as pipe_loads),
// the FMA pipe as a whole: no fmaheavy or fmalite rows (WholeKernel::not_modelled says why).
std::vector<PipeLoad> whole_kernel_loads(const PipeRates& rates, int sm_count, const WholeKernel& w,
                                         double measured_cycles, double clock_ghz);

// The whole-kernel model of a frame of variant v from its pixels' step counts (tally_frame) and
// the cut of the listing of the kernel build that ran; unusable, with the reason, where the
// variant has no schedule or the cut failed.
WholeKernel whole_kernel_of_frame(VariantId v, const KernelCut& cut, const FrameShape& shape,
                                  const unsigned* counts, double run_warp_steps);

// Step counts from a frame's pixels (2 floats a pixel, the smooth value first: pixel.h's
// n + 2 - log2(log2 |z|^2), which lies in [n - 2.002, n - 1) for |c| below 3; negative inside:
// the limit). A pixel in the overlap of two counts' ranges may come back a step off. For the
// window, whose frames keep their pixels, not their counts.
std::vector<unsigned> counts_from_pixels(const float* pixels, std::size_t count, unsigned max_iter);

// Warps an SM holds at most (the CUDA C++ Programming Guide's table of compute capabilities):
// the queue's persistent warps and its tail are sized by it.
int max_warps_per_sm(int cc_major, int cc_minor);

}  // namespace mp
