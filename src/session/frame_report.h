// One finished frame, measured and modelled once: what it is of, what was measured, what the
// model derives from it, and what the counters read. The window's panel, overlay and capture,
// compare, bench and render's records all read the figures from here, so that a frame's
// per-step mix, bound, pipe loads and heavy-only term are worked out in one place.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "gpu_renderer.h"
#include "io/report.h"
#include "io/sass_loader.h"
#include "model/counter_figures.h"
#include "model/metrics.h"
#include "model/pipe_load.h"
#include "model/sass.h"
#include "model/view.h"
#include "render/cpu_renderer.h"
#include "session/device.h"
#include "session/frame_of.h"
#include "variants.h"

namespace mp {

// Its fields in three groups by where they come from, as the panel and the records label them:
// measured, the model's, the counters'. Made once a frame is finished, then only read.
struct FrameReport {
  FrameOf of;
  int frames = 1;  // timed frames the figures are the median of (bench, compare), else 1

  // Measured.
  bool gpu = false;         // the CUDA path's kernels; else the CPU reference renderer
  GpuFrameStats gpu_stats;  // the CUDA path: the frame's launches summed
  CpuFrameStats cpu_stats;  // the CPU path
  FrameNumbers measured;    // the CUDA path: events, clock64 and the kernels' step counts
  // Steps the pixels count: equal to those run for a plain variant that stops no orbit early; 0
  // where they were not counted (the caller may fill them: bench reads its counts).
  double counted_iters = 0;

  // The model, on the CUDA path where the device's pipe rates are known.
  int arch = kArchWithoutGpu;
  sass::KernelBuild build = sass::KernelBuild::Plain;  // the kernel build that ran
  InstrMix per_step;  // instructions per step: the SASS loop of `build`, else declared
  bool mix_from_sass = false;
  double heavy_only = -1;            // of per_step.fma, those only fmaheavy runs; negative: unknown
  std::size_t loop_branches = 0;     // paths within the loop's listing: the bound is an upper one
  std::optional<Metrics> metrics;    // clock, Giter/s, SIMT efficiency, balance, bound, % of bound
  double model_instructions = 0;     // warp instructions in the modelled step loop
  std::vector<PipeLoad> pipe_loads;  // each pipe's busy share by the model

  // The counters' newest figures when the report was made (of frame `counters_frame`), and
  // whether they came with this frame; empty where the counters are not read.
  std::optional<CounterFigures> counters;
  long long counters_frame = -1;
  bool counters_fresh = false;

  double render_ms() const { return gpu ? gpu_stats.kernel_ms : cpu_stats.ms; }
  double pixel_iters() const {
    return gpu ? static_cast<double>(gpu_stats.pixel_iters)
               : static_cast<double>(cpu_stats.pixel_iters);
  }
  // A listing of several paths counts more than a step runs: no figure to hold counters against.
  double comparable_instructions() const { return loop_branches > 0 ? 0 : model_instructions; }
};

// The build of the kernel a frame ran (the resumable one where any of its launches was).
sass::KernelBuild build_of(const GpuFrameStats& s);
// Instructions per step of `variant` on `arch`: the SASS loop of the kernel build that ran when
// there is one, else the declared.
InstrMix per_step_mix(VariantId variant, int arch, const LoadedSass* sass, sass::KernelBuild build);
// A GPU frame's measurements, as the model takes them.
FrameNumbers frame_numbers(const GpuFrameStats& s);

// A CUDA frame's report: measured, and modelled where `device` has pipe rates.
FrameReport gpu_frame_report(const FrameOf& of, const GpuFrameStats& s, const DeviceFacts& device,
                             const LoadedSass* sass, int frames = 1);
// A CPU frame's report: measured (wall time, steps run and counted); the model needs the CUDA
// path's SM cycles.
FrameReport cpu_frame_report(const FrameOf& of, const CpuFrameStats& s);

// The report as the row bench, compare, capture and render's sidecar write.
MeasuredRow measured_row(const FrameReport& r, const std::string& view_name);

// The whole-kernel model of a frame of `variant` whose pixels' step counts are `counts` (width x
// height), beside the row's other figures: row.whole and row.whole_busy.
void add_whole_kernel(MeasuredRow& row, const DeviceInfo& d, VariantId variant,
                      const GpuFrameStats& s, const LoadedSass* sass, const unsigned* counts);

// The device as the records name it, with where the instruction mix comes from.
DeviceSummary summarize(const DeviceInfo& d, const LoadedSass* sass);

}  // namespace mp
