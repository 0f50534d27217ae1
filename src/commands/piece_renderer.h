// Computes a piece of an image's per-pixel data into host memory: the CUDA kernels on one GPU,
// or the CPU reference; deep views by perturbation from a reference orbit.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "colour_kernel.h"
#include "commands/render_plan.h"
#include "device_buffer.h"
#include "gpu_renderer.h"
#include "measure_kit.h"
#include "model/view.h"
#include "render/cpu_renderer.h"
#include "session/deep_renderer.h"

namespace mp {

// A deep view's reference orbit and (where `tables`) its tables, made on the calling thread
// (MPFR) with its progress on stderr while it takes long, and said there once made.
std::shared_ptr<const DeepReference> make_reference_said(const View& view, int width, int height,
                                                         Progress& progress, bool tables);

class PieceRenderer {
 public:
  // With a device, on it: made on the thread that renders, whose current device it becomes.
  PieceRenderer(const std::optional<DeviceInfo>& device, long long max_pixels, bool approximate);

  std::string description() const;
  bool gpu() const { return device_.has_value(); }
  const std::optional<DeviceInfo>& device() const { return device_; }

  // What a render calls after each run of its pixels, with the share of them done.
  using RunDone = std::function<void(double fraction)>;

  // `g`'s pixels into host memory `out` (g.width * g.height * kFloatsPerPixel floats), in runs of
  // about Progress::kStep each, `done` after each: ranges of the one grid (pixels on the CPU, rows
  // of 16x16 blocks on the GPU), so that the pixels are those of one whole launch, bit for bit.
  // On the GPU `out` may be null: the pixels stay on the device for colour() alone.
  void render(VariantId variant, const PixelGrid& g, unsigned max_iter, float* out,
              const RunDone& done = {});
  // Deep views render from `ref` from now on (made elsewhere, shared).
  void use_reference(std::shared_ptr<const DeepReference> ref);
  // The pixels of `rect` of the whole width x height image by perturbation, into host memory, in
  // runs of its rows sized from the last run's rate (the first a sixty-fourth of them), `done`
  // after each: a rect is the same pixels however it is cut. On the GPU `out` may be null, as
  // above.
  void render_deep(DeltaFormat format, const View& view, int width, int height, PixelRect rect,
                   float* out, const RunDone& done = {});
  const std::shared_ptr<const DeepReference>& reference() const;
  // The GPU's: the last render's gw x gh samples (render() or render_deep() of a whole piece)
  // coloured on the device (colour_on_device) and copied into host memory `rgb`, rows `pitch`
  // bytes apart; the kernel's time (CUDA events) is added to colour_ms.
  void colour(const ColourLook& look, int gw, int gh, int ss, std::uint8_t* rgb, std::size_t pitch);

  void reset_stats() {
    launches = 0;
    gpu_stats = {};
    cpu = {};
    deep_stats = {};
    colour_ms = 0;
  }

  // Summed over the launches since reset_stats().
  int launches = 0;
  GpuFrameStats gpu_stats;
  CpuFrameStats cpu;
  DeepStats deep_stats;
  double colour_ms = 0;  // colour(): the colour kernel's time

 private:
  DeepRenderer& deep();

  std::optional<DeviceInfo> device_;
  std::unique_ptr<GpuRenderer> gpu_;
  DeviceBuffer<float> scratch_;
  // colour()'s: the RGB rows on the device, and the events around the kernel.
  DeviceBuffer<std::uint8_t> rgb_;
  std::unique_ptr<Event> colour_start_, colour_stop_;
  CpuRenderer cpu_;
  std::unique_ptr<DeepRenderer> deep_;
  bool approximate_ = true;
  // render()'s rate on the GPU, in rows of blocks a second, and what it was measured for: the
  // next band of the same width, variant and limit starts from it rather than from a first run
  // of a sixty-fourth of its rows, a launch more a band for a sequence's every frame.
  struct Rate {
    int width = 0;
    VariantId variant{};
    unsigned max_iter = 0;
    double rows_per_s = 0;
  } rate_;
};

}  // namespace mp
