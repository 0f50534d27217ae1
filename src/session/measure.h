// Timing variants the same way everywhere (bench, the window's "compare all"): warm-up
// frames, then the median of timed frames, plus a pixel-by-pixel comparison with fma4.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "device_buffer.h"
#include "model/bench_views.h"
#include "model/counter_figures.h"
#include "model/view_limit.h"
#include "session/deep_renderer.h"
#include "session/frame_report.h"

namespace mp {

// Every variant in `variants` at `view`, width x height: `warmup` untimed frames, the median
// of `frames` timed ones by kernel time (warm_median: that one frame's figures together), and how
// many pixels' step counts differ from fma4's; each row with the view's physical limit (from fma4's
// counts) where the device gives its peak clock. With `first_frames`, every frame is timed as the
// view's first (nothing known about it); with `counters`, what the hardware counters read over the
// median frame.
// With `stalls`, PC sampling over kStallFrames frames of each variant after its timed ones.
std::vector<MeasuredRow> measure_variants(
    GpuRenderer& gpu, const std::string& view_name, const View& view, int width, int height,
    const std::vector<VariantId>& variants, int frames, int warmup, const LoadedSass* sass,
    CounterProbe* counters = nullptr, bool first_frames = false, CounterProbe* stalls = nullptr);

// Frames read by PC sampling per variant (bench --stalls): three, so that one frame's start and
// end (its first tiles, its last SMs) weigh less.
inline constexpr int kStallFrames = 3;

// measure_variants a variant at a time, for a caller that does other work between them (the
// window's compare, a step a frame): the same frames in the same order. Construction renders
// fma4's step counts (untimed), the reference of every row. The perturbation variants render the
// view from a reference orbit made at their first row, every step iterated (the approximation
// off), so that their rows time the perturbation step itself, the loop their model reads.
class VariantMeasurer {
 public:
  VariantMeasurer(GpuRenderer& gpu, std::string view_name, const View& view, int width, int height,
                  int frames, int warmup, const LoadedSass* sass, CounterProbe* counters = nullptr,
                  bool first_frames = false);
  MeasuredRow measure(VariantId v);
  // From now, measure() also reads the stall reasons (PC sampling) over kStallFrames frames of
  // their own after the timed ones, so that its overhead stays out of the timings.
  void read_stalls(CounterProbe* stalls) { stalls_ = stalls; }

 private:
  void add_stalls(VariantId v, MeasuredRow& row);
  std::size_t pixels() const { return static_cast<std::size_t>(width_) * height_; }
  std::vector<unsigned> counts_of(VariantId v);
  GpuFrameStats frame(VariantId v, unsigned* counts);

  GpuRenderer& gpu_;
  std::string view_name_;
  DeviceFacts device_;
  View view_;
  int width_, height_, frames_, warmup_;
  const LoadedSass* sass_;
  CounterProbe* counters_;
  CounterProbe* stalls_ = nullptr;
  bool first_frames_;
  PixelGrid grid_;
  DeviceBuffer<float> out_;
  DeviceBuffer<unsigned> counts_;
  std::vector<unsigned> reference_;
  std::optional<ViewLimit> limit_;
  std::unique_ptr<DeepRenderer> deep_;  // made at the first perturbation variant
};

// One row of sine_sweep: `sines` __sinf per step (0: fma4 itself).
SineSweepRow sine_sweep_row(GpuRenderer& gpu, const LoadedSass* sass, int sines, int frames,
                            int warmup);

// fma4 with 0..4 __sinf per step (the sweep behind sin-ratio) at bench view C, 1920x1080:
// `warmup` untimed frames, then the median of `frames`; each row with its bound from the mix of
// its loop (the SASS where `sass` holds it, else the declared one).
std::vector<SineSweepRow> sine_sweep(GpuRenderer& gpu, const LoadedSass* sass, int frames,
                                     int warmup);

}  // namespace mp
