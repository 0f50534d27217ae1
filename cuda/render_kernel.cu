#include <algorithm>
#include <stdexcept>

#include "cuda_check.h"
#include "pixel.h"
#include "render_kernel.cuh"
#include "sm_id.cuh"

namespace mp {
namespace {

constexpr int kRenderThreads = 256;

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

// The warp's tile, from the queue: lane 0 takes the next number, the others get it by shuffle.
__device__ __forceinline__ unsigned take_tile(unsigned* next_tile, unsigned lane) {
  unsigned t = 0;
  if (lane == 0) t = atomicAdd(next_tile, 1u);
  return __shfl_sync(0xffffffffu, t, 0);
}

// Persistent warps: as many as fit on the GPU at once, each taking 16x2-pixel tiles from a
// queue until none are left. A warp that drew short orbits takes more tiles instead of
// waiting for the slowest warp of its block, so the SMs stay full to the end of the frame.
template <class V>
__global__ void __launch_bounds__(kRenderThreads) render_kernel(RenderLaunch a) {
  const unsigned long long t_start = clock64();
  const unsigned lane = threadIdx.x & 31;
  unsigned long long pixel_iters = 0, warp_iters = 0;
  for (unsigned t = take_tile(a.next_tile, lane); t < a.tiles; t = take_tile(a.next_tile, lane)) {
    const unsigned block = t / kWarpsPerBlock;
    unsigned by = __umulhi(block, a.blocks_across_inverse);  // block / blocks_across, or one less
    if (block - by * a.blocks_across >= a.blocks_across) ++by;
    const int px = (block - by * a.blocks_across) * kBlockW + (lane % kBlockW);
    const int py = by * kBlockH + (t % kWarpsPerBlock) * 2 + lane / kBlockW;
    unsigned n = 0;
    if (px < a.grid.width && py < a.grid.height) {
      const PixelResult r = pixel_at<V>(a.grid, px, py, a.max_iter);
      n = r.iters;
      const size_t i = static_cast<size_t>(py) * a.grid.width + px;
      reinterpret_cast<float2*>(a.out)[i] = make_float2(r.smooth, r.aux);
      if (a.counts) a.counts[i] = n;
    }
    // What the pipes executed: a warp runs its loop until its slowest lane is done.
    const unsigned wmax = warp_max(n);
    const unsigned wsum = warp_sum(n);
    if (lane == 0 && a.warp_efficiency) a.warp_efficiency[t] = wmax ? wsum / (32.0f * wmax) : 1.0f;
    pixel_iters += wsum;
    warp_iters += wmax;
  }
  // Each warp reports once, to per-SM counters: the atomics spread over the SMs instead of
  // meeting at one address.
  if (lane == 0) {
    const unsigned sm = sm_id();
    atomicAdd(&a.sm_pixel_iters[sm], pixel_iters);
    atomicAdd(&a.sm_warp_iters[sm], warp_iters);
    atomicMin(&a.sm_first[sm], t_start);
    atomicMax(&a.sm_last[sm], static_cast<unsigned long long>(clock64()));
  }
}

template <class V>
void launch(const RenderLaunch& args, cudaStream_t stream) {
  if (args.grid.width <= 0 || args.grid.height <= 0) return;  // a minimised window: no pixels
  int device = 0, sms = 0, blocks_per_sm = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, render_kernel<V>,
                                                           kRenderThreads, 0));
  RenderLaunch a = args;
  a.blocks_across = blocks_across(a.grid.width);
  a.blocks_across_inverse = 0xffffffffu / a.blocks_across;
  a.tiles = static_cast<unsigned>(warp_count(a.grid.width, a.grid.height));
  render_kernel<V><<<std::max(1, blocks_per_sm) * sms, kRenderThreads, 0, stream>>>(a);
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
