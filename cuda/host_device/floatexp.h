// Extended range: a double mantissa with an integer exponent of its own, for values past
// double's range (a view's span below about 1e-300 and the perturbation deltas under it). Kept
// normalised (|m| in [1, 2), or m == 0 with the lowest exponent), so that comparing exponents
// compares magnitudes within a factor of 2. Host and device share it; the CPU reference computes
// the same bits as the GPU where neither contracts (every operation is written rounded).
#pragma once

#include <cstdint>
#include <cstring>

#include "hd.h"

namespace mp {

// An exponent far below any value's: zero's, and where sums treat a term as nothing.
inline constexpr int kZeroExp = -(1 << 29);

MP_HD std::uint64_t double_bits(double v) {
#ifdef __CUDA_ARCH__
  return static_cast<std::uint64_t>(__double_as_longlong(v));
#else
  std::uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
#endif
}
MP_HD double bits_double(std::uint64_t b) {
#ifdef __CUDA_ARCH__
  return __longlong_as_double(static_cast<long long>(b));
#else
  double v;
  std::memcpy(&v, &b, sizeof v);
  return v;
#endif
}

// 2^e as a double, built from its bits: 0 below the normal range, inf above it (callers keep
// e within it where it matters).
MP_HD double pow2(int e) {
  if (e < -1022) return 0.0;
  if (e > 1023) return INFINITY;
  return bits_double(static_cast<std::uint64_t>(e + 1023) << 52);
}

// The binary exponent of a normal, non-zero double (floor(log2|v|)).
MP_HD int exponent_of(double v) {
  return static_cast<int>((double_bits(v) >> 52) & 0x7ff) - 1023;
}

// The same for float, whose mantissas the float differences of perturbation.h keep.
MP_HD std::uint32_t float_bits(float v) {
#ifdef __CUDA_ARCH__
  return __float_as_uint(v);
#else
  std::uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
#endif
}
MP_HD float bits_float(std::uint32_t b) {
#ifdef __CUDA_ARCH__
  return __uint_as_float(b);
#else
  float v;
  std::memcpy(&v, &b, sizeof v);
  return v;
#endif
}
MP_HD float pow2f(int e) {
  if (e < -126) return 0.0f;
  if (e > 127) return INFINITY;
  return bits_float(static_cast<std::uint32_t>(e + 127) << 23);
}
MP_HD int exponent_of(float v) {
  return static_cast<int>((float_bits(v) >> 23) & 0xff) - 127;
}

struct FloatExp {
  double m = 0;
  int e = kZeroExp;
};

// m * 2^e normalised. m must be normal or zero: a product or sum of normalised mantissas is.
MP_HD FloatExp normalised(double m, int e) {
  if (m == 0) return {0.0, kZeroExp};
  const std::uint64_t b = double_bits(m);
  const int shift = static_cast<int>((b >> 52) & 0x7ff) - 1023;
  return {bits_double((b & ~(0x7ffULL << 52)) | (1023ULL << 52)), e + shift};
}

// Any finite double, subnormals too (they are scaled into the normal range first).
MP_HD FloatExp to_floatexp(double v) {
  if (v == 0) return {};
  if (v < 2.2250738585072014e-308 && v > -2.2250738585072014e-308)
    return normalised(v * 18014398509481984.0, -54);  // 2^54
  return normalised(v, 0);
}

// The double nearest (0 below double's range, inf above it).
MP_HD double to_double(FloatExp a) {
  if (a.m == 0 || a.e < -1100) return 0.0;
  if (a.e > 1023) return a.m > 0 ? INFINITY : -INFINITY;
  if (a.e >= -1022) return a.m * pow2(a.e);
  return (a.m * pow2(a.e + 100)) * pow2(-100);  // into the subnormals in two roundings
}

MP_HD FloatExp operator*(FloatExp a, FloatExp b) {
  return normalised(a.m * b.m, a.e + b.e);
}
MP_HD FloatExp operator-(FloatExp a) {
  return {-a.m, a.e};
}
MP_HD FloatExp operator+(FloatExp a, FloatExp b) {
  if (a.e < b.e) {
    const FloatExp t = a;
    a = b;
    b = t;
  }
  // b's mantissa moved to a's exponent; past 64 bits below it changes nothing.
  const int d = b.e - a.e;
  if (d < -64) return a;
  return normalised(a.m + b.m * pow2(d), a.e);
}
MP_HD FloatExp operator-(FloatExp a, FloatExp b) {
  return a + (-b);
}
// a * 2^k.
MP_HD FloatExp scaled(FloatExp a, int k) {
  return a.m == 0 ? a : FloatExp{a.m, a.e + k};
}
MP_HD bool operator<(FloatExp a, FloatExp b) {
  const bool na = a.m < 0, nb = b.m < 0;
  if (na != nb) return na;
  if (a.m == 0 || b.m == 0) return a.m < b.m;
  if (a.e != b.e) return na ? a.e > b.e : a.e < b.e;
  return a.m < b.m;
}

// A complex value with one exponent for both parts: (x + iy) 2^e, the larger part's magnitude
// in [1, 2) (or both zero). One exponent makes a step's products plain double multiplies; the
// smaller part loses what falls below the larger's 53 bits, which is all a sum keeps anyway.
struct ComplexExp {
  double x = 0, y = 0;
  int e = kZeroExp;
};

MP_HD ComplexExp normalised(double x, double y, int e) {
  const double ax = x < 0 ? -x : x, ay = y < 0 ? -y : y;
  const double big = ax > ay ? ax : ay;
  if (big == 0) return {0.0, 0.0, kZeroExp};
  const int s = exponent_of(big);
  const double k = pow2(-s);
  return {x * k, y * k, e + s};
}

MP_HD ComplexExp to_complexexp(FloatExp x, FloatExp y) {
  const int e = x.e > y.e ? x.e : y.e;
  if (e == kZeroExp) return {};
  return normalised(x.m * pow2(x.e - e), y.m * pow2(y.e - e), e);
}

MP_HD FloatExp operator/(FloatExp a, FloatExp b) {
  return normalised(a.m / b.m, a.e - b.e);
}
MP_HD FloatExp min_of(FloatExp a, FloatExp b) {
  return b < a ? b : a;
}

MP_HD ComplexExp operator*(ComplexExp a, ComplexExp b) {
  return normalised(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x, a.e + b.e);
}
MP_HD ComplexExp operator+(ComplexExp a, ComplexExp b) {
  if (a.e < b.e) {
    const ComplexExp t = a;
    a = b;
    b = t;
  }
  const double k = pow2(b.e - a.e);  // 0 where b is below a's last bit many times over
  return normalised(a.x + b.x * k, a.y + b.y * k, a.e);
}
// |a| with its exponent: the parts' mantissas are at most 2, so their squares cannot overflow.
MP_HD FloatExp magnitude(ComplexExp a) {
  if (a.e == kZeroExp) return {};
  return normalised(std::sqrt(a.x * a.x + a.y * a.y), a.e);
}

// The parts as doubles (0 below double's range).
MP_HD double real_double(ComplexExp a) {
  return to_double(FloatExp{a.x, a.e});
}
MP_HD double imag_double(ComplexExp a) {
  return to_double(FloatExp{a.y, a.e});
}

}  // namespace mp
