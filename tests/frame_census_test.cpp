// The GPU's count of late pixels against the CPU's share, on a frame of known values.
#include <gtest/gtest.h>

#include <vector>

#include "cuda_check.h"
#include "cuda_device_test.h"
#include "device_buffer.h"
#include "frame_census.h"
#include "model/auto_iterations.h"

namespace mp {
namespace {

using FrameCensus = CudaDeviceTest<>;

TEST_F(FrameCensus, CountsWhatTheCpuCounts) {
  const int w = 1000, h = 777;  // not a multiple of a block, more pixels than threads launched
  std::vector<float> frame(static_cast<std::size_t>(w) * h * 2);
  for (std::size_t i = 0; i < frame.size() / 2; ++i) {
    frame[2 * i] = (i * 7919) % 5 == 0 ? -1.0f : static_cast<float>((i * 104729) % 4096);
    frame[2 * i + 1] = 600.0f;  // the second float is never counted
  }
  DeviceBuffer<float> d(frame.size());
  CUDA_CHECK(
      cudaMemcpy(d.get(), frame.data(), frame.size() * sizeof(float), cudaMemcpyHostToDevice));
  DeviceBuffer<unsigned long long> counter(1);
  const unsigned long long gpu =
      count_pixels_above(d.get(), frame.size() / 2, 1024.0f, counter.get());
  const double cpu = late_share(frame.data(), w, h, 2048);
  EXPECT_GT(gpu, 0u);
  EXPECT_EQ(static_cast<double>(gpu) / (static_cast<double>(w) * h), cpu);
  EXPECT_EQ(count_pixels_above(d.get(), 0, 1024.0f, counter.get()), 0u);
}

}  // namespace
}  // namespace mp
