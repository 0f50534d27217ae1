// Finding a minibrot: the period of the nearest one by the ball method (the first n at which a
// disk of radius r about c, carried by the orbit and its derivative, covers 0), then its nucleus
// (z_p(c) = 0) by Newton's method, in MPFR at the view's precision. A reference orbit at a
// nucleus is periodic and never escapes: one reference serves a whole view around a minibrot.
#pragma once

#include <mpfr.h>

#include <atomic>
#include <optional>

#include "floatexp.h"
#include "perturbation.h"

namespace mp {

// The least n <= max_period at which |z_n| < radius |dz_n/dc| from c, if any, from c's orbit as
// the reference holds it (doubles: Z_0 = 0, Z_1 = c, ...), so no second pass in MPFR, which at
// thousands of bits costs more than the orbit did; right while the orbit's points are within
// double's range, which the test's |z| against radius |dz/dc| needs.
std::optional<unsigned> ball_period_of(RefOrbitView orbit, FloatExp radius, unsigned max_period);

struct Nucleus {
  bool found = false;
  unsigned period = 0;
  FloatExp size;  // the minibrot's size estimate: its width is about 4 times this
};

// Newton's method for z_p(c) = 0 from (x, y), updating them in place; found once a step moves c
// by less than `tolerance` (and not past `reach` from the start, where it would have left for
// another minibrot).
Nucleus newton_nucleus(mpfr_ptr x, mpfr_ptr y, unsigned period, int bits, FloatExp tolerance,
                       FloatExp reach, const std::atomic<bool>* cancel = nullptr);

}  // namespace mp
