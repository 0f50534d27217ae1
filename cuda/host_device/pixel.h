// One pixel of the escape-time iteration, shared by the CUDA kernel and the CPU reference.
#pragma once

#include <cstring>
#include <type_traits>

#include "df64.h"
#include "hd.h"
#include "kernel_params.h"
#include "variants.h"

namespace mp {

// Bailout radius 16 (|z|^2 > 256) instead of 2: the smooth iteration value is then
// accurate enough that colour bands don't show.
inline constexpr float kEscapeRadius2 = 256.0f;

struct PixelResult {
  float smooth;    // continuous iteration value; negative for points that never escaped
  float aux;       // variant-specific colouring term in [-1, 1] (0 where unused)
  unsigned iters;  // steps counted (== max_iter for points that never escaped)
  unsigned run;    // steps run: fewer than iters where an orbit was found periodic (kCycles)
};

// c for pixel p along one axis. Float variants round the grid to float first, then use an
// explicit FMA so that CPU and GPU get the same bits.
template <class R>
MP_HD R pixel_coord(int p, double delta, double origin);
template <>
MP_HD float pixel_coord<float>(int p, double delta, double origin) {
  return fma_exact(static_cast<float>(p), static_cast<float>(delta), static_cast<float>(origin));
}
template <>
MP_HD double pixel_coord<double>(int p, double delta, double origin) {
#ifdef __CUDA_ARCH__
  return __fma_rn(static_cast<double>(p), delta, origin);
#else
  return std::fma(static_cast<double>(p), delta, origin);
#endif
}
template <>
MP_HD Df64 pixel_coord<Df64>(int p, double delta, double origin) {
  return df64_from(pixel_coord<double>(p, delta, origin));
}

// |z|^2 as a float, for the escape test and the smooth value. A double-float's low parts do not
// move it at the bailout: its high parts alone, fused as the GPU runs it. Variants with kExactFma
// write it as the fused operations the GPU runs, so that every kernel and the CPU reference get
// the same bits (left to the compiler, its contraction may differ from kernel to kernel).
template <class V, class R>
MP_HD float norm2(R x, R y) {
  if constexpr (std::is_same_v<R, Df64>)
    return fma_exact(x.hi, x.hi, mul_rn(y.hi, y.hi));
  else if constexpr (V::kExactFma)
    return fma_exact(x, x, y * y);
  else
    return static_cast<float>(x * x + y * y);
}

// The escape test: |z|^2 within the bailout, as norm2 computes it where that is exact; inf and NaN
// (an orbit that left long ago overflows) fail it.
template <class V, class R>
MP_HD bool within_bailout(R x, R y) {
  if constexpr (std::is_same_v<R, Df64> || V::kExactFma)
    return norm2<V>(x, y) <= kEscapeRadius2;
  else
    return x * x + y * y <= static_cast<R>(kEscapeRadius2);
}

// A pixel's result from where its orbit stopped: n steps, at z = (x, y), escaped or not. The
// lane-refill kernel finishes its pixels with it too, so every kernel's values are the same bits.
template <class V>
MP_HD PixelResult pixel_result(unsigned n, typename V::Real x, typename V::Real y, bool inside,
                               float acc) {
  PixelResult r{-1.0f, 0.0f, n, n};
  // Smooth value n + 1 - log2(log2|z|) = n + 2 - log2(log2|z|^2): continuous across the bands
  // where n changes. (Written with |z|^2, the halving is one instruction per pixel less.) A pixel
  // whose first step lands far past the bailout (|c| over 16: spans past about 28) would go under
  // 0, which means inside: it is held at 0.
  if (!inside)
    r.smooth = ::fmaxf(static_cast<float>(n) + 2.0f - fast_log2(fast_log2(norm2<V>(x, y))), 0.0f);
  // Without a colouring term acc stays 0; nvcc cannot drop 0 * (1/n) (n might be 0 or inf to
  // its eyes), so the test is at compile time: two instructions per pixel less.
  if constexpr (V::kAux) r.aux = fast_div(acc, static_cast<float>(n));
  return r;
}

// Steps one at a time from n to an escape or max_iter; true while z is still inside.
template <class V>
MP_HD bool single_steps(typename V::Real& x, typename V::Real& y, typename V::Real cx,
                        typename V::Real cy, float& acc, unsigned& n, unsigned max_iter) {
#ifdef __CUDA_ARCH__
#pragma unroll 1
#endif
  while (n < max_iter) {
    V::step(x, y, cx, cy, acc);
    ++n;
    if (!within_bailout<V>(x, y)) return false;
  }
  return true;
}

// Where an orbit stands: n steps taken, at z = (x, y), with the colouring term's sum so far. A
// frame cut into launches by steps (kernel_params.h, OrbitSlot) stops an orbit at a limit below
// max_iter and goes on from here in a later launch. `cycled`: z came back to a value it had, so
// the orbit repeats for ever and is inside at any max_iter (kCycles); it then stops where it is.
template <class R>
struct Orbit {
  R x = 0, y = 0;
  float acc = 0.0f;
  unsigned n = 0;
  bool cycled = false;
};

// An orbit into and out of its slot between launches, bit for bit.
template <class R>
MP_HD unsigned long long orbit_bits(R v) {
  static_assert(sizeof(R) <= sizeof(unsigned long long), "z's parts must fit a slot");
  unsigned long long b = 0;
  memcpy(&b, &v, sizeof v);
  return b;
}
template <class R>
MP_HD R orbit_part(unsigned long long b) {
  R v;
  memcpy(&v, &b, sizeof v);
  return v;
}
template <class R>
MP_HD OrbitSlot to_slot(const Orbit<R>& o, bool done) {
  return {orbit_bits(o.x), orbit_bits(o.y), o.acc, done ? o.n | kOrbitDone : o.n};
}
template <class R>
MP_HD Orbit<R> from_slot(const OrbitSlot& s) {
  return {orbit_part<R>(s.x), orbit_part<R>(s.y), s.acc, s.n & ~kOrbitDone};
}

// The blocks that replay an escaped longer block, before single steps.
inline constexpr int kReplaySteps = 4;
// Blocks of K steps, two per trip, each block starting from where the last one ended: the start
// of a block is the previous block's result, still in its registers, and one count of pairs
// stands for the step counter. An escaped block is replayed from its start, in 4-step blocks
// where K is longer and then one step at a time, so the count is exactly the one-step loop's. The
// exits meet before the replay, so that lanes leaving at either block replay together
// (docs/measurements.md: a replay per exit was slower). Runs the orbit on to an escape or `limit`
// steps; true while z is still inside.
// kCycles (blocks longer than the replay's): after each block z is compared with a kept value,
// which moves to z after trips 0, 1, 3, 7, ... (Brent's cycle finding), so a cycle of any length
// is met: by about trip 2^(k+1), where 2^k trips cover both the steps before the cycle and a whole
// number of cycles that is also whole blocks. The kept value starts over with each call (a change
// of block length, a launch of a frame cut by steps). A repeat after a trip's first block leaves
// with the second block's escape, at z after the second block (on the cycle too), so that n stays
// the steps run. Equal floats give equal orbits from there on (a zero's sign never reaches a
// nonzero part), so a repeat is exact proof that the orbit never escapes.
template <class V, int K>
MP_HD bool iterate_paired(typename V::Real cx, typename V::Real cy, Orbit<typename V::Real>& o,
                          unsigned limit) {
  static_assert(!V::kAux, "an undone block would need its colouring term undone too");
  using R = typename V::Real;
  constexpr bool kCycles = V::kCycles && K > kReplaySteps;
  R x = o.x, y = o.y, kept_x = x, kept_y = y;
  const unsigned pairs = (limit - o.n) / (2 * K);
  unsigned t = 0, n = o.n;
  bool cycled = false;
  for (; t < pairs; ++t) {
    R x1 = x, y1 = y;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int i = 0; i < K; ++i) V::step(x1, y1, cx, cy, o.acc);
    if (!within_bailout<V>(x1, y1)) break;
    const bool repeat1 = kCycles && x1 == kept_x && y1 == kept_y;
    R x2 = x1, y2 = y1;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int i = 0; i < K; ++i) V::step(x2, y2, cx, cy, o.acc);
    if (!within_bailout<V>(x2, y2) || repeat1) {
      x = repeat1 ? x2 : x1;
      y = repeat1 ? y2 : y1;
      n += repeat1 ? 2 * K : K;
      cycled = repeat1;
      break;
    }
    x = x2;
    y = y2;
    if constexpr (kCycles) {
      if (x == kept_x && y == kept_y) {
        cycled = true;
        ++t;
        break;
      }
      if (!(t & (t + 1))) {
        kept_x = x;
        kept_y = y;
      }
    }
  }
  n += t * 2 * K;
  // A repeat leaves the loop where an escape does: a return from inside it split the loop's
  // reconvergence and slowed views with no repeats (docs/measurements.md).
  if (kCycles && cycled) {
    o = {x, y, o.acc, n, true};
    return true;
  }
  // Under 2K steps are left (an escaped block to replay, or the rest before `limit`): in pairs
  // of 4-step blocks first where K is longer, since a step with its escape test is twice a
  // step's instructions (docs/measurements.md).
  if constexpr (K > kReplaySteps) {
    o.x = x;
    o.y = y;
    o.n = n;
    return iterate_paired<V, kReplaySteps>(cx, cy, o, limit);
  } else {
    const bool inside = single_steps<V>(x, y, cx, cy, o.acc, n, limit);
    o.x = x;
    o.y = y;
    o.n = n;
    return inside;
  }
}

