// Everything the app reports about a GPU frame, derived from what was measured plus the model.
#pragma once

#include "bound_model.h"

namespace mp {

struct FrameNumbers {         // measured
  double kernel_ms = 0;       // CUDA events
  double sm_cycles = 0;       // clock64(), max over SMs
  double pixel_iters = 0;     // sum of per-pixel steps
  double warp_iters = 0;      // sum over warps of the slowest lane's steps
  double sm_cycles_mean = 0;  // the SMs' spans averaged over the SMs that ran warps
  // perturb's every-step kernel: its warps' rounds, those with a finished lane and those with a
  // rebase (-1 elsewhere).
  double rounds = -1, done_rounds = -1, rebase_rounds = -1;
};

struct Metrics {
  double clock_ghz = 0;        // sm_cycles / kernel time
  double giter_per_s = 0;      // pixel iterations per second, 1e9
  double simt_efficiency = 0;  // pixel_iters / (32 * warp_iters): lanes doing useful steps
  double sm_balance = 0;       // sm_cycles_mean / sm_cycles: 1 when every SM worked to the end
  Bound bound;                 // in SM cycles
  double bound_max_ms = 0;     // at the measured clock
  double bound_sum_ms = 0;
  double fraction_of_bound = 0;  // bound.max_cycles / sm_cycles
};

Metrics derive_metrics(const PipeRates& rates, int sm_count, const InstrMix& per_iteration,
                       const FrameNumbers& m);

}  // namespace mp
