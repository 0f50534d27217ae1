// perturbation-cost: the plain float step beside perturbation's step, in double and in the
// extended range, at one view where every pixel runs all its steps (inside the main cardioid: no
// escape, no divergence, no rebase), the double step's arithmetic alone, and what the bilinear
// approximation leaves to iterate there and at a minibrot about 1.4e-99 across, in SM cycles per
// warp-step against the bound of each loop (model/bound_model.h).
#include <memory>

#include "common.cuh"
#include "gpu_perturbation.h"
#include "kernel_params.h"
#include "model/big_real.h"
#include "model/bound_model.h"
#include "model/median.h"
#include "model/variant_table.h"
#include "model/view.h"
#include "render/bla_table.h"
#include "render/reference_orbit.h"

namespace mp::lab {
namespace {

constexpr int kSide = 1024;
constexpr unsigned kIters = 4096;
constexpr double kCx = -0.1, kCy = 0.1, kSpan = 0.01;
// The minibrot of period 133 near i (the nucleus by Newton's method), about 1.4e-99 across.
constexpr const char* kDeepX =
    "-2.8746738709911711313587400396870764265927866835711251852350600795197350587946998122487577"
    "794952845346324586207476065879391063947636e-50";
constexpr const char* kDeepY =
    "9.99999999999999999999999999999999999999999999999990391878093350454507784142698728212117335"
    "36976797498590850573760529183579836058283e-01";
constexpr unsigned kDeepIters = 20000;

constexpr int kArithmeticThreads = 256, kArithmeticBlocksPerSm = 6;  // perturb's 12 warps/SMSP
constexpr long long kArithmeticCycles = 4000000;

// perturb's step arithmetic alone (DeltaDouble::step and the lockstep loop's escape and rebase
// tests on z = Z + d: its 14 FP64 instructions), nothing voted: what the FP64 pipe gives this
// chain of dependent operations, with Z a constant in registers (kLoad false) or loaded each step
// from the orbit's points 0..last, as perturb's step loads it. Every warp steps for the same
// number of its SM's cycles, counting its steps, so that none runs on with fewer beside it at the
// end (a fixed number of steps leaves such a tail, which lowers the figure:
// docs/measurements.md). |2Z| < 1 keeps d small, so no pixel escapes or rebases; the tests' count
// is written only where one did, which keeps them in the loop.
template <bool kLoad>
__global__ void __launch_bounds__(kArithmeticThreads)
    step_arithmetic_kernel(const RefPoint* orbit, unsigned last, long long cycles,
                           unsigned long long* steps, unsigned* hits, SmSpan span) {
  const long long t_start = clock64();
  RefPoint z = kLoad ? orbit[0] : RefPoint{0.2, 0.1};
  unsigned m = 0;
  const DeltaDouble::Value dc{1e-9 * threadIdx.x, 1e-9 * blockIdx.x};
  DeltaDouble::Value d{};
  unsigned hit = 0;
  unsigned long long n = 0;
  do {
    for (int i = 0; i < 64; ++i) {
      d = DeltaDouble::step(d, z, dc);
      if (kLoad) {
        m = m < last ? m + 1 : 0;
        z = orbit[m];
      }
      const double x = z.x + d.x, y = z.y + d.y, z2 = x * x + y * y;
      hit += z2 > kPerturbEscape2 || z2 < d.x * d.x + d.y * d.y;
    }
    n += 64;
  } while (clock64() - t_start < cycles);
  if ((threadIdx.x & 31) == 0) atomicAdd(steps, n);
  if (hit) atomicAdd(hits, hit);
  record_span(span, t_start);
}

// A frame's figures: SM cycles, and the warp-steps counted and run (the warps' slowest lanes').
struct Frame {
  double sm_cycles = 0, counted = 0, run = 0;
  std::optional<CounterFigures> counters = std::nullopt;
};

// One warm-up frame, then the median of five by SM cycles, its counters with it.
template <class Render>
Frame median_frame(Render&& render, CounterProbe* counters) {
  const TimedRuns<Frame> runs = warm_median(
      1, 5,
      [&](bool timed) {
        const std::uint64_t reading = counters && timed ? counters->begin() : 0;
        Frame f = render();
        if (counters && timed) {
          counters->end(reading, f.sm_cycles);
          f.counters = counters->take(reading, true);
        }
        return f;
      },
      [](const Frame& f) { return f.sm_cycles; });
  return runs.middle();
}

}  // namespace

ExperimentReport run_perturbation_cost(const DeviceInfo& d, CounterProbe* counters) {
  const int arch = arch_of(d);
  const PipeRates rates = pipe_rates(d.cc_major, d.cc_minor);
  // Cycles per warp-step on one SM: the bound of a loop, and what a frame took.
  auto bound = [&](VariantId v) {
    return compute_bound(rates, 1, variant_info(v).per_iteration(arch), 1).max_cycles;
  };
  auto per_step = [&](const Frame& f, double steps) { return f.sm_cycles * d.sm_count / steps; };
  DeviceBuffer<float> out(static_cast<std::size_t>(kSide) * kSide * kFloatsPerPixel);

  GpuRenderer gpu(d);
  const View view = view_at(kCx, kCy, kSpan, kIters);
  const PixelGrid grid = pixel_grid(view, kSide, kSide);
  const Frame plain = median_frame(
      [&] {
        const GpuFrameStats s = gpu.render(VariantId::Fma4Rows, grid, kIters, out.get());
        return Frame{static_cast<double>(s.sm_cycles), static_cast<double>(s.pixel_iters) / 32,
                     static_cast<double>(s.warp_iters)};
      },
      counters);

  // A reference at a view's centre in 64 bits more than a pixel needs, with the tables for
  // pixels up to the image's half diagonal from it, and the view's frames rendered from it.
  struct Reference {
    ReferenceOrbit orbit;
    BlaTable<BlaX> ext;
    BlaTable<BlaD> dbl;
    BlaTable<BlaF> flt;
    GpuPerturbation gpu;
    DeepGrid grid;
  };
  auto reference = [&](const View& v, unsigned iters) {
    auto r = std::make_unique<Reference>();
    const int bits = view_bits(v, kSide) + 64;
    r->orbit = *compute_reference_orbit(v.center_x.with_bits(bits).get(),
                                        v.center_y.with_bits(bits).get(), bits, iters);
    const FloatExp spacing = quotient(v.span, to_floatexp(kSide));
    r->ext = build_bla_extended(r->orbit.view(), v.span * to_floatexp(0.7072));  // half diagonal
    r->dbl = build_bla_double(r->ext);
    r->flt = build_bla_float(r->ext);
    r->gpu.set_reference(r->orbit.view(), r->dbl.entries.data(), r->ext.entries.data(),
                         r->flt.entries.data(), r->ext.offset.data(), r->ext.levels());
    r->grid = DeepGrid{kSide, kSide, FloatExp{}, FloatExp{}, spacing};
    return r;
  };
  auto perturbed = [&](Reference& ref, DeltaFormat f, unsigned iters, bool approximate) {
    return median_frame(
        [&] {
          const GpuPerturbStats s = ref.gpu.render(f, ref.grid, {0, 0, kSide, kSide}, iters,
                                                   out.get(), nullptr, approximate);
          return Frame{static_cast<double>(s.sm_cycles), static_cast<double>(s.pixel_iters) / 32,
                       static_cast<double>(s.warp_iterated)};
        },
        counters);
  };
  const auto shallow = reference(view, kIters);
  // The step's arithmetic, in as many warps as perturb's kernel keeps on an SM, Z a constant or
  // loaded from the shallow view's orbit (inside the main cardioid: |2Z| < 1 there); a launch's
  // figures are its SM cycles and the steps its warps ran in them.
  Bench bench(d, nullptr);
  DeviceBuffer<RefPoint> orbit(shallow->orbit.view().length);
  CUDA_CHECK(cudaMemcpy(orbit.get(), shallow->orbit.view().z, orbit.size() * sizeof(RefPoint),
                        cudaMemcpyHostToDevice));
  DeviceBuffer<unsigned long long> stepped(1);
  DeviceBuffer<unsigned> hits(1);
  CUDA_CHECK(cudaMemset(hits.get(), 0, sizeof(unsigned)));
  const unsigned arithmetic_blocks = static_cast<unsigned>(d.sm_count * kArithmeticBlocksPerSm);
  auto arithmetic_frame = [&](auto kernel) {
    return median_frame(
        [&] {
          CUDA_CHECK(cudaMemset(stepped.get(), 0, sizeof(unsigned long long)));
          const Sample a = bench.once([&](cudaStream_t stream, const SmSpan& span) {
            kernel<<<arithmetic_blocks, kArithmeticThreads, 0, stream>>>(
                orbit.get(), shallow->orbit.view().last, kArithmeticCycles, stepped.get(),
                hits.get(), span);
          });
          unsigned long long steps = 0;
          CUDA_CHECK(cudaMemcpy(&steps, stepped.get(), sizeof steps, cudaMemcpyDeviceToHost));
          return Frame{a.sm_cycles, static_cast<double>(steps), static_cast<double>(steps)};
        },
        counters);
  };
  const Frame arithmetic = arithmetic_frame(step_arithmetic_kernel<false>);
  const Frame arithmetic_load = arithmetic_frame(step_arithmetic_kernel<true>);
  const double fp64_bound = compute_bound(rates, 1, InstrMix{0, 0, 0, 14, 0, 0}, 1).max_cycles;

  const Frame dbl_every = perturbed(*shallow, DeltaFormat::Double, kIters, false);
  const Frame ext_every = perturbed(*shallow, DeltaFormat::Extended, kIters, false);
  const Frame float_every = perturbed(*shallow, DeltaFormat::Float, kIters, false);
  const Frame dbl_tables = perturbed(*shallow, DeltaFormat::Double, kIters, true);
  const auto deep = reference(*parse_view(kDeepX, kDeepY, "8e-99", kDeepIters), kDeepIters);
  const Frame deep_every = perturbed(*deep, DeltaFormat::Double, kDeepIters, false);
  const Frame deep_tables = perturbed(*deep, DeltaFormat::Double, kDeepIters, true);

  ExperimentReport r;
  r.model =
      "Per warp-step on one SM, the bound of each variant's loop as declared beside it (the "
      "SASS fixtures check it): the slowest of issue and the pipes at " +
      rates.describe() +
      ". perturb-x's and perturb-f's loops list their rare paths inline, so their bounds are upper "
      "ones. With the "
      "tables, a counted step is predicted at the every-step bound times the share iterated: "
      "the skipped steps free, the look-ups not modelled.";
  const std::string unit = "cycles/warp-step/SM";
  auto row = [&](std::string label, std::optional<double> predicted, const Frame& f, double steps,
                 std::string note) {
    ExperimentRow x{std::move(label), predicted, per_step(f, steps), unit, std::move(note)};
    x.counters = f.counters;
    r.rows.push_back(std::move(x));
  };
  row("fma4-rows: the plain float step", bound(VariantId::Fma4Rows), plain, plain.run,
      mix_text(variant_info(VariantId::Fma4Rows).per_iteration(arch)) + " a step");
  row("perturb: every step, differences in double", bound(VariantId::PerturbDouble), dbl_every,
      dbl_every.run, mix_text(variant_info(VariantId::PerturbDouble).per_iteration(arch)));
  row("perturb's step arithmetic alone: Z constant, no load, no vote", fp64_bound, arithmetic,
      arithmetic.run,
      "its 14 FP64 (the bound); " + std::to_string(kArithmeticBlocksPerSm) + " blocks of " +
          std::to_string(kArithmeticThreads) + " an SM, as perturb's kernel on sm_90");
  row("the same with Z loaded each step from the orbit, no vote", fp64_bound, arithmetic_load,
      arithmetic_load.run, "its 14 FP64 and Z's load (LSU), as perturb's step has them");
  row("perturb-x: every step, the extended range", bound(VariantId::PerturbExtended), ext_every,
      ext_every.run, "an upper bound: the listing's rare paths counted as if run");
  row("perturb-f: every step, float with an exponent", bound(VariantId::PerturbFloat), float_every,
      float_every.run, "an upper bound, as perturb-x's");
  const double shallow_share = dbl_tables.run / dbl_tables.counted,
               deep_share = deep_tables.run / deep_tables.counted;
  row("perturb with the tables, per step counted", bound(VariantId::PerturbDouble) * shallow_share,
      dbl_tables, dbl_tables.counted,
      fmt("%.2f%% of the steps iterated: |d| is too large against Z for them",
          100 * shallow_share));
  row("perturb at a minibrot 8e-99 wide: every step", bound(VariantId::PerturbDouble), deep_every,
      deep_every.run, "20,000 iterations; pixels escape and rebase");
  row("the same with the tables, per step counted", bound(VariantId::PerturbDouble) * deep_share,
      deep_tables, deep_tables.counted, fmt("%.2f%% of the steps iterated", 100 * deep_share));
  const double p = per_step(plain, plain.run);
  // The counted step's cost if the iterated steps cost what they do without the tables.
  const double iterated_part = deep_share * per_step(deep_every, deep_every.run) /
                               per_step(deep_tables, deep_tables.counted);
  r.conclusion =
      "A step of perturbation in double costs " +
      fmt("%.1f", per_step(dbl_every, dbl_every.run) / p) +
      "x the float step here (its model says " +
      fmt("%.1f", bound(VariantId::PerturbDouble) / bound(VariantId::Fma4Rows)) +
      "x): it keeps the FP64 pipe " +
      fmt("%.0f%%", 100 * fp64_bound / per_step(dbl_every, dbl_every.run)) +
      " busy, where its arithmetic alone, with nothing loaded or voted, keeps it " +
      fmt("%.0f%%", 100 * fp64_bound / per_step(arithmetic, arithmetic.run)) + ", and " +
      fmt("%.0f%%", 100 * fp64_bound / per_step(arithmetic_load, arithmetic_load.run)) +
      " with Z's load"
      "; in the extended range " +
      fmt("%.1f", per_step(ext_every, ext_every.run) / p) + "x, in float with an exponent " +
      fmt("%.1f", per_step(float_every, float_every.run) / p) +
      "x. Where the tables skip nothing their look-ups cost " +
      fmt("%.1f", per_step(dbl_tables, dbl_tables.counted) / per_step(dbl_every, dbl_every.run)) +
      "x the step; at the minibrot they leave " + fmt("%.2f%%", 100 * deep_share) +
      " of the steps, and a counted step costs " +
      fmt("%.2f", per_step(deep_tables, deep_tables.counted) / p) + "x the float step, " +
      fmt("%.1f",
          per_step(deep_every, deep_every.run) / per_step(deep_tables, deep_tables.counted)) +
      "x less than iterating it. Of that cost the steps iterated account for " +
      fmt("%.0f%%", 100 * iterated_part) + ", the look-ups for the rest.";
  return r;
}

}  // namespace mp::lab
