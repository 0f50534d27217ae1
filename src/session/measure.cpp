#include "session/measure.h"

#include <map>

#include "cuda_check.h"
#include "device_buffer.h"
#include "model/median.h"
#include "model/variant_table.h"
#include "model/view_limit.h"
#include "session/deep_reference.h"
#include "variants.h"

namespace mp {

namespace {

double kernel_ms(const GpuFrameStats& f) {
  return f.kernel_ms;
}

}  // namespace

VariantMeasurer::VariantMeasurer(GpuRenderer& gpu, std::string view_name, const View& view,
                                 int width, int height, int frames, int warmup,
                                 const LoadedSass* sass, CounterProbe* counters, bool first_frames)
    : gpu_(gpu),
      view_name_(std::move(view_name)),
      device_(device_facts(gpu.device())),
      view_(view),
      width_(width),
      height_(height),
      frames_(frames),
      warmup_(warmup),
      sass_(sass),
      counters_(counters),
      first_frames_(first_frames),
      grid_(pixel_grid(view, width, height)),
      out_(pixels() * kFloatsPerPixel),
      counts_(pixels()) {
  reference_ = counts_of(VariantId::Fma4);
  const DeviceInfo& dev = gpu.device();
  if (dev.peak_clock_khz > 0)
    limit_ = view_limit(reference_, width, height, *device_.rates, dev.sm_count,
                        dev.peak_clock_khz * 1e3);
}

// One frame of the variant; a perturbation variant's figures as a plain frame's, its warps'
// slowest lanes' steps as the warp-steps the model counts.
GpuFrameStats VariantMeasurer::frame(VariantId v, unsigned* counts) {
  const std::optional<DeltaFormat> format = variant_info(v).perturbation;
  if (!format) return gpu_.render(v, grid_, view_.max_iter, out_.get(), counts);
  if (!deep_) {
    deep_ = std::make_unique<DeepRenderer>(gpu_.device());
    deep_->use(make_reference(view_, width_, height_));
    deep_->set_approximation(false);
  }
  return deep_->render(*format, view_, width_, height_, {0, 0, width_, height_}, out_.get(), counts)
      .frame_stats();
}

// Step counts of one untimed frame.
std::vector<unsigned> VariantMeasurer::counts_of(VariantId v) {
  frame(v, counts_.get());
  std::vector<unsigned> host(pixels());
  CUDA_CHECK(
      cudaMemcpy(host.data(), counts_.get(), pixels() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  return host;
}

MeasuredRow VariantMeasurer::measure(VariantId v) {
  auto timed_frame = [&] {
    if (first_frames_) gpu_.forget_view();
    return frame(v, nullptr);
  };
  const std::vector<unsigned> mine = v == VariantId::Fma4 ? reference_ : counts_of(v);
  // The counters read the timed frames only.
  struct Frame {
    GpuFrameStats stats;
    std::uint64_t reading = 0;
  };
  CounterProbe* counters = counters_;
  const TimedRuns<Frame> timed = warm_median(
      warmup_, frames_,
      [&](bool is_timed) {
        Frame f;
        if (counters && is_timed) f.reading = counters->begin();
        f.stats = timed_frame();
        if (counters && is_timed) counters->end(f.reading, static_cast<double>(f.stats.sm_cycles));
        return f;
      },
      [](const Frame& f) { return kernel_ms(f.stats); });
  MeasuredRow row = measured_row(
      gpu_frame_report({view_, v, width_, height_}, timed.middle().stats, device_, sass_, frames_),
      view_name_);
  row.limit = limit_;
  // The whole kernel's instructions, from this variant's own counts (the view's, as the timed
  // frames ran it) and the listing of the build the median frame ran.
  const std::optional<DeltaFormat> format = variant_info(v).perturbation;
  if (!format) {
    add_whole_kernel(row, gpu_.device(), v, timed.middle().stats, sass_, mine.data());
  } else if (format == DeltaFormat::Double && deep_ && deep_->reference()) {
    // perturb's set-up runs as the grid's offsets from the reference have it.
    const DeepGrid g = deep_grid(*deep_->reference(), view_, width_, height_);
    add_whole_kernel(row, gpu_.device(), v, timed.middle().stats, sass_, mine.data(),
                     zero_grid_offsets(g));
  } else {
    WholeKernel none;
    none.unusable = kPerturbationNotModelled;
    row.whole = none;
  }
  if (counters) {
    // Every frame's figures are taken (so none are left behind); the median frame's kept.
    for (std::size_t i = 0; i < timed.runs.size(); ++i) {
      std::optional<CounterFigures> f = counters->take(timed.runs[i].reading, true);
      if (i == timed.median) row.counters = f;
    }
    // A listing of several paths counts more than runs: fewer counted is no sign of a short sample.
    if (row.counters && row.loop_branches == 0)
      withhold_short_counts(*row.counters, row.model_instructions);
  }
  long long differ = 0;
  double counted = 0;
  for (std::size_t i = 0; i < pixels(); ++i) {
    differ += mine[i] != reference_[i];
    counted += mine[i];
  }
  row.differing_from_fma4 = differ;
  row.counted_iters = counted;
  if (stalls_) add_stalls(v, row);
  return row;
}

void VariantMeasurer::add_stalls(VariantId v, MeasuredRow& row) {
  CounterFigures all;
  GpuFrameStats last;
  for (int k = 0; k < kStallFrames; ++k) {
    if (first_frames_) gpu_.forget_view();
    const std::uint64_t id = stalls_->begin();
    last = frame(v, nullptr);
    stalls_->end(id, static_cast<double>(last.sm_cycles));
    std::optional<CounterFigures> f = stalls_->take(id, true);
    if (!f || !f->stalls) {  // why not, for the whole row
      all = f ? *f : CounterFigures{};
      all.stalls.reset();
      if (all.unavailable.empty()) all.unavailable = "no stall reading came";
      break;
    }
    if (all.stalls)
      all.stalls->merge(*f->stalls);
    else
      all = *f;
  }
  row.stalls = all;
  if (!all.stalls) return;
  // The kernel most samples were in, and how many of its samples its step loop's lines had.
  std::map<std::string, std::uint64_t> per_kernel;
  for (const PcSamples& p : all.stalls->pcs) per_kernel[p.function] += all.stalls->samples(p);
  std::uint64_t most = 0;
  for (const auto& [kernel, n] : per_kernel)
    if (n > most) {
      most = n;
      row.stall_kernel = kernel;
    }
  const LoopListing* loop = sass_ ? sass_->loop(v, build_of(last)) : nullptr;
  if (loop && loop->function == row.stall_kernel) {
    const ListingStalls l = attribute_to_lines(*all.stalls, loop->function, loop->code);
    row.stall_loop_share =
        l.function_samples ? static_cast<double>(l.on_lines) / l.function_samples : 0;
  }
}

std::vector<MeasuredRow> measure_variants(GpuRenderer& gpu, const std::string& view_name,
                                          const View& view, int width, int height,
                                          const std::vector<VariantId>& variants, int frames,
                                          int warmup, const LoadedSass* sass,
                                          CounterProbe* counters, bool first_frames,
                                          CounterProbe* stalls) {
  VariantMeasurer m(gpu, view_name, view, width, height, frames, warmup, sass, counters,
                    first_frames);
  m.read_stalls(stalls);
  std::vector<MeasuredRow> rows;
  for (VariantId v : variants) rows.push_back(m.measure(v));
  return rows;
}

// View C: almost every pixel runs all 16384 steps (SIMT efficiency near 100%), so the pipes'
// balance is the kernel's, not the divergence's.
SineSweepRow sine_sweep_row(GpuRenderer& gpu, const LoadedSass* sass, int m, int frames,
                            int warmup) {
  const DeviceFacts dev = device_facts(gpu.device());
  const int arch = dev.arch;
  const PipeRates& rates = *dev.rates;
  const View view = kBenchViews[2].view;
  constexpr int kWidth = 1920, kHeight = 1080;
  const PixelGrid grid = pixel_grid(view, kWidth, kHeight);
  DeviceBuffer<float> out(static_cast<std::size_t>(kWidth) * kHeight * kFloatsPerPixel);
  using StepMix = InstrMix (*)(int);
  const StepMix declared_steps[] = {
      &variants::SinBalance<1>::step_mix, &variants::SinBalance<2>::step_mix,
      &variants::SinBalance<3>::step_mix, &variants::SinBalance<4>::step_mix};
  auto frame = [&] {
    return m == 0 ? gpu.render(VariantId::Fma4, grid, view.max_iter, out.get())
                  : gpu.render_sin_balance(m, grid, view.max_iter, out.get());
  };
  const GpuFrameStats s = warm_median(
                              warmup, frames, [&](bool) { return frame(); }, kernel_ms)
                              .middle();
  SineSweepRow r;
  r.sines = m;
  if (m == 0) {
    r.per_step = per_step_mix(VariantId::Fma4, arch, sass, sass::KernelBuild::Plain);
    r.mix_from_sass = sass && sass->loops.count(VariantId::Fma4) > 0;
  } else if (sass && sass->sin_balance.count(m)) {
    r.per_step = sass->sin_balance.at(m).mix;
    r.mix_from_sass = true;
  } else {  // estimate: the sines added to fma4's declared loop
    r.per_step = declared_steps[m - 1](arch) + variant_info(VariantId::Fma4).overhead(arch);
  }
  r.warp_steps = static_cast<double>(s.warp_iters);
  r.measured_cycles = static_cast<double>(s.sm_cycles);
  r.bound = compute_bound(rates, dev.sm_count, r.per_step, r.warp_steps);
  r.xu_busy = r.bound.cycles_of(Pipe::Xu) / r.measured_cycles;
  r.issue_busy = r.bound.cycles_of(Pipe::Issue) / r.measured_cycles;
  r.xu_predicted = r.bound.cycles_of(Pipe::Xu) / r.bound.max_cycles;
  r.issue_predicted = r.bound.cycles_of(Pipe::Issue) / r.bound.max_cycles;
  return r;
}

std::vector<SineSweepRow> sine_sweep(GpuRenderer& gpu, const LoadedSass* sass, int frames,
                                     int warmup) {
  std::vector<SineSweepRow> rows;
  for (int m = 0; m <= variants::kMaxSweepSines; ++m)
    rows.push_back(sine_sweep_row(gpu, sass, m, frames, warmup));
  return rows;
}

}  // namespace mp
