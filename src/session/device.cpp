#include "session/device.h"

#include <algorithm>
#include <memory>

#include "cli/exit_error.h"
#include "sm_arch.h"

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
      // None at all is the missing GPU of exit code 3; a number past those there, bad input.
      throw ExitError(
          census.count ? 2 : 3,
          "--devices: there is no device " + std::to_string(index) + " (" +
              (census.count ? std::to_string(census.count) + " CUDA devices here, numbered from 0"
                            : census.reason) +
              ")");
    }
  }
  c.device = c.devices.front();
  return c;
}

DeviceInfo device_without_gpu() {
  DeviceInfo d;
  d.name = "no GPU in use: the sm_" + std::to_string(kArchWithoutGpu) + " build's figures";
  d.cc_major = kArchWithoutGpu / 10;
  d.cc_minor = kArchWithoutGpu % 10;
  return d;
}

DeviceFacts device_facts(const std::optional<DeviceInfo>& device) {
  DeviceFacts f;
  f.device = device;
  if (!device) return f;
  f.arch = sm_arch(device->cc_major, device->cc_minor);
  f.rates = pipe_rates(device->cc_major, device->cc_minor);
  f.sm_count = device->sm_count;
  f.cc = ComputeCapability{device->cc_major, device->cc_minor};
  return f;
}

GpuLease session_renderer(const std::optional<DeviceInfo>& device) {
  if (!device) return GpuLease();
  return GpuLease(std::make_unique<GpuRenderer>(*device));
}

std::string DeviceFacts::compute_capability() const {
  return device ? std::to_string(device->cc_major) + "." + std::to_string(device->cc_minor) : "";
}

}  // namespace mp