template <class V>
MP_HD bool iterate_blocks(typename V::Real cx, typename V::Real cy, Orbit<typename V::Real>& o,
                          unsigned limit) {
  using R = typename V::Real;
  R x = o.x, y = o.y;
  float acc = o.acc;
  unsigned n = o.n;
  bool inside = true;
  if constexpr (V::kStepsPerCheck > 1) {
    // Blocks of K steps with one escape test. The test is written so that inf and NaN (an
    // orbit that left long ago overflows) count as escaped; such a block is undone and
    // replayed one step at a time below, which gives exactly the one-step count.
    constexpr int K = V::kStepsPerCheck;
    while (n + K <= limit) {
      const R sx = x, sy = y;
      const float sacc = acc;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
      for (int i = 0; i < K; ++i) V::step(x, y, cx, cy, acc);
      if (!within_bailout<V>(x, y)) {
        x = sx;
        y = sy;
        acc = sacc;
        break;
      }
      n += K;
    }
  }
  // limit > n on entry, so one-step variants need no test here; without it, ptxas keeps a
  // second copy of the whole tile loop for max_iter == 0.
  if (V::kStepsPerCheck == 1 || n < limit) {
#ifdef __CUDA_ARCH__
#pragma unroll 1
#endif
    do {
      V::step(x, y, cx, cy, acc);
      ++n;
      inside = within_bailout<V>(x, y);
    } while (inside && n < limit);
  }
  o = {x, y, acc, n};
  return inside;
}

