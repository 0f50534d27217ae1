#include "render/deep_frame.h"

#include <chrono>
#include <cmath>

namespace mp {

std::optional<DeepFrame> prepare_deep_frame(mpfr_srcptr cx, mpfr_srcptr cy, mpfr_srcptr spacing,
                                            mpfr_srcptr rx, mpfr_srcptr ry, int width, int height,
                                            unsigned max_iter, int bits,
                                            const std::atomic<bool>* cancel,
                                            const std::function<void(double)>& progress) {
  std::optional<ReferenceOrbit> orbit =
      compute_reference_orbit(rx, ry, bits, max_iter, cancel, progress);
  if (!orbit) return std::nullopt;
  const auto start = std::chrono::steady_clock::now();
  DeepFrame f;
  f.orbit = std::move(*orbit);
  f.grid.width = width;
  f.grid.height = height;
  f.grid.spacing = floatexp_of(spacing);
  mpfr_t d;
  mpfr_init2(d, bits);
  mpfr_sub(d, cx, rx, MPFR_RNDN);
  f.grid.dc0x = floatexp_of(d);
  mpfr_sub(d, cy, ry, MPFR_RNDN);
  f.grid.dc0y = floatexp_of(d);
  mpfr_clear(d);
  // The largest |dc| of any pixel: the image's half diagonal (and a pixel) plus the reference's
  // distance from the centre.
  const FloatExp half_diagonal = f.grid.spacing * to_floatexp(std::hypot(width, height) / 2 + 1);
  const FloatExp dc_max = half_diagonal + magnitude(to_complexexp(f.grid.dc0x, f.grid.dc0y));
  f.extended = build_bla_extended(f.orbit.view(), dc_max);
  f.dbl = build_bla_double(f.extended);
  f.bla_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return f;
}

}  // namespace mp
