// One finished frame, measured and modelled once: what it is of, what was measured, what the
// model derives from it, and what the counters read. The window's panel, overlay and capture,
// compare, bench and render's records all read the figures from here, so that a frame's
// per-step mix, bound, pipe loads and heavy-only term are worked out in one place.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "gpu_renderer.h"
#include "io/report.h"
#include "io/sass_loader.h"
#include "model/counter_figures.h"
#include "model/frame_tally.h"
#include "model/metrics.h"
#include "model/pipe_load.h"
#include "model/sass.h"
#include "model/view.h"
#include "render/cpu_renderer.h"
#include "session/deep_renderer.h"
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
  // A deep view's frame (perturbation, on either path): its time, the steps counted and those
  // run one at a time, its rebases and launches.
  std::optional<DeepStats> deep;
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

  double render_ms() const { return deep ? deep->ms : gpu ? gpu_stats.kernel_ms : cpu_stats.ms; }
  // Steps run: a deep frame's counted ones, as the plain variants' pixels count theirs.
  double pixel_iters() const {
    return deep  ? static_cast<double>(deep->pixel_iters)
           : gpu ? static_cast<double>(gpu_stats.pixel_iters)
                 : static_cast<double>(cpu_stats.pixel_iters);
  }
  // A deep frame's SIMT efficiency of the steps run one at a time (0 where none were).
  double deep_simt() const {
    return deep && deep->warp_iterated ? deep->iterated / (32.0 * deep->warp_iterated) : 0;
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
// What a GPU frame's launches tell the whole-kernel model's frame shape: the tiles' order, the
// warps and launches, and perturb's round counts.
void take_launch_figures(FrameShape& shape, const GpuFrameStats& s);

// A CUDA frame's report: measured, and modelled where `device` has pipe rates.
FrameReport gpu_frame_report(const FrameOf& of, const GpuFrameStats& s, const DeviceFacts& device,
                             const LoadedSass* sass, int frames = 1);
// A CPU frame's report: measured (wall time, steps run and counted); the model needs the CUDA
// path's SM cycles.
FrameReport cpu_frame_report(const FrameOf& of, const CpuFrameStats& s);

// A deep view's frame report (perturbation): measured; the bound model times the plain
// variants' loops, and the perturbation variants' every-step loop only in bench and compare.
FrameReport deep_frame_report(const FrameOf& of, const DeepStats& s, int frames = 1);

// The report as the row bench, compare, capture and render's sidecar write.
MeasuredRow measured_row(const FrameReport& r, const std::string& view_name);

// The report as render's sidecar writes its frame: measured, derived, and the model's figures
// (or why there are none), labelled by where each comes from.
nlohmann::json frame_json(const FrameReport& r);

// bench's row of a deep view: its frame with the approximation and with every step iterated (the
// median frames' reports), and the reference both were rendered from.
DeepRow deep_row(const std::string& view_name, const FrameReport& approximated,
                 const FrameReport& every_step, const DeepReference& reference);

// The whole-kernel model of a frame of `variant` whose pixels' step counts are `counts` (width x
// height), beside the row's other figures: row.whole and row.whole_busy. zero_offsets: perturb's
// grid offsets from the reference that are zero (FrameShape's; -1: not a perturbation frame).
void add_whole_kernel(MeasuredRow& row, const DeviceInfo& d, VariantId variant,
                      const GpuFrameStats& s, const LoadedSass* sass, const unsigned* counts,
                      int zero_offsets = -1);

// The device as the records name it, with where the instruction mix comes from.
DeviceSummary summarize(const DeviceInfo& d, const LoadedSass* sass);

}  // namespace mp
