#include "commands/measure.h"

#include "cuda_check.h"
#include "device_buffer.h"
#include "model/median.h"

namespace mp {

GpuFrameStats median_frame(std::vector<GpuFrameStats> frames) {
  return median_by(std::move(frames), [](const GpuFrameStats& f) { return f.kernel_ms; });
}

std::vector<MeasuredRow> measure_variants(GpuRenderer& gpu, const std::string& view_name,
                                          const View& view, int width, int height,
                                          const std::vector<VariantId>& variants, int frames,
                                          int warmup, const LoadedSass* sass) {
  const std::size_t pixels = static_cast<std::size_t>(width) * height;
  const PixelGrid grid = pixel_grid(view, width, height);
  DeviceBuffer<float> out(pixels * kFloatsPerPixel);
  DeviceBuffer<unsigned> counts(pixels);
  // Step counts of one untimed frame.
  auto counts_of = [&](VariantId v) {
    gpu.render(v, grid, view.max_iter, out.get(), counts.get());
    std::vector<unsigned> host(pixels);
    CUDA_CHECK(
        cudaMemcpy(host.data(), counts.get(), pixels * sizeof(unsigned), cudaMemcpyDeviceToHost));
    return host;
  };
  const std::vector<unsigned> reference = counts_of(VariantId::Fma4);
  std::vector<MeasuredRow> rows;
  for (VariantId v : variants) {
    const std::vector<unsigned> mine = v == VariantId::Fma4 ? reference : counts_of(v);
    for (int i = 0; i < warmup; ++i) gpu.render(v, grid, view.max_iter, out.get());
    std::vector<GpuFrameStats> timed;
    for (int i = 0; i < frames; ++i) timed.push_back(gpu.render(v, grid, view.max_iter, out.get()));
    rows.push_back(measured_row(gpu.device(), v, view_name, view, width, height, frames,
                                median_frame(timed), sass));
    long long differ = 0;
    for (std::size_t i = 0; i < pixels; ++i) differ += mine[i] != reference[i];
    rows.back().differing_from_fma4 = differ;
  }
  return rows;
}

}  // namespace mp
