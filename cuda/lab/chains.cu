// Chains of dependent FFMAs (and, optionally, sine chains beside them) with a chosen number of
// chains per thread and warps per SM sub-partition, and the experiments built on them:
// warps-per-smsp (latency hidden by warps), single-warp-ilp (hidden by independent chains in
// one warp; does MUFU block issue?) and launch-overhead (how much work a launch needs).
#include <array>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "common.cuh"
#include "hd.h"
#include "model/bound_model.h"
#include "model/experiment_model.h"
#include "model/pipe_rates.h"

namespace mp::lab {
namespace {

constexpr int kMaxThreads = 1024;  // 8 warps on each of an SM's 4 sub-partitions
constexpr int kMaxChains = 8;
constexpr int kChainUnroll = 16;  // steps per loop iteration
// Sine chains, advanced round-robin one per step: one sine chain alone would be bound by its
// own ~23-cycle latency, four share it below the XU pipe's 8 cycles per step.
constexpr int kSinChains = 4;
constexpr int kSmspPerSm = 4;

struct ChainArgs {
  unsigned iterations = 0;
  float m = 0, b = 0;  // v = v * m' + b, m' = m + b * (t & 1): values the compiler cannot fold
  float* out = nullptr;
  SmSpan span;
};

// Per step: C independent FFMAs, each one link of its own dependent chain, and with kSin one
// __sinf (FMUL.RZ + MUFU.SIN) on one of kSinChains sine chains.
template <int C, bool kSin>
__global__ void __launch_bounds__(kMaxThreads) chain_kernel(ChainArgs a) {
  const long long t_start = clock64();
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  // Per thread, so m lives in a register: FFMA takes one constant-bank operand (b), and a
  // second would be reloaded inside the loop on some architectures.
  const float m = a.m + a.b * static_cast<float>(t & 1);
  float v[C];
#pragma unroll
  for (int k = 0; k < C; ++k) v[k] = a.b * static_cast<float>(t + k);
  float s[kSinChains];
#pragma unroll
  for (int j = 0; j < kSinChains; ++j) s[j] = 1.0f + a.b * static_cast<float>(t + j);
#pragma unroll 1
  for (unsigned i = 0; i < a.iterations; ++i) {
#pragma unroll
    for (int u = 0; u < kChainUnroll; ++u) {
#pragma unroll
      for (int k = 0; k < C; ++k) v[k] = fmaf(v[k], m, a.b);
      if constexpr (kSin) s[u % kSinChains] = fast_sin(s[u % kSinChains]);
    }
  }
  float r = 0;
#pragma unroll
  for (int k = 0; k < C; ++k) r += v[k];
  if constexpr (kSin) {
#pragma unroll
    for (int j = 0; j < kSinChains; ++j) r += s[j];
  }
  a.out[t] = r;
  record_span(a.span, t_start);
}

__global__ void empty_kernel() {}

using ChainKernel = void (*)(ChainArgs);

template <bool kSin, int... I>
constexpr std::array<ChainKernel, sizeof...(I)> chain_kernels(std::integer_sequence<int, I...>) {
  return {chain_kernel<I + 1, kSin>...};
}
constexpr auto kFfmaOnly = chain_kernels<false>(std::make_integer_sequence<int, kMaxChains>{});
constexpr auto kWithSin = chain_kernels<true>(std::make_integer_sequence<int, kMaxChains>{});

ChainKernel chain_kernel_for(int chains, bool sin) {
  return (sin ? kWithSin : kFfmaOnly).at(chains - 1);
}

// The declared mix of one loop iteration, one warp: per step C FFMAs (and FMUL.RZ + MUFU.SIN),
// and what nvcc 13 adds per iteration (checked against cuobjdump by
// tests/experiment_gpu_test.cpp): the counter's add, its compare (ISETP, ALU) and the backward
// branch. The add is IADD3 (ALU) up to sm_89; on sm_90 ptxas moves it to the uniform datapath
// (UIADD3, an issue slot only) except in the sine kernels with fewer than 4 chains.
InstrMix chain_mix(int chains, bool sin, int arch) {
  const InstrMix step{static_cast<double>(chains) + (sin ? 1 : 0), 0, sin ? 1.0 : 0.0, 0, 0};
  const bool uniform_counter = arch >= 90 && !(sin && chains < 4);
  return step * kChainUnroll +
         (uniform_counter ? InstrMix{0, 1, 0, 0, 2} : InstrMix{0, 2, 0, 0, 1});
}

// The loop-carried critical path of one iteration: each FFMA chain is kChainUnroll links
// long, each sine chain kChainUnroll / kSinChains.
WarpLoop chain_loop(const DeviceInfo& d, int chains, bool sin) {
  const LatencyTable lat = latency_table(d.cc_major, d.cc_minor);
  double path = kChainUnroll * lat.ffma.cycles;
  if (sin) path = std::max(path, kChainUnroll / kSinChains * lat.sin.cycles);
  return {chain_mix(chains, sin, arch_of(d)), path};
}

struct ChainRun {
  Sample sample;
  unsigned iterations = 0;
  SmspPrediction predicted;  // per iteration
};

// One block of 128 x warps_per_smsp threads on every SM, alone there.
ChainRun run_one_block_per_sm(Bench& bench, const DeviceInfo& d, int chains, bool sin,
                              int warps_per_smsp, double target_cycles) {
  const ChainKernel kernel = chain_kernel_for(chains, sin);
  const std::size_t smem = one_block_per_sm_smem(reinterpret_cast<const void*>(kernel));
  const int threads = 32 * kSmspPerSm * warps_per_smsp;
  ChainRun r;
  r.predicted =
      predict_smsp(pipe_rates(d.cc_major, d.cc_minor), chain_loop(d, chains, sin), warps_per_smsp);
  r.iterations = static_cast<unsigned>(std::max(1.0, target_cycles / r.predicted.cycles));
  DeviceBuffer<float> out(static_cast<std::size_t>(d.sm_count) * threads);
  ChainArgs a;
  a.iterations = r.iterations;
  a.m = 0.999f;
  a.b = 1e-4f;
  a.out = out.get();
  r.sample = bench.median([&](cudaStream_t s, SmSpan span) {
    a.span = span;
    kernel<<<d.sm_count, threads, smem, s>>>(a);
  });
  if (r.sample.max_blocks_per_sm != 1 || r.sample.sms_used != d.sm_count)
    throw std::runtime_error("one block per SM was not achieved (" +
                             std::to_string(r.sample.sms_used) + " SMs used, up to " +
                             std::to_string(r.sample.max_blocks_per_sm) +
                             " blocks on one): the per-SMSP predictions would not apply");
  return r;
}

std::string latency_model_text(const DeviceInfo& d) {
  const LatencyTable lat = latency_table(d.cc_major, d.cc_minor);
  return "per SMSP and loop iteration: cycles = max(issue: warps x instructions / 1 per clock, "
         "pipe: warps x pipe instructions / the pipe's per-SMSP rate, latency: the longest "
         "loop-carried chain x its latency); " +
         pipe_rates(d.cc_major, d.cc_minor).describe() +
         "; latencies (src/model/experiment_model.cpp): FFMA " + fmt("%g", lat.ffma.cycles) + " (" +
         latency_source_text(lat.ffma.source) + "), FMUL.RZ+MUFU.SIN " + fmt("%g", lat.sin.cycles) +
         " (" + latency_source_text(lat.sin.source) + "); " + std::to_string(kChainUnroll) +
         " steps per loop iteration; one block per SM (dynamic shared memory over half the "
         "SM's), median of 5 launches after a warm-up";
}

}  // namespace

ExperimentReport run_warps_per_smsp(const DeviceInfo& d, CounterProbe* counters) {
  Bench bench(d, counters);
  const PipeRates rates = pipe_rates(d.cc_major, d.cc_minor);
  const WarpLoop loop = chain_loop(d, 1, false);
  ExperimentReport rep;
  rep.model = latency_model_text(d) +
              "; kernel: one dependent FFMA chain per thread; IPC = declared instructions "
              "(checked against the SASS) / measured SM cycles";
  std::vector<double> ipc;
  int model_knee = 0;
  for (int w = 1; w <= 8; ++w) {
    const ChainRun r = run_one_block_per_sm(bench, d, 1, false, w, 2e6);
    const double instructions = kSmspPerSm * w * loop.mix.total();  // per iteration, per SM
    const double predicted = instructions / r.predicted.cycles;
    const double measured_cycles = r.sample.sm_cycles / r.iterations;
    ipc.push_back(instructions / measured_cycles);
    if (!model_knee && r.predicted.latency_cycles < r.predicted.cycles) model_knee = w;
    const double fma_share = loop.mix.fma / loop.mix.total() / rates[Pipe::Fma];
    rep.rows.push_back(
        {std::to_string(w) + (w == 1 ? " warp" : " warps") + " per SMSP: IPC",
         predicted,
         ipc.back(),
         "warp-instr/clk/SM",
         fmt("cycles per iteration: model %.1f", r.predicted.cycles) + " (" + r.predicted.limit() +
             fmt("), measured %.1f; ", measured_cycles) +
             fmt("FMA pipe %.0f%% ", 100 * ipc.back() * fma_share) +
             fmt("(model %.0f%%)", 100 * predicted * fma_share),
         r.sample.counters,
         // The issue slot and the FMA pipe as the model keeps them busy, for
         // the counters to stand beside.
         {{"issue", 100 * predicted / kSmspPerSm}, {"FMA", 100 * predicted * fma_share}}});
  }
  const double best = *std::max_element(ipc.begin(), ipc.end());
  int knee = 1;
  while (knee < 8 && ipc[knee - 1] < 0.95 * best) ++knee;
  const ExperimentRow& one = rep.rows.front();
  rep.conclusion =
      fmt("With one warp per SMSP the SM issued %.2f warp-instructions per clock ", ipc.front()) +
      fmt("(model %.2f): a single dependent chain leaves the issue slot idle while it waits "
          "out the FFMA latency. ",
          *one.predicted) +
      "IPC reached 95% of its best (" + fmt("%.2f", best) + ") at " + std::to_string(knee) +
      " warps per SMSP; the model has latency hidden from " +
      (model_knee ? std::to_string(model_knee) : std::string("more than 8")) + " warps on.";
  return rep;
}

ExperimentReport run_single_warp_ilp(const DeviceInfo& d, CounterProbe* counters) {
  Bench bench(d, counters);
  const PipeRates rates = pipe_rates(d.cc_major, d.cc_minor);
  ExperimentReport rep;
  rep.model = latency_model_text(d) +
              "; one warp per SMSP; blocking hypothesis: a MUFU holds its warp's issue for " +
              fmt("%g cycles", kSmspPerSm / rates[Pipe::Xu]) + " (the XU pipe's time per warp)";
  double extra_measured = 0, extra_nonblocking = 0, extra_blocking = 0, plain_over_model = 0;
  int below_blocking = 0;
  for (int c = 1; c <= kMaxChains; ++c) {
    const ChainRun plain = run_one_block_per_sm(bench, d, c, false, 1, 1e6);
    const ChainRun sin = run_one_block_per_sm(bench, d, c, true, 1, 1e6);
    const double plain_step = plain.sample.sm_cycles / (plain.iterations * kChainUnroll);
    const double sin_step = sin.sample.sm_cycles / (sin.iterations * kChainUnroll);
    const double blocking = blocking_mufu_cycles(rates, chain_loop(d, c, true), 1) / kChainUnroll;
    const std::string chains = std::to_string(c) + (c == 1 ? " chain" : " chains");
    rep.rows.push_back({chains + ", FFMA only", plain.predicted.cycles / kChainUnroll, plain_step,
                        "cycles/step", std::string("limit: ") + plain.predicted.limit(),
                        plain.sample.counters});
    rep.rows.push_back({chains + " + one __sinf per step", sin.predicted.cycles / kChainUnroll,
                        sin_step, "cycles/step",
                        std::string("limit: ") + sin.predicted.limit() +
                            fmt("; if MUFU blocked issue: >= %.2f", blocking),
                        sin.sample.counters});
    extra_measured += (sin_step - plain_step) / kMaxChains;
    extra_nonblocking +=
        (sin.predicted.cycles - plain.predicted.cycles) / kChainUnroll / kMaxChains;
    extra_blocking += (blocking - plain.predicted.cycles / kChainUnroll) / kMaxChains;
    below_blocking += sin_step < blocking;
    plain_over_model += plain_step / (plain.predicted.cycles / kChainUnroll) / kMaxChains;
  }
  const bool blocks =
      std::fabs(extra_measured - extra_blocking) < std::fabs(extra_measured - extra_nonblocking);
  rep.conclusion =
      std::string(blocks ? "MUFU appears to block issue" : "MUFU does not block issue") +
      fmt(": adding one __sinf per step cost %.2f cycles per step on average (1 to 8 chains), ",
          extra_measured) +
      fmt("the model's non-blocking prediction was %.2f, ", extra_nonblocking) +
      fmt("blocking would be at least %.2f. ", extra_blocking) + std::to_string(below_blocking) +
      " of " + std::to_string(kMaxChains) +
      " sine runs were faster than blocking allows at all. The FFMA-only runs took " +
      fmt("%.0f%% longer than the model on average; ", 100 * (plain_over_model - 1)) +
      "the model does not count the loop's taken branch.";
  return rep;
}

ExperimentReport predict_warps_per_smsp(const DeviceInfo& d) {
  const PipeRates rates = pipe_rates(d.cc_major, d.cc_minor);
  const WarpLoop loop = chain_loop(d, 1, false);
  ExperimentReport rep;
  rep.model = latency_model_text(d) + "; kernel: one dependent FFMA chain per thread";
  for (int w = 1; w <= 8; ++w) {
    const SmspPrediction p = predict_smsp(rates, loop, w);
    rep.rows.push_back(
        {std::to_string(w) + (w == 1 ? " warp" : " warps") + " per SMSP: IPC",
         kSmspPerSm * w * loop.mix.total() / p.cycles, 0, "warp-instr/clk/SM",
         fmt("cycles per iteration: model %.1f", p.cycles) + " (" + p.limit() + ")"});
  }
  return rep;
}

ExperimentReport predict_single_warp_ilp(const DeviceInfo& d) {
  const PipeRates rates = pipe_rates(d.cc_major, d.cc_minor);
  ExperimentReport rep;
  rep.model = latency_model_text(d) + "; one warp per SMSP";
  for (int c = 1; c <= kMaxChains; ++c) {
    const SmspPrediction plain = predict_smsp(rates, chain_loop(d, c, false), 1);
    const SmspPrediction sin = predict_smsp(rates, chain_loop(d, c, true), 1);
    const double blocking = blocking_mufu_cycles(rates, chain_loop(d, c, true), 1) / kChainUnroll;
    const std::string chains = std::to_string(c) + (c == 1 ? " chain" : " chains");
    rep.rows.push_back({chains + ", FFMA only", plain.cycles / kChainUnroll, 0, "cycles/step",
                        std::string("limit: ") + plain.limit()});
    rep.rows.push_back(
        {chains + " + one __sinf per step", sin.cycles / kChainUnroll, 0, "cycles/step",
         std::string("limit: ") + sin.limit() + fmt("; if MUFU blocked issue: >= %.2f", blocking)});
  }
  return rep;
}

ExperimentReport run_launch_overhead(const DeviceInfo& d, CounterProbe* counters) {
  Bench bench(d, counters);
  const PipeRates rates = pipe_rates(d.cc_major, d.cc_minor);
  constexpr int kThreads = 256;
  const ChainKernel kernel = chain_kernel_for(kMaxChains, false);
  int per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, reinterpret_cast<const void*>(kernel), kThreads, 0));
  const int blocks = per_sm * d.sm_count;
  const std::size_t threads = static_cast<std::size_t>(blocks) * kThreads;
  const InstrMix mix = chain_mix(kMaxChains, false, arch_of(d));
  const double ffma_per_iteration = kMaxChains * kChainUnroll;
  const Bound per_iteration = compute_bound(rates, d.sm_count, mix, threads / 32.0);
  DeviceBuffer<float> out(threads);
  ChainArgs a;
  a.m = 0.999f;
  a.b = 1e-4f;
  a.out = out.get();
  auto launch = [&](cudaStream_t s, SmSpan span) {
    a.span = span;
    kernel<<<blocks, kThreads, 0, s>>>(a);
  };

  // The clock the SMs run at, from the longest of these kernels.
  const std::vector<unsigned> iterations = {1, 4, 16, 64, 256, 1024, 4096};
  a.iterations = iterations.back();
  const double ghz = bench.median(launch).clock_ghz();

  const auto empty = [&](cudaStream_t s, SmSpan) { empty_kernel<<<blocks, kThreads, 0, s>>>(); };
  const double empty_ms = bench.ms_per_launch(empty, 500);
  const double overhead_cycles = empty_ms * 1e6 * ghz;

  ExperimentReport rep;
  rep.model =
      "a launch costs a fixed overhead plus its work (seed 002): share of the bound = "
      "bound / (bound + overhead), the overhead being the empty kernel's per-launch "
      "time; bound as in src/model/bound_model.h, " +
      rates.describe() + "; " + std::to_string(blocks) + " blocks of " + std::to_string(kThreads) +
      " threads, 8 independent FFMA chains per thread; times per launch are the "
      "median of 5 batches of back-to-back launches between two events";
  rep.rows.push_back({"empty kernel: time per launch", std::nullopt, empty_ms * 1e3, "us",
                      std::to_string(blocks) + " blocks of " + std::to_string(kThreads) +
                          " threads, 500 back-to-back launches per batch"});
  rep.rows.push_back({"empty kernel: cycles per launch", std::nullopt, overhead_cycles, "SM cycles",
                      fmt("at the %.3f GHz the SMs ran the largest kernel at", ghz)});

  std::vector<double> ks, shares;
  for (unsigned n : iterations) {
    a.iterations = n;
    const double bound = per_iteration.max_cycles * n;
    // Batches of about 10 ms: short kernels need many launches for the events to resolve.
    const int launches =
        static_cast<int>(std::clamp(10.0 / ((bound + overhead_cycles) / (ghz * 1e6)), 5.0, 500.0));
    const double ms = bench.ms_per_launch(launch, launches);
    const double k = ffma_per_iteration * n;
    ks.push_back(k);
    shares.push_back(bound / (ms * 1e6 * ghz));
    rep.rows.push_back(
        {fmt("%.0f FFMA per thread", k), 100 * fraction_with_overhead(bound, overhead_cycles),
         100 * shares.back(), "% of bound",
         fmt("%.2f us per launch, ", ms * 1e3) + fmt("bound %.2f us", bound / (ghz * 1e3))});
  }

  // Where the measured share crosses 95%, interpolated in log k between the runs around it.
  const double k95_predicted =
      work_for_fraction(per_iteration.max_cycles / ffma_per_iteration, overhead_cycles, 0.95);
  std::size_t i = 0;
  while (i < shares.size() && shares[i] < 0.95) ++i;
  double k95 = ks.back();
  std::string how = "not reached: the largest k tested";
  if (i == 0) {
    k95 = ks.front();
    how = "already at the smallest k tested";
  } else if (i < shares.size()) {
    const double f = (0.95 - shares[i - 1]) / (shares[i] - shares[i - 1]);
    k95 = std::exp(std::log(ks[i - 1]) + f * (std::log(ks[i]) - std::log(ks[i - 1])));
    how = "interpolated in log k between the runs around 95%";
  }
  rep.rows.push_back(
      {"FFMA per thread for 95% of the bound", k95_predicted, k95, "FFMA/thread", how});
  rep.conclusion = fmt("A launch of an empty kernel cost %.2f us ", empty_ms * 1e3) +
                   fmt("(%.0f SM cycles). ", overhead_cycles) +
                   fmt("With %.0f FFMA per thread a launch reached ", ks.front()) +
                   fmt("%.1f%% of the max-over-pipes bound; ", 100 * shares.front()) +
                   fmt("reaching 95%% took about %.0f FFMA per thread, ", k95) +
                   fmt("the overhead-plus-work model said %.0f.", k95_predicted);
  return rep;
}

std::vector<DeclaredLoop> chain_loops(int arch) {
  std::vector<DeclaredLoop> loops;
  for (bool sin : {false, true})
    for (int c = 1; c <= kMaxChains; ++c)
      loops.push_back({"12chain_kernelILi" + std::to_string(c) + (sin ? "ELb1E" : "ELb0E"),
                       chain_mix(c, sin, arch)});
  return loops;
}

}  // namespace mp::lab
