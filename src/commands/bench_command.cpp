// mandelpipe bench: every variant at three fixed 4K views, median of timed frames, with the
// model's bound beside each; optionally the cost of each CUDA-to-GL present path.
#include <chrono>
#include <iostream>

#include "commands/commands.h"
#include "commands/common.h"
#include "commands/measure.h"
#include "cuda_check.h"
#include "device_buffer.h"
#include "gl/colorizer.h"
#include "gl/egl_context.h"
#include "gl/frame_pipeline.h"
#include "gl/offscreen_target.h"
#include "model/median.h"
#include "model/variant_table.h"
#include "render_kernel.cuh"

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

// fma4 with 0..4 __sinf per step at view C (SIMT efficiency 99.8%: almost every pixel runs all
// 16384 steps), at 1920x1080.
std::vector<SineSweepRow> sine_sweep(GpuRenderer& gpu, const LoadedSass& sass, int frames) {
  const DeviceInfo& dev = gpu.device();
  const int sm = dev.cc_major * 10 + dev.cc_minor;
  const PipeRates rates = pipe_rates(dev.cc_major, dev.cc_minor);
  const View view = kViews[2].view;
  const PixelGrid grid = pixel_grid(view, 1920, 1080);
  DeviceBuffer<float> out(static_cast<std::size_t>(1920) * 1080 * kFloatsPerPixel);
  using StepMix = InstrMix (*)(int);
  const StepMix declared_steps[] = {
      &variants::SinBalance<1>::step_mix, &variants::SinBalance<2>::step_mix,
      &variants::SinBalance<3>::step_mix, &variants::SinBalance<4>::step_mix};
  std::vector<SineSweepRow> rows;
  for (int m = 0; m <= variants::kMaxSweepSines; ++m) {
    auto frame = [&] {
      return m == 0 ? gpu.render(VariantId::Fma4, grid, view.max_iter, out.get())
                    : gpu.render_sin_balance(m, grid, view.max_iter, out.get());
    };
    for (int i = 0; i < kWarmup; ++i) frame();
    std::vector<GpuFrameStats> timed;
    for (int i = 0; i < frames; ++i) timed.push_back(frame());
    const GpuFrameStats s = median_frame(timed);
    SineSweepRow r;
    r.sines = m;
    if (m == 0) {
      r.per_step = per_step_mix(VariantId::Fma4, sm, &sass, false);
      r.mix_from_sass = sass.loops.count(VariantId::Fma4) > 0;
    } else if (sass.sin_balance.count(m)) {
      r.per_step = sass.sin_balance.at(m).mix;
      r.mix_from_sass = true;
    } else {  // estimate: the sines added to fma4's declared loop
      r.per_step = declared_steps[m - 1](sm) + variant_info(VariantId::Fma4).overhead(sm);
    }
    r.warp_steps = static_cast<double>(s.warp_iters);
    r.measured_cycles = static_cast<double>(s.sm_cycles);
    r.bound = compute_bound(rates, dev.sm_count, r.per_step, r.warp_steps);
    r.xu_busy = r.bound.cycles_of(Pipe::Xu) / r.measured_cycles;
    r.issue_busy = r.bound.cycles_of(Pipe::Issue) / r.measured_cycles;
    r.xu_predicted = r.bound.cycles_of(Pipe::Xu) / r.bound.max_cycles;
    r.issue_predicted = r.bound.cycles_of(Pipe::Issue) / r.bound.max_cycles;
    rows.push_back(r);
  }
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
  const LoadedSass sass = load_kernel_sass(self_executable(), dev.cc_major * 10 + dev.cc_minor);
  rep.device = summarize(dev, &sass);
  std::vector<VariantId> variants = o.bench_variants;
  if (variants.empty())
    for (const VariantInfo& v : all_variants()) variants.push_back(v.id);

  GpuRenderer gpu(dev);
  gpu.set_tile_order(o.tile_order);
  for (const NamedView& nv : kViews) {
    for (MeasuredRow& r : measure_variants(gpu, nv.name, nv.view, kWidth, kHeight, variants,
                                           o.bench_frames, kWarmup, &sass))
      rep.rows.push_back(std::move(r));
    std::cerr << "bench: view " << nv.name << " done\n";
  }
  if (o.bench_sin_sweep) rep.sweep = sine_sweep(gpu, sass, o.bench_frames);
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
