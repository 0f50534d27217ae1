// dispatch (seed 003): each thread picks one of kTargets small float functions by a
// data-dependent index, through an if/else chain or through an array of __device__ function
// pointers. Time against the distinct targets per warp (counted on the device), registers
// and stack per thread.
#include <algorithm>
#include <cmath>
#include <optional>

#include "common.cuh"
#include "model/experiment_model.h"

namespace mp::lab {
namespace {

constexpr int kTargets = 8;
constexpr int kThreads = 256;
constexpr int kTargetLength = 8;  // dependent FFMAs in one target
constexpr unsigned kIterations = 4000;

#define MP_REP8(s) s s s s s s s s

// Target J: kTargetLength dependent FFMAs with its own constants. Written in C++, targets that
// differ only in their constants are merged by the compiler into one body with per-lane
// constants, and the if/else chain then hardly diverges (a lesson of its own, not this one):
// the immediate J in the PTX makes every target different code, as real targets are.
template <int J>
__device__ float target(float x) {
  static_assert(kTargetLength == 8, "the PTX below holds eight FFMAs");
  asm("// target %3\n\t" MP_REP8("fma.rn.f32 %0, %0, %1, %2;\n\t")
      : "+f"(x)
      : "f"(0.999f - 0.001f * J), "f"(0.001f * J), "n"(J));
  return x;
}

struct DispatchArgs {
  const int* choice = nullptr;  // per thread; step i calls target (choice + i) mod kTargets
  unsigned iterations = 0;
  float* out = nullptr;
  unsigned* distinct = nullptr;  // per warp: distinct targets at step 0
  SmSpan span;
};

// Threads of a warp with equal j find each other; one leader per group is counted.
__device__ __forceinline__ void count_distinct(int j, unsigned* per_warp) {
  const unsigned peers = __match_any_sync(0xffffffffu, j);
  const int lane = threadIdx.x & 31;
  const bool leader = __ffs(peers) - 1 == lane;
  const unsigned distinct = __popc(__ballot_sync(0xffffffffu, leader));
  if (lane == 0) per_warp[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = distinct;
}

// The chain of ifs a programmer writes, one target per branch.
template <int J = 0>
__device__ __forceinline__ float dispatch_if(unsigned j, float x) {
  if constexpr (J == kTargets - 1) {
    return target<J>(x);
  } else {
    if (j == J) return target<J>(x);
    return dispatch_if<J + 1>(j, x);
  }
}

__global__ void __launch_bounds__(kThreads) dispatch_if_kernel(DispatchArgs a) {
  const long long t_start = clock64();
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  const int first = a.choice[t];
  count_distinct(first % kTargets, a.distinct);
  float x = 0.5f + 1e-7f * static_cast<float>(t);
#pragma unroll 1
  for (unsigned i = 0; i < a.iterations; ++i) x = dispatch_if((first + i) % kTargets, x);
  a.out[t] = x;
  record_span(a.span, t_start);
}

using TargetFn = float (*)(float);

__global__ void __launch_bounds__(kThreads) dispatch_pointer_kernel(DispatchArgs a) {
  const long long t_start = clock64();
  // Built per thread, as seed 003 does: the array lives in the thread's stack frame.
  const TargetFn table[kTargets] = {target<0>, target<1>, target<2>, target<3>,
                                    target<4>, target<5>, target<6>, target<7>};
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  const int first = a.choice[t];
  count_distinct(first % kTargets, a.distinct);
  float x = 0.5f + 1e-7f * static_cast<float>(t);
#pragma unroll 1
  for (unsigned i = 0; i < a.iterations; ++i) x = table[(first + i) % kTargets](x);
  a.out[t] = x;
  record_span(a.span, t_start);
}

struct VariantRun {
  const char* name;
  void (*kernel)(DispatchArgs);
  std::vector<double> ms;  // per pattern
  std::vector<double> distinct;
  cudaFuncAttributes attr{};
};

}  // namespace

ExperimentReport run_dispatch(const DeviceInfo& d, CounterProbe* counters) {
  Bench bench(d, counters);
  const std::vector<int> patterns = {1, 2, 4, 8};  // distinct targets per warp by design
  VariantRun variants[] = {{"if/else", dispatch_if_kernel, {}, {}, {}},
                           {"function pointers", dispatch_pointer_kernel, {}, {}, {}}};
  std::vector<double> designed;
  for (VariantRun& v : variants) {
    CUDA_CHECK(cudaFuncGetAttributes(&v.attr, reinterpret_cast<const void*>(v.kernel)));
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, reinterpret_cast<const void*>(v.kernel), kThreads, 0));
    const int blocks = per_sm * d.sm_count;
    const std::size_t threads = static_cast<std::size_t>(blocks) * kThreads;
    DeviceBuffer<int> choice(threads);
    DeviceBuffer<float> out(threads);
    DeviceBuffer<unsigned> distinct(threads / 32);
    std::vector<unsigned> counted(threads / 32);
    designed.clear();
    for (int p : patterns) {
      // Lane l of warp w starts at target (l mod p + w) mod kTargets: p distinct per warp,
      // and every target in use somewhere.
      std::vector<int> host(threads);
      for (std::size_t t = 0; t < threads; ++t)
        host[t] = static_cast<int>((t % 32 % p + t / 32) % kTargets);
      designed.push_back(mean_distinct_per_warp(host));
      CUDA_CHECK(
          cudaMemcpy(choice.get(), host.data(), threads * sizeof(int), cudaMemcpyHostToDevice));
      DispatchArgs a;
      a.choice = choice.get();
      a.iterations = kIterations;
      a.out = out.get();
      a.distinct = distinct.get();
      const Sample s = bench.median([&](cudaStream_t st, SmSpan span) {
        a.span = span;
        v.kernel<<<blocks, kThreads, 0, st>>>(a);
      });
      CUDA_CHECK(cudaMemcpy(counted.data(), distinct.get(), counted.size() * sizeof(unsigned),
                            cudaMemcpyDeviceToHost));
      double sum = 0;
      for (unsigned c : counted) sum += c;
      v.ms.push_back(s.ms);
      v.distinct.push_back(sum / counted.size());
    }
  }

