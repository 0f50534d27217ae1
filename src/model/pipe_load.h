// How busy each pipe was in a frame, by the model: the pipe's busy cycles (instructions per
// step x warp-issued steps, over the pipe's rate and the SMs) over the SM cycles measured.
#pragma once

#include <string>
#include <vector>

#include "bound_model.h"

namespace mp {

struct PipeLoad {
  std::string name;        // FMA, fmaheavy, fmalite, ALU, XU, FP64, LSU, issue
  double busy_cycles = 0;  // what this pipe alone needs for the frame's work
  double utilisation = 0;  // busy_cycles / measured SM cycles
  double alone_ms = 0;     // the bound this pipe alone imposes, at the measured clock
  bool limiting = false;   // the pipe (or issue) with the most busy cycles
};

// per_step: instructions per warp-step by pipe; heavy_only: of per_step.fma, those only the
// fmaheavy half executes (negative: unknown, no heavy/lite split shown). The split is shown
// on chips that have one (sm_86 and newer), assuming the schedulers balance the rest of the
// FMA-pipe work between the halves.
std::vector<PipeLoad> pipe_loads(const PipeRates& rates, int sm_count, const InstrMix& per_step,
                                 double heavy_only, double warp_steps, double measured_cycles,
                                 double clock_ghz);

// Whether the chip splits the FMA pipe into fmaheavy and fmalite (sm_86, sm_89, sm_90, ...).
bool has_heavy_lite_split(const PipeRates& rates);

}  // namespace mp
