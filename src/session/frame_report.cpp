#include "session/frame_report.h"

#include "model/precision_choice.h"
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
  f.rounds = s.perturb_rounds;
  f.done_rounds = s.perturb_done_rounds;
  f.rebase_rounds = s.perturb_rebase_rounds;
  return f;
}

void take_launch_figures(FrameShape& shape, const GpuFrameStats& s) {
  shape.by_cost = s.by_cost;
  shape.warps_launched = s.warps_launched;
  shape.launches = s.launches;
  shape.rounds = s.perturb_rounds;
  shape.done_rounds = s.perturb_done_rounds;
  shape.rebase_rounds = s.perturb_rebase_rounds;
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

FrameReport deep_frame_report(const FrameOf& of, const DeepStats& s, int frames) {
  FrameReport r;
  r.of = of;
  r.frames = frames;
  r.gpu = s.gpu;
  r.deep = s;
  if (s.gpu) r.gpu_stats = s.frame_stats();
  r.counted_iters = static_cast<double>(s.pixel_iters);
  return r;
}

namespace {

// Giter/s of `iters` steps in `ms`.
double giter_per_s(double iters, double ms) {
  return ms > 0 ? iters / (ms * 1e6) : 0.0;
}

}  // namespace

nlohmann::json frame_json(const FrameReport& r) {
  if (r.deep) {
    const DeepStats& d = *r.deep;
    return {{"measured",
             {{d.gpu ? "kernel_ms" : "cpu_ms", d.ms},
              {"pixel_iters", d.pixel_iters},
              {"iterated", d.iterated},
              {"skipped_by_approximation", d.pixel_iters - d.iterated},
              {"rebases", d.rebases},
              {"warp_iterated", d.warp_iterated},
              {"launches", d.launches}}},
            {"derived",
             {{"giter_per_s_counted", giter_per_s(static_cast<double>(d.pixel_iters), d.ms)},
              {"giter_per_s_iterated", giter_per_s(static_cast<double>(d.iterated), d.ms)}}},
            {"model",
             "n/a here: bench and compare time the perturbation variants' every-step loop "
             "against its bound"}};
  }
  if (r.gpu) return to_json(measured_row(r, "render"));
  const CpuFrameStats& c = r.cpu_stats;
  return {{"measured",
           {{"cpu_ms", c.ms},
            {"pixel_iters", c.pixel_iters},
            {"pixel_iters_counted", c.pixel_counted},
            {"threads", c.threads}}},
          {"derived",
           {{"giter_per_s", giter_per_s(static_cast<double>(c.pixel_iters), c.ms)},
            {"giter_per_s_counted", giter_per_s(static_cast<double>(c.pixel_counted), c.ms)},
            {"steps",
             "pixel_iters and giter_per_s: of the steps run; _counted: of the steps the pixels "
             "count (more where orbits found periodic stop early); cpu_ms: the CPU's wall time "
             "computing them"}}},
          {"model", "n/a: the bound model describes GPU pipes"}};
}

DeepRow deep_row(const std::string& view_name, const FrameReport& approximated,
                 const FrameReport& every_step, const DeepReference& reference) {
  DeepRow row;
  row.view_name = view_name;
  const DeepStats& a = *approximated.deep;
  row.rendered_by = perturbation_name(a.format);
  row.width = approximated.of.width;
  row.height = approximated.of.height;
  row.view = approximated.of.view;
  row.frames = approximated.frames;
  row.kernel_ms = approximated.render_ms();
  row.every_step_ms = every_step.render_ms();
  row.simt = approximated.deep_simt();
  row.every_step_simt = every_step.deep_simt();
  row.counted = approximated.counted_iters;
  row.iterated = static_cast<double>(a.iterated);
  row.rebases = static_cast<double>(a.rebases);
  row.reference_bits = reference.orbit.bits;
  row.reference_steps = static_cast<double>(reference.orbit.z.size() - 1);
  row.reference_ms = reference.orbit.ms;
  row.table_ms = reference.bla_ms;
  return row;
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
  row.kernel_build = r.build == sass::KernelBuild::Recording   ? "recording"
                     : r.build == sass::KernelBuild::Resumable ? "resumable"
                                                               : "plain";
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
                      const GpuFrameStats& s, const LoadedSass* sass, const unsigned* counts,
                      int zero_offsets) {
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
  take_launch_figures(shape, s);
  shape.sm_count = d.sm_count;
  shape.warps_per_sm = max_warps_per_sm(d.cc_major, d.cc_minor);
  shape.zero_offsets = zero_offsets;
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
