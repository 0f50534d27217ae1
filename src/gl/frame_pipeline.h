// Produces frames into a GL surface: CUDA through interop when it can, CUDA plus a host copy
// when interop registration fails, the CPU reference when there is no CUDA device. Always
// able to say which path is in use and why. The GPU renderer is not its own: the session owns
// it (session/renderer_lease.h), and each call that launches kernels borrows it for that call.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "device_buffer.h"
#include "gl/surface.h"
#include "gpu_renderer.h"
#include "gpu_sliced_frame.h"
#include "model/view.h"
#include "render/cpu_renderer.h"
#include "render/present_mode.h"

namespace mp::gl {

struct FrameMeasurement {
  bool gpu = false;
  GpuFrameStats gpu_stats;  // valid when gpu
  CpuFrameStats cpu_stats;  // valid when !gpu
  double render_ms() const { return gpu ? gpu_stats.kernel_ms : cpu_stats.ms; }
  unsigned long long pixel_iters() const {
    return gpu ? gpu_stats.pixel_iters : cpu_stats.pixel_iters;
  }
};

class FramePipeline {
 public:
  // device: the CUDA device frames render on (with the renderer each call lends), or nullopt
  // for the CPU, with cpu_reason saying why. Needs a current GL context.
  FramePipeline(const std::optional<DeviceInfo>& device, std::string cpu_reason, PresentMode mode);

  void resize(int width, int height);
  // With `divergence`, also fills warp_buffer() with each warp's SIMT efficiency. Renders the
  // whole frame before it returns (one launch on the GPU, with `gpu`: the device's renderer).
  FrameMeasurement render(GpuRenderer* gpu, VariantId variant, const View& view,
                          bool divergence = false);

  // A frame rendered in slices across calls, so that the window keeps drawing and taking input
  // meanwhile (the CPU reference's slices of pixels, the GPU's launches of ranges of tiles):
  // start_slices() drops any unfinished frame and starts this one; each render_slice() renders
  // about target_ms of it (0: all that is left; one launch on the GPU) and hands the surface to
  // GL, the pixels not yet rendered still holding the previous frame. It returns the frame's
  // measurement, summed over its slices or launches, once the last one is done. On the GPU path
  // `gpu` is the device's renderer, lent for the call; null (lent to a job): nothing renders.
  void start_slices(VariantId variant, const View& view, bool divergence = false);
  std::optional<FrameMeasurement> render_slice(GpuRenderer* gpu, double target_ms);
  bool refining() const { return on_gpu() ? !gpu_frame_.done() : !cpu_frame_.done(); }

  // A frame that another renderer writes into this surface (the deep views' perturbation): the
  // unfinished plain frame is dropped and the image shown moved from `from` to `to`, grids in
  // whatever frame of reference the caller keeps both in (width 0: left as it is). Its pixels
  // go between begin_external() and end_external(): device memory on the GPU path.
  // `divergence`: the renderer writes the divergence view's figures too, between the same calls
  // into external_warps() (on the GPU path; null otherwise).
  void start_external(const PixelGrid& from, const PixelGrid& to, bool divergence = false);
  float* begin_external();
  float* external_warps();
  void end_external();
  // Of the image's edge pixels (as the surface holds them now), the share that never escaped.
  double edge_inside_share();
  // Of the finished frame's pixels, the share that escaped only in the last half of `max_iter`
  // steps (counted where the image is, on the GPU without reading it back).
  double late_share(unsigned max_iter);
  // The frame's pixels as they are now (kFloatsPerPixel floats each, row by row), on the host:
  // the whole-kernel model reads their step counts back from them.
  std::vector<float> pixels();
  double progress() const { return on_gpu() ? gpu_frame_.progress() : cpu_frame_.progress(); }
  // Passes over the image so far: more than one where the GPU cut orbits (GpuSlicedFrame).
  int passes() const { return on_gpu() ? gpu_frame_.passes() : 1; }
  // The longest GPU launch so far, of finished frames and dropped ones alike.
  double longest_launch_ms() const { return longest_launch_ms_; }

  Surface& surface() { return *surface_; }
  const WarpBuffer* warp_buffer() const { return warps_.get(); }
  // Frames render on the GPU (else on the CPU reference), from the first one on.
  bool on_gpu() const { return device_.has_value(); }
  std::string renderer_description() const;  // "CUDA on NVIDIA H200" / "CPU reference (8 threads)"
  std::string present_description() const { return surface_ ? surface_->describe() : ""; }
  // Why the path differs from the best one (no GPU, interop failed, ...); "" if it doesn't.
  const std::string& fallback_reason() const { return fallback_reason_; }

 private:
  float* warp_output();  // where this frame's per-warp efficiency goes (device or host)
  std::optional<FrameMeasurement> gpu_slice(GpuRenderer& gpu, double target_ms);
  std::optional<FrameMeasurement> cpu_slice(double target_ms);
  // The surface's image moved and scaled from shown_grid_ to `grid`: the preview a new view
  // shows while its frame renders.
  void reproject(const PixelGrid& grid);

  std::optional<DeviceInfo> device_;
  CpuRenderer cpu_;
  PresentMode mode_;
  std::string cpu_reason_;
  std::string fallback_reason_;
  std::unique_ptr<Surface> surface_;
  std::unique_ptr<WarpBuffer> warps_;
  DeviceBuffer<float> scratch_;       // GPU output when the surface is host memory
  DeviceBuffer<float> warp_scratch_;  // GPU per-warp output when the warp buffer is host memory
  std::vector<unsigned> cpu_counts_;  // CPU path: counts for the per-warp efficiency
  CpuSlicedFrame cpu_frame_;          // CPU path: the frame being rendered, or done
  GpuSlicedFrame gpu_frame_;          // CUDA path: the same
  bool divergence_ = false;           // whether the frame fills the warp buffer
  PixelGrid shown_grid_;              // the view the surface's pixels belong to (none: width 0)
  DeviceBuffer<float> preview_from_;  // GPU path: the image being moved, copied
  DeviceBuffer<unsigned long long> census_;  // GPU path: late_share's count
  std::vector<float> cpu_preview_from_;
  double longest_launch_ms_ = 0;
  float* external_out_ = nullptr;    // the surface's memory between begin_ and end_external
  float* external_warps_ = nullptr;  // the warp buffer's, where divergence is on
};

}  // namespace mp::gl
