// Throughput kernels (no divergence, full occupancy, independent chains) running the render
// loop's own step functions, and the two experiments built on them: fma-grouping (5 vs 4
// FMA-pipe instructions per step) and sin-overlap (__sinf beside the step: do the pipes
// overlap?).
#include "common.cuh"
#include "hd.h"
#include "model/bound_model.h"
#include "model/pipe_rates.h"
#include "variants.h"

namespace mp::lab {
namespace {

constexpr int kThreads = 256;
// Steps per thread per loop iteration: the loop's three own instructions stay near 1%.
constexpr int kSteps = 64;
// Work per kernel, in SM cycles at the bound: ~4 ms at 2 GHz, long enough that launch and
// tail effects vanish, short enough for six launches per kernel in well under a second.
constexpr double kTargetCycles = 8e6;

struct StepArgs {
  unsigned iterations = 0;
  float z0 = 0, dz = 0;  // thread t's chain k starts from z = z0 + dz * (t * kChains + k)
  // c, the same for every chain, read from the constant bank: held in registers instead, it
  // made fma4's FFMAs read three registers each, and the loop ran slower (docs/measurements.md).
  float cx = 0, cy = 0;
  float* out = nullptr;
  SmSpan span;
};

// A body: kZ independent z chains stepped by variant V's own step function and kS independent
// sine chains (x = __sinf(x), seed 000's: FMUL.RZ for the 1/2pi scaling, FMA pipe, + MUFU.SIN,
// XU); step u of a loop iteration steps z chain u % kZ and sine chain u % kS. c is inside the
// main cardioid, so the orbits stay finite.
// Each body below declares, beside it, what nvcc 13 adds per loop iteration on sm_75, 80, 86, 89,
// 90 (checked against cuobjdump by tests/experiment_gpu_test.cpp): the counter's add (IADD3, ALU;
// on sm_90 UIADD3 on the uniform datapath, an issue slot only), the compare (ISETP, ALU) and
// the backward branch (on sm_80..89 some loops exit through a CALL.REL.NOINC beside it).
template <class V, int kZ, int kS>
struct Chains {
  static constexpr InstrMix step_mix(int arch) {
    return (kZ > 0 ? V::step_mix(arch) : InstrMix{}) +
           (kS > 0 ? InstrMix{1, 0, 1, 0, 0} : InstrMix{});
  }
  static constexpr int kChains = kZ > kS ? kZ : kS;
  struct State {
    struct Z {
      float x, y;
    } z[kZ > 0 ? kZ : 1];
    float s[kS > 0 ? kS : 1];
  };
  // Chain k (of each kind, where there is one) starts from z.
  __device__ static void init(State& st, int k, float z) {
    if (k < kZ) st.z[k] = {z, 0.5f * z};
    if (k < kS) st.s[k] = 1.0f + z;
  }
  __device__ static void step(State& st, int u, float cx, float cy) {
    if constexpr (kS > 0) st.s[u % kS] = fast_sin(st.s[u % kS]);
    if constexpr (kZ > 0) {
      float unused = 0;
      V::step(st.z[u % kZ].x, st.z[u % kZ].y, cx, cy, unused);
    }
  }
  __device__ static float result(const State& st) {
    float r = 0;
#pragma unroll
    for (int k = 0; k < kZ; ++k) r += st.z[k].x + st.z[k].y;
#pragma unroll
    for (int k = 0; k < kS; ++k) r += st.s[k];
    return r;
  }
};

// Four chains per thread: one warp alone could keep issuing (4 chains x 2 independent
// instructions per level against a 4-cycle latency), so stalls never limit.
struct Fma5Body : Chains<variants::Fma5, 4, 0> {
  static constexpr const char* kMangled = "8Fma5Body";
  static constexpr variants::LoopMixes kOverhead{
      {0, 2, 0, 0, 1}, {0, 2, 0, 0, 2}, {0, 2, 0, 0, 2}, {0, 2, 0, 0, 2}, {0, 1, 0, 0, 2}};
};
struct Fma4Body : Chains<variants::Fma4, 4, 0> {
  static constexpr const char* kMangled = "8Fma4Body";
  static constexpr variants::LoopMixes kOverhead = Fma5Body::kOverhead;
};
struct SinBody : Chains<variants::Fma4, 0, 4> {  // no z chain: the variant goes unused
  static constexpr const char* kMangled = "7SinBody";
  static constexpr variants::LoopMixes kOverhead{
      {0, 2, 0, 0, 1}, {0, 2, 0, 0, 1}, {0, 2, 0, 0, 1}, {0, 2, 0, 0, 1}, {0, 1, 0, 0, 2}};
};
// Both, a sine beside each step, as seed 000 wrote them, with one z chain and eight sine chains
// per thread: with four of each, ptxas put some twenty sines back to back at the top of the
// loop and the XU pipe lost part of its rate; one z chain and eight sine chains was the best of
// 1-4 z and 2-8 sine chains in a probe (docs/measurements.md). Full occupancy hides the single
// z chain's latency.
struct SinFma4Body : Chains<variants::Fma4, 1, 8> {
  static constexpr const char* kMangled = "11SinFma4Body";
  static constexpr variants::LoopMixes kOverhead = Fma5Body::kOverhead;
};

template <class Body>
__global__ void __launch_bounds__(kThreads) step_kernel(StepArgs a) {
  const long long t_start = clock64();
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  typename Body::State s;
#pragma unroll
  for (int k = 0; k < Body::kChains; ++k) Body::init(s, k, a.z0 + a.dz * (t * Body::kChains + k));
#pragma unroll 1
  for (unsigned i = 0; i < a.iterations; ++i) {
#pragma unroll
    for (int u = 0; u < kSteps; ++u) Body::step(s, u, a.cx, a.cy);
  }
  a.out[t] = Body::result(s);  // kept: nothing above is dead code
  record_span(a.span, t_start);
}

template <class Body>
InstrMix iteration_mix(int arch) {
  return Body::step_mix(arch) * kSteps + Body::kOverhead.at(arch);
}

struct Run {
  Sample sample;
  InstrMix mix;  // per loop iteration, one warp
  Bound bound;   // the whole launch
};

// Blocks filling every SM to the occupancy the kernel allows: one wave, no tail.
template <class Body>
int full_grid(const DeviceInfo& d) {
  int per_sm = 0;
  CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, step_kernel<Body>, kThreads, 0));
  return per_sm * d.sm_count;
}

