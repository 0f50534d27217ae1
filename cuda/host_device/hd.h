// Host/device portability for code shared by the CUDA kernels and the CPU reference.
// The CPU reference is compiled by the host compiler with -ffp-contract=off, so every
// multiply and add there rounds separately; nvcc is free to contract into FFMA. The
// per-variant difference that contraction makes is exactly what the tests measure.
#pragma once

#ifdef __CUDACC__
#define MP_HD __host__ __device__ __forceinline__
#define MP_HD_CONSTEXPR __host__ __device__ constexpr
#else
#define MP_HD inline
#define MP_HD_CONSTEXPR constexpr
#endif

#include <cmath>

namespace mp {

// Pixel coordinates must be bit-identical on CPU and GPU, so they use an explicit
// fused multiply-add on both sides instead of leaving contraction to each compiler.
MP_HD float fma_exact(float a, float b, float c) {
#ifdef __CUDA_ARCH__
  return __fmaf_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

// The fast hardware sine (MUFU.SIN on the XU pipe) on the GPU; the libm sine on the CPU.
MP_HD float fast_sin(float v) {
#ifdef __CUDA_ARCH__
  return __sinf(v);
#else
  return std::sin(v);
#endif
}

// The per-pixel epilogue runs once per pixel but, at views with short orbits, costs as much
// as the loop: on the GPU it uses the MUFU-based approximations (a few ulps). Their callers
// never pass a subnormal (|z|^2 beyond the escape radius, its log, a step count), so
// the flush-to-zero forms give the same values without the subnormal fix-ups ptxas otherwise
// wraps around each MUFU.
MP_HD float fast_log2(float v) {
#ifdef __CUDA_ARCH__
  float r;
  asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
  return r;
#else
  return std::log2(v);
#endif
}
MP_HD float fast_div(float a, float b) {
#ifdef __CUDA_ARCH__
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(b));
  return a * r;
#else
  return a / b;
#endif
}

}  // namespace mp
