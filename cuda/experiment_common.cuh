// Shared by the experiment .cu files: per-SM clock spans recorded by the kernels, RAII over
// streams and events, the warm-up-then-median measurement, and the entry point of each
// experiment for the catalogue (experiment_catalogue.cu).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "cuda_check.h"
#include "device_buffer.h"
#include "experiments.h"
#include "model/median.h"
#include "sm_id.cuh"

namespace mp::lab {

// Per-SM records, indexed by %smid: earliest block start, latest block end, blocks run.
struct SmSpan {
  unsigned long long* first = nullptr;
  unsigned long long* last = nullptr;
  unsigned* blocks = nullptr;
};

// Every thread of the block calls this last, with the clock64() it read first: thread 0
// then stretches its SM's span over this block.
__device__ __forceinline__ void record_span(const SmSpan& s, long long t_start) {
  __syncthreads();
  if (threadIdx.x == 0) {
    const long long t_end = clock64();
    const unsigned sm = sm_id();
    atomicMin(&s.first[sm], static_cast<unsigned long long>(t_start));
    atomicMax(&s.last[sm], static_cast<unsigned long long>(t_end));
    atomicAdd(&s.blocks[sm], 1u);
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

class Stream {
 public:
  Stream() { CUDA_CHECK(cudaStreamCreate(&s_)); }
  ~Stream() { cudaStreamDestroy(s_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

class Event {
 public:
  Event() { CUDA_CHECK(cudaEventCreate(&e_)); }
  ~Event() { cudaEventDestroy(e_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

// %smid is not promised to stay below the SM count; size the per-SM arrays generously.
inline constexpr int kMaxSmId = 1024;

// One experiment's measuring kit: a stream, two events and the per-SM span buffers. A
// launch is a callable (cudaStream_t, SmSpan) that enqueues one kernel.
class Bench {
 public:
  // counters: read the hardware counters around every launch `once` makes (may be null).
  Bench(const DeviceInfo& device, CounterProbe* counters)
      : device_(device.index),
        counters_(counters),
        first_(kMaxSmId),
        last_(kMaxSmId),
        blocks_(kMaxSmId),
        host_(2 * kMaxSmId) {}
  cudaStream_t stream() const { return stream_.get(); }
  SmSpan span() const { return {first_.get(), last_.get(), blocks_.get()}; }

  template <class Launch>
  Sample once(Launch&& launch) {
    const std::uint64_t reading = counters_ ? counters_->begin() : 0;
    CUDA_CHECK(
        cudaMemsetAsync(first_.get(), 0xff, kMaxSmId * sizeof(unsigned long long), stream()));
    CUDA_CHECK(cudaMemsetAsync(last_.get(), 0, kMaxSmId * sizeof(unsigned long long), stream()));
    CUDA_CHECK(cudaMemsetAsync(blocks_.get(), 0, kMaxSmId * sizeof(unsigned), stream()));
    CUDA_CHECK(cudaEventRecord(start_.get(), stream()));
    launch(stream(), span());
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventRecord(stop_.get(), stream()));
    CUDA_CHECK(cudaMemcpyAsync(host_.data(), first_.get(), kMaxSmId * sizeof(unsigned long long),
                               cudaMemcpyDeviceToHost, stream()));
    CUDA_CHECK(cudaMemcpyAsync(host_.data() + kMaxSmId, last_.get(),
                               kMaxSmId * sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                               stream()));
    std::vector<unsigned> blocks(kMaxSmId);
    CUDA_CHECK(cudaMemcpyAsync(blocks.data(), blocks_.get(), kMaxSmId * sizeof(unsigned),
                               cudaMemcpyDeviceToHost, stream()));
    CUDA_CHECK(cudaStreamSynchronize(stream()));
    Sample s;
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start_.get(), stop_.get()));
    s.ms = ms;
    for (int i = 0; i < kMaxSmId; ++i) {
      if (blocks[i] == 0) continue;
      ++s.sms_used;
      s.max_blocks_per_sm = std::max(s.max_blocks_per_sm, blocks[i]);
      s.sm_cycles = std::max(s.sm_cycles, static_cast<double>(host_[kMaxSmId + i] - host_[i]));
    }
    if (counters_) {
      counters_->end(reading, s.sm_cycles);
      s.counters = counters_->take(reading, true);
    }
    return s;
  }

  // One warm-up launch (clocks ramp, instruction caches fill), then the median of `runs`.
  template <class Launch>
  Sample median(Launch&& launch, int runs = 5) {
    once(launch);
    std::vector<Sample> v;
    for (int i = 0; i < runs; ++i) v.push_back(once(launch));
    Sample m = v.back();
    m.ms = median_by(v, [](const Sample& s) { return s.ms; }).ms;
    // The counters of the launch whose cycles are the median: figures of one launch together.
    const Sample by_cycles = median_by(v, [](const Sample& s) { return s.sm_cycles; });
    m.sm_cycles = by_cycles.sm_cycles;
    m.counters = by_cycles.counters;
    return m;
  }

  // Milliseconds per launch over `n` back-to-back launches between two events (the median of
  // `runs` such batches, after one warm-up batch).
  template <class Launch>
  double ms_per_launch(Launch&& launch, int n, int runs = 5) {
    std::vector<double> per;
    for (int r = 0; r <= runs; ++r) {
      CUDA_CHECK(cudaEventRecord(start_.get(), stream()));
      for (int i = 0; i < n; ++i) launch(stream(), span());
      CUDA_CHECK(cudaGetLastError());
      CUDA_CHECK(cudaEventRecord(stop_.get(), stream()));
      CUDA_CHECK(cudaEventSynchronize(stop_.get()));
      float ms = 0;
      CUDA_CHECK(cudaEventElapsedTime(&ms, start_.get(), stop_.get()));
      if (r > 0) per.push_back(ms / n);
    }
    return mp::median(per);
  }

 private:
  // First member: the device is chosen before anything is created on it.
  struct UseDevice {
    explicit UseDevice(int index) { CUDA_CHECK(cudaSetDevice(index)); }
  } device_;
  CounterProbe* counters_;
  Stream stream_;
  Event start_, stop_;
  DeviceBuffer<unsigned long long> first_, last_;
  DeviceBuffer<unsigned> blocks_;
  std::vector<unsigned long long> host_;
};

// Host helpers for building reports.
std::string device_text(const DeviceInfo& d);
inline int sm_version(const DeviceInfo& d) {
  return d.cc_major * 10 + d.cc_minor;
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
std::vector<DeclaredLoop> throughput_loops(int sm);
std::vector<DeclaredLoop> chain_loops(int sm);

}  // namespace mp::lab
