#include "render/reference_orbit.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "render/mpfr_temps.h"

namespace mp {
namespace {

// An MPFR value as a mantissa in [0.5, 1) and its exponent (zero: FloatExp's zero).
FloatExp exact(mpfr_srcptr v) {
  if (mpfr_zero_p(v)) return {};
  long e = 0;
  const double m = mpfr_get_d_2exp(&e, v, MPFR_RNDN);
  return {m, static_cast<int>(e)};
}

}  // namespace

std::optional<ReferenceOrbit> compute_reference_orbit(mpfr_srcptr cx, mpfr_srcptr cy, int bits,
                                                      unsigned max_iter,
                                                      const std::atomic<bool>* cancel,
                                                      const std::function<void(double)>& progress) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto last_report = start;
  ReferenceOrbit orbit;
  orbit.bits = bits;
  orbit.z.reserve(std::min<std::size_t>(max_iter + 1u, 1u << 20));
  orbit.zf.reserve(orbit.z.capacity());
  orbit.z.push_back({0.0, 0.0});
  orbit.zf.push_back({0.0f, 0.0f});
  MpfrTemps<4> z(bits);
  MpfrTemps<3> t(bits);
  mpfr_ptr x = z[0], y = z[1], c_x = z[2], c_y = z[3];
  mpfr_set(c_x, cx, MPFR_RNDN);
  mpfr_set(c_y, cy, MPFR_RNDN);
  mpfr_set_zero(x, 1);
  mpfr_set_zero(y, 1);
  // Cancel and progress looked at about every 2^22 bits' worth of steps: every 4096th at a few
  // hundred bits, every one at millions, where a step takes milliseconds.
  const unsigned every = static_cast<unsigned>(std::clamp(4'194'304 / std::max(bits, 1), 1, 4096));
  for (unsigned n = 0, seen = 0; n < max_iter; ++n) {
    square_add(x, y, c_x, c_y, t);
    const RefPoint p{mpfr_get_d(x, MPFR_RNDN), mpfr_get_d(y, MPFR_RNDN)};
    orbit.z.push_back(p);
    if (orbit.tiny_at == 0 && std::fabs(p.x) < kTinyRef && std::fabs(p.y) < kTinyRef &&
        !(mpfr_zero_p(x) && mpfr_zero_p(y))) {
      orbit.tiny_at = n + 1;
      orbit.tiny = to_complexexp(exact(x), exact(y));
    }
    // From the double, not MPFR again: two more MPFR calls a step on the orbit's hot path, for
    // a rounding that differs only where double's own rounding lands on float's halfway point.
    orbit.zf.push_back({static_cast<float>(p.x), static_cast<float>(p.y)});
    if (!(p.x * p.x + p.y * p.y <= kPerturbEscape2)) {
      orbit.escaped = true;
      break;
    }
    if (++seen == every) {
      seen = 0;
      if (cancel && cancel->load(std::memory_order_relaxed)) return std::nullopt;
      const auto now = Clock::now();
      if (progress && now - last_report > std::chrono::milliseconds(250)) {
        last_report = now;
        progress(static_cast<double>(n) / max_iter);
      }
    }
  }
  orbit.ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  return orbit;
}

}  // namespace mp
