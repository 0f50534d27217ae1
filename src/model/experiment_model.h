// What the experiments lab predicts before it measures: pure host math from the pipe rates
// (pipe_rates.h), the SM count, a kernel's declared instruction mix and the dependent-latency
// table below. No CUDA here, so every prediction is unit-tested without a GPU.
#pragma once

#include <string>
#include <vector>

#include "bound_model.h"
#include "instr_mix.h"
#include "pipe_rates.h"
#include "whole_kernel.h"

namespace mp {

// Where a latency figure comes from: the report prints it beside the number.
enum class LatencySource { Measured, Documented, Assumed };
const char* latency_source_text(LatencySource s);

struct Latency {
  double cycles = 0;  // from one instruction's issue to the earliest issue of a dependent one
  LatencySource source = LatencySource::Assumed;
};

struct LatencyTable {
  int cc_major = 0, cc_minor = 0;  // the table row used
  bool exact = false;              // false: nearest older row
  Latency ffma, fadd, iadd;
  Latency sin;  // sin.approx.f32 / __sinf: the FMUL.RZ + MUFU.SIN pair, one link of a chain
};

// Throws std::out_of_range for devices older than the table (cc < 7.0).
LatencyTable latency_table(int cc_major, int cc_minor);

// One warp's loop on one SM sub-partition (SMSP): a warp issues in order, so besides the
// SMSP's issue port and its pipes, a warp is held back by its longest loop-carried chain of
// dependent instructions (depth x latency per iteration).
struct WarpLoop {
  InstrMix mix;                  // instructions per iteration, one warp
  double dependency_cycles = 0;  // loop-carried critical path per iteration
};

struct SmspPrediction {
  double issue_cycles = 0;    // every warp's instructions through the one issue port
  double pipe_cycles = 0;     // the busiest execution pipe at its per-SMSP rate
  Pipe pipe = Pipe::Fma;      // which one that is
  double latency_cycles = 0;  // one warp's critical path: more warps don't shorten it
  double cycles = 0;          // per iteration: the largest of the three
  const char* limit() const;  // "issue", "FMA pipe", "XU pipe", "latency", ...
};

// Cycles per loop iteration on one SMSP running `warps_per_smsp` warps of `loop`.
SmspPrediction predict_smsp(const PipeRates& rates, const WarpLoop& loop, int warps_per_smsp);

// The other hypothesis of seed 000: a MUFU holds its warp's issue for as long as the XU
// pipe needs per warp-instruction (8 cycles on sm_90), so each warp issues at most
// (non-XU instructions + XU instructions x that hold) per iteration. A lower bound under
// that hypothesis: a measurement below it refutes it.
double blocking_mufu_cycles(const PipeRates& rates, const WarpLoop& loop, int warps_per_smsp);

// Launch overhead as seed 002 models it: a launch costs a fixed overhead plus its work, so the
// share of the pipe bound a launch reaches is bound / (bound + overhead) ...
double fraction_with_overhead(double bound_cycles, double overhead_cycles);
// ... and reaching `fraction` takes this many units of work, each `bound_cycles_per_unit`.
double work_for_fraction(double bound_cycles_per_unit, double overhead_cycles, double fraction);

// Dispatch: the threads of a warp that chose different targets run one target after another.
// `targets` holds each thread's choice, threads 32k..32k+31 forming warp k.
double mean_distinct_per_warp(const std::vector<int>& targets);

// The serialisation model: the part of a call that every target shares (an if/else chain's
// compares, say) runs once per warp, each distinct target's own part once per target, so
// time(p targets) = shared + p x per_target. Runs with one and two targets per warp fix both.
struct SerialisedCost {
  double shared = 0, per_target = 0;
  double time(double distinct_targets) const { return shared + distinct_targets * per_target; }
};
SerialisedCost fit_serialised(double time_one_target, double time_two_targets);

// kernel-overhead: the share of a frame's work outside the step loop. By the whole-kernel model:
// of its instructions, and of its bound (the slowest of issue and the pipes) the part that the
// step loop's own bound leaves. Measured: of the instructions the counters counted, those beyond
// the model's step loop; of the SM cycles, those beyond the step loop's bound.
struct OverheadShares {
  double instructions = 0;
  double cycles = 0;
};
OverheadShares predicted_overhead(const PipeRates& rates, const WholeKernel& w);
double measured_instruction_overhead(const WholeKernel& w, double counted_instructions);
double measured_cycle_overhead(const PipeRates& rates, int sm_count, const WholeKernel& w,
                               double sm_cycles);

}  // namespace mp
