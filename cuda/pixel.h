// One pixel of the escape-time iteration, shared by the CUDA kernel and the CPU reference.
#pragma once

#include "hd.h"
#include "variants.h"

namespace mp {

// Bailout radius 16 (|z|^2 > 256) instead of 2: the smooth iteration value is then
// accurate enough that colour bands don't show.
inline constexpr float kEscapeRadius2 = 256.0f;

struct PixelResult {
  float smooth;    // continuous iteration value; negative for points that never escaped
  float aux;       // variant-specific colouring term in [-1, 1] (0 where unused)
  unsigned iters;  // steps taken (== max_iter for points that never escaped)
};

// The step comes before the escape test so that the test's y*y (on the new z) cannot be
// shared with the step's y*y (on the old z): the step's instruction count stays visible.
// One bottom-tested condition keeps the loop to a single backward branch (max_iter >= 1).
template <class V>
MP_HD PixelResult iterate(float cx, float cy, unsigned max_iter) {
  float x = 0.0f, y = 0.0f, acc = 0.0f;
  unsigned n = 0;
  bool inside;
#ifdef __CUDA_ARCH__
#pragma unroll 1
#endif
  do {
    V::step(x, y, cx, cy, acc);
    ++n;
    inside = x * x + y * y <= kEscapeRadius2;
  } while (inside && n < max_iter);
  const bool escaped = !inside;
  PixelResult r{-1.0f, 0.0f, n};
  if (escaped) {
    const float log_zn = 0.5f * logf(x * x + y * y);
    r.smooth = static_cast<float>(n) + 1.0f - log2f(log_zn * 1.44269504f);
  }
  if (n > 0) r.aux = acc / static_cast<float>(n);
  return r;
}

}  // namespace mp
