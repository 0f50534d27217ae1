#include "session/frame_report.h"

#include "model/variant_table.h"

namespace mp {

sass::KernelBuild build_of(const GpuFrameStats& s) {
  return s.resumable   ? sass::KernelBuild::Resumable
         : s.recording ? sass::KernelBuild::Recording
                       : sass::KernelBuild::Plain;
}

InstrMix per_step_mix(VariantId variant, int arch, const LoadedSass* sass,
                      sass::KernelBuild build) {
  const VariantInfo& v = variant_info(variant);
  if (const LoopListing* l = sass ? sass->loop(variant, build) : nullptr)
    return l->mix * (1.0 / v.steps_per_check);
  return v.per_iteration(arch);
}

FrameNumbers frame_numbers(const GpuFrameStats& s) {
  FrameNumbers f;
  f.kernel_ms = s.kernel_ms;
  f.sm_cycles = static_cast<double>(s.sm_cycles);
  f.pixel_iters = static_cast<double>(s.pixel_iters);
  f.warp_iters = static_cast<double>(s.warp_iters);
  f.sm_cycles_mean = s.sm_cycles_mean;
  return f;
}

FrameReport gpu_frame_report(const FrameOf& of, const GpuFrameStats& s, const DeviceFacts& device,
                             const LoadedSass* sass, int frames) {
  FrameReport r;
  r.of = of;
  r.frames = frames;
  r.gpu = true;
  r.gpu_stats = s;
  r.measured = frame_numbers(s);
  // A plain variant that runs every step it counts: counted is run. Others (stopped periodic
  // orbits, perturbation's skipped steps) are counted where their counts are read (bench).
  const VariantInfo& vi = variant_info(of.variant);
  if (!vi.stops_cycles && !vi.perturbation) r.counted_iters = r.measured.pixel_iters;
  r.arch = device.arch;
  r.build = build_of(s);
  const LoopListing* loop = sass ? sass->loop(of.variant, r.build) : nullptr;
  r.per_step = per_step_mix(of.variant, device.arch, sass, r.build);
  r.mix_from_sass = loop != nullptr;
  r.heavy_only = loop ? loop->heavy_only / vi.steps_per_check : -1;
  r.loop_branches = loop ? loop->branches_within : 0;
  r.model_instructions = r.per_step.total() * r.measured.warp_iters;
  if (!device.rates) return r;
  r.metrics = derive_metrics(*device.rates, device.sm_count, r.per_step, r.measured);
  r.pipe_loads = pipe_loads(*device.rates, device.sm_count, r.per_step, r.heavy_only,
                            r.measured.warp_iters, r.measured.sm_cycles, r.metrics->clock_ghz);
  return r;
}

FrameReport cpu_frame_report(const FrameOf& of, const CpuFrameStats& s) {
  FrameReport r;
  r.of = of;
  r.cpu_stats = s;
  r.counted_iters = static_cast<double>(s.pixel_counted);
  return r;
}

MeasuredRow measured_row(const FrameReport& r, const std::string& view_name) {
  MeasuredRow row;
  row.view_name = view_name;
  row.variant = std::string(variant_info(r.of.variant).name);
  row.width = r.of.width;
  row.height = r.of.height;
  row.view = r.of.view;
  row.frames = r.frames;
  row.measured = r.measured;
  row.counted_iters = r.counted_iters;
  row.tiles_by_cost = r.gpu_stats.by_cost;
  if (r.metrics) row.metrics = *r.metrics;
  row.model_instructions = r.model_instructions;
  row.loop_branches = r.loop_branches;
  // Each pipe's busy share by the model, as the overlay shows it: what counters compare with.
  for (const PipeLoad& p : r.pipe_loads) row.model_busy.push_back({p.name, 100 * p.utilisation});
  return row;
}

DeviceSummary summarize(const DeviceInfo& d, const LoadedSass* sass) {
  return {d.name,
          d.cc_major,
          d.cc_minor,
          d.sm_count,
          pipe_rates(d.cc_major, d.cc_minor).describe(),
          sass && sass->ok() ? "SASS of the loaded kernels (" + sass->source + ")"
                             : "declared in cuda/host_device/variants.h" +
                                   (sass ? " (" + sass->source + ")" : std::string())};
}

void add_whole_kernel(MeasuredRow& row, const DeviceInfo& d, VariantId variant,
                      const GpuFrameStats& s, const LoadedSass* sass, const unsigned* counts) {
  const LoopListing* l = sass ? sass->loop(variant, build_of(s)) : nullptr;
  if (!l) {
    WholeKernel none;
    none.unusable = "no SASS listing of the kernel that ran";
    row.whole = none;
    return;
  }
  FrameShape shape;
  shape.shape = variant_info(variant).shape;
  shape.width = row.width;
  shape.height = row.height;
  shape.max_iter = row.view.max_iter;
  shape.by_cost = s.by_cost;
  shape.warps_launched = s.warps_launched;
  shape.warp_steps_run = static_cast<double>(s.warp_iters);
  shape.sm_count = d.sm_count;
  shape.warps_per_sm = max_warps_per_sm(d.cc_major, d.cc_minor);
  row.whole =
      whole_kernel_of_frame(variant, l->whole, shape, counts, static_cast<double>(s.warp_iters));
  row.whole_busy.clear();
  if (!row.whole->ok()) return;
  const PipeRates rates = pipe_rates(d.cc_major, d.cc_minor);
  row.whole_bound = compute_bound(rates, d.sm_count, row.whole->total(), 1);
  for (const PipeLoad& p : whole_kernel_loads(rates, d.sm_count, *row.whole, row.measured.sm_cycles,
                                              row.metrics.clock_ghz))
    row.whole_busy.push_back({p.name, 100 * p.utilisation});
}

}  // namespace mp
