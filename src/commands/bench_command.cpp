// mandelpipe bench: every variant at three fixed 4K views, median of timed frames, with the
// model's bound beside each; optionally the cost of each CUDA-to-GL present path.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "commands/commands.h"
#include "commands/common.h"
#include "cuda_check.h"
#include "device_buffer.h"
#include "gl/colourizer.h"
#include "gl/egl_context.h"
#include "gl/frame_pipeline.h"
#include "gl/offscreen_target.h"
#include "model/median.h"
#include "model/precision_choice.h"
#include "model/variant_table.h"
#include "render_kernel.cuh"
#include "session/counter_feed.h"
#include "session/deep_renderer.h"
#include "session/device.h"
#include "session/frame_report.h"
#include "session/measure.h"

namespace mp {
namespace {

constexpr int kWidth = 3840, kHeight = 2160, kWarmup = 2;

template <class F>
double time_median_ms(int frames, F&& body) {
  const auto wall_ms = [&](bool) {
    const auto t0 = std::chrono::steady_clock::now();
    body();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  return warm_median(kWarmup, frames, wall_ms, [](double ms) { return ms; }).middle();
}

// How a present path is judged: what a frame costs beyond the kernel, in palette draws.
std::string beyond_the_kernel(double frame_ms, double kernel_ms, double draw_ms) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "beyond the kernel: %.2fx the draw",
                (frame_ms - kernel_ms) / draw_ms);
  return buf;
}

// Wall time per frame of each way to hand a 4K frame to GL, next to its parts. View A at 64
// iterations keeps the kernel small beside the hand-over being measured.
// `gpu`: the session's renderer, lent to the bench; put back as a fresh one is, for the window's
// way of rendering.
std::vector<PresentRow> bench_present(GpuRenderer& gpu, int frames) {
  gl::EglContext egl;
  const View view = view_at(-0.5, 0.0, 3.0, 64);
  const VariantId variant = VariantId::Fma4;
  std::vector<PresentRow> rows;
  gpu.set_tile_order(TileOrder::CostliestFirst);
  gpu.forget_view();
  DeviceBuffer<float> out(static_cast<std::size_t>(kWidth) * kHeight * kFloatsPerPixel);
  const PixelGrid grid = pixel_grid(view, kWidth, kHeight);
  const auto kernel = [&] { gpu.render(variant, grid, view.max_iter, out.get()); };
  const double kernel_ms = time_median_ms(frames, kernel);
  rows.push_back(
      {"kernel alone (plain device buffer)", kernel_ms, "launch + stats read-back, no GL"});
  gl::OffscreenTarget target(kWidth, kHeight);
  target.bind();
  gl::Colourizer colourizer;
  colourizer.set_palette(find_palette("ember"));
  {
    // GL and CUDA taking turns on the GPU with nothing shared: what this costs beyond the
    // kernel and the draw, no present path can take away.
    const auto surface = gl::make_host_surface(kWidth, kHeight);
    kernel();  // the view's own frame, so that the shader takes the same branches
    CUDA_CHECK(cudaMemcpy(surface->begin_frame(), out.get(), out.size() * sizeof(float),
                          cudaMemcpyDeviceToHost));
    surface->end_frame();
    const double draw_ms = time_median_ms(frames, [&] {
      colourizer.draw(*surface, ColourParams{});
      glFinish();
    });
    const double both_ms = time_median_ms(frames, [&] {
      kernel();
      colourizer.draw(*surface, ColourParams{});
      glFinish();
    });
    rows.push_back({"kernel, then a draw of other memory", both_ms,
                    "nothing handed over; " + beyond_the_kernel(both_ms, kernel_ms, draw_ms)});
  }
  for (PresentMode mode :
       {PresentMode::TextureBuffer, PresentMode::PboTexture, PresentMode::ImageCopy}) {
    gl::FramePipeline pipe(gpu.device(), "", mode);
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
                                     pipe.render(&gpu, variant, view);
                                     glFinish();
                                   }),
                    "hand-over + kernel (map/unmap, copy or fence), GL finished"});
    const double frame_ms = time_median_ms(frames, [&] {
      pipe.render(&gpu, variant, view);
      colourizer.draw(pipe.surface(), ColourParams{});
      glFinish();
    });
    const double draw_ms = time_median_ms(frames, [&] {
      colourizer.draw(pipe.surface(), ColourParams{});
      glFinish();
    });
    rows.push_back({name, frame_ms,
                    "whole frame: the above + palette draw; " +
                        beyond_the_kernel(frame_ms, kernel_ms, draw_ms)});
    rows.push_back({name, draw_ms, "palette draw alone"});
  }
  rows.push_back({"GL context", 0, egl.description()});
  return rows;
}

