// Shared by the experiment .cu files: the per-SM spans the kernels record, the lab's use of the
// measuring kit (measure_kit.h), and the entry point of each experiment for the catalogue
// (catalogue.cu).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cuda_check.h"
#include "device_buffer.h"
#include "experiments.h"
#include "measure_kit.h"
#include "model/median.h"
#include "sm_arch.h"
#include "sm_id.cuh"

namespace mp::lab {

// Every thread of the block calls this last, with the clock64() it read first: thread 0
// then stretches its SM's span over this block and counts the block.
__device__ __forceinline__ void record_span(const SmSpan& s, long long t_start) {
  __syncthreads();
  if (threadIdx.x == 0) {
    const long long t_end = clock64();
    const unsigned sm = sm_id();
    atomicMin(&s.first[sm], static_cast<unsigned long long>(t_start));
    atomicMax(&s.last[sm], static_cast<unsigned long long>(t_end));
    atomicAdd(&s.blocks[sm], 1ull);
  }
}

struct Sample {
  double ms = 0;         // CUDA events around the launch
  double sm_cycles = 0;  // max over SMs of (latest block end - earliest block start)
  int sms_used = 0;      // SMs that ran a block
  unsigned max_blocks_per_sm = 0;
  std::optional<CounterFigures> counters;  // the hardware counters' reading, where asked for

  double clock_ghz() const { return ms > 0 ? sm_cycles / (ms * 1e6) : 0; }
};

// One experiment's use of the measuring kit (measure_kit.h), with blocks counted per SM and the
// hardware counters read around each launch. A launch is a callable (cudaStream_t, SmSpan) that
// enqueues one kernel.
class Bench {
 public:
  // counters: read the hardware counters around every launch `once` makes (may be null).
  Bench(const DeviceInfo& device, CounterProbe* counters)
      : kit_(device.index, SpanLayout{true, 0, 0}), counters_(counters) {}
  cudaStream_t stream() const { return kit_.stream(); }

  template <class Launch>
  Sample once(Launch&& launch) {
    const std::uint64_t reading = counters_ ? counters_->begin() : 0;
    const SpanReading r = kit_.once(launch);
    Sample s;
    s.ms = r.ms;
    s.sm_cycles = static_cast<double>(r.sm_cycles);
    s.sms_used = r.sms_used;
    s.max_blocks_per_sm = static_cast<unsigned>(r.max_blocks_per_sm);
    if (counters_) {
      counters_->end(reading, s.sm_cycles);
      s.counters = counters_->take(reading, true);
    }
    return s;
  }

  // One warm-up launch, then of `runs`: the launch whose cycles are the median (its counters
  // with them: figures of one launch together), with the median time.
  template <class Launch>
  Sample median(Launch&& launch, int runs = 5) {
    const TimedRuns<Sample> v = warm_median(
        1, runs, [&](bool) { return once(launch); }, [](const Sample& s) { return s.sm_cycles; });
    Sample m = v.middle();
    m.ms = median_by(v.runs, [](const Sample& s) { return s.ms; }).ms;
    return m;
  }

  // Milliseconds per launch over `n` back-to-back launches between two events (the median of
  // `runs` such batches, after one warm-up batch).
  template <class Launch>
  double ms_per_launch(Launch&& launch, int n, int runs = 5) {
    return warm_median(
               1, runs, [&](bool) { return kit_.batch_ms(launch, n) / n; },
               [](double ms) { return ms; })
        .middle();
  }

 private:
  MeasureKit kit_;  // first: it chooses the device
  CounterProbe* counters_;
};

// Host helpers for building reports.
std::string device_text(const DeviceInfo& d);
inline int arch_of(const DeviceInfo& d) {
  return sm_arch(d.cc_major, d.cc_minor);
}
std::string fmt(const char* format, double v);  // snprintf of one number
std::string mix_text(const InstrMix& m);        // "FMA 256, ALU 1, other 2 = 259 issue slots"

// One block per SM: dynamic shared memory above half of what an SM holds, so a second block
// never fits. Sets the kernel's attribute and returns the bytes to launch with.
std::size_t one_block_per_sm_smem(const void* kernel);

// The experiments, defined beside their kernels, and the loops they declare.
ExperimentReport run_fma_grouping(const DeviceInfo& d, CounterProbe* counters);
ExperimentReport run_sin_overlap(const DeviceInfo& d, CounterProbe* counters);
ExperimentReport run_warps_per_smsp(const DeviceInfo& d, CounterProbe* counters);
ExperimentReport run_single_warp_ilp(const DeviceInfo& d, CounterProbe* counters);
ExperimentReport run_launch_overhead(const DeviceInfo& d, CounterProbe* counters);
ExperimentReport run_dependent_latency(const DeviceInfo& d, CounterProbe* counters);
ExperimentReport run_dispatch(const DeviceInfo& d, CounterProbe* counters);
ExperimentReport run_perturbation_cost(const DeviceInfo& d, CounterProbe* counters);
// What the model predicts, without a kernel run: the experiments whose prediction needs no
// measurement (the others' rests on one; catalogue.cu says which).
ExperimentReport predict_fma_grouping(const DeviceInfo& d);
ExperimentReport predict_sin_overlap(const DeviceInfo& d);
ExperimentReport predict_warps_per_smsp(const DeviceInfo& d);
ExperimentReport predict_single_warp_ilp(const DeviceInfo& d);
ExperimentReport predict_dependent_latency(const DeviceInfo& d);
ExperimentReport run_kernel_overhead(const DeviceInfo& d, CounterProbe* counters);
std::vector<DeclaredLoop> throughput_loops(int arch);
std::vector<DeclaredLoop> chain_loops(int arch);

}  // namespace mp::lab
