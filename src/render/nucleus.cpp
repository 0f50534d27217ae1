#include "render/nucleus.h"

#include <cmath>

#include "model/big_real.h"
#include "render/mpfr_temps.h"

namespace mp {
namespace {

// 1 / a = conj(a) / |a|^2, the parts' mantissas at most 2 so their squares stay in range.
ComplexExp reciprocal(ComplexExp a) {
  const double n = a.x * a.x + a.y * a.y;
  return normalised(a.x / n, -a.y / n, -a.e);
}

bool cancelled(const std::atomic<bool>* cancel) {
  return cancel && cancel->load(std::memory_order_relaxed);
}

}  // namespace

std::optional<unsigned> ball_period_of(RefOrbitView orbit, FloatExp radius, unsigned max_period) {
  ComplexExp dz{};
  const ComplexExp one = to_complexexp(to_floatexp(1.0), FloatExp{});
  for (unsigned n = 1; n <= max_period && n < orbit.length; ++n) {
    // dz <- 2 z dz + 1 with z = Z_{n-1}; then the test at Z_n.
    const RefPoint z = orbit.z[n - 1];
    dz = to_complexexp(to_floatexp(z.x), to_floatexp(z.y)) * dz;
    dz.e += 1;
    dz = dz + one;
    const RefPoint zn = orbit.z[n];
    const FloatExp size = magnitude(to_complexexp(to_floatexp(zn.x), to_floatexp(zn.y)));
    if (size < magnitude(dz) * radius) return n;
  }
  return std::nullopt;
}

Nucleus newton_nucleus(mpfr_ptr x, mpfr_ptr y, unsigned period, int bits, FloatExp tolerance,
                       FloatExp reach, const std::atomic<bool>* cancel) {
  MpfrTemps<10> s(bits);
  MpfrTemps<3> sq(bits);
  mpfr_ptr zx = s[0], zy = s[1], dx = s[2], dy = s[3], t = s[4], u = s[5], v = s[6], w = s[7],
           x0 = s[8], y0 = s[9];
  mpfr_set(x0, x, MPFR_RNDN);
  mpfr_set(y0, y, MPFR_RNDN);
  Nucleus n;
  n.period = period;
  for (int step = 0; step < 64 && !cancelled(cancel); ++step) {
    mpfr_set_zero(zx, 1);
    mpfr_set_zero(zy, 1);
    mpfr_set_zero(dx, 1);
    mpfr_set_zero(dy, 1);
    for (unsigned k = 0; k < period; ++k) {
      if ((k & 1023) == 1023 && cancelled(cancel)) return n;
      // d <- 2 z d + 1
      mpfr_mul(t, zx, dx, MPFR_RNDN);
      mpfr_mul(u, zy, dy, MPFR_RNDN);
      mpfr_sub(t, t, u, MPFR_RNDN);
      mpfr_mul(u, zx, dy, MPFR_RNDN);
      mpfr_mul(v, zy, dx, MPFR_RNDN);
      mpfr_add(u, u, v, MPFR_RNDN);
      mpfr_mul_2ui(dx, t, 1, MPFR_RNDN);
      mpfr_add_ui(dx, dx, 1, MPFR_RNDN);
      mpfr_mul_2ui(dy, u, 1, MPFR_RNDN);
      square_add(zx, zy, x, y, sq);
    }
    // c <- c - z / d = c - z conj(d) / |d|^2
    mpfr_sqr(t, dx, MPFR_RNDN);
    mpfr_sqr(u, dy, MPFR_RNDN);
    mpfr_add(w, t, u, MPFR_RNDN);
    if (mpfr_zero_p(w)) break;
    mpfr_mul(t, zx, dx, MPFR_RNDN);
    mpfr_mul(u, zy, dy, MPFR_RNDN);
    mpfr_add(t, t, u, MPFR_RNDN);
    mpfr_div(t, t, w, MPFR_RNDN);  // real part of the step
    mpfr_mul(u, zy, dx, MPFR_RNDN);
    mpfr_mul(v, zx, dy, MPFR_RNDN);
    mpfr_sub(u, u, v, MPFR_RNDN);
    mpfr_div(u, u, w, MPFR_RNDN);  // imaginary part
    const FloatExp moved = magnitude(to_complexexp(floatexp_of(t), floatexp_of(u)));
    mpfr_sub(x, x, t, MPFR_RNDN);
    mpfr_sub(y, y, u, MPFR_RNDN);
    mpfr_sub(v, x, x0, MPFR_RNDN);
    mpfr_sub(w, y, y0, MPFR_RNDN);
    if (reach < magnitude(to_complexexp(floatexp_of(v), floatexp_of(w)))) return n;
    if (moved < tolerance) {
      n.found = true;
      break;
    }
  }
  if (!n.found) return n;
  // The size estimate from the orbit's multipliers: with l the product of 2 z_k over the cycle
  // and b the sum of their partial products' reciprocals, the minibrot is about 1 / |b l^2|.
  mpfr_set_zero(zx, 1);
  mpfr_set_zero(zy, 1);
  ComplexExp l = to_complexexp(to_floatexp(1.0), FloatExp{}), b = l;
  for (unsigned k = 1; k < period; ++k) {
    square_add(zx, zy, x, y, sq);
    // Newton came to the nucleus of a period dividing this one (its orbit at 0 early): no
    // minibrot of this period here, and no size to take the reciprocal of.
    if (mpfr_zero_p(zx) && mpfr_zero_p(zy)) {
      n.found = false;
      return n;
    }
    const ComplexExp z = to_complexexp(floatexp_of(zx), floatexp_of(zy));
    l = z * l;
    l.e += 1;
    b = b + reciprocal(l);
  }
  const ComplexExp bl2 = b * l * l;
  const FloatExp m = magnitude(bl2);
  // Near such a nucleus (its orbit all but 0 early) the estimate is past the whole set's size.
  if (!(m.m > 0 && std::isfinite(m.m))) {
    n.found = false;
    return n;
  }
  n.size = to_floatexp(1.0) / m;
  if (to_floatexp(4.0) < n.size) n.found = false;
  return n;
}

}  // namespace mp