// Runs orbit `o` of c = (cx, cy) on to an escape or `limit` (> o.n) steps; true while z is
// still inside. Variants whose blocks grow with an orbit's age run its first kFirstUntil steps in
// blocks of kFirstStepsPerCheck, then blocks of kStepsPerCheck up to kLongAfter (variants.h).
template <class V>
MP_HD bool iterate_orbit(typename V::Real cx, typename V::Real cy, Orbit<typename V::Real>& o,
                         unsigned limit) {
  static_assert(V::kPaired || !V::kCycles, "the cycle check is in the paired blocks only");
  if constexpr (V::kPaired) {
    if constexpr (V::kFirstStepsPerCheck > 0) {
      if (o.n < V::kFirstUntil) {
        const unsigned first = limit < V::kFirstUntil ? limit : V::kFirstUntil;
        if (!iterate_paired<V, V::kFirstStepsPerCheck>(cx, cy, o, first)) return false;
        if (o.n == limit) return true;
      }
    }
    if constexpr (V::kLongStepsPerCheck > 0) {
      if (o.n < V::kLongAfter) {
        const unsigned young = limit < V::kLongAfter ? limit : V::kLongAfter;
        if (!iterate_paired<V, V::kStepsPerCheck>(cx, cy, o, young)) return false;
        if (o.n == limit || o.cycled) return true;
      }
      return iterate_paired<V, V::kLongStepsPerCheck>(cx, cy, o, limit);
    } else {
      return iterate_paired<V, V::kStepsPerCheck>(cx, cy, o, limit);
    }
  } else
    return iterate_blocks<V>(cx, cy, o, limit);
}

// The steps an orbit counts: all of max_iter once it was found periodic.
template <class R>
MP_HD unsigned counted_steps(const Orbit<R>& o, unsigned max_iter) {
  return o.cycled ? max_iter : o.n;
}

template <class V>
MP_HD PixelResult iterate(typename V::Real cx, typename V::Real cy, unsigned max_iter) {
  Orbit<typename V::Real> o;
  const bool inside = iterate_orbit<V>(cx, cy, o, max_iter);
  PixelResult r = pixel_result<V>(counted_steps(o, max_iter), o.x, o.y, inside, o.acc);
  r.run = o.n;
  return r;
}

template <class V>
MP_HD PixelResult pixel_at(const PixelGrid& g, int px, int py, unsigned max_iter) {
  using R = typename V::Real;
  return iterate<V>(pixel_coord<R>(px, g.dx, g.x0), pixel_coord<R>(py, g.dy, g.y0), max_iter);
}

}  // namespace mp
