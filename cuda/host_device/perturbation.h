// Perturbation: a pixel's orbit z = Z + d as its small difference d from one reference orbit Z
// computed once in high precision (src/render/reference_orbit.*), so that every pixel of a deep
// view iterates in double (or the extended range of floatexp.h, or float with an exponent of its
// own) instead of in hundreds of bits:
//   d' = 2 Z d + d^2 + dc = (2 Z + d) d + dc,
// with dc the pixel's c minus the reference's. Two further ideas make one reference enough and
// the step count small:
// - Rebasing: where |Z + d| < |d| (the pixel's z is nearer 0 than its difference is), d becomes z
//   and the reference starts again at Z_0 = 0; likewise at the reference's last point. The
//   difference never grows large against z, so no glitch needs detecting and no second reference.
// - Bilinear approximation (BLA): while |d| is tiny against |Z|, d^2 is below d's last bit and a
//   run of steps is the linear map d -> A d + B dc. Runs of 2^l steps are merged from two of
//   2^(l-1) (A = A2 A1, B = A2 B1 + B2) with the radius of |d| within which the map holds, so a
//   pixel skips as many steps at once as its |d| allows.
// Host and device share this code: the CPU reference (render/perturbation_cpu.*) and the CUDA
// kernel (cuda/perturbation_kernel.cu) compute each pixel the same way.
#pragma once

#include <type_traits>

#include "floatexp.h"
#include "hd.h"

