#include "experiment_model.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "model/cc_table.h"

namespace mp {

const char* latency_source_text(LatencySource s) {
  switch (s) {
    case LatencySource::Measured:
      return "measured on an H200 by timing chains of dependent instructions, as the "
             "dependent-latency experiment does";
    case LatencySource::Documented:
      return "CUDA C++ Programming Guide: typically 4 cycles for most arithmetic instructions "
             "(stated for cc 7.x, taken to hold on later chips)";
    case LatencySource::Assumed: return "not documented: the H200 measurement is assumed";
  }
  return "?";
}

namespace {

struct LatencyRow {
  int major, minor;
  Latency ffma, fadd, iadd, sin;
};

// The one latency table. Sources: sm_90's FFMA (4 cycles) and FMUL.RZ + MUFU.SIN chain
// (~23 cycles) were measured on an H200 by chains of dependent instructions; FADD and integer add
// everywhere, and FFMA elsewhere, are the Programming Guide's "typically 4 cycles"; NVIDIA
// documents no MUFU latency, so other chips borrow the H200's figure and say so.
constexpr Latency kDoc4{4, LatencySource::Documented};
constexpr Latency kSinAssumed{23, LatencySource::Assumed};
constexpr LatencyRow kLatencyRows[] = {
    {7, 0, kDoc4, kDoc4, kDoc4, kSinAssumed},
    {7, 5, kDoc4, kDoc4, kDoc4, kSinAssumed},
    {8, 0, kDoc4, kDoc4, kDoc4, kSinAssumed},
    {8, 6, kDoc4, kDoc4, kDoc4, kSinAssumed},
    {8, 7, kDoc4, kDoc4, kDoc4, kSinAssumed},
    {8, 9, kDoc4, kDoc4, kDoc4, kSinAssumed},
    {9, 0, {4, LatencySource::Measured}, kDoc4, kDoc4, {23, LatencySource::Measured}},
    {10, 0, kDoc4, kDoc4, kDoc4, kSinAssumed},
    {12, 0, kDoc4, kDoc4, kDoc4, kSinAssumed},
};

// An SM has four sub-partitions; the pipe table is per SM.
constexpr int kSmspPerSm = 4;

}  // namespace

LatencyTable latency_table(int cc_major, int cc_minor) {
  const LatencyRow* best = &nearest_cc_row(kLatencyRows, cc_major, cc_minor, "latency table");
  LatencyTable t;
  t.cc_major = best->major;
  t.cc_minor = best->minor;
  t.exact = best->major == cc_major && best->minor == cc_minor;
  t.ffma = best->ffma;
  t.fadd = best->fadd;
  t.iadd = best->iadd;
  t.sin = best->sin;
  return t;
}

const char* SmspPrediction::limit() const {
  if (latency_cycles > std::max(issue_cycles, pipe_cycles)) return "latency";
  if (pipe_cycles > issue_cycles) {
    switch (pipe) {
      case Pipe::Fma: return "FMA pipe";
      case Pipe::Alu: return "ALU pipe";
      case Pipe::Xu: return "XU pipe";
      case Pipe::Fp64: return "FP64 pipe";
      case Pipe::Lsu: return "LSU pipe";
      case Pipe::Issue: break;
    }
  }
  return "issue";
}

SmspPrediction predict_smsp(const PipeRates& rates, const WarpLoop& loop, int warps_per_smsp) {
  if (warps_per_smsp <= 0) throw std::invalid_argument("predict_smsp: warps must be positive");
  // One SM with the same warps on each of its sub-partitions takes as long as one of them.
  const Bound b =
      compute_bound(rates, 1, loop.mix, static_cast<double>(kSmspPerSm) * warps_per_smsp);
  SmspPrediction p;
  p.issue_cycles = b.cycles_of(Pipe::Issue);
  for (Pipe pipe : {Pipe::Fma, Pipe::Alu, Pipe::Xu, Pipe::Fp64})
    if (b.cycles_of(pipe) > p.pipe_cycles) {
      p.pipe_cycles = b.cycles_of(pipe);
      p.pipe = pipe;
    }
  p.latency_cycles = loop.dependency_cycles;
  p.cycles = std::max({p.issue_cycles, p.pipe_cycles, p.latency_cycles});
  return p;
}

double blocking_mufu_cycles(const PipeRates& rates, const WarpLoop& loop, int warps_per_smsp) {
  const SmspPrediction p = predict_smsp(rates, loop, warps_per_smsp);
  const double hold = kSmspPerSm / rates[Pipe::Xu];  // cycles per XU warp-instruction per SMSP
  const double one_warp = loop.mix.total() - loop.mix.xu + loop.mix.xu * hold;
  return std::max(p.cycles, one_warp);
}

double fraction_with_overhead(double bound_cycles, double overhead_cycles) {
  const double total = bound_cycles + overhead_cycles;
  return total > 0 ? bound_cycles / total : 0;
}

double work_for_fraction(double bound_cycles_per_unit, double overhead_cycles, double fraction) {
  if (bound_cycles_per_unit <= 0 || fraction <= 0 || fraction >= 1)
    throw std::invalid_argument("work_for_fraction: needs work > 0 and 0 < fraction < 1");
  // k b / (k b + T) = f  <=>  k = f T / ((1 - f) b)
  return fraction * overhead_cycles / ((1 - fraction) * bound_cycles_per_unit);
}

double mean_distinct_per_warp(const std::vector<int>& targets) {
  constexpr std::size_t kWarp = 32;
  if (targets.empty()) return 0;
  double sum = 0;
  std::size_t warps = 0;
  for (std::size_t w = 0; w < targets.size(); w += kWarp, ++warps) {
    std::vector<int> lanes(targets.begin() + w,
                           targets.begin() + std::min(targets.size(), w + kWarp));
    std::sort(lanes.begin(), lanes.end());
    sum += static_cast<double>(std::unique(lanes.begin(), lanes.end()) - lanes.begin());
  }
  return sum / warps;
}

SerialisedCost fit_serialised(double time_one_target, double time_two_targets) {
  const double per_target = time_two_targets - time_one_target;
  return {time_one_target - per_target, per_target};
}

OverheadShares predicted_overhead(const PipeRates& rates, const WholeKernel& w) {
  OverheadShares o;
  o.instructions = w.outside_step_loop();
  const double all = compute_bound(rates, 1, w.total(), 1).max_cycles;
  const double loop = compute_bound(rates, 1, w.part(KernelPart::StepLoop).mix, 1).max_cycles;
  o.cycles = all > 0 ? 1 - loop / all : 0;
  return o;
}

double measured_instruction_overhead(const WholeKernel& w, double counted_instructions) {
  return counted_instructions > 0
             ? 1 - w.part(KernelPart::StepLoop).mix.total() / counted_instructions
             : 0;
}

double measured_cycle_overhead(const PipeRates& rates, int sm_count, const WholeKernel& w,
                               double sm_cycles) {
  const double loop =
      compute_bound(rates, sm_count, w.part(KernelPart::StepLoop).mix, 1).max_cycles;
  return sm_cycles > 0 ? 1 - loop / sm_cycles : 0;
}

}  // namespace mp
