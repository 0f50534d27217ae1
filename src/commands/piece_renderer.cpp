#include "commands/piece_renderer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>

#include "cuda_check.h"
#include "session/deep_sliced_frame.h"

namespace mp {

PieceRenderer::PieceRenderer(const std::optional<DeviceInfo>& device, long long max_pixels,
                             bool approximate)
    : device_(device), approximate_(approximate) {
  if (device_) {
    CUDA_CHECK(cudaSetDevice(device_->index));
    gpu_ = std::make_unique<GpuRenderer>(*device_);
    scratch_ = DeviceBuffer<float>(static_cast<std::size_t>(max_pixels) * kFloatsPerPixel);
    rgb_ = DeviceBuffer<std::uint8_t>(static_cast<std::size_t>(max_pixels) * 3);
    colour_start_ = std::make_unique<Event>();
    colour_stop_ = std::make_unique<Event>();
  }
}

std::string PieceRenderer::description() const {
  return device_ ? "CUDA on " + device_->name
                 : "CPU reference (" + std::to_string(cpu_.threads()) + " threads)";
}

void PieceRenderer::render(VariantId variant, const PixelGrid& g, unsigned max_iter, float* out,
                           const RunDone& done) {
  if (!gpu_) {
    const std::uint64_t total = static_cast<std::uint64_t>(g.width) * g.height;
    for (std::uint64_t next = 0; next < total;) {
      const CpuFrameStats s = cpu_.render_pixels(variant, g, max_iter, next, total, out, nullptr,
                                                 Progress::kStep * 1e3);
      ++launches;
      cpu += s;
      next += s.pixels;
      if (done) done(static_cast<double>(next) / total);
    }
    return;
  }
  const unsigned across = static_cast<unsigned>(blocks_across(g.width)),
                 down = static_cast<unsigned>((g.height + kBlockH - 1) / kBlockH);
  const unsigned tiles_a_row = across * kWarpsPerBlock;
  const bool same =
      rate_.width == g.width && rate_.variant == variant && rate_.max_iter == max_iter;
  // A quarter of the last band's rate for the first run: this band's rows may cost more, and a
  // run is to stay about a progress step long.
  double rows_per_s = same ? rate_.rows_per_s / 4 : 0;
  for (unsigned r0 = 0; r0 < down;) {
    const unsigned rows =
        rows_per_s > 0
            ? std::clamp(static_cast<unsigned>(rows_per_s * Progress::kStep), 1u, down - r0)
            : std::min(std::max(down / 64, 1u), down - r0);
    const GpuFrameStats s =
        gpu_->render_tiles(variant, g, max_iter, r0 * tiles_a_row, (r0 + rows) * tiles_a_row,
                           scratch_.get(), nullptr, nullptr, OrbitSplit{});
    ++launches;
    r0 += rows;
    rows_per_s = rows / std::max(s.kernel_ms * 1e-3, 1e-6);
    rate_ = {g.width, variant, max_iter, rows_per_s};
    gpu_stats += s;
    if (done) done(static_cast<double>(r0) / down);
  }
  if (!out) return;
  const std::size_t floats = static_cast<std::size_t>(g.width) * g.height * kFloatsPerPixel;
  CUDA_CHECK(cudaMemcpy(out, scratch_.get(), floats * sizeof(float), cudaMemcpyDeviceToHost));
}

void PieceRenderer::colour(const ColourLook& look, int gw, int gh, int ss, std::uint8_t* rgb,
                           std::size_t pitch) {
  // On the legacy stream, which waits for whatever stream the render's kernels ran on.
  const std::size_t row = static_cast<std::size_t>(gw / ss) * 3;
  CUDA_CHECK(cudaEventRecord(colour_start_->get(), cudaStreamLegacy));
  colour_on_device(scratch_.get(), gw, gh, ss, look, rgb_.get(), row, cudaStreamLegacy);
  CUDA_CHECK(cudaEventRecord(colour_stop_->get(), cudaStreamLegacy));
  CUDA_CHECK(cudaMemcpy2DAsync(rgb, pitch, rgb_.get(), row, row, static_cast<std::size_t>(gh / ss),
                               cudaMemcpyDeviceToHost, cudaStreamLegacy));
  CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, colour_start_->get(), colour_stop_->get()));
  colour_ms += ms;
}

void PieceRenderer::render_deep(DeltaFormat format, const View& view, int width, int height,
                                PixelRect rect, float* out, const RunDone& done) {
  using Clock = std::chrono::steady_clock;
  double rows_per_s = 0;
  // No run so short that it leaves the GPU idle: its time would be its slowest warp's whatever its
  // rows, and a rate read from it would shrink the next run to a row.
  const int fill = fill_rows(deep().fill_warps(), rect.width);
  for (int r0 = 0; r0 < rect.height;) {
    int rows = rows_per_s > 0
                   ? std::clamp(static_cast<int>(rows_per_s * Progress::kStep), 1, rect.height - r0)
                   : std::min(std::max(rect.height / 64, 1), rect.height - r0);
    rows = std::max(rows, std::min(fill, rect.height - r0));
    const PixelRect run{rect.x0, rect.y0 + r0, rect.width, rows};
    const std::size_t at = static_cast<std::size_t>(r0) * rect.width * kFloatsPerPixel;
    const std::size_t floats = static_cast<std::size_t>(rect.width) * rows * kFloatsPerPixel;
    const Clock::time_point t0 = Clock::now();
    ++launches;
    // On the GPU the run stays at its place in the piece, for colour().
    deep_stats +=
        deep().render(format, view, width, height, run, gpu_ ? scratch_.get() + at : out + at);
    if (gpu_ && out)
      CUDA_CHECK(cudaMemcpy(out + at, scratch_.get() + at, floats * sizeof(float),
                            cudaMemcpyDeviceToHost));
    r0 += rows;
    rows_per_s = rows / std::max(std::chrono::duration<double>(Clock::now() - t0).count(), 1e-6);
    if (done) done(static_cast<double>(r0) / rect.height);
  }
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

void PieceRenderer::use_reference(std::shared_ptr<const DeepReference> ref) {
  if (ref != reference()) deep().use(std::move(ref));
}

std::shared_ptr<const DeepReference> make_reference_said(const View& view, int width, int height,
                                                         Progress& progress, bool tables) {
  auto ref = make_reference(
      view, width, height, nullptr, [&](double done) { progress.report("reference orbit", done); },
      tables);
  const ReferenceOrbit& orbit = ref->orbit;
  if (ref->nucleus_period)
    std::cerr << "mandelpipe: the centre escapes at step " << ref->centre_escaped_at
              << ": the reference is the nucleus of a minibrot of period " << ref->nucleus_period
              << " in view\n";
  std::cerr << "mandelpipe: reference orbit: " << orbit.bits << " bits, " << orbit.z.size() - 1
            << " steps" << (orbit.escaped ? " (it escapes)" : "") << ", " << std::lround(orbit.ms)
            << " ms; "
            << (tables ? "approximation tables: " + std::to_string(ref->extended.levels()) +
                             " levels, " + std::to_string(std::lround(ref->bla_ms)) + " ms"
                       : std::string("no approximation tables (--no-approximation)"))
            << "\n";
  return ref;
}

}  // namespace mp
