#include <stdexcept>

#include "cuda_check.h"
#include "pixel.h"
#include "render_kernel.cuh"

namespace mp {
namespace {

__device__ __forceinline__ unsigned sm_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

// One REDUX instruction from sm_80 on; shuffles on sm_75.
__device__ __forceinline__ unsigned warp_max(unsigned v) {
#if __CUDA_ARCH__ >= 800
  return __reduce_max_sync(0xffffffffu, v);
#else
  for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
#endif
}
__device__ __forceinline__ unsigned warp_sum(unsigned v) {
#if __CUDA_ARCH__ >= 800
  return __reduce_add_sync(0xffffffffu, v);
#else
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
#endif
}

template <class V>
__global__ void __launch_bounds__(kBlockW* kBlockH) render_kernel(RenderLaunch a) {
  const unsigned long long t_start = clock64();
  const int px = blockIdx.x * kBlockW + threadIdx.x;
  const int py = blockIdx.y * kBlockH + threadIdx.y;
  unsigned n = 0;
  if (px < a.grid.width && py < a.grid.height) {
    const PixelResult r = pixel_at<V>(a.grid, px, py, a.max_iter);
    n = r.iters;
    const size_t i = static_cast<size_t>(py) * a.grid.width + px;
    reinterpret_cast<float2*>(a.out)[i] = make_float2(r.smooth, r.aux);
    if (a.counts) a.counts[i] = n;
  }
  // What the pipes executed: a warp runs its loop until its slowest lane is done. Each warp
  // reports on its own, to per-SM counters: no barrier holds finished warps back, and the
  // atomics spread over the SMs instead of meeting at one address.
  const unsigned wmax = warp_max(n);
  const unsigned wsum = warp_sum(n);
  const int tid = threadIdx.y * kBlockW + threadIdx.x;
  if ((tid & 31) == 0) {
    if (a.warp_efficiency)
      a.warp_efficiency[(blockIdx.y * gridDim.x + blockIdx.x) * kWarpsPerBlock + (tid >> 5)] =
          wmax ? wsum / (32.0f * wmax) : 1.0f;
    const unsigned sm = sm_id();
    atomicAdd(&a.sm_pixel_iters[sm], static_cast<unsigned long long>(wsum));
    atomicAdd(&a.sm_warp_iters[sm], static_cast<unsigned long long>(wmax));
    atomicMin(&a.sm_first[sm], t_start);
    atomicMax(&a.sm_last[sm], static_cast<unsigned long long>(clock64()));
  }
}

template <class V>
void launch(const RenderLaunch& args, cudaStream_t stream) {
  const dim3 block(kBlockW, kBlockH);
  const dim3 grid(blocks_across(args.grid.width), (args.grid.height + kBlockH - 1) / kBlockH);
  render_kernel<V><<<grid, block, 0, stream>>>(args);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void launch_render(VariantId variant, const RenderLaunch& args, cudaStream_t stream) {
  switch (variant) {
#define MP_LAUNCH_CASE(V) \
  case VariantId::V: launch<variants::V>(args, stream); break;
    MANDELPIPE_VARIANTS(MP_LAUNCH_CASE)
#undef MP_LAUNCH_CASE
  }
}

void launch_sin_balance(int sines, const RenderLaunch& args, cudaStream_t stream) {
  switch (sines) {
    case 1: launch<variants::SinBalance<1>>(args, stream); break;
    case 2: launch<variants::SinBalance<2>>(args, stream); break;
    case 3: launch<variants::SinBalance<3>>(args, stream); break;
    case 4: launch<variants::SinBalance<4>>(args, stream); break;
    default: throw std::invalid_argument("launch_sin_balance: sines must be 1..4");
  }
}

}  // namespace mp