  ExperimentReport rep;
  rep.model =
      "serialisation: the part of a call every target shares runs once per warp, each "
      "distinct target's own part once per target: time(p distinct targets per warp) = "
      "shared + p x per-target, both fitted to the runs with 1 and 2 targets; " +
      std::to_string(kTargets) + " targets of " + std::to_string(kTargetLength) +
      " dependent FFMAs, " + std::to_string(kIterations) +
      " calls per thread, full occupancy; distinct targets counted on the device "
      "with __match_any_sync; registers and stack from cudaFuncGetAttributes; times "
      "are the median of 5 launches after a warm-up";
  std::vector<SerialisedCost> costs;
  for (const VariantRun& v : variants) {
    costs.push_back(fit_serialised(v.ms[0], v.ms[1]));
    for (std::size_t i = 0; i < patterns.size(); ++i) {
      const bool fitted = i < 2;  // the two runs the model is fitted to
      rep.rows.push_back(
          {std::string(v.name) + ": " + std::to_string(patterns[i]) +
               (patterns[i] == 1 ? " target" : " targets") + " per warp",
           fitted ? std::nullopt : std::optional<double>(costs.back().time(designed[i])), v.ms[i],
           "ms", fitted ? "fits the model" : ""});
    }
  }
  for (std::size_t i = 0; i < patterns.size(); ++i)
    rep.rows.push_back(
        {"distinct targets per warp, pattern " + std::to_string(patterns[i]), designed[i],
         variants[0].distinct[i], "targets",
         variants[0].distinct[i] == variants[1].distinct[i]
             ? "the same in both kernels"
             : fmt("function-pointer kernel counted %.2f", variants[1].distinct[i])});
  for (const VariantRun& v : variants) {
    rep.rows.push_back({std::string(v.name) + ": registers per thread", std::nullopt,
                        static_cast<double>(v.attr.numRegs), "registers", "cudaFuncGetAttributes"});
    rep.rows.push_back({std::string(v.name) + ": local stack per thread", std::nullopt,
                        static_cast<double>(v.attr.localSizeBytes), "bytes",
                        "cudaFuncAttributes::localSizeBytes"});
  }
  const VariantRun& a = variants[0];
  const VariantRun& b = variants[1];
  double worst = 0;  // the largest miss of the time predictions, in %
  for (const ExperimentRow& row : rep.rows)
    if (row.unit == "ms" && row.ratio()) worst = std::max(worst, 100 * std::fabs(*row.ratio() - 1));
  rep.conclusion =
      fmt("With %.0f distinct targets per warp the if/else chain took ", patterns.back()) +
      fmt("%.2fx and the function pointers ", a.ms.back() / a.ms.front()) +
      fmt("%.2fx their one-target time. ", b.ms.back() / b.ms.front()) +
      "The warp runs each target in turn either way: fitted to 1 and 2 targets, the "
      "serialisation model predicts 4 and 8 targets within " +
      fmt("%.0f%%. ", worst) +
      fmt("Of the if/else's one-target time %.0f%% is shared by all targets ",
          100 * costs[0].shared / a.ms[0]) +
      fmt("(the compares and the loop), of the pointers' %.0f%%: ",
          100 * costs[1].shared / b.ms[0]) +
      fmt("each extra target costs %.2fx as much through a pointer ",
          costs[1].per_target / costs[0].per_target) +
      "(the call, its return and the pointer's load from the stack). Function pointers used " +
      std::to_string(b.attr.numRegs) + " registers and " + std::to_string(b.attr.localSizeBytes) +
      " bytes of stack per thread against " + std::to_string(a.attr.numRegs) + " and " +
      std::to_string(a.attr.localSizeBytes) + ".";
  return rep;
}

}  // namespace mp::lab
