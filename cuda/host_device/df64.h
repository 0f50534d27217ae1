// Double-float arithmetic: a value as the unevaluated sum hi + lo of two floats, about 48 bits
// of mantissa, from error-free transforms on the FMA pipe. The df64 variant uses it to show what
// a double costs where the FP64 pipe is slow. Every operation is rounded as written, on the GPU
// by the _rn intrinsics (nvcc may not contract them) and on the CPU by the host compiler without
// contraction, so both compute the same bits.
#pragma once

#include "hd.h"

namespace mp {

MP_HD float add_rn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
MP_HD float sub_rn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}
MP_HD float mul_rn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}

struct Df64 {
  float hi = 0, lo = 0;
  MP_HD_CONSTEXPR Df64() = default;
  MP_HD_CONSTEXPR Df64(float h, float l = 0) : hi(h), lo(l) {}
};

// a + b exactly, as the rounded sum and its error (Knuth's two-sum: no order needed).
MP_HD Df64 two_sum(float a, float b) {
  const float s = add_rn(a, b), bb = sub_rn(s, a);
  return {s, add_rn(sub_rn(a, sub_rn(s, bb)), sub_rn(b, bb))};
}
// The same when |a| >= |b|: three operations.
MP_HD Df64 quick_two_sum(float a, float b) {
  const float s = add_rn(a, b);
  return {s, sub_rn(b, sub_rn(s, a))};
}
// a * b exactly: the rounded product and, by one FMA, its error.
MP_HD Df64 two_prod(float a, float b) {
  const float p = mul_rn(a, b);
  return {p, fma_exact(a, b, -p)};
}

MP_HD Df64 operator+(Df64 a, Df64 b) {
  const Df64 s = two_sum(a.hi, b.hi);
  return quick_two_sum(s.hi, add_rn(s.lo, add_rn(a.lo, b.lo)));
}
MP_HD Df64 operator-(Df64 a) {
  return {-a.hi, -a.lo};
}
MP_HD Df64 operator-(Df64 a, Df64 b) {
  return a + -b;
}
MP_HD Df64 operator*(Df64 a, Df64 b) {
  const Df64 p = two_prod(a.hi, b.hi);
  return quick_two_sum(p.hi, fma_exact(a.hi, b.lo, fma_exact(a.lo, b.hi, p.lo)));
}
// Doubling is exact in both parts.
MP_HD Df64 twice(Df64 a) {
  return {add_rn(a.hi, a.hi), add_rn(a.lo, a.lo)};
}

// A double as a double-float: the float nearest it, and the float nearest the rest (48 of the
// double's 53 bits).
MP_HD Df64 df64_from(double d) {
  const float hi = static_cast<float>(d);
  return {hi, static_cast<float>(d - static_cast<double>(hi))};
}
MP_HD double to_double(Df64 a) {
  return static_cast<double>(a.hi) + static_cast<double>(a.lo);
}

}  // namespace mp