namespace mp {

// Bailout |z|^2 > 256, as pixel.h's.
inline constexpr double kPerturbEscape2 = 256.0;

// Aligned so that a point is one 128-bit load on the GPU, not two of 64.
struct alignas(16) RefPoint {
  double x = 0, y = 0;
};
// The same point rounded to float, for the float differences' steps: one 64-bit load.
struct alignas(8) RefPointF {
  float x = 0, y = 0;
};

// Where the reference comes nearer 0 than this (both parts, not both 0), the squares of z and d
// near it underflow double, and its own double may be 0: the orbit ends there (RefOrbitView).
inline constexpr double kTinyRef = 0x1p-500;

// Z_0 = 0, Z_1 = C, ... Z_{length-1}: the last one is the first outside the bailout (or the one
// at the iteration limit, or the first under kTinyRef), so a pixel is tested against every Z its
// steps reach, and rebases at the last. length >= 2. `zf`: the same points in float (null where no
// float format reads them).
struct RefOrbitView {
  const RefPoint* z = nullptr;
  unsigned length = 0;
  const RefPointF* zf = nullptr;
  // length - 1, a field so that the kernels' loops compare m with a parameter as it is, where
  // ptxas remade length - 1 from the constant bank in every step (two instructions).
  unsigned last = 0;
  // Where the orbit ends at a point under kTinyRef: its index (the last) and its value in the
  // extended range, from which the extended and float formats rebase; 0 where it does not.
  unsigned tiny_at = 0;
  int tiny_e = kZeroExp;
  double tiny_x = 0, tiny_y = 0;
  RefOrbitView() = default;
  MP_HD RefOrbitView(const RefPoint* points, unsigned n, const RefPointF* float_points = nullptr)
      : z(points), length(n), zf(float_points), last(n - 1) {}
  // Z_m in the extended range.
  MP_HD ComplexExp wide(unsigned m) const {
    if (tiny_at != 0 && m == tiny_at) return {tiny_x, tiny_y, tiny_e};
    return normalised(z[m].x, z[m].y, 0);
  }
};

// One bilinear approximation: 2^l steps from reference index m as d -> A d + B dc, valid while
// |d| is under the radius r (0: never valid).
struct BlaD {
  double ax = 0, ay = 0, bx = 0, by = 0, r = 0;
};
// In the extended range: A and B with exponents of their own; valid while |d| < 2^r_exp (the
// radius rounded down to a power of two, so the test is on exponents alone).
struct BlaX {
  double ax = 0, ay = 0, bx = 0, by = 0;
  int ae = kZeroExp, be = kZeroExp, r_exp = kZeroExp, pad = 0;
};
// The same with float mantissas, for the float differences: a skip in FP32, where FP64 is slow.
struct alignas(16) BlaF {
  float ax = 0, ay = 0, bx = 0, by = 0;
  int ae = kZeroExp, be = kZeroExp, r_exp = kZeroExp, pad = 0;
};

// The merged runs, level 0 (single steps) first: level l holds entry k for the run of 2^l steps
// from m = 1 + k 2^l, entries [offset[l], offset[l+1]). levels == 0: no approximation.
inline constexpr int kMaxBlaLevels = 32;
template <class B>
struct BlaView {
  const B* entries = nullptr;
  unsigned offset[kMaxBlaLevels + 1] = {};
  int levels = 0;
};
// Runs shorter than 2^kBlaShortest steps are not looked up: a look-up costs a few dependent loads,
// more than iterating the one to four steps such a run saves (docs/measurements.md), and where no
// run holds the look-up at every step made the tables slower than iterating every step.
inline constexpr int kBlaShortest = 3;
// Whether tables of `levels` levels hold a run that is looked up: fewer levels are read as none
// (every step iterated, by the every-step kernel).
MP_HD_CONSTEXPR bool bla_usable(int levels) {
  return levels > kBlaShortest;
}

// The number formats a pixel's difference can be iterated in: double while it stays in double's
// range, double mantissas with an exponent of their own at any depth, and float mantissas with
// an exponent of their own (any depth, half the bits, for GPUs whose FP64 is slow).
enum class DeltaFormat { Double, Extended, Float };

// A deep view's pixels as differences from the reference: pixel (px, py) has
// dc = dc0 + ((px + 0.5 - w/2) s, (h/2 - py - 0.5) s), with dc0 the image centre minus the
// reference point and s the pixel spacing, in the extended range whatever the format.
struct DeepGrid {
  int width = 0, height = 0;
  FloatExp dc0x, dc0y, spacing;
};
// The part of the image a launch (or CPU call) computes, its outputs row-major over the part.
struct PixelRect {
  int x0 = 0, y0 = 0, width = 0, height = 0;
};
MP_HD ComplexExp pixel_dc(const DeepGrid& g, int px, int py) {
  const FloatExp ox = to_floatexp(px + 0.5 - g.width / 2.0);
  const FloatExp oy = to_floatexp(g.height / 2.0 - py - 0.5);
  return to_complexexp(g.dc0x + ox * g.spacing, g.dc0y + oy * g.spacing);
}

// What a pixel's orbit did: n steps counted (== max_iter: never escaped), of which `iterated`
// ran one at a time and the rest were skipped by approximation; z where it stopped.
struct PerturbResult {
  unsigned n = 0;
  unsigned iterated = 0;
  unsigned rebases = 0;
  // perturb's every-step kernel on the GPU (perturb_lockstep.cuh): the warp's rounds, those with
  // a finished lane and those with a rebase; 0 elsewhere.
  unsigned rounds = 0, done_rounds = 0, rebase_rounds = 0;
  bool escaped = false;
  double zx = 0, zy = 0;  // z where it escaped
};

// What DeltaFloat's tests on z = Z + d after a step decide.
enum class Next { Step, Escape, Rebase };

// What a frame's pixels did, summed: steps counted (as the plain kernels count them), of them
// those run one at a time (the rest skipped by approximation), rebases, and on the GPU each
// warp's slowest lane's steps run (iterated / (32 x that) is the SIMT efficiency of the steps run;
// 0 where there are no warps). The GPU's launch tallies these, the CPU reference and every
// caller's stats carry them.
// perturb's every-step kernel also counts its warps' rounds (PerturbResult's), summed; the CPU
// reference does not (0).
struct PerturbTally {
  unsigned long long pixel_iters = 0, iterated = 0, rebases = 0, warp_iterated = 0;
  unsigned long long rounds = 0, done_rounds = 0, rebase_rounds = 0;
  PerturbTally& operator+=(const PerturbTally& t) {
    pixel_iters += t.pixel_iters;
    iterated += t.iterated;
    rebases += t.rebases;
    warp_iterated += t.warp_iterated;
    rounds += t.rounds;
    done_rounds += t.done_rounds;
    rebase_rounds += t.rebase_rounds;
    return *this;
  }
};

// (tx + i ty)(x + i y) + (cx + i cy), the step's product in double or float. On the GPU with c
// inside the products' FMAs: 4 instructions where nvcc's contraction of the plain form leaves 6
// (the CPU, without FMA instructions in its baseline, keeps the plain form).
template <class T>
MP_HD void product_plus(T tx, T ty, T x, T y, T cx, T cy, T& nx, T& ny) {
#ifdef __CUDA_ARCH__
  nx = ::fma(tx, x, ::fma(-ty, y, cx));
  ny = ::fma(tx, y, ::fma(ty, x, cy));
#else
  nx = tx * x - ty * y + cx;
  ny = tx * y + ty * x + cy;
#endif
}

// The delta's arithmetic, one struct per number format: its value, its bilinear entry, a step,
// an approximation, and the conversions from a pixel's dc and for the tests on z = Z + d.
struct DeltaDouble {
  struct Value {
    double x = 0, y = 0;
  };
  using Dc = Value;
  using Bla = BlaD;
  static constexpr bool kFloat = false;
  MP_HD static Value step(Value d, RefPoint z, Value dc, const RefPoint* = nullptr) {
    Value n;
    product_plus(2 * z.x + d.x, 2 * z.y + d.y, d.x, d.y, dc.x, dc.y, n.x, n.y);
    return n;
  }
  // |d| <= sqrt(2) max(|x|, |y|): no squares, which would leave double's range long before d.
  MP_HD static bool holds(const Bla& b, Value d) {
    return ::fmax(::fabs(d.x), ::fabs(d.y)) * 1.4142135623730951 < b.r;
  }
  MP_HD static Value approximate(const Bla& b, Value d, Value dc) {
    return {b.ax * d.x - b.ay * d.y + b.bx * dc.x - b.by * dc.y,
            b.ax * d.y + b.ay * d.x + b.bx * dc.y + b.by * dc.x};
  }
  MP_HD static void as_double(Value d, double& x, double& y) {
    x = d.x;
    y = d.y;
  }
  MP_HD static Value from_double(double x, double y, const Dc&) { return {x, y}; }
  MP_HD static Dc of(ComplexExp dc) { return {real_double(dc), imag_double(dc)}; }
};

// Past double's range: d = (x + iy) 2^e, its mantissas let drift between 2^-64 and 2^64 before
// they are brought back near 1, so that a step is DeltaDouble's in units of 2^e with two more
// multiplies: 2^e as a double (0 below its range) and the pixel's dc in units of 2^e are kept
// with d and made again only when e moves.
struct DeltaExp {
  struct Value {
    double x = 0, y = 0;
    int e = kZeroExp;
    double s = 0;           // 2^e, 0 below double's range
    double cx = 0, cy = 0;  // dc / 2^e
  };
  using Dc = ComplexExp;
  using Bla = BlaX;
  static constexpr bool kFloat = false;
  // (x + iy) 2^e with the mantissas brought near 1 and the caches made for the new exponent.
  MP_HD static Value rescaled(double x, double y, int e, const Dc& dc) {
    const ComplexExp n = normalised(x, y, e);
    Value v;
    v.x = n.x;
    v.y = n.y;
    v.e = n.e;
    if (n.e == kZeroExp) return v;
    const int k = dc.e - n.e;
    // d below dc's last bit a thousand times over (after a rebase to a tiny z): it is nothing
    // against dc, and dc in its units would overflow; the next step starts from 0.
    if (dc.e != kZeroExp && k > 1023) return Value{};
    v.s = pow2(n.e);
    const double c = dc.e == kZeroExp ? 0.0 : pow2(k);
    v.cx = dc.x * c;
    v.cy = dc.y * c;
    return v;
  }
  // Where Z is as small as d can be (a reference at a nucleus comes back to 0) the square
  // counts, and below double's range 2Z + d is not a double: in the exponent's arithmetic.
  MP_HD static Value step_near_zero(const Value& d, RefPoint z, const Dc& dc) {
    const ComplexExp e = normalised(d.x, d.y, d.e);
    const ComplexExp n = (normalised(2 * z.x, 2 * z.y, 0) + e) * e + dc;
    return rescaled(n.x, n.y, n.e, dc);
  }
  MP_HD static Value step(const Value& d, RefPoint z, const Dc& dc, const RefPoint* = nullptr) {
    if (d.e == kZeroExp) return rescaled(dc.x, dc.y, dc.e, dc);  // d' = dc from d = 0
    // (Below -830, with mantissas down to 2^-64, the fast path's products could leave double's
    // normal range.)
    if (::fabs(z.x) + ::fabs(z.y) < 0x1p-890 && d.e < -830) return step_near_zero(d, z, dc);
    // Elsewhere d s, if it is 0 or short of bits, is below Z's last bit: |d| < 2^-958 there.
    const double tx = 2 * z.x + d.x * d.s, ty = 2 * z.y + d.y * d.s;
    Value n = d;
    product_plus(tx, ty, d.x, d.y, d.cx, d.cy, n.x, n.y);
    const double big = ::fmax(::fabs(n.x), ::fabs(n.y));
    if (big >= 0x1p64 || big < 0x1p-64) return rescaled(n.x, n.y, n.e, dc);
    return n;
  }
  // d's exponent as a normalised value's: the test of the tables' radius is on exponents alone,
  // |d| < 2^(e+2) with the larger part's mantissa under 2.
  MP_HD static int exponent(const Value& d) {
    const double big = ::fmax(::fabs(d.x), ::fabs(d.y));
    return big == 0 ? kZeroExp : d.e + exponent_of(big);
  }
  MP_HD static bool holds(const Bla& b, const Value& d) { return exponent(d) + 2 <= b.r_exp; }
  MP_HD static Value approximate(const Bla& b, const Value& d, const Dc& dc) {
    const ComplexExp ad = normalised(b.ax * d.x - b.ay * d.y, b.ax * d.y + b.ay * d.x, b.ae + d.e);
    const ComplexExp bc =
        normalised(b.bx * dc.x - b.by * dc.y, b.bx * dc.y + b.by * dc.x, b.be + dc.e);
    const ComplexExp n = ad + bc;
    return rescaled(n.x, n.y, n.e, dc);
  }
  MP_HD static void as_double(const Value& d, double& x, double& y) {
    x = d.x * d.s;
    y = d.y * d.s;
  }
  MP_HD static Value from_double(double x, double y, const Dc& dc) { return rescaled(x, y, 0, dc); }
  // The rebase at step m: d made z = Z_m + d, (x, y) in double, or where the orbit ends at a
  // tiny point, in the extended range (there z's double may be 0 or short of bits). One call of
  // rescaled for both: its code is most of the rebase's.
  MP_HD static Value rebased(double x, double y, const Value& d, const RefOrbitView& ref,
                             unsigned m, const Dc& dc) {
    int e = 0;
    if (m == ref.tiny_at) {
      const ComplexExp z =
          ComplexExp{ref.tiny_x, ref.tiny_y, ref.tiny_e} + normalised(d.x, d.y, d.e);
      x = z.x;
      y = z.y;
      e = z.e;
    }
    return rescaled(x, y, e, dc);
  }
  MP_HD static Dc of(ComplexExp dc) { return dc; }
};

// DeltaExp's scheme with float mantissas, kept between 2^-48 and 2^48, and Z rounded to float: a
// step is FP32 work where FP64 is slow. Where Z is as small as 2^-50 (the reference's returns
// near 0, Z_0 after a rebase) d s may fall below float's range while d still counts against Z,
// and |Z|^2 and |d|^2 underflow, so the step and the tests there run in the exponent's
// arithmetic against Z in double: rare steps.
struct DeltaFloat {
  struct Value {
    float x = 0, y = 0;
    int e = kZeroExp;
    float s = 0;           // 2^e, 0 below float's normal range
    float cx = 0, cy = 0;  // dc / 2^e
  };
  // dc in the extended range, and its mantissas in float for remaking cx, cy in float.
  struct Dc {
    ComplexExp c;
    float x = 0, y = 0;
  };
  using Bla = BlaF;
  static constexpr bool kFloat = true;
  static constexpr float kNearZero = 0x1p-50f;
  // Mantissas near 1 at exponent e, and the caches for it.
  MP_HD static Value made(float x, float y, int e, const Dc& dc) {
    const int k = dc.c.e - e;
    // d below dc's last bit many times over: nothing against dc, whose units would overflow.
    if (dc.c.e != kZeroExp && k > 100) return Value{};
    Value v;
    v.x = x;
    v.y = y;
    v.e = e;
    v.s = pow2f(e);
    const float c = pow2f(k);  // 0 where dc is nothing against d
    v.cx = dc.x * c;
    v.cy = dc.y * c;
    return v;
  }
  MP_HD static Value rescaled_wide(double x, double y, int e, const Dc& dc) {
    const ComplexExp n = normalised(x, y, e);
    if (n.e == kZeroExp) return Value{};
    return made(static_cast<float>(n.x), static_cast<float>(n.y), n.e, dc);
  }
  // (x + iy) 2^e, x and y float results of a step: rescaled in float where they are normal.
  MP_HD static Value rescaled(float x, float y, int e, const Dc& dc) {
    const float big = ::fmaxf(::fabsf(x), ::fabsf(y));
    if (big == 0) return Value{};
    if (big < 0x1p-120f) return rescaled_wide(x, y, e, dc);
    // Under 2^102 here (mantissas within 2^50, dc in units of d within 2^101): 2^-s is a float.
    const int s = exponent_of(big);
    return made(x * pow2f(-s), y * pow2f(-s), e + s, dc);
  }
  MP_HD static ComplexExp wide(const Value& d) { return normalised(d.x, d.y, d.e); }
  MP_HD static Value step(const Value& d, RefPointF z, const Dc& dc, const RefPoint* z_wide) {
    if (d.e == kZeroExp) return rescaled_wide(dc.c.x, dc.c.y, dc.c.e, dc);  // d' = dc from 0
    if (::fabsf(z.x) + ::fabsf(z.y) < kNearZero) {
      const ComplexExp e = wide(d);
      const ComplexExp n = (normalised(2 * z_wide->x, 2 * z_wide->y, 0) + e) * e + dc.c;
      return rescaled_wide(n.x, n.y, n.e, dc);
    }
    // Here d s, if 0 or short of bits, is under 2^-78, below the last bit of 2Z (over 2^-51).
    const float tx = 2 * z.x + d.x * d.s, ty = 2 * z.y + d.y * d.s;
    Value n = d;
    product_plus(tx, ty, d.x, d.y, d.cx, d.cy, n.x, n.y);
    const float big = ::fmaxf(::fabsf(n.x), ::fabsf(n.y));
    if (big >= 0x1p48f || big < 0x1p-48f) return rescaled(n.x, n.y, n.e, dc);
    return n;
  }
  // z = ref.zf[m], the point the step came to.
  MP_HD static Next test(Value& d, RefPointF z, const RefOrbitView& ref, unsigned m, const Dc& dc,
                         PerturbResult& r) {
    const bool last = m == ref.last;
    if (::fabsf(z.x) + ::fabsf(z.y) < kNearZero) {
      // z = Z + d and both magnitudes in the exponent's arithmetic: float's squares of them
      // would be 0.
      const ComplexExp e = wide(d);
      const ComplexExp zc = ref.wide(m) + e;
      r.zx = real_double(zc);
      r.zy = imag_double(zc);
      if (r.zx * r.zx + r.zy * r.zy > kPerturbEscape2) return Next::Escape;
      if (magnitude(zc) < magnitude(e) || last) {
        d = rescaled_wide(zc.x, zc.y, zc.e, dc);
        return Next::Rebase;
      }
      return Next::Step;
    }
    // With |Z| over 2^-51, |z|^2 is 0 in float only where |d| is near |Z|, whose square is not.
    const float dx = d.x * d.s, dy = d.y * d.s;
    const float zx = z.x + dx, zy = z.y + dy;
    const float z2 = zx * zx + zy * zy;
    if (z2 > static_cast<float>(kPerturbEscape2)) {
      r.zx = zx;
      r.zy = zy;
      return Next::Escape;
    }
    if (z2 < dx * dx + dy * dy || last) {
      d = rescaled(zx, zy, 0, dc);
      return Next::Rebase;
    }
    return Next::Step;
  }
  MP_HD static int exponent(const Value& d) {
    const float big = ::fmaxf(::fabsf(d.x), ::fabsf(d.y));
    return big == 0 ? kZeroExp : d.e + exponent_of(big);
  }
  MP_HD static bool holds(const Bla& b, const Value& d) { return exponent(d) + 2 <= b.r_exp; }
  // A d + B dc in float: each product at its own exponent, the smaller moved to the larger's
  // (0 where it is below float's range there), the sum rescaled.
  MP_HD static Value approximate(const Bla& b, const Value& d, const Dc& dc) {
    float ax = b.ax * d.x - b.ay * d.y, ay = b.ax * d.y + b.ay * d.x;
    float bx = b.bx * dc.x - b.by * dc.y, by = b.bx * dc.y + b.by * dc.x;
    const int ea = b.ae + d.e, eb = b.be + dc.c.e;
    if (ea >= eb) {
      const float k = pow2f(eb - ea);
      return rescaled(ax + bx * k, ay + by * k, ea, dc);
    }
    const float k = pow2f(ea - eb);
    return rescaled(ax * k + bx, ay * k + by, eb, dc);
  }
  MP_HD static Dc of(ComplexExp dc) {
    return {dc, static_cast<float>(dc.x), static_cast<float>(dc.y)};
  }
};

// Trailing zero bits of a non-zero v, and floor(log2 v) of a non-zero v.
MP_HD int trailing_zeros(unsigned v) {
#ifdef __CUDA_ARCH__
  return __ffs(static_cast<int>(v)) - 1;
#else
  return __builtin_ctz(v);
#endif
}
MP_HD int floor_log2(unsigned v) {
#ifdef __CUDA_ARCH__
  return 31 - __clz(static_cast<int>(v));
#else
  return 31 - __builtin_clz(v);
#endif
}

// Whether a run of at least 2^kBlaShortest steps can start at reference index m: m - 1 a multiple
// of its length. Between those points a pixel's steps are iterated without a look-up.
MP_HD bool bla_point(unsigned m) {
  return m > 0 && ((m - 1) & ((1u << kBlaShortest) - 1)) == 0;
}

// The longest valid approximation from reference index m (a bla_point) that stays within
// max_iter steps in all: its level, or -1 for none. Whether a level's run holds falls with the
// level (a run's radius is at most its first half's), so the shortest looked-up level is tried
// first, the usual answer while steps are iterated, and the highest that holds is found by
// bisection below the highest that m, the steps left and the tables allow: a few loads where
// trying each level took one a level.
template <class D>
MP_HD int bla_level(const BlaView<typename D::Bla>& bla, typename D::Value d, unsigned m,
                    unsigned n, unsigned max_iter, const typename D::Bla** found) {
  auto entry = [&](int l) -> const typename D::Bla* {
    const unsigned at = bla.offset[l] + ((m - 1) >> l);
    return at < bla.offset[l + 1] ? &bla.entries[at] : nullptr;
  };
  if (!bla_usable(bla.levels) || n >= max_iter) return -1;
  int hi = bla.levels - 1;
  if (m > 1 && trailing_zeros(m - 1) < hi) hi = trailing_zeros(m - 1);
  if (floor_log2(max_iter - n) < hi) hi = floor_log2(max_iter - n);
  if (hi < kBlaShortest) return -1;
  const typename D::Bla* b = entry(kBlaShortest);
  if (!b || !D::holds(*b, d)) return -1;
  *found = b;
  int lo = kBlaShortest;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    b = entry(mid);
    if (b && D::holds(*b, d)) {
      lo = mid;
      *found = b;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

// What perturb_orbit tells of each rebase: nothing (the CPU reference's warps record the steps
// at which they come, src/render/lockstep_rounds.h).
struct NoRebaseLog {
  MP_HD void operator()(unsigned) const {}
};

// One pixel's orbit from d = 0 at reference index 0, to its escape or max_iter. kApprox: the
// bilinear tables are looked up at each bla_point (false: every step iterated, the tables unread).
// on_rebase(n) after the rebase that follows step n.
template <class D, bool kApprox, class OnRebase = NoRebaseLog>
MP_HD PerturbResult perturb_orbit(RefOrbitView ref, const BlaView<typename D::Bla>& bla,
                                  typename D::Dc dc, unsigned max_iter, OnRebase on_rebase = {}) {
  PerturbResult r;
  typename D::Value d{};
  unsigned m = 0;
  // Z_m, read once: the tests after a step and the next step use the same point. (Loading
  // Z_{m+1} a step ahead was tried: the registers it rotates cost more than the latency it hid.)
  std::conditional_t<D::kFloat, RefPointF, RefPoint> z{};
  while (r.n < max_iter) {
    bool skipped = false;
    if constexpr (kApprox) {
      const typename D::Bla* b = nullptr;
      const int level = bla_point(m) ? bla_level<D>(bla, d, m, r.n, max_iter, &b) : -1;
      if (level >= 0) {
        d = D::approximate(*b, d, dc);
        m += 1u << level;
        r.n += 1u << level;
        skipped = true;
      }
    }
    if (!skipped) {
      d = D::step(d, z, dc, ref.z + m);
      ++m;
      ++r.n;
      ++r.iterated;
    }
    if constexpr (D::kFloat) {
      z = ref.zf[m];
      const Next next = D::test(d, z, ref, m, dc, r);
      if (next == Next::Escape) {
        r.escaped = true;
        break;
      }
      if (next == Next::Rebase) {
        m = 0;
        z = RefPointF{};  // Z_0 = 0
        ++r.rebases;
        on_rebase(r.n);
      }
    } else {
      double dx, dy;
      D::as_double(d, dx, dy);
      z = ref.z[m];
      r.zx = z.x + dx;
      r.zy = z.y + dy;
      const double z2 = r.zx * r.zx + r.zy * r.zy;
      if (z2 > kPerturbEscape2) {
        r.escaped = true;
        break;
      }
      if (z2 < dx * dx + dy * dy || m == ref.last) {
        if constexpr (std::is_same_v<D, DeltaExp>)
          d = D::rebased(r.zx, r.zy, d, ref, m, dc);
        else  // (double's differences, above 2^-1074, lose nothing of z's double there)
          d = D::from_double(r.zx, r.zy, dc);
        m = 0;
        // Z_0 = 0 loaded, not written: the predicated load ran 2-5% faster than zeroing z
        // (docs/measurements.md).
        z = ref.z[0];
        ++r.rebases;
        on_rebase(r.n);
      }
    }
  }
  return r;
}

// The pixel's colouring value as pixel.h's: n + 2 - log2(log2 |z|^2), negative inside; held at 0
// for points that escape far past the bailout, whose value would otherwise read as inside.
MP_HD float perturb_smooth(const PerturbResult& r) {
  if (!r.escaped) return -1.0f;
  const float z2 = static_cast<float>(r.zx * r.zx + r.zy * r.zy);
  return ::fmaxf(static_cast<float>(r.n) + 2.0f - fast_log2(fast_log2(z2)), 0.0f);
}

}  // namespace mp
