#include "colour_kernel.h"
#include "cuda_check.h"

namespace mp {
namespace {

__global__ void colour_kernel(const float* data, int gw, int width, int height, int ss,
                              ColourLook look, std::uint8_t* rgb, std::size_t pitch) {
  // The LUT in shared memory: neighbouring pixels read far-apart texels, which the parameter
  // bank would serve one at a time.
  __shared__ unsigned texels[kLutSize];
  for (int i = threadIdx.x; i < kLutSize; i += blockDim.x)
    texels[i] = reinterpret_cast<const unsigned*>(look.lut)[i];
  __syncthreads();
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= static_cast<long long>(width) * height) return;
  const int x = static_cast<int>(i % width), y = static_cast<int>(i / width);
  colour_pixel(data, gw, x, y, ss, reinterpret_cast<const std::uint8_t*>(texels), look.params,
               rgb + static_cast<std::size_t>(y) * pitch + static_cast<std::size_t>(x) * 3);
}

}  // namespace

void colour_on_device(const float* data, int gw, int gh, int ss, const ColourLook& look,
                      std::uint8_t* rgb, std::size_t pitch, CUstream_st* stream) {
  const int width = gw / ss, height = gh / ss;
  const long long pixels = static_cast<long long>(width) * height;
  if (pixels <= 0) return;
  constexpr int kThreads = 256;
  colour_kernel<<<static_cast<unsigned>((pixels + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
      data, gw, width, height, ss, look, rgb, pitch);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace mp
