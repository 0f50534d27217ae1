#include "cuda_check.h"
#include "reproject.h"

namespace mp {
namespace {

__global__ void reproject_kernel(PixelGrid from, const float2* src, PixelGrid to, float2* dst) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= static_cast<long long>(to.width) * to.height) return;
  const int px = static_cast<int>(i % to.width), py = static_cast<int>(i / to.width);
  const long long s = reprojected_source(from, to, px, py);
  dst[i] = s < 0 ? make_float2(kUnknownSmooth, 0.0f) : src[s];
}

}  // namespace

void reproject_on_device(const PixelGrid& from, const float* src, const PixelGrid& to, float* dst,
                         CUstream_st* stream) {
  const long long pixels = static_cast<long long>(to.width) * to.height;
  if (pixels <= 0) return;
  constexpr int kThreads = 256;
  reproject_kernel<<<static_cast<unsigned>((pixels + kThreads - 1) / kThreads), kThreads, 0,
                     stream>>>(from, reinterpret_cast<const float2*>(src), to,
                               reinterpret_cast<float2*>(dst));
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace mp
