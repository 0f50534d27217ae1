// The device the front ends measure on, and its facts worked out once: which CUDA device (or
// why the CPU renders), its architecture, its pipe rates.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/options.h"
#include "gpu_renderer.h"
#include "model/pipe_rates.h"
#include "model/precision_choice.h"
#include "session/renderer_lease.h"

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

// The architecture whose instruction mixes are shown where no GPU is in use: the build's newest
// machine code, sm_90, whose SASS the project captured.
inline constexpr int kArchWithoutGpu = 90;

// The architecture shown without a GPU as a device, for predictions: sm_90's compute
// capability, named as such; no SMs, no clock (nothing runs on it).
DeviceInfo device_without_gpu();

// What the model needs of a device, worked out once: 10 x its compute capability (sm_90: 90),
// its pipe rates and SM count. Without a device: sm_90's mixes, and no rates (nothing to time).
struct DeviceFacts {
  std::optional<DeviceInfo> device;
  int arch = kArchWithoutGpu;
  std::optional<PipeRates> rates;
  int sm_count = 0;
  std::optional<ComputeCapability> cc;     // for the precision rule; none on the CPU path
  std::string compute_capability() const;  // "9.0", "" without a device
};
DeviceFacts device_facts(const std::optional<DeviceInfo>& device);

// The session's GPU renderer on `device` (none on the CPU path): the window, compare, the sine
// sweep, the experiments and bench each use it while it is lent to them.
using GpuLease = RendererLease<GpuRenderer>;
GpuLease session_renderer(const std::optional<DeviceInfo>& device);

}  // namespace mp
