// The colour of a pixel from its smooth iteration value and colouring term: the palette's formula
// (src/model/palette.h), shared by the CPU (render --cpu, the colour shader's test) and render's
// colour kernel (cuda/colour_kernel.cu). Every operation is rounded as written on both sides (the
// _rn helpers; log2 from double operations of the same order), so that the GPU's colours are the
// CPU's byte for byte for the same data. The window's GLSL shader is separate.
#pragma once

#include <cstddef>
#include <cstdint>

#include "df64.h"
#include "hd.h"
#include "kernel_params.h"

namespace mp {

inline constexpr int kLutSize = 256;

struct ColourParams {
  float density = 1.0f;  // palette cycles per doubling of the iteration value
  float offset = 0.0f;   // palette phase
  float stripe = 0.6f;   // weight of the variant's aux term (stripes of fma4-sin)
};

MP_HD double dadd_rn(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
MP_HD double dmul_rn(double a, double b) {
#ifdef __CUDA_ARCH__
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
MP_HD double ddiv_rn(double a, double b) {
#ifdef __CUDA_ARCH__
  return __ddiv_rn(a, b);
#else
  return a / b;
#endif
}
MP_HD float fdiv_rn(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}

// log2(x) for finite x >= 1, within an ulp of float (the series' error is about 1e-12 of the
// result; the last rounding to float adds half an ulp): x = m 2^e with m in [sqrt(1/2), sqrt(2)),
// ln m = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172, by its odd series to s^13. The libraries'
// log2f differ between host and device by an ulp here and there; this one is the same bits on
// both.
MP_HD float colour_log2(float x) {
  int e = 0;
  double m = frexp(static_cast<double>(x), &e);  // exact: m in [0.5, 1)
  if (m < 0.70710678118654752) {
    m = dmul_rn(m, 2.0);
    --e;
  }
  const double s = ddiv_rn(dadd_rn(m, -1.0), dadd_rn(m, 1.0)), s2 = dmul_rn(s, s);
  double p = 2.0 / 13;
  p = dadd_rn(dmul_rn(p, s2), 2.0 / 11);
  p = dadd_rn(dmul_rn(p, s2), 2.0 / 9);
  p = dadd_rn(dmul_rn(p, s2), 2.0 / 7);
  p = dadd_rn(dmul_rn(p, s2), 2.0 / 5);
  p = dadd_rn(dmul_rn(p, s2), 2.0 / 3);
  p = dadd_rn(dmul_rn(p, s2), 2.0);
  const double ln_m = dmul_rn(p, s);
  return static_cast<float>(dadd_rn(static_cast<double>(e), dmul_rn(ln_m, 1.4426950408889634)));
}

// t = fract(log2(smooth + 1) * density + offset); colour = lut(t) * (1 + stripe * aux / 2), the
// LUT (kLutSize RGBA8 texels) sampled as a GL_LINEAR, GL_REPEAT 1D texture; interior points
// (smooth < 0) are black. `rgb`: 3 bytes. The kernels give neither NaN nor infinity; were one to
// come, NaN colours black and a t that is not finite as t = 0, never an undefined conversion.
MP_HD void colour_rgb(float smooth, float aux, const std::uint8_t* lut, const ColourParams& c,
                      std::uint8_t* rgb) {
  if (!(smooth >= 0.0f)) {
    rgb[0] = rgb[1] = rgb[2] = 0;
    return;
  }
  const float v = add_rn(mul_rn(colour_log2(add_rn(smooth, 1.0f)), c.density), c.offset);
  float t = sub_rn(v, floorf(v));
  if (!(t >= 0.0f && t < 1.0f)) t = 0.0f;
  const float u = sub_rn(mul_rn(t, static_cast<float>(kLutSize)), 0.5f);
  const float fl = floorf(u);
  const float f = sub_rn(u, fl);
  const int i0 = (static_cast<int>(fl) % kLutSize + kLutSize) % kLutSize;
  const int i1 = (i0 + 1) % kLutSize;
  const float shade = add_rn(1.0f, mul_rn(mul_rn(c.stripe, 0.5f), aux));
  for (int k = 0; k < 3; ++k) {
    const float mixed = add_rn(mul_rn(static_cast<float>(lut[i0 * 4 + k]), sub_rn(1.0f, f)),
                               mul_rn(static_cast<float>(lut[i1 * 4 + k]), f));
    const float lin = mul_rn(fdiv_rn(mixed, 255.0f), shade);
    const float clamped = lin > 0.0f ? (lin < 1.0f ? lin : 1.0f) : 0.0f;
    rgb[k] = static_cast<std::uint8_t>(roundf(mul_rn(clamped, 255.0f)));  // halves away from 0
  }
}

// Output pixel (x, y) of samples `data` (rows of gw samples, kFloatsPerPixel floats each): the
// mean of its ss x ss samples' colours, each channel rounded half up.
MP_HD void colour_pixel(const float* data, int gw, int x, int y, int ss, const std::uint8_t* lut,
                        const ColourParams& c, std::uint8_t* rgb) {
  unsigned sum[3] = {0, 0, 0};
  for (int sy = 0; sy < ss; ++sy)
    for (int sx = 0; sx < ss; ++sx) {
      const float* d =
          data + (static_cast<std::size_t>(y * ss + sy) * gw + x * ss + sx) * kFloatsPerPixel;
      std::uint8_t px[3];
      colour_rgb(d[0], d[1], lut, c, px);
      for (int k = 0; k < 3; ++k) sum[k] += px[k];
    }
  const unsigned n = static_cast<unsigned>(ss * ss);
  for (int k = 0; k < 3; ++k) rgb[k] = static_cast<std::uint8_t>((sum[k] + n / 2) / n);
}

}  // namespace mp
