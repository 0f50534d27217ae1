// mandelpipe bench: every variant at three fixed 4K views, median of timed frames, with the
// model's bound beside each; optionally the cost of each CUDA-to-GL present path.
#include <algorithm>
#include <chrono>
#include <iostream>

#include "commands/commands.h"
#include "commands/common.h"
#include "cuda_check.h"
#include "device_buffer.h"
#include "gl/colorizer.h"
#include "gl/egl_context.h"
#include "gl/frame_pipeline.h"
#include "gl/offscreen_target.h"
#include "model/variant_table.h"

namespace mp {
namespace {

constexpr int kWidth = 3840, kHeight = 2160, kWarmup = 2;

struct NamedView {
  const char* name;
  View view;
};
const NamedView kViews[] = {
    {"A", {-0.5, 0.0, 3.0, 1024}},
    {"B", {-0.743643887037151, 0.131825904205330, 0.005, 4096}},
    {"C", {-0.75, 0.0, 0.05, 16384}},
};

// The frame with the median kernel time (lower median), so its numbers belong together.
GpuFrameStats median_frame(std::vector<GpuFrameStats> frames) {
  std::sort(frames.begin(), frames.end(), [](const GpuFrameStats& a, const GpuFrameStats& b) {
    return a.kernel_ms < b.kernel_ms;
  });
  return frames[(frames.size() - 1) / 2];
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[(v.size() - 1) / 2];
}

template <class F>
double time_median_ms(int frames, F&& body) {
  for (int i = 0; i < kWarmup; ++i) body();
  std::vector<double> ms;
  for (int i = 0; i < frames; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    body();
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return median(ms);
}

// Wall time per frame of each way to hand a 4K frame to GL, next to its parts. View A at 64
// iterations keeps the kernel small beside the hand-over being measured.
std::vector<PresentRow> bench_present(const DeviceInfo& dev, int frames) {
  gl::EglContext egl;
  const View view{-0.5, 0.0, 3.0, 64};
  const VariantId variant = VariantId::Fma4;
  std::vector<PresentRow> rows;
  {
    GpuRenderer gpu(dev);
    DeviceBuffer<float> out(static_cast<std::size_t>(kWidth) * kHeight * kFloatsPerPixel);
    const PixelGrid grid = pixel_grid(view, kWidth, kHeight);
    rows.push_back(
        {"kernel alone (plain device buffer)",
         time_median_ms(frames, [&] { gpu.render(variant, grid, view.max_iter, out.get()); }),
         "launch + stats read-back, no GL"});
  }
  gl::OffscreenTarget target(kWidth, kHeight);
  gl::Colorizer colorizer;
  colorizer.set_palette(find_palette("ember"));
  for (PresentMode mode :
       {PresentMode::TextureBuffer, PresentMode::PboTexture, PresentMode::ImageCopy}) {
    gl::FramePipeline pipe(dev, "", mode);
    pipe.resize(kWidth, kHeight);
    if (!pipe.fallback_reason().empty()) {
      rows.push_back({present_mode_name(mode), 0, "unavailable: " + pipe.fallback_reason()});
      continue;
    }
    const std::string name =
        std::string(present_mode_name(mode)) + ": " + pipe.present_description();
    rows.push_back({name,
                    time_median_ms(frames,
                                   [&] {
                                     pipe.render(variant, view);
                                     glFinish();
                                   }),
                    "map + kernel + unmap (+ copy), GL finished"});
    target.bind();
    rows.push_back({name,
                    time_median_ms(frames,
                                   [&] {
                                     pipe.render(variant, view);
                                     colorizer.draw(pipe.surface(), ColourParams{});
                                     glFinish();
                                   }),
                    "whole frame: the above + palette draw"});
    rows.push_back({name,
                    time_median_ms(frames,
                                   [&] {
                                     colorizer.draw(pipe.surface(), ColourParams{});
                                     glFinish();
                                   }),
                    "palette draw alone"});
  }
  rows.push_back({"GL context", 0, egl.description()});
  return rows;
}

}  // namespace

int run_bench(const Options& o) {
  const DeviceChoice dc = choose_device(false);
  if (!dc.device)
    throw ExitError(3,
                    "bench needs a CUDA GPU: " + dc.cpu_reason.substr(0, dc.cpu_reason.find(';')));
  const DeviceInfo& dev = *dc.device;
  BenchReport rep;
  rep.device = summarize(dev);
  std::vector<VariantId> variants = o.bench_variants;
  if (variants.empty())
    for (const VariantInfo& v : all_variants()) variants.push_back(v.id);

  GpuRenderer gpu(dev);
  const std::size_t pixels = static_cast<std::size_t>(kWidth) * kHeight;
  DeviceBuffer<float> out(pixels * kFloatsPerPixel);
  DeviceBuffer<unsigned> counts(pixels);
  // Step counts of one untimed frame, to compare each variant's image with fma4's.
  auto counts_of = [&](VariantId v, const NamedView& nv) {
    gpu.render(v, pixel_grid(nv.view, kWidth, kHeight), nv.view.max_iter, out.get(), counts.get());
    std::vector<unsigned> host(pixels);
    CUDA_CHECK(cudaMemcpy(host.data(), counts.get(), pixels * sizeof(unsigned),
                          cudaMemcpyDeviceToHost));
    return host;
  };
  for (const NamedView& nv : kViews) {
    const PixelGrid grid = pixel_grid(nv.view, kWidth, kHeight);
    const std::vector<unsigned> reference = counts_of(VariantId::Fma4, nv);
    for (VariantId v : variants) {
      for (int i = 0; i < kWarmup; ++i) gpu.render(v, grid, nv.view.max_iter, out.get());
      std::vector<GpuFrameStats> frames;
      for (int i = 0; i < o.bench_frames; ++i)
        frames.push_back(gpu.render(v, grid, nv.view.max_iter, out.get()));
      rep.rows.push_back(measured_row(dev, v, nv.name, nv.view, kWidth, kHeight, o.bench_frames,
                                      median_frame(frames)));
      const std::vector<unsigned> mine = v == VariantId::Fma4 ? reference : counts_of(v, nv);
      long long differ = 0;
      for (std::size_t i = 0; i < pixels; ++i) differ += mine[i] != reference[i];
      rep.rows.back().differing_from_fma4 = differ;
      std::cerr << "bench: view " << nv.name << " " << variant_info(v).name << " done\n";
    }
  }
  if (o.bench_present) {
    try {
      rep.present = bench_present(dev, o.bench_frames);
    } catch (const CudaError&) {
      throw;
    } catch (const std::runtime_error& e) {
      throw ExitError(2,
                      std::string("bench --present needs an off-screen GL context: ") + e.what());
    }
  }
  std::cout << format_bench(rep, o.format);
  return 0;
}

}  // namespace mp
