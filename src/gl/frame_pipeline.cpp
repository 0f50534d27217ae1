#include "gl/frame_pipeline.h"

#include <algorithm>

#include <exception>

#include "cuda_check.h"
#include "kernel_params.h"

namespace mp::gl {

FramePipeline::FramePipeline(const std::optional<DeviceInfo>& device, std::string cpu_reason,
                             PresentMode mode)
    : mode_(mode), cpu_reason_(std::move(cpu_reason)) {
  if (device) gpu_ = std::make_unique<GpuRenderer>(*device);
}

std::string FramePipeline::renderer_description() const {
  if (gpu_) return "CUDA on " + gpu_->device().name;
  return "CPU reference (" + std::to_string(cpu_.threads()) + " threads)";
}

void FramePipeline::resize(int width, int height) {
  // A window past the GL's texture limit (a window manager allows 20000x20000) renders at the
  // limit and is stretched, rather than failing in glTexStorage2D.
  GLint max_side = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_side);
  std::string clamped;
  if (max_side > 0 && (width > max_side || height > max_side)) {
    clamped = "window " + std::to_string(width) + "x" + std::to_string(height) +
              " is past this GL's " + std::to_string(max_side) + " px texture limit: rendering " +
              std::to_string(std::min(width, max_side)) + "x" +
              std::to_string(std::min(height, max_side)) + ", stretched";
    width = std::min(width, max_side);
    height = std::min(height, max_side);
  }
  if (surface_ && surface_->width() == width && surface_->height() == height) return;
  surface_.reset();
  warps_.reset();
  scratch_ = DeviceBuffer<float>();
  warp_scratch_ = DeviceBuffer<float>();
  fallback_reason_ = clamped;
  if (!gpu_) {
    fallback_reason_ = clamped.empty() ? cpu_reason_ : clamped + "; " + cpu_reason_;
    surface_ = make_host_surface(width, height);
    // Black (never escaped) until the first slices land, rather than the palette's first colour.
    float* out = surface_->begin_frame();
    std::fill(out, out + static_cast<std::size_t>(width) * height * kFloatsPerPixel, -1.0f);
    surface_->end_frame();
    cpu_frame_ = CpuSlicedFrame();  // its size is gone
    return;
  }
  try {
    surface_ = make_interop_surface(mode_, width, height);
  } catch (const std::exception& e) {
    fallback_reason_ = (clamped.empty() ? "" : clamped + "; ") + "CUDA-GL interop unavailable (" +
                       e.what() + "): frames go through host memory";
    cudaGetLastError();
    surface_ = make_host_surface(width, height);
    scratch_ = DeviceBuffer<float>(static_cast<std::size_t>(width) * height * kFloatsPerPixel);
  }
}

float* FramePipeline::warp_output() {
  const int w = surface_->width(), h = surface_->height();
  if (!warps_) {
    // Interop for the warp buffer exactly when the frame itself goes through interop.
    const bool interop = gpu_ && surface_->device_memory();
    warps_ = std::make_unique<WarpBuffer>(warp_count(w, h), interop);
    if (gpu_ && !interop) warp_scratch_ = DeviceBuffer<float>(warp_count(w, h));
  }
  return warps_->begin_frame();
}

FrameMeasurement FramePipeline::render(VariantId variant, const View& view, bool divergence) {
  if (!gpu_) {  // one slice of it all: the one CPU code path
    start_slices(variant, view, divergence);
    return render_slice(0).value_or(FrameMeasurement{});  // an empty frame has no slice
  }
  const int w = surface_->width(), h = surface_->height();
  const PixelGrid grid = pixel_grid(view, w, h);
  FrameMeasurement m;
  float* out = surface_->begin_frame();
  float* warp_out = divergence ? warp_output() : nullptr;
  m.gpu = true;
  const bool device_frame = surface_->device_memory();
  m.gpu_stats =
      gpu_->render(variant, grid, view.max_iter, device_frame ? out : scratch_.get(), nullptr,
                   !warp_out      ? nullptr
                   : device_frame ? warp_out
                                  : warp_scratch_.get());
  if (!device_frame) {
    CUDA_CHECK(
        cudaMemcpy(out, scratch_.get(), scratch_.size() * sizeof(float), cudaMemcpyDeviceToHost));
    if (warp_out)
      CUDA_CHECK(cudaMemcpy(warp_out, warp_scratch_.get(), warp_scratch_.size() * sizeof(float),
                            cudaMemcpyDeviceToHost));
  }
  surface_->end_frame();
  if (warp_out) warps_->end_frame();
  return m;
}

void FramePipeline::start_slices(VariantId variant, const View& view, bool divergence) {
  const int w = surface_->width(), h = surface_->height();
  cpu_frame_ = CpuSlicedFrame(variant, pixel_grid(view, w, h), view.max_iter);
  cpu_divergence_ = divergence;
  if (divergence) {
    cpu_counts_.resize(static_cast<std::size_t>(w) * h);
    if (!warps_) {  // no tint until the frame's warps are known, rather than GL's leftovers
      float* warp_out = warp_output();
      std::fill(warp_out, warp_out + warps_->size(), 1.0f);
      warps_->end_frame();
    }
  }
}

std::optional<FrameMeasurement> FramePipeline::render_slice(double target_ms) {
  if (!refining()) return std::nullopt;
  float* out = surface_->begin_frame();
  cpu_frame_.step(cpu_, out, cpu_divergence_ ? cpu_counts_.data() : nullptr, target_ms);
  surface_->end_frame();
  if (refining()) return std::nullopt;
  if (cpu_divergence_) {
    warp_efficiency_from_counts(cpu_counts_.data(), surface_->width(), surface_->height(),
                                warp_output());
    warps_->end_frame();
  }
  FrameMeasurement m;
  m.cpu_stats = cpu_frame_.stats();
  return m;
}

}  // namespace mp::gl