// A deep view's frame, timed as the variants are: warm-ups, then the median of timed frames,
// with the approximation and with every step iterated; the row is read from the two median
// frames' reports.
DeepRow measure_deep(DeepRenderer& r, const std::string& name, const View& view, DeltaFormat f,
                     int width, int height, int frames) {
  if (!r.reference() || !serves(*r.reference(), view, width, height))
    r.use(make_reference(view, width, height));
  DeviceBuffer<float> out(static_cast<std::size_t>(width) * height * kFloatsPerPixel);
  VariantId variant = VariantId::PerturbDouble;  // the variant whose differences are in f
  for (const VariantInfo& v : all_variants())
    if (v.perturbation == f) variant = v.id;
  const FrameOf of{view, variant, width, height, false, true};
  std::optional<FrameReport> approximated, every_step;
  for (bool approximate : {true, false}) {
    r.set_approximation(approximate);
    std::vector<DeepStats> runs;
    for (int k = 0; k < kWarmup + frames; ++k) {
      const DeepStats s = r.render(f, view, width, height, {0, 0, width, height}, out.get());
      if (k >= kWarmup) runs.push_back(s);
    }
    std::sort(runs.begin(), runs.end(),
              [](const DeepStats& a, const DeepStats& b) { return a.ms < b.ms; });
    (approximate ? approximated : every_step) =
        deep_frame_report(of, runs[runs.size() / 2], frames);
  }
  r.set_approximation(true);
  return deep_row(name, *approximated, *every_step, *r.reference());
}