// Loop iterations that give `Body` about kTargetCycles of work at the bound.
template <class Body>
unsigned iterations_for(const DeviceInfo& d) {
  const double warps = full_grid<Body>(d) * (kThreads / 32.0);
  const Bound one = compute_bound(pipe_rates(d.cc_major, d.cc_minor), d.sm_count,
                                  iteration_mix<Body>(arch_of(d)), warps);
  return static_cast<unsigned>(std::max(1.0, kTargetCycles / one.max_cycles));
}

template <class Body>
Run run_body(Bench& bench, const DeviceInfo& d, unsigned iterations) {
  const int blocks = full_grid<Body>(d);
  const std::size_t threads = static_cast<std::size_t>(blocks) * kThreads;
  DeviceBuffer<float> out(threads);
  StepArgs a;
  a.iterations = iterations;
  a.z0 = -0.1f;
  a.dz = 0.2f / static_cast<float>(threads * Body::kChains);
  a.cx = -0.1f;
  a.cy = 0.1f;
  a.out = out.get();
  Run r;
  r.sample = bench.median([&](cudaStream_t s, SmSpan span) {
    a.span = span;
    step_kernel<Body><<<blocks, kThreads, 0, s>>>(a);
  });
  r.mix = iteration_mix<Body>(arch_of(d));
  r.bound = compute_bound(pipe_rates(d.cc_major, d.cc_minor), d.sm_count, r.mix,
                          threads / 32.0 * iterations);
  return r;
}

double pct_of_bound(const Run& r) {
  return 100 * fraction_of_bound(r.bound, r.sample.sm_cycles);
}

