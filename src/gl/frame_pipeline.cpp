#include "gl/frame_pipeline.h"

#include <algorithm>

#include <exception>
#include <utility>

#include "cuda_check.h"
#include "frame_census.h"
#include "kernel_params.h"
#include "model/auto_iterations.h"
#include "reproject.h"

namespace mp::gl {
namespace {

// Sets n floats at p, in device memory or host memory, to v.
void fill(float* p, std::size_t n, float v, bool device) {
  if (!device) {
    std::fill(p, p + n, v);
    return;
  }
  const std::vector<float> host(n, v);
  CUDA_CHECK(cudaMemcpy(p, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
}

}  // namespace

FramePipeline::FramePipeline(const std::optional<DeviceInfo>& device, std::string cpu_reason,
                             PresentMode mode)
    : device_(device), mode_(mode), cpu_reason_(std::move(cpu_reason)) {}

std::string FramePipeline::renderer_description() const {
  if (device_) return "CUDA on " + device_->name;
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
  shown_grid_ = PixelGrid();  // the new surface starts black: nothing to move
  if (!on_gpu()) {
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
  // Black until the first launches land, rather than what the new memory held.
  const std::size_t n = static_cast<std::size_t>(width) * height * kFloatsPerPixel;
  fill(surface_->begin_frame(), n, -1.0f, surface_->device_memory());
  if (scratch_.size() > 0) fill(scratch_.get(), n, -1.0f, true);
  surface_->end_frame();
  gpu_frame_ = GpuSlicedFrame();  // its size is gone
}

float* FramePipeline::warp_output() {
  const int w = surface_->width(), h = surface_->height();
  if (!warps_) {
    // Interop for the warp buffer exactly when the frame itself goes through interop.
    const bool interop = on_gpu() && surface_->device_memory();
    warps_ = std::make_unique<WarpBuffer>(warp_count(w, h), interop);
    if (on_gpu() && !interop) warp_scratch_ = DeviceBuffer<float>(warp_count(w, h));
  }
  return warps_->begin_frame();
}

FrameMeasurement FramePipeline::render(GpuRenderer* gpu, VariantId variant, const View& view,
                                       bool divergence) {
  start_slices(variant, view, divergence);
  return render_slice(gpu, 0).value_or(FrameMeasurement{});  // an empty frame has no slice
}

void FramePipeline::start_slices(VariantId variant, const View& view, bool divergence) {
  const int w = surface_->width(), h = surface_->height();
  const PixelGrid grid = pixel_grid(view, w, h);
  reproject(grid);
  if (on_gpu())
    gpu_frame_.start(variant, grid, view.max_iter);
  else
    cpu_frame_ = CpuSlicedFrame(variant, grid, view.max_iter);
  divergence_ = divergence;
  if (divergence) {
    if (!on_gpu()) cpu_counts_.resize(static_cast<std::size_t>(w) * h);
    if (!warps_) {  // no tint until the frame's warps are known, rather than GL's leftovers
      float* warp_out = warp_output();
      fill(warp_out, warps_->size(), 1.0f, on_gpu() && surface_->device_memory());
      if (warp_scratch_.size() > 0) fill(warp_scratch_.get(), warp_scratch_.size(), 1.0f, true);
      warps_->end_frame();
    }
  }
}

void FramePipeline::start_external(const PixelGrid& from, const PixelGrid& to, bool divergence) {
  gpu_frame_ = GpuSlicedFrame();
  cpu_frame_ = CpuSlicedFrame();
  // The external renderers (perturbation) record warps on the GPU path only.
  divergence_ = divergence && on_gpu();
  if (divergence_ && !warps_) {
    float* warp_out = warp_output();
    fill(warp_out, warps_->size(), 1.0f, surface_->device_memory());
    if (warp_scratch_.size() > 0) fill(warp_scratch_.get(), warp_scratch_.size(), 1.0f, true);
    warps_->end_frame();
  }
  shown_grid_ = from;
  reproject(to);
  // The next plain frame has no grid of its own to move the image from.
  shown_grid_ = PixelGrid();
}

float* FramePipeline::begin_external() {
  external_out_ = surface_->begin_frame();
  external_warps_ = divergence_ ? warp_output() : nullptr;
  return on_gpu() && !surface_->device_memory() ? scratch_.get() : external_out_;
}

float* FramePipeline::external_warps() {
  if (!external_warps_) return nullptr;
  return surface_->device_memory() ? external_warps_ : warp_scratch_.get();
}

void FramePipeline::end_external() {
  // Where the surface is host memory the frame builds up in device scratch, copied whole.
  if (on_gpu() && !surface_->device_memory()) {
    CUDA_CHECK(cudaMemcpy(external_out_, scratch_.get(), scratch_.size() * sizeof(float),
                          cudaMemcpyDeviceToHost));
    if (external_warps_)
      CUDA_CHECK(cudaMemcpy(external_warps_, warp_scratch_.get(),
                            warp_scratch_.size() * sizeof(float), cudaMemcpyDeviceToHost));
  }
  surface_->end_frame();
  if (std::exchange(external_warps_, nullptr)) warps_->end_frame();
}

double FramePipeline::edge_inside_share() {
  const int w = surface_->width(), h = surface_->height();
  const std::size_t row = static_cast<std::size_t>(w) * kFloatsPerPixel;
  // The edge alone, as a frame of its own w x h with nothing inside the ring: two rows and two
  // columns come back from device memory.
  std::vector<float> top(row), bottom(row), left(static_cast<std::size_t>(h) * kFloatsPerPixel),
      right(left.size());
  const float* image = surface_->begin_frame();
  const bool device = on_gpu() && surface_->device_memory();
  const auto copy = [&](float* to, const float* from, std::size_t width_floats, int rows,
                        std::size_t pitch_floats) {
    if (device)
      CUDA_CHECK(cudaMemcpy2D(to, width_floats * sizeof(float), from, pitch_floats * sizeof(float),
                              width_floats * sizeof(float), rows, cudaMemcpyDeviceToHost));
    else
      for (int r = 0; r < rows; ++r)
        std::copy(from + r * pitch_floats, from + r * pitch_floats + width_floats,
                  to + r * width_floats);
  };
  copy(top.data(), image, row, 1, row);
  copy(bottom.data(), image + (h - 1) * row, row, 1, row);
  copy(left.data(), image, kFloatsPerPixel, h, row);
  copy(right.data(), image + (w - 1) * kFloatsPerPixel, kFloatsPerPixel, h, row);
  surface_->end_frame();
  return edge_ring_inside_share(top.data(), bottom.data(), left.data(), right.data(), w, h);
}

double FramePipeline::late_share(unsigned max_iter) {
  const int w = surface_->width(), h = surface_->height();
  const std::size_t pixels = static_cast<std::size_t>(w) * h;
  if (pixels == 0) return 0;
  const float* image = surface_->begin_frame();
  double share = 0;
  if (on_gpu() && surface_->device_memory()) {
    if (census_.size() == 0) census_ = DeviceBuffer<unsigned long long>(1);
    share = static_cast<double>(count_pixels_above(image, pixels, max_iter / 2.0f, census_.get())) /
            pixels;
  } else {
    share = mp::late_share(image, w, h, max_iter);
  }
  surface_->end_frame();
  return share;
}

std::vector<float> FramePipeline::pixels() {
  const std::size_t n =
      static_cast<std::size_t>(surface_->width()) * surface_->height() * kFloatsPerPixel;
  std::vector<float> out(n);
  if (n == 0) return out;
  const float* image = surface_->begin_frame();
  if (on_gpu() && surface_->device_memory())
    CUDA_CHECK(cudaMemcpy(out.data(), image, n * sizeof(float), cudaMemcpyDeviceToHost));
  else
    std::copy(image, image + n, out.begin());
  surface_->end_frame();
  return out;
}

void FramePipeline::reproject(const PixelGrid& grid) {
  const PixelGrid from = std::exchange(shown_grid_, grid);
  // Another variant or iteration limit keeps the view: its old image is already in place.
  if (from.width != grid.width || from.height != grid.height ||
      (from.x0 == grid.x0 && from.y0 == grid.y0 && from.dx == grid.dx && from.dy == grid.dy))
    return;
  const std::size_t n = static_cast<std::size_t>(grid.width) * grid.height * kFloatsPerPixel;
  // On the CPU the move is one thread's pass over the image, a few ms at 1080p: past that it
  // would hold up the window on every drag, so larger images keep the old image unmoved.
  constexpr std::size_t kCpuPreviewPixels = std::size_t{1} << 22;
  if (!on_gpu() && n / kFloatsPerPixel > kCpuPreviewPixels) return;
  float* out = surface_->begin_frame();
  if (!on_gpu()) {
    cpu_preview_from_.assign(out, out + n);
    reproject_on_host(from, cpu_preview_from_.data(), grid, out);
  } else {
    // Where the surface is host memory, the frame is built in device scratch and copied.
    float* image = surface_->device_memory() ? out : scratch_.get();
    if (preview_from_.size() != n) preview_from_ = DeviceBuffer<float>(n);
    CUDA_CHECK(cudaMemcpyAsync(preview_from_.get(), image, n * sizeof(float),
                               cudaMemcpyDeviceToDevice, nullptr));
    reproject_on_device(from, preview_from_.get(), grid, image, nullptr);
    if (!surface_->device_memory())
      CUDA_CHECK(cudaMemcpy(out, image, n * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaStreamSynchronize(nullptr));
  }
  surface_->end_frame();
}

std::optional<FrameMeasurement> FramePipeline::render_slice(GpuRenderer* gpu, double target_ms) {
  if (!refining()) return std::nullopt;
  if (!on_gpu()) return cpu_slice(target_ms);
  // Lent to a job meanwhile: nothing renders, and the frame goes on once it is back.
  if (!gpu) return std::nullopt;
  return gpu_slice(*gpu, target_ms);
}

std::optional<FrameMeasurement> FramePipeline::gpu_slice(GpuRenderer& gpu, double target_ms) {
  float* out = surface_->begin_frame();
  float* warp_out = divergence_ ? warp_output() : nullptr;
  // Where the surface is host memory the frame builds up in device scratch, copied whole after
  // each launch: the pixels not yet rendered are the previous frame's there too.
  const bool device_frame = surface_->device_memory();
  const GpuFrameStats& s = gpu_frame_.step(gpu, device_frame ? out : scratch_.get(), nullptr,
                                           !warp_out      ? nullptr
                                           : device_frame ? warp_out
                                                          : warp_scratch_.get(),
                                           target_ms);
  longest_launch_ms_ = std::max(longest_launch_ms_, s.longest_launch_ms);
  if (!device_frame) {
    CUDA_CHECK(
        cudaMemcpy(out, scratch_.get(), scratch_.size() * sizeof(float), cudaMemcpyDeviceToHost));
    if (warp_out)
      CUDA_CHECK(cudaMemcpy(warp_out, warp_scratch_.get(), warp_scratch_.size() * sizeof(float),
                            cudaMemcpyDeviceToHost));
  }
  surface_->end_frame();
  if (warp_out) warps_->end_frame();
  if (refining()) return std::nullopt;
  FrameMeasurement m;
  m.gpu = true;
  m.gpu_stats = s;
  return m;
}

std::optional<FrameMeasurement> FramePipeline::cpu_slice(double target_ms) {
  float* out = surface_->begin_frame();
  cpu_frame_.step(cpu_, out, divergence_ ? cpu_counts_.data() : nullptr, target_ms);
  surface_->end_frame();
  if (refining()) return std::nullopt;
  if (divergence_) {
    warp_efficiency_from_counts(cpu_counts_.data(), surface_->width(), surface_->height(),
                                warp_output());
    warps_->end_frame();
  }
  FrameMeasurement m;
  m.cpu_stats = cpu_frame_.stats();
  return m;
}

}  // namespace mp::gl