// Every view (and the sweep and present paths where asked) on one GPU.
BenchReport bench_on(const BenchOptions& o, const DeviceInfo& dev) {
  CUDA_CHECK(cudaSetDevice(dev.index));  // what is made here (the deep renderer) is made on it
  BenchReport rep;
  const DeviceFacts facts = device_facts(dev);
  const LoadedSass sass = load_kernel_sass(self_executable(), facts.arch);
  rep.device = summarize(dev, &sass);
  std::vector<VariantId> variants = o.variants;
  if (variants.empty())
    for (const VariantInfo& v : all_variants()) variants.push_back(v.id);

  // The session's renderer, lent to the bench for the whole run: every view, the sweep, the
  // present paths.
  GpuLease session = session_renderer(dev);
  GpuRenderer& gpu = *session.lend("bench");
  gpu.set_tile_order(o.tiles_in_rows ? TileOrder::Rows : TileOrder::CostliestFirst);
  const std::unique_ptr<CounterProbe> counters =
      start_counters(o.counters, o.counter_interval_us, dev);
  const std::unique_ptr<counters::PcSampler> stalls = start_stalls(o.stalls, dev);
  // The user's views and zoom path are timed as a user meets them: each frame a view's first.
  struct Timed {
    std::string name;
    View view;
  };
  std::vector<Timed> views;
  const bool own = !o.views.empty() || o.zoom;
  for (std::size_t i = 0; i < o.views.size(); ++i)
    views.push_back({"view " + std::to_string(i + 1), o.views[i]});
  const std::size_t zoom_start = views.size();
  if (o.zoom) {
    const std::vector<View> path = zoom_views(*o.zoom);
    for (std::size_t i = 0; i < path.size(); ++i)
      views.push_back(
          {"zoom " + std::to_string(i + 1) + "/" + std::to_string(path.size()), path[i]});
  }
  if (!own)
    for (const NamedView& nv : kBenchViews) views.push_back({nv.name, nv.view});
  // --tile-order rows times A, B and C the same way.
  const bool first_frames = own || o.tiles_in_rows;
  std::vector<MeasuredRow> zoom_rows;
  std::unique_ptr<DeepRenderer> deep;
  for (std::size_t i = 0; i < views.size(); ++i) {
    // The window's rule: past double, perturbation renders the view, not the plain variants;
    // each perturbation variant asked for whose format holds there, else the rule's own choice.
    const PrecisionChoice choice = choose_precision(
        views[i].view, o.width, o.height, VariantId::Fma4, VariantId::Fma4, false, facts.cc);
    if (choice.perturbation) {
      std::vector<DeltaFormat> formats;
      for (VariantId v : variants)
        if (variant_info(v).perturbation &&
            !choose_precision(views[i].view, o.width, o.height, v, v, true, std::nullopt).exhausted)
          formats.push_back(*variant_info(v).perturbation);
      if (formats.empty()) formats.push_back(*choice.perturbation);
      if (!deep) deep = std::make_unique<DeepRenderer>(dev);
      for (DeltaFormat f : formats) {
        rep.deep.push_back(
            measure_deep(*deep, views[i].name, views[i].view, f, o.width, o.height, o.frames));
        std::cerr << "bench: " << views[i].name << " done (" << rep.deep.back().rendered_by
                  << ")\n";
      }
      continue;
    }
    std::vector<MeasuredRow> rows =
        measure_variants(gpu, views[i].name, views[i].view, o.width, o.height, variants, o.frames,
                         kWarmup, &sass, counters.get(), first_frames, stalls.get());
    if (o.zoom && i >= zoom_start) zoom_rows.insert(zoom_rows.end(), rows.begin(), rows.end());
    for (MeasuredRow& r : rows) rep.rows.push_back(std::move(r));
    std::cerr << "bench: " << views[i].name << " done\n";
  }
  rep.zoom = zoom_totals(zoom_rows);
  if (stalls) rep.stall_source = stalls->description();
  if (o.sin_sweep) rep.sweep = sine_sweep(gpu, &sass, o.frames, kWarmup);
  if (o.present) {
    try {
      rep.present = bench_present(gpu, o.frames);
    } catch (const CudaError&) {
      throw;
    } catch (const std::runtime_error& e) {
      throw ExitError(2,
                      std::string("bench --present needs an off-screen GL context: ") + e.what());
    }
  }
  return rep;
}

}  // namespace

int run_bench(const BenchOptions& o) {
  // The first GPU unless --devices names others: each is timed in turn, a report each.
  const DeviceChoice dc = o.devices.given ? choose_devices(o.devices, false) : choose_device(false);
  if (!dc.device)
    throw ExitError(3,
                    "bench needs a CUDA GPU: " + dc.cpu_reason.substr(0, dc.cpu_reason.find(';')));
  if (dc.devices.size() > 1 && o.format == OutputFormat::Csv)
    throw ExitError(2, "--format csv: one table of one GPU's rows; with " +
                           std::to_string(dc.devices.size()) +
                           " GPUs use --format json (or md), a report each");
  if (dc.devices.size() == 1) {
    std::cout << format_bench(bench_on(o, dc.devices.front()), o.format);
    return 0;
  }
  nlohmann::json all = {{"devices", nlohmann::json::array()}};
  for (const DeviceInfo& d : dc.devices) {
    const BenchReport rep = bench_on(o, d);
    if (o.format == OutputFormat::Json)
      all["devices"].push_back(nlohmann::json::parse(format_bench(rep, o.format)));
    else
      std::cout << format_bench(rep, o.format) << "\n";
  }
  if (o.format == OutputFormat::Json) std::cout << all.dump(2) << "\n";
  return 0;
}

}  // namespace mp
