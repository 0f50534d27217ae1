// kernel-overhead: how the share of a frame's work outside the step loop grows as orbits get
// shorter. fma4-rows over views from long orbits (the neck of the set) to short ones (the set a dot
// in the frame), each frame's whole-kernel model (model/whole_kernel.h: the SASS of the kernel that
// ran cut into parts, times the frame's own counts) against what the GPU did: the counters'
// instructions where they are read, and always the SM cycles beyond the step loop's bound.
#include "common.cuh"
#include "gpu_renderer.h"
#include "io/sass_loader.h"
#include "kernel_params.h"
#include "model/experiment_model.h"
#include "model/variant_table.h"
#include "model/view.h"

namespace mp::lab {
namespace {

constexpr int kWidth = 960, kHeight = 540;
constexpr VariantId kVariant = VariantId::Fma4Rows;

struct SweepView {
  const char* name;
  double x, y, span;
  unsigned iters;
};
// From long orbits to short ones.
constexpr SweepView kViews[] = {
    {"the neck (view C's place)", -0.75, 0, 0.05, 4096},
    {"seahorse valley (view B's place)", -0.743643887037151, 0.131825904205330, 0.005, 4096},
    {"the whole set (view A's place)", -0.5, 0, 3, 1024},
    {"the set at a third of the frame", -0.5, 0, 9, 1024},
    {"the set a dot in the frame", -0.5, 0, 48, 256},
};

// The SASS of this executable's kernels, read once a process (cuobjdump takes a second or more).
const LoadedSass& kernels_sass(int arch) {
  static const LoadedSass s = load_kernel_sass(self_executable(), arch);
  return s;
}

}  // namespace

ExperimentReport run_kernel_overhead(const DeviceInfo& d, CounterProbe* counters) {
  const int arch = arch_of(d);
  const PipeRates rates = pipe_rates(d.cc_major, d.cc_minor);
  const LoadedSass& sass = kernels_sass(arch);
  GpuRenderer gpu(d);
  const std::size_t pixels = static_cast<std::size_t>(kWidth) * kHeight;
  DeviceBuffer<float> out(pixels * kFloatsPerPixel);
  DeviceBuffer<unsigned> counts_d(pixels);
  std::vector<unsigned> counts(pixels);

  ExperimentReport r;
  r.model = "fma4-rows at " + std::to_string(kWidth) + "x" + std::to_string(kHeight) +
            ". The whole-kernel model (docs/model.md, \"The whole kernel\"): the SASS of the "
            "kernel build that ran (" +
            sass.source +
            ") cut into the step loop, per block, per pixel and per launch parts, each times "
            "the frame's own counts (pixels, the blocks each warp ran, replays, warps); its "
            "bound at " +
            rates.describe() +
            ". Predicted: the share of the whole kernel's instructions outside the step loop, "
            "and of its bound the part the step loop's own bound leaves. Measured: of the "
            "instructions the counters counted, those beyond the model's step loop; of the SM "
            "cycles, those beyond the step loop's bound.";
  struct Point {
    double predicted = 0, measured = 0;
  };
  std::vector<Point> instr, cycles;
  for (const SweepView& sv : kViews) {
    const View view = view_at(sv.x, sv.y, sv.span, sv.iters);
    const PixelGrid grid = pixel_grid(view, kWidth, kHeight);
    gpu.render(kVariant, grid, sv.iters, out.get(), counts_d.get());
    CUDA_CHECK(cudaMemcpy(counts.data(), counts_d.get(), pixels * sizeof(unsigned),
                          cudaMemcpyDeviceToHost));
    struct Frame {
      GpuFrameStats stats;
      std::optional<CounterFigures> counters;
    };
    const Frame f = warm_median(
                        1, 3,
                        [&](bool timed) {
                          const std::uint64_t reading = counters && timed ? counters->begin() : 0;
                          Frame x{gpu.render(kVariant, grid, sv.iters, out.get()), std::nullopt};
                          if (counters && timed) {
                            counters->end(reading, static_cast<double>(x.stats.sm_cycles));
                            x.counters = counters->take(reading, true);
                          }
                          return x;
                        },
                        [](const Frame& x) { return x.stats.kernel_ms; })
                        .middle();
    const sass::KernelBuild build = f.stats.resumable   ? sass::KernelBuild::Resumable
                                    : f.stats.recording ? sass::KernelBuild::Recording
                                                        : sass::KernelBuild::Plain;
    const LoopListing* listing = sass.loop(kVariant, build);
    if (!listing) throw std::runtime_error("kernel-overhead: no SASS of fma4-rows: " + sass.source);
    FrameShape shape;
    shape.shape = variant_info(kVariant).shape;
    shape.width = kWidth;
    shape.height = kHeight;
    shape.max_iter = sv.iters;
    shape.sm_count = d.sm_count;
    shape.warps_per_sm = max_warps_per_sm(d.cc_major, d.cc_minor);
    const WholeKernel w = whole_kernel_of_frame(kVariant, listing->whole, shape, counts.data(),
                                                static_cast<double>(f.stats.warp_iters));
    if (!w.ok()) throw std::runtime_error("kernel-overhead: " + w.unusable);
    const OverheadShares predicted = predicted_overhead(rates, w);
    double steps = 0;
    for (unsigned n : counts) steps += n;
    const std::string orbits = fmt("%.0f", steps / pixels) + " steps a pixel on average";
    const bool counted = f.counters && f.counters->unavailable.empty();
    if (counted) {
      const double measured = measured_instruction_overhead(w, f.counters->warp_instructions);
      ExperimentRow row{std::string(sv.name) + ": instructions outside the step loop",
                        100 * predicted.instructions, 100 * measured, "%", orbits};
      row.counters = f.counters;
      r.rows.push_back(std::move(row));
      r.rows.push_back({std::string(sv.name) + ": the whole kernel's instructions",
                        w.instructions(), f.counters->warp_instructions, "warp-instructions",
                        "model against the counters"});
      instr.push_back({predicted.instructions, measured});
    }
    const double measured_cycles =
        measured_cycle_overhead(rates, d.sm_count, w, static_cast<double>(f.stats.sm_cycles));
    r.rows.push_back({std::string(sv.name) + ": SM cycles beyond the step loop's bound",
                      100 * predicted.cycles, 100 * measured_cycles, "%",
                      counted ? "" : orbits + " (no counters: cycles only)"});
    cycles.push_back({predicted.cycles, measured_cycles});
  }
  auto span = [](const std::vector<Point>& p, bool measured) {
    return fmt("%.1f%%", 100 * (measured ? p.front().measured : p.front().predicted)) + " to " +
           fmt("%.1f%%", 100 * (measured ? p.back().measured : p.back().predicted));
  };
  r.conclusion = "From the longest orbits to the shortest, the share outside the step loop grew ";
  if (!instr.empty())
    r.conclusion += "from " + span(instr, false) + " of the instructions by the model and " +
                    span(instr, true) + " by the counters, and ";
  r.conclusion += "from " + span(cycles, false) + " of the whole kernel's bound by the model, " +
                  span(cycles, true) +
                  " of the SM cycles measured (those include what no bound counts: latency, "
                  "the frame's tail).";
  return r;
}

}  // namespace mp::lab
