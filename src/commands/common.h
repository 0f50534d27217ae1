// Pieces every command needs: which renderer, which palette, the measured row of a frame.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "cli/options.h"
#include "gpu_renderer.h"
#include "io/report.h"
#include "io/sass_loader.h"
#include "model/counter_figures.h"
#include "model/palette.h"

namespace mp {

struct DeviceChoice {
  std::optional<DeviceInfo> device;  // the first of `devices`
  std::vector<DeviceInfo> devices;   // render's and bench's, as --devices asked
  std::string cpu_reason;            // why the CPU renders, when it does
  std::string left_out;              // devices --devices all could not use, and why
};
// The first CUDA device (the window's, the experiments'), or the CPU with the reason.
DeviceChoice choose_device(bool force_cpu);
// The devices `request` names: with `all`, every usable one (none: the CPU, with the reason);
// a list, each of them. ExitError(2) naming a device that does not exist or cannot run the
// kernels.
DeviceChoice choose_devices(const DeviceRequest& request, bool force_cpu);

// The palette named on the command line; ExitError(2) listing the known ones otherwise.
Palette find_palette(const std::string& name);
// The experiment's place in experiment_names(), for a name the command line checked (the first
// for any other).
int experiment_index(const std::string& name);

// bench's and experiment's counters (--counters), each launch with the GPU idle around it so
// that its samples are its own; null when not asked for. Where they cannot be read, one line
// on stderr says why, and the rows say n/a with the reason.
// The sampler comes with the further counter sources (src/counters/counter_sources.h).
// interval_us: --counter-interval (0: the default).
std::unique_ptr<CounterProbe> start_counters(bool asked, int interval_us, const DeviceInfo& d);

DeviceSummary summarize(const DeviceInfo& d, const LoadedSass* sass);
// The build of the kernel a frame ran (the resumable one where any of its launches was).
sass::KernelBuild build_of(const GpuFrameStats& s);
// Instructions per step: the SASS loop of the kernel build that ran when there is one, else the
// declared.
InstrMix per_step_mix(VariantId variant, int arch, const LoadedSass* sass, sass::KernelBuild build);
// A GPU frame's measurements, as the model takes them.
FrameNumbers frame_numbers(const GpuFrameStats& s);
// One frame's (or the median frame's) measurements with the model's bound beside them; the steps
// counted are the steps run for a plain variant that stops no orbit early, else left to the
// caller (0).
MeasuredRow measured_row(const DeviceInfo& d, VariantId variant, const std::string& view_name,
                         const View& view, int width, int height, int frames,
                         const GpuFrameStats& s, const LoadedSass* sass);

// The whole-kernel model of a frame of `variant` whose pixels' step counts are `counts` (width x
// height), beside the row's other figures: row.whole and row.whole_busy.
void add_whole_kernel(MeasuredRow& row, const DeviceInfo& d, VariantId variant,
                      const GpuFrameStats& s, const LoadedSass* sass, const unsigned* counts);

}  // namespace mp
