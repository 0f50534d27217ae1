#include "commands/piece_renderer.h"

#include <cmath>
#include <iostream>

#include "cuda_check.h"

namespace mp {

PieceRenderer::PieceRenderer(const std::optional<DeviceInfo>& device, long long max_pixels,
                             bool approximate)
    : device_(device), approximate_(approximate) {
  if (device_) {
    CUDA_CHECK(cudaSetDevice(device_->index));
    gpu_ = std::make_unique<GpuRenderer>(*device_);
    scratch_ = DeviceBuffer<float>(static_cast<std::size_t>(max_pixels) * kFloatsPerPixel);
  }
}

std::string PieceRenderer::description() const {
  return device_ ? "CUDA on " + device_->name
                 : "CPU reference (" + std::to_string(cpu_.threads()) + " threads)";
}

void PieceRenderer::render(VariantId variant, const PixelGrid& g, unsigned max_iter, float* out) {
  ++launches;
  if (!gpu_) {
    cpu += cpu_.render(variant, g, max_iter, out);
    return;
  }
  const GpuFrameStats s = gpu_->render(variant, g, max_iter, scratch_.get());
  const std::size_t floats = static_cast<std::size_t>(g.width) * g.height * kFloatsPerPixel;
  CUDA_CHECK(cudaMemcpy(out, scratch_.get(), floats * sizeof(float), cudaMemcpyDeviceToHost));
  gpu_stats += s;
}

void PieceRenderer::render_deep(DeltaFormat format, const View& view, int width, int height,
                                PixelRect rect, float* out) {
  ++launches;
  const std::size_t floats = static_cast<std::size_t>(rect.width) * rect.height * kFloatsPerPixel;
  deep_stats += deep().render(format, view, width, height, rect, gpu_ ? scratch_.get() : out);
  if (gpu_)
    CUDA_CHECK(cudaMemcpy(out, scratch_.get(), floats * sizeof(float), cudaMemcpyDeviceToHost));
}

const std::shared_ptr<const DeepReference>& PieceRenderer::reference() const {
  static const std::shared_ptr<const DeepReference> kNone;
  return deep_ ? deep_->reference() : kNone;
}

DeepRenderer& PieceRenderer::deep() {
  if (!deep_) {
    deep_ = std::make_unique<DeepRenderer>(device_);
    deep_->set_approximation(approximate_);
  }
  return *deep_;
}

void PieceRenderer::prepare_deep(const View& view, int width, int height, Progress& progress) {
  if (const DeepReference* ref = reference().get(); ref && serves(*ref, view, width, height))
    return;
  deep().use(make_reference_said(view, width, height, progress));
}

void PieceRenderer::use_reference(std::shared_ptr<const DeepReference> ref) {
  if (ref != reference()) deep().use(std::move(ref));
}

std::shared_ptr<const DeepReference> make_reference_said(const View& view, int width, int height,
                                                         Progress& progress) {
  auto ref = make_reference(view, width, height, nullptr,
                            [&](double done) { progress.report("reference orbit", done); });
  const ReferenceOrbit& orbit = ref->orbit;
  if (ref->nucleus_period)
    std::cerr << "mandelpipe: the centre escapes at step " << ref->centre_escaped_at
              << ": the reference is the nucleus of a minibrot of period " << ref->nucleus_period
              << " in view\n";
  std::cerr << "mandelpipe: reference orbit: " << orbit.bits << " bits, " << orbit.z.size() - 1
            << " steps" << (orbit.escaped ? " (it escapes)" : "") << ", " << std::lround(orbit.ms)
            << " ms; approximation tables: " << ref->extended.levels() << " levels, "
            << std::lround(ref->bla_ms) << " ms\n";
  return ref;
}

}  // namespace mp
