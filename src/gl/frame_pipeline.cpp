#include "gl/frame_pipeline.h"

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
  if (surface_ && surface_->width() == width && surface_->height() == height) return;
  surface_.reset();
  scratch_ = DeviceBuffer<float>();
  fallback_reason_.clear();
  if (!gpu_) {
    fallback_reason_ = cpu_reason_;
    surface_ = make_host_surface(width, height);
    return;
  }
  try {
    surface_ = make_interop_surface(mode_, width, height);
  } catch (const std::exception& e) {
    fallback_reason_ = std::string("CUDA-GL interop unavailable (") + e.what() +
                       "): frames go through host memory";
    cudaGetLastError();
    surface_ = make_host_surface(width, height);
    scratch_ = DeviceBuffer<float>(static_cast<std::size_t>(width) * height * kFloatsPerPixel);
  }
}

FrameMeasurement FramePipeline::render(VariantId variant, const View& view) {
  const PixelGrid grid = pixel_grid(view, surface_->width(), surface_->height());
  FrameMeasurement m;
  float* out = surface_->begin_frame();
  if (gpu_) {
    m.gpu = true;
    if (surface_->device_memory()) {
      m.gpu_stats = gpu_->render(variant, grid, view.max_iter, out);
    } else {
      m.gpu_stats = gpu_->render(variant, grid, view.max_iter, scratch_.get());
      CUDA_CHECK(
          cudaMemcpy(out, scratch_.get(), scratch_.size() * sizeof(float), cudaMemcpyDeviceToHost));
    }
  } else {
    m.cpu_stats = cpu_.render(variant, grid, view.max_iter, out);
  }
  surface_->end_frame();
  return m;
}

}  // namespace mp::gl
