// Fixture for tests that need a CUDA GPU: where there is none they skip, with the reason (or
// fail, under MP_REQUIRE_GPU: required.h).
#pragma once

#include <gtest/gtest.h>

#include "gpu_renderer.h"
#include "required.h"

namespace mp {

template <class Base = ::testing::Test>
class CudaDeviceTest : public Base {
 protected:
  void SetUp() override {
    const DeviceProbe p = probe_cuda_device();
    if (!p.device) return skip_without_gpu(p.reason);
    device_ = *p.device;
  }
  DeviceInfo device_;
};

}  // namespace mp