// Each pipe's busy share by the model over the measured cycles, for the counters to stand by.
std::vector<CounterPipe> model_busy(const Run& r) {
  std::vector<CounterPipe> v;
  for (const auto& [pipe, name] :
       {std::pair{Pipe::Fma, "FMA"}, std::pair{Pipe::Alu, "ALU"}, std::pair{Pipe::Xu, "XU"},
        std::pair{Pipe::Fp64, "FP64"}, std::pair{Pipe::Issue, "issue"}})
    v.push_back({name, 100 * r.bound.cycles_of(pipe) / r.sample.sm_cycles});
  return v;
}

ExperimentRow cycles_row(const std::string& label, const Run& r) {
  return {label,
          r.bound.max_cycles,
          r.sample.sm_cycles,
          "SM cycles",
          fmt("%.1f%% of the bound", pct_of_bound(r)) + " (" + pipe_name(r.bound.limiting) +
              "-bound; per iteration " + mix_text(r.mix) + "); " +
              fmt("%.3f GHz", r.sample.clock_ghz()) + fmt(", %.3f ms", r.sample.ms),
          r.sample.counters,
          model_busy(r)};
}

std::string model_text(const DeviceInfo& d) {
  return "bound = max over pipes of warp-iterations x instructions per iteration on the pipe / "
         "(SMs x the pipe's warp-instructions per clock per SM), issue counting every "
         "instruction (src/model/bound_model.h); " +
         pipe_rates(d.cc_major, d.cc_minor).describe() + "; " + std::to_string(kThreads) +
         "-thread blocks at full occupancy, " + std::to_string(kSteps) +
         " steps per thread per loop iteration, on 4 independent chains per thread (fma5, fma4, "
         "__sinf alone) or one z chain and 8 sine chains (both interleaved); median of 5 "
         "launches after a warm-up";
}

}  // namespace

ExperimentReport run_fma_grouping(const DeviceInfo& d, CounterProbe* counters) {
  Bench bench(d, counters);
  // The same steps for both: the time ratio is the instruction ratio when the bound holds.
  const unsigned iterations = iterations_for<Fma4Body>(d);
  const Run r5 = run_body<Fma5Body>(bench, d, iterations);
  const Run r4 = run_body<Fma4Body>(bench, d, iterations);

  ExperimentReport rep;
  rep.model = model_text(d);
  rep.rows.push_back(cycles_row("fma5 (x*x - y*y + cx)", r5));
  rep.rows.push_back(cycles_row("fma4 (x*x - (y*y - cx))", r4));
  const double predicted = r5.bound.max_cycles / r4.bound.max_cycles;
  const double measured = r5.sample.sm_cycles / r4.sample.sm_cycles;
  rep.rows.push_back({"fma5 / fma4 time", predicted, measured, "x",
                      "5/4 = 1.25 per step; with the loop's own instructions " +
                          fmt("%g", r5.mix.total()) + fmt(" / %g issue slots", r4.mix.total()) +
                          " per iteration"});
  rep.conclusion = fmt("Grouping y*y - cx saved %.1f%% of the time: ", 100 * (1 - 1 / measured)) +
                   fmt("fma5 took %.3fx as long as fma4, ", measured) +
                   fmt("the issue-slot model predicted %.3fx. ", predicted) +
                   fmt("fma5 ran at %.1f%% ", pct_of_bound(r5)) +
                   fmt("and fma4 at %.1f%% of the max-over-pipes bound ", pct_of_bound(r4)) + "(" +
                   pipe_name(r4.bound.limiting) + "-bound on this GPU).";
  return rep;
}

