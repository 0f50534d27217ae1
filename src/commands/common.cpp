#include "commands/common.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "commands/commands.h"
#include "counters/counter_sources.h"
#include "counters/pm_sampler.h"
#include "io/embedded.h"
#include "lab/experiments.h"
#include "model/pipe_load.h"
#include "model/variant_table.h"

namespace mp {

DeviceChoice choose_device(bool force_cpu) {
  if (force_cpu) return {std::nullopt, {}, "CPU renderer requested (--cpu)", ""};
  DeviceProbe p = probe_cuda_device();
  if (!p.device) return {std::nullopt, {}, p.reason + "; using the CPU reference renderer", ""};
  return {p.device, {*p.device}, "", ""};
}

DeviceChoice choose_devices(const DeviceRequest& request, bool force_cpu) {
  if (force_cpu) return choose_device(true);
  const DeviceCensus census = probe_cuda_devices();
  DeviceChoice c;
  if (request.all) {
    if (census.usable.empty())
      return {std::nullopt, {}, census.reason + "; using the CPU reference renderer", ""};
    c.devices = census.usable;
    c.left_out = census.reason;
  } else {
    for (const int index : request.list) {
      const auto it = std::find_if(census.usable.begin(), census.usable.end(),
                                   [&](const DeviceInfo& d) { return d.index == index; });
      if (it != census.usable.end()) {
        c.devices.push_back(*it);
        continue;
      }
      if (index < census.count)
        throw ExitError(2, "--devices: device " + std::to_string(index) +
                               " cannot run mandelpipe's kernels (" + census.reason + ")");
      throw ExitError(2, "--devices: there is no device " + std::to_string(index) + " (" +
                             (census.count ? std::to_string(census.count) +
                                                 " CUDA devices here, numbered from 0"
                                           : census.reason) +
                             ")");
    }
  }
  c.device = c.devices.front();
  return c;
}

Palette find_palette(const std::string& name) {
  std::string known;
  for (Palette& p : parse_palettes(embedded::palettes_json)) {
    if (p.name == name) return p;
    known += (known.empty() ? "" : ", ") + p.name;
  }
  throw ExitError(2, "--palette: unknown '" + name + "' (known: " + known + ")");
}

int experiment_index(const std::string& name) {
  const auto& names = experiment_names();
  const auto it = std::find(names.begin(), names.end(), name);
  return it == names.end() ? 0 : static_cast<int>(it - names.begin());
}

std::unique_ptr<CounterProbe> start_counters(bool asked, int interval_us, const DeviceInfo& d) {
  if (!asked) return nullptr;
  counters::SamplerOptions so;
  so.device_index = d.index;
  // Isolated launches make each edge sample the launch's own, so a coarser interval loses
  // nothing, and it keeps the counter thread (~45 us of CPU to evaluate a sample) ahead of
  // long kernels, whose samples it must read before the hardware buffer overwrites them.
  so.interval_us = interval_us > 0 ? static_cast<unsigned>(interval_us) : 200;
  so.isolate = true;
  if (std::getenv("MANDELPIPE_COUNTERS_TRACE"))
    so.trace = [](const std::string& line) { std::cerr << "counters: " << line << "\n"; };
  auto s = std::make_unique<counters::PmSampler>(so);
  if (!s->unavailable().empty())
    std::cerr << "mandelpipe: " << s->unavailable() << "\n";
  else
    std::cerr << "mandelpipe: " << s->description() << "\n";
  return std::make_unique<counters::ProbeSet>(std::move(s), counters::further_sources(d.index));
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

FrameNumbers frame_numbers(const GpuFrameStats& s) {
  FrameNumbers f;
  f.kernel_ms = s.kernel_ms;
  f.sm_cycles = static_cast<double>(s.sm_cycles);
  f.pixel_iters = static_cast<double>(s.pixel_iters);
  f.warp_iters = static_cast<double>(s.warp_iters);
  f.sm_cycles_mean = s.sm_cycles_mean;
  return f;
}

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

MeasuredRow measured_row(const DeviceInfo& d, VariantId variant, const std::string& view_name,
                         const View& view, int width, int height, int frames,
                         const GpuFrameStats& s, const LoadedSass* sass) {
  MeasuredRow r;
  r.view_name = view_name;
  r.variant = std::string(variant_info(variant).name);
  r.width = width;
  r.height = height;
  r.view = view;
  r.frames = frames;
  r.measured = frame_numbers(s);
  // A plain variant that runs every step it counts: counted is run. Others (stopped periodic
  // orbits, perturbation's skipped steps) are counted where their counts are read (bench).
  const VariantInfo& vi = variant_info(variant);
  if (!vi.stops_cycles && !vi.perturbation) r.counted_iters = r.measured.pixel_iters;
  r.tiles_by_cost = s.by_cost;
  const int arch = d.cc_major * 10 + d.cc_minor;
  const PipeRates rates = pipe_rates(d.cc_major, d.cc_minor);
  const InstrMix per_step = per_step_mix(variant, arch, sass, build_of(s));
  r.metrics = derive_metrics(rates, d.sm_count, per_step, r.measured);
  r.model_instructions = per_step.total() * r.measured.warp_iters;
  // Each pipe's busy share by the model, as the overlay shows it: what counters compare with.
  const LoopListing* loop = sass ? sass->loop(variant, build_of(s)) : nullptr;
  const double heavy = loop ? loop->heavy_only / variant_info(variant).steps_per_check : -1;
  r.loop_branches = loop ? loop->branches_within : 0;
  for (const PipeLoad& p : pipe_loads(rates, d.sm_count, per_step, heavy, r.measured.warp_iters,
                                      r.measured.sm_cycles, r.metrics.clock_ghz))
    r.model_busy.push_back({p.name, 100 * p.utilisation});
  return r;
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
  shape.refill_trips = static_cast<double>(s.refill_trips);
  shape.refill_rounds = static_cast<double>(s.refill_rounds);
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
