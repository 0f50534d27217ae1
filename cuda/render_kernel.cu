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

// Shuffle reductions rather than __reduce_*_sync, which sm_75 lacks.
__device__ __forceinline__ unsigned warp_max(unsigned v) {
  for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ __forceinline__ unsigned warp_sum(unsigned v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

constexpr int kWarpsPerBlock = kBlockW * kBlockH / 32;

template <class V>
__global__ void __launch_bounds__(kBlockW* kBlockH) render_kernel(RenderLaunch a) {
  const long long t_start = clock64();
  const int px = blockIdx.x * kBlockW + threadIdx.x;
  const int py = blockIdx.y * kBlockH + threadIdx.y;
  const bool inside = px < a.grid.width && py < a.grid.height;

  unsigned n = 0;
  if (inside) {
    const float cx = fma_exact(static_cast<float>(px), a.grid.dx, a.grid.x0);
    const float cy = fma_exact(static_cast<float>(py), a.grid.dy, a.grid.y0);
    const PixelResult r = iterate<V>(cx, cy, a.max_iter);
    n = r.iters;
    const size_t i = static_cast<size_t>(py) * a.grid.width + px;
    reinterpret_cast<float2*>(a.out)[i] = make_float2(r.smooth, r.aux);
    if (a.counts) a.counts[i] = n;
  }

  // What the pipes executed: a warp runs its loop until its slowest lane is done.
  __shared__ unsigned long long s_work[2][kWarpsPerBlock];
  const int tid = threadIdx.y * kBlockW + threadIdx.x;
  const unsigned wmax = warp_max(n);
  const unsigned wsum = warp_sum(n);
  if ((tid & 31) == 0) {
    s_work[0][tid >> 5] = wsum;
    s_work[1][tid >> 5] = wmax;
  }
  __syncthreads();
  if (tid == 0) {
    unsigned long long sum = 0, issued = 0;
    for (int w = 0; w < kWarpsPerBlock; ++w) {
      sum += s_work[0][w];
      issued += s_work[1][w];
    }
    atomicAdd(&a.work[0], sum);
    atomicAdd(&a.work[1], issued);
    const long long t_end = clock64();
    const unsigned sm = sm_id();
    atomicMin(&a.sm_first[sm], static_cast<unsigned long long>(t_start));
    atomicMax(&a.sm_last[sm], static_cast<unsigned long long>(t_end));
  }
}

}  // namespace

void launch_render(VariantId variant, const RenderLaunch& args, cudaStream_t stream) {
  const dim3 block(kBlockW, kBlockH);
  const dim3 grid((args.grid.width + kBlockW - 1) / kBlockW,
                  (args.grid.height + kBlockH - 1) / kBlockH);
  switch (variant) {
#define MP_LAUNCH_CASE(V) \
  case VariantId::V: render_kernel<variants::V><<<grid, block, 0, stream>>>(args); break;
    MANDELPIPE_VARIANTS(MP_LAUNCH_CASE)
#undef MP_LAUNCH_CASE
  }
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace mp