ExperimentReport run_sin_overlap(const DeviceInfo& d, CounterProbe* counters) {
  Bench bench(d, counters);
  const unsigned iterations = iterations_for<SinFma4Body>(d);
  const Run sin = run_body<SinBody>(bench, d, iterations);
  const Run step = run_body<Fma4Body>(bench, d, iterations);
  const Run both = run_body<SinFma4Body>(bench, d, iterations);

  ExperimentReport rep;
  rep.model = model_text(d);
  rep.rows.push_back(cycles_row("__sinf alone (x = __sinf(x))", sin));
  rep.rows.push_back(cycles_row("fma4 step alone", step));
  rep.rows.push_back(cycles_row("both interleaved", both));
  const double sum_predicted = sin.bound.max_cycles + step.bound.max_cycles;
  const double sum_measured = sin.sample.sm_cycles + step.sample.sm_cycles;
  rep.rows.push_back({"sum of the two alone (no overlap)", sum_predicted, sum_measured, "SM cycles",
                      "what interleaving would cost if the pipes took turns"});
  const double share_predicted = both.bound.max_cycles / sum_predicted;
  const double share_measured = both.sample.sm_cycles / sum_measured;
  rep.rows.push_back({"interleaved / sum alone", share_predicted, share_measured, "x",
                      "1.0 would mean no overlap at all"});
  const bool overlap = share_measured < 0.5 * (1 + share_predicted);
  const double alone = pct_of_bound(sin), together = pct_of_bound(both);
  rep.conclusion =
      fmt("Interleaved, __sinf and the fma4 step took %.3f M cycles: ",
          both.sample.sm_cycles / 1e6) +
      fmt("%.0f%% ", 100 * share_measured) +
      fmt("of the %.3f M cycles the two took one after the other ", sum_measured / 1e6) +
      fmt("(%.3f M ", sin.sample.sm_cycles / 1e6) +
      fmt("+ %.3f M) and ", step.sample.sm_cycles / 1e6) +
      fmt("%.1f%% of the max-of-pipes prediction ", together) + "(" +
      pipe_name(both.bound.limiting) + "-bound). " +
      (overlap ? "The XU and FMA pipes work at the same time"
               : "The pipes did not overlap as the model expects") +
      (alone - together > 2
           ? fmt(", but not for free: the XU kept %.1f%% of its rate alone ", alone) +
                 fmt("and %.1f%% with the step's FMA-pipe instructions beside each MUFU.", together)
           : ".");
  return rep;
}

namespace {

// The max-over-pipes bound of one warp's loop iteration of `Body` on one SM: each kernel runs the
// same iterations on as many warps, so the ratios below are the ratios of the kernels' bounds.
template <class Body>
double iteration_bound(const DeviceInfo& d) {
  return compute_bound(pipe_rates(d.cc_major, d.cc_minor), 1, iteration_mix<Body>(arch_of(d)), 1)
      .max_cycles;
}

}  // namespace

ExperimentReport predict_fma_grouping(const DeviceInfo& d) {
  ExperimentReport rep;
  rep.model = model_text(d);
  rep.rows.push_back({"fma5 / fma4 time",
                      iteration_bound<Fma5Body>(d) / iteration_bound<Fma4Body>(d), 0, "x",
                      "5/4 = 1.25 per step; with the loop's own instructions " +
                          fmt("%g", iteration_mix<Fma5Body>(arch_of(d)).total()) +
                          fmt(" / %g issue slots", iteration_mix<Fma4Body>(arch_of(d)).total()) +
                          " per iteration"});
  return rep;
}

ExperimentReport predict_sin_overlap(const DeviceInfo& d) {
  ExperimentReport rep;
  rep.model = model_text(d);
  const double sin = iteration_bound<SinBody>(d), step = iteration_bound<Fma4Body>(d),
               both = iteration_bound<SinFma4Body>(d);
  rep.rows.push_back(
      {"interleaved / sum alone", both / (sin + step), 0, "x", "1.0 would mean no overlap at all"});
  return rep;
}

std::vector<DeclaredLoop> throughput_loops(int arch) {
  return {{Fma5Body::kMangled, iteration_mix<Fma5Body>(arch)},
          {Fma4Body::kMangled, iteration_mix<Fma4Body>(arch)},
          {SinBody::kMangled, iteration_mix<SinBody>(arch)},
          {SinFma4Body::kMangled, iteration_mix<SinFma4Body>(arch)}};
}

}  // namespace mp::lab
