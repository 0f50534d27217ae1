// The theoretical bound: how many SM cycles the pipes need, at best, for a frame's work.
//
//   cycles(pipe) = warp-issued iterations x instructions per iteration on that pipe
//                  / (SMs x warp-instructions per clock per SM on that pipe)
//
// "max" assumes the pipes overlap perfectly (the slowest pipe, or issue, sets the time);
// "sum" assumes they don't (execution pipes one after another). Measured SM cycles sit
// between the two when the model is right; % of bound = max-bound / measured.
#pragma once

#include <array>

#include "instr_mix.h"
#include "pipe_rates.h"

namespace mp {

struct Bound {
  std::array<double, kPipeCount> cycles{};  // each pipe alone; Issue = every instruction
  double max_cycles = 0;
  Pipe limiting = Pipe::Issue;
  double sum_cycles = 0;  // FMA + ALU + XU + FP64 + LSU

  double cycles_of(Pipe p) const { return cycles[static_cast<int>(p)]; }
  static double ms(double cycles, double clock_hz) { return cycles / clock_hz * 1e3; }
};

Bound compute_bound(const PipeRates& rates, int sm_count, const InstrMix& per_iteration,
                    double warp_iterations);

// Share of the max-bound that the measurement reached (1.0 = at the bound).
inline double fraction_of_bound(const Bound& b, double measured_cycles) {
  return measured_cycles > 0 ? b.max_cycles / measured_cycles : 0;
}

}  // namespace mp
