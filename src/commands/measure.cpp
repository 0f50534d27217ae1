#include "commands/measure.h"

#include "cuda_check.h"
#include "device_buffer.h"
#include "model/median.h"
#include "model/variant_table.h"
#include "model/view_limit.h"
#include "variants.h"

namespace mp {

GpuFrameStats median_frame(std::vector<GpuFrameStats> frames) {
  return median_by(std::move(frames), [](const GpuFrameStats& f) { return f.kernel_ms; });
}

std::vector<MeasuredRow> measure_variants(GpuRenderer& gpu, const std::string& view_name,
                                          const View& view, int width, int height,
                                          const std::vector<VariantId>& variants, int frames,
                                          int warmup, const LoadedSass* sass,
                                          CounterProbe* counters, bool first_frames) {
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
  const DeviceInfo& dev = gpu.device();
  std::optional<ViewLimit> limit;
  if (dev.peak_clock_khz > 0)
    limit = view_limit(reference, width, height, pipe_rates(dev.cc_major, dev.cc_minor),
                       dev.sm_count, dev.peak_clock_khz * 1e3);
  auto frame = [&](VariantId v) {
    if (first_frames) gpu.forget_view();
    return gpu.render(v, grid, view.max_iter, out.get());
  };
  std::vector<MeasuredRow> rows;
  for (VariantId v : variants) {
    const std::vector<unsigned> mine = v == VariantId::Fma4 ? reference : counts_of(v);
    for (int i = 0; i < warmup; ++i) frame(v);
    std::vector<GpuFrameStats> timed;
    std::vector<std::uint64_t> readings;
    for (int i = 0; i < frames; ++i) {
      if (counters) readings.push_back(counters->begin());
      timed.push_back(frame(v));
      if (counters) counters->end(readings.back(), static_cast<double>(timed.back().sm_cycles));
    }
    const GpuFrameStats median = median_frame(timed);
    rows.push_back(
        measured_row(gpu.device(), v, view_name, view, width, height, frames, median, sass));
    rows.back().limit = limit;
    if (counters) {
      // Every frame's figures are taken (so none are left behind); the median frame's kept.
      for (std::size_t i = 0; i < readings.size(); ++i) {
        std::optional<CounterFigures> f = counters->take(readings[i], true);
        if (timed[i].kernel_ms == median.kernel_ms && !rows.back().counters)
          rows.back().counters = f;
      }
      if (rows.back().counters)
        withhold_short_counts(*rows.back().counters, rows.back().model_instructions);
    }
    long long differ = 0;
    for (std::size_t i = 0; i < pixels; ++i) differ += mine[i] != reference[i];
    rows.back().differing_from_fma4 = differ;
  }
  return rows;
}

// View C: almost every pixel runs all 16384 steps (SIMT efficiency near 100%), so the pipes'
// balance is the kernel's, not the divergence's.
std::vector<SineSweepRow> sine_sweep(GpuRenderer& gpu, const LoadedSass* sass, int frames,
                                     int warmup) {
  const DeviceInfo& dev = gpu.device();
  const int sm = dev.cc_major * 10 + dev.cc_minor;
  const PipeRates rates = pipe_rates(dev.cc_major, dev.cc_minor);
  const View view = kBenchViews[2].view;
  constexpr int kWidth = 1920, kHeight = 1080;
  const PixelGrid grid = pixel_grid(view, kWidth, kHeight);
  DeviceBuffer<float> out(static_cast<std::size_t>(kWidth) * kHeight * kFloatsPerPixel);
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
    for (int i = 0; i < warmup; ++i) frame();
    std::vector<GpuFrameStats> timed;
    for (int i = 0; i < frames; ++i) timed.push_back(frame());
    const GpuFrameStats s = median_frame(timed);
    SineSweepRow r;
    r.sines = m;
    if (m == 0) {
      r.per_step = per_step_mix(VariantId::Fma4, sm, sass, false);
      r.mix_from_sass = sass && sass->loops.count(VariantId::Fma4) > 0;
    } else if (sass && sass->sin_balance.count(m)) {
      r.per_step = sass->sin_balance.at(m).mix;
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

}  // namespace mp
