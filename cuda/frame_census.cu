#include <algorithm>

#include "cuda_check.h"
#include "frame_census.h"
#include "kernel_params.h"

namespace mp {
namespace {

__global__ void count_above_kernel(const float* pixels, std::size_t n, float threshold,
                                   unsigned long long* count) {
  unsigned local = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    local += pixels[i * kFloatsPerPixel] > threshold;
  for (int o = 16; o > 0; o >>= 1) local += __shfl_xor_sync(0xffffffffu, local, o);
  if ((threadIdx.x & 31) == 0 && local) atomicAdd(count, static_cast<unsigned long long>(local));
}

}  // namespace

unsigned long long count_pixels_above(const float* device_pixels, std::size_t pixels,
                                      float threshold, unsigned long long* device_counter) {
  if (pixels == 0) return 0;
  CUDA_CHECK(cudaMemset(device_counter, 0, sizeof(unsigned long long)));
  constexpr int kThreads = 256;
  // A few blocks per SM's worth: each thread strides over the image.
  const std::size_t blocks = std::min<std::size_t>((pixels + kThreads - 1) / kThreads, 1024);
  count_above_kernel<<<static_cast<unsigned>(blocks), kThreads>>>(device_pixels, pixels, threshold,
                                                                  device_counter);
  CUDA_CHECK(cudaGetLastError());
  unsigned long long n = 0;
  CUDA_CHECK(cudaMemcpy(&n, device_counter, sizeof n, cudaMemcpyDeviceToHost));
  return n;
}

}  // namespace mp
